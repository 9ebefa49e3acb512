#include "simpact/io/design_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "json_reading.hpp"

namespace simpact {

namespace {

using detail::ErrorList;
using detail::Json;
using detail::Names;
using OrderedJson = nlohmann::ordered_json;

const Names kKeys = {"_comment",
                     "model",
                     "foot",
                     "configuration",
                     "design",
                     "place",
                     "free",
                     "cosine_tolerance",
                     "gap_tolerance",
                     "length_scale",
                     "max_iterations",
                     "mechanism",
                     "params",
                     "dihedral_m",
                     "max_place_change"};
const Names kBoundKeys = {"min", "max", "scale"};

void check_keys(const Json& obj, const Names& allowed, const std::string& prefix) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!detail::contains(allowed, it.key()))
      throw InputError(prefix + detail::printable(it.key()),
                       "unknown field (allowed: " + detail::join(allowed) + ")");
}

void require_object(const Json& j, const std::string& field) {
  if (!j.is_object()) throw InputError(field, fmt::format("must be an object, not {}", j.type_name()));
}

NamedValues read_named_values(const Json& j, const std::string& field, ErrorList& errors) {
  NamedValues out;
  if (!errors.attempt([&] { require_object(j, field); })) return out;
  for (auto it = j.begin(); it != j.end(); ++it)
    errors.attempt(
        [&] { out.emplace_back(it.key(), detail::read_number(it.value(), field + "." + it.key())); });
  return out;
}

double positive(const Json& j, const std::string& field) {
  const double v = detail::read_number(j, field);
  if (!(v > 0.0)) throw InputError(field, fmt::format("{} must be > 0", v));
  return v;
}

OrderedJson named(const NamedValues& values) {
  OrderedJson out = OrderedJson::object();
  for (const auto& [name, v] : values) out[name] = std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr);
  return out;
}

OrderedJson number_or_null(double v) {
  return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr);
}

}  // namespace

