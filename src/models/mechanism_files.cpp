#include "simpact/models/mechanism_files.hpp"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {

namespace fs = std::filesystem;

// An MJCF or URDF element: its name and attributes. A scanner, not a parser: MuJoCo parses the
// file itself right after; here only the names of the files it will open are needed.
struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
};

std::string decode_entities(std::string s) {
  static const std::pair<const char*, const char*> kEntities[] = {
      {"&quot;", "\""}, {"&apos;", "'"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}};
  for (const auto& [from, to] : kEntities)
    for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + 1))
      s.replace(at, std::strlen(from), to);
  return s;
}

std::vector<Element> elements_of(std::string text) {
  for (auto at = text.find("<!--"); at != std::string::npos; at = text.find("<!--", at)) {
    const auto end = text.find("-->", at);
    text.erase(at, end == std::string::npos ? std::string::npos : end + 3 - at);
  }
  static const std::regex kTag(R"re(<\s*([A-Za-z_][\w.:-]*)([^>]*)>)re");
  static const std::regex kAttribute(R"re(([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'))re");
  std::vector<Element> out;
  for (auto t = std::sregex_iterator(text.begin(), text.end(), kTag); t != std::sregex_iterator(); ++t) {
    Element e;
    e.name = (*t)[1];
    const std::string attributes = (*t)[2];
    for (auto a = std::sregex_iterator(attributes.begin(), attributes.end(), kAttribute);
         a != std::sregex_iterator(); ++a)
      e.attributes[(*a)[1]] = decode_entities((*a)[2].matched ? (*a)[2].str() : (*a)[3].str());
    out.push_back(std::move(e));
  }
  return out;
}

// Refuses a path that exists but is not a regular file, before anything opens it.
bool usable(const fs::path& path, const std::string& field, const std::string& role) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || status.type() == fs::file_type::not_found) return false;
  if (status.type() != fs::file_type::regular)
    throw InputError(
        field, fmt::format("{} '{}' is not a regular file ({}): refusing to read it", role, path.string(),
                           status.type() == fs::file_type::fifo        ? "a FIFO"
                           : status.type() == fs::file_type::directory ? "a folder"
                                                                       : "a device or socket"));
  return true;
}

std::string read_text(const fs::path& path, const std::string& field) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(field, fmt::format("cannot read '{}'", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Scanner {
  std::string field;
  fs::path model_dir;
  std::vector<MechanismFileReference> found;
  std::set<std::string> seen;
  std::vector<Element> elements;  // of the model file and every include, in document order

  void add(const std::string& role, const fs::path& path) {
    const std::string p = path.lexically_normal().string();
    if (seen.insert(p).second) found.push_back({role, p});
  }

  // The model file and its includes, recursively (relative to the model's folder, as MuJoCo 2.2
  // resolves them; the including file's folder as a second guess).
  void read_document(const fs::path& path, const std::string& role, int depth) {
    if (depth > 64)
      throw InputError(field, fmt::format("'{}': includes nested deeper than 64", path.string()));
    add(role, path);
    for (Element& e : elements_of(read_text(path, field))) {
      if (e.name == "include" && e.attributes.count("file") != 0) {
        const fs::path file = e.attributes["file"];
        for (const fs::path& candidate : {model_dir / file, path.parent_path() / file})
          if (usable(candidate, field, "included file")) {
            if (seen.count(candidate.lexically_normal().string()) == 0)
              read_document(candidate, "include", depth + 1);
            break;
          }
        continue;
      }
      elements.push_back(std::move(e));
    }
  }

  void scan_assets(bool urdf) {
    std::string meshdir, texturedir, assetdir;
    bool strippath = urdf;  // MuJoCo's default: URDF paths are stripped to the file name
    for (const Element& e : elements)
      if (e.name == "compiler") {
        const auto get = [&](const char* key, std::string& into) {
          if (const auto it = e.attributes.find(key); it != e.attributes.end()) into = it->second;
        };
        get("meshdir", meshdir);
        get("texturedir", texturedir);
        get("assetdir", assetdir);
        if (const auto it = e.attributes.find("strippath"); it != e.attributes.end())
          strippath = it->second == "true";
      }
    if (meshdir.empty()) meshdir = assetdir;
    if (texturedir.empty()) texturedir = assetdir;
    const auto resolve = [&](const std::string& role, std::string file,
                             const std::vector<std::string>& dirs) {
      if (file.empty()) return;
      if (strippath) file = fs::path(file).filename().string();
      if (fs::path(file).is_absolute()) {
        if (usable(file, field, role)) add(role, file);
        return;
      }
      for (const std::string& dir : dirs) {
        const fs::path base = dir.empty()                   ? model_dir
                              : fs::path(dir).is_absolute() ? fs::path(dir)
                                                            : model_dir / dir;
        if (usable(base / file, field, role)) return add(role, base / file);
      }
    };
    static const char* kTextureFiles[] = {"file",     "fileright", "fileleft", "fileup",
                                          "filedown", "filefront", "fileback"};
    for (const Element& e : elements) {
      const auto attribute = [&](const char* key) {
        const auto it = e.attributes.find(key);
        return it == e.attributes.end() ? std::string() : it->second;
      };
      if (urdf && e.name == "mesh")
        resolve("mesh", attribute("filename"), {meshdir, ""});
      else if (!urdf && (e.name == "mesh" || e.name == "skin"))
        resolve(e.name, attribute("file"), {meshdir, ""});
      else if (!urdf && e.name == "hfield")
        resolve("hfield", attribute("file"), {meshdir, texturedir, ""});
      else if (!urdf && e.name == "texture")
        for (const char* key : kTextureFiles) resolve("texture", attribute(key), {texturedir, ""});
    }
  }
};

}  // namespace

std::vector<MechanismFileReference> mechanism_file_references(const std::string& file,
                                                              const std::string& field) {
  Scanner scanner{field, fs::path(file).parent_path(), {}, {}, {}};
  if (!usable(file, field, "mechanism file")) return {};  // MuJoCo's load says why
  scanner.read_document(file, "mechanism_file", 0);
  bool urdf = false;
  for (const Element& e : scanner.elements) {
    if (e.name == "?xml") continue;
    urdf = e.name == "robot";
    break;
  }
  scanner.scan_assets(urdf);
  return scanner.found;
}

}  // namespace simpact
