// check_finite_numbers: the numbers of an MJCF/URDF file's geometry and inertia attributes must be
// finite before MuJoCo reads them (mujoco_mechanism_internals.hpp says why).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "mujoco_mechanism_internals.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {

// The attributes that give a body's or geom's mass, size, placement or inertia: MJCF's, and
// URDF's (<mass value>, <origin xyz rpy>, <box size>, <sphere radius>, <inertia ixx ...>).
bool numeric_attribute(const std::string& element, const std::string& attribute) {
  static const std::set<std::string> kAttributes = {
      "mass",   "size", "pos",     "quat",        "axisangle",   "euler", "xyaxes", "zaxis",
      "fromto", "axis", "density", "diaginertia", "fullinertia", "xyz",   "rpy",    "radius",
      "length", "ixx",  "ixy",     "ixz",         "iyy",         "iyz",   "izz"};
  return kAttributes.count(attribute) != 0 || (element == "mass" && attribute == "value");
}

// The first token of `value` that reads as a number but not a finite one ("nan", "inf", "1e999"),
// or "" when there is none.
std::string non_finite_token(const std::string& value) {
  std::istringstream tokens(value);
  std::string token;
  while (tokens >> token) {
    const char* begin = token.c_str();
    char* end = nullptr;
    const double x = std::strtod(begin, &end);
    if (end != begin && *end == '\0' && !std::isfinite(x)) return token;
  }
  return "";
}

std::string read_file(const std::string& path, const std::string& field) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(field, fmt::format("cannot read '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Open {
  std::string element, name;
};

// What to call the element in a message: "geom 'foot'", "inertial of body 'leg'", "unnamed geom".
std::string describe(const std::string& element, const std::string& name, const std::vector<Open>& open) {
  if (!name.empty()) return fmt::format("{} '{}'", element, name);
  for (auto it = open.rbegin(); it != open.rend(); ++it)
    if (!it->name.empty()) return fmt::format("{} of {} '{}'", element, it->element, it->name);
  return "unnamed " + element;
}

}  // namespace

void check_finite_numbers(const std::string& file, const std::string& field) {
  std::string text = read_file(file, field);
  // Comments blanked (their line breaks kept, so lines still count right).
  for (auto at = text.find("<!--"); at != std::string::npos; at = text.find("<!--", at)) {
    const auto end = std::min(text.find("-->", at), text.size() - 3) + 3;
    std::replace_if(
        text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(end),
        [](char c) { return c != '\n'; }, ' ');
  }
  static const std::regex kTag(R"re(<\s*(/?)\s*([A-Za-z_][\w.:-]*)([^>]*)>)re");
  static const std::regex kAttribute(R"re(([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'))re");
  std::vector<Open> open;
  for (auto t = std::sregex_iterator(text.begin(), text.end(), kTag); t != std::sregex_iterator(); ++t) {
    const std::string element = (*t)[2], attributes = (*t)[3];
    if ((*t)[1].length() > 0) {  // a closing tag
      const auto it =
          std::find_if(open.rbegin(), open.rend(), [&](const Open& o) { return o.element == element; });
      if (it != open.rend()) open.erase(std::next(it).base(), open.end());
      continue;
    }
    std::string name, bad_attribute, bad_value;
    for (auto a = std::sregex_iterator(attributes.begin(), attributes.end(), kAttribute);
         a != std::sregex_iterator(); ++a) {
      const std::string key = (*a)[1], value = (*a)[2].matched ? (*a)[2].str() : (*a)[3].str();
      if (key == "name") name = value;
      if (bad_attribute.empty() && numeric_attribute(element, key)) {
        if (!non_finite_token(value).empty()) bad_attribute = key, bad_value = value;
      }
    }
    if (!bad_attribute.empty()) {
      const auto line = 1 + std::count(text.begin(), text.begin() + t->position(0), '\n');
      throw InputError(
          field, fmt::format("'{}' line {}: {}: {}=\"{}\" is not finite (masses, sizes and positions must be "
                             "finite numbers)",
                             file, line, describe(element, name, open), bad_attribute, bad_value));
    }
    if (attributes.empty() || attributes.back() != '/') open.push_back({element, name});
  }
}

}  // namespace simpact