DesignRequest parse_design_request(const std::string& json_text, const std::string& base_dir) {
  const Json doc = detail::parse_document(json_text);
  require_object(doc, "request");
  ErrorList errors;
  DesignRequest r;
  errors.attempt([&] { check_keys(doc, kKeys, ""); });
  errors.attempt([&] {
    if (doc.contains("mechanism")) {
      if (doc.contains("model")) throw InputError("model", "give 'model' or 'mechanism', not both");
      const Json& m = doc.at("mechanism");
      require_object(m, "mechanism");
      check_keys(m, {"file", "contacts"}, "mechanism.");
      DesignMechanism mechanism;
      if (!m.contains("file")) throw InputError("mechanism.file", "required: an MJCF or URDF file");
      mechanism.file = detail::read_string(m.at("file"), "mechanism.file");
      if (mechanism.file.empty()) throw InputError("mechanism.file", "required: an MJCF or URDF file");
      if (!base_dir.empty() && mechanism.file.front() != '/')
        mechanism.file = base_dir + "/" + mechanism.file;
      const Json* contacts = m.contains("contacts") ? &m.at("contacts") : nullptr;
      if (!contacts || !contacts->is_array() || contacts->size() != 2)
        throw InputError("mechanism.contacts",
                         "must be two [geom_a, geom_b] pairs: the contacts whose normals "
                         "are designed");
      for (std::size_t c = 0; c < 2; ++c) {
        const std::string field = detail::index_field("mechanism.contacts", c);
        const Json& pair = contacts->at(c);
        if (!pair.is_array() || pair.size() != 2) throw InputError(field, "must be a pair [geom_a, geom_b]");
        mechanism.contacts.emplace_back(detail::read_string(pair[0], detail::index_field(field, 0)),
                                        detail::read_string(pair[1], detail::index_field(field, 1)));
      }
      r.model = mechanism.file;
      r.mechanism = mechanism;
      return;
    }
    if (!doc.contains("model"))
      throw InputError("model", "required (allowed: trex; or a \"mechanism\" file)");
    r.model = detail::read_string(doc.at("model"), "model");
  });
  if (doc.contains("params")) r.params = read_named_values(doc.at("params"), "params", errors);
  if (doc.contains("dihedral_m"))
    errors.attempt([&] {
      const double m = detail::read_number(doc.at("dihedral_m"), "dihedral_m");
      if (!(m >= 2 && m <= 1000 && m == std::floor(m)))
        throw InputError("dihedral_m", fmt::format("must be an integer in [2, 1000] (got {})", m));
      r.dihedral_m = static_cast<int>(m);
    });
  if (doc.contains("foot"))
    errors.attempt([&] {
      r.foot = detail::read_string(doc.at("foot"), "foot");
      if (r.foot != "left" && r.foot != "right")
        throw InputError(
            "foot", fmt::format("'{}' is not allowed (allowed: left, right)", detail::printable(r.foot)));
    });
  if (doc.contains("configuration"))
    r.configuration = read_named_values(doc.at("configuration"), "configuration", errors);
  if (doc.contains("design")) r.design = read_named_values(doc.at("design"), "design", errors);
  if (doc.contains("place"))
    errors.attempt([&] {
      const Json& p = doc.at("place");
      if (!p.is_array())
        throw InputError("place", fmt::format("must be an array of names, not {}", p.type_name()));
      r.place.emplace();
      for (std::size_t i = 0; i < p.size(); ++i)
        r.place->push_back(detail::read_string(p[i], detail::index_field("place", i)));
    });
  if (doc.contains("free"))
    errors.attempt([&] {
      const Json& f = doc.at("free");
      require_object(f, "free");
      r.free.emplace();
      for (auto it = f.begin(); it != f.end(); ++it) {
        const std::string field = "free." + detail::printable(it.key());
        DesignFreeVariable v{it.key(), {}, {}, {}};
        errors.attempt([&] {
          require_object(it.value(), field);
          check_keys(it.value(), kBoundKeys, field + ".");
          if (it.value().contains("min")) v.min = detail::read_number(it.value().at("min"), field + ".min");
          if (it.value().contains("max")) v.max = detail::read_number(it.value().at("max"), field + ".max");
          if (it.value().contains("scale")) v.scale = positive(it.value().at("scale"), field + ".scale");
          if (v.min && v.max && *v.min > *v.max)
            throw InputError(field, fmt::format("min {} is above max {}", *v.min, *v.max));
        });
        r.free->push_back(v);
      }
    });
  if (doc.contains("cosine_tolerance"))
    errors.attempt([&] { r.cosine_tolerance = positive(doc.at("cosine_tolerance"), "cosine_tolerance"); });
  if (doc.contains("gap_tolerance"))
    errors.attempt([&] { r.gap_tolerance = positive(doc.at("gap_tolerance"), "gap_tolerance"); });
  if (doc.contains("length_scale"))
    errors.attempt([&] { r.length_scale = positive(doc.at("length_scale"), "length_scale"); });
  if (doc.contains("max_place_change"))
    errors.attempt([&] { r.max_place_change = positive(doc.at("max_place_change"), "max_place_change"); });
  if (doc.contains("max_iterations"))
    errors.attempt([&] {
      r.max_iterations =
          static_cast<int>(detail::read_integer(doc.at("max_iterations"), "max_iterations", 1, 100000));
    });
  errors.raise();
  return r;
}

std::string design_to_json(const DesignReport& report, int indent) {
  OrderedJson out;
  out["model"] = report.model;
  out["foot"] = report.foot.empty() ? OrderedJson(nullptr) : OrderedJson(report.foot);  // TREX only
  out["status"] = report.rows.empty() ? "" : report.rows.back().status;
  out["iterations"] = report.rows.empty() ? 0 : report.rows.back().iterations;
  out["at_bound"] = report.at_bound;
  if (!report.placed_qpos.empty()) out["placed_qpos"] = named(report.placed_qpos);
  if (report.placement) {
    const DesignPlacement& p = *report.placement;
    OrderedJson coordinates = OrderedJson::object();
    for (const DesignPlacedCoordinate& c : p.coordinates)
      coordinates[c.name] = {{"start", number_or_null(c.start)},
                             {"initial", number_or_null(c.initial)},
                             {"optimized", number_or_null(c.optimized)},
                             {"units", c.units}};
    out["placement"] = {
        {"coordinates", coordinates},
        {"max_angle_change", number_or_null(p.max_angle_change)},
        {"max_angle_coordinate",
         p.max_angle_coordinate.empty() ? OrderedJson(nullptr) : OrderedJson(p.max_angle_coordinate)},
        {"max_place_change", p.max_place_change},
        {"far", p.far}};
  }
  OrderedJson rows = OrderedJson::array();
  for (const DesignRow& row : report.rows) {
    OrderedJson j;
    j["name"] = row.name;
    j["status"] = row.status;
    j["iterations"] = row.iterations;
    j["configuration"] = named(row.configuration);
    j["design"] = named(row.design);
    j["tail_length"] = number_or_null(row.tail_length);
    j["metric_product"] = number_or_null(row.metric_product);
    j["normalized_product"] = number_or_null(row.normalized_product);
    j["gaps"] = named(row.gaps);
    OrderedJson points = OrderedJson::object();
    for (const auto& [name, p] : row.points) points[name] = {p[0], p[1]};
    j["points"] = points;
    rows.push_back(j);
  }
  out["rows"] = rows;
  return out.dump(indent < 0 ? -1 : indent) + "\n";
}

namespace {
// A mechanism file's rows: every variable by its parameter name, in SI units as given.
std::string mechanism_table_text(const DesignReport& report) {
  std::vector<std::size_t> widths;
  std::string head = fmt::format("{:<10}", "System");
  const DesignRow& first = report.rows.front();
  NamedValues columns = first.configuration;
  columns.insert(columns.end(), first.design.begin(), first.design.end());
  for (const auto& [name, v] : columns) {
    widths.push_back(std::max<std::size_t>(name.size() + 2, 10));
    head += fmt::format("{:>{}}", name, widths.back());
  }
  std::string out = head + fmt::format("{:>13}{:>11}\n", "<u,v>_g norm", "max|gap|");
  for (const DesignRow& row : report.rows) {
    out += fmt::format("{:<10}", row.name);
    NamedValues values = row.configuration;
    values.insert(values.end(), row.design.begin(), row.design.end());
    for (std::size_t i = 0; i < values.size() && i < widths.size(); ++i)
      out += fmt::format("{:>{}.6f}", values[i].second, widths[i]);
    double gap = 0.0;
    for (const auto& [name, v] : row.gaps) gap = std::max(gap, std::abs(v));
    out += fmt::format("{:>13.3e}{:>11.1e}  {} ({} iterations)\n", row.normalized_product, gap, row.status,
                       row.iterations);
  }
  return out + "(SI units: m, rad, kg; gaps in m)\n";
}
}  // namespace

std::string design_table_text(const DesignReport& report) {
  if (report.rows.empty()) return "";
  if (report.foot.empty()) return mechanism_table_text(report);
  std::string head = fmt::format("{:<10}", "System");
  std::string units = fmt::format("{:<10}", "");
  const DesignRow& first = report.rows.front();
  auto is_length = [](const std::string& name) { return name == "x" || name == "y"; };
  for (const auto& [name, v] : first.configuration) {
    head += fmt::format("{:>9}", name);
    units += fmt::format("{:>9}", is_length(name) ? "(cm)" : "(rad)");
  }
  for (const auto& [name, v] : first.design) {
    head += fmt::format("{:>8}", name);
    units += fmt::format("{:>8}", "(cm)");
  }
  head += fmt::format("{:>13}{:>11}\n", "<u,v>_g norm", "max|gap|");
  units += fmt::format("{:>13}{:>11}\n", "", "(m)");
  std::string out = head + units;
  for (const DesignRow& row : report.rows) {
    out += fmt::format("{:<10}", row.name);
    for (const auto& [name, v] : row.configuration)
      out += fmt::format("{:>9.4f}", is_length(name) ? 100.0 * v : v);
    for (const auto& [name, v] : row.design) out += fmt::format("{:>8.3f}", 100.0 * v);
    double gap = 0.0;
    for (const auto& [name, v] : row.gaps) gap = std::max(gap, std::abs(v));
    out += fmt::format("{:>13.3e}{:>11.1e}  {} ({} iterations)\n", row.normalized_product, gap, row.status,
                       row.iterations);
  }
  return out;
}

}  // namespace simpact
