#include "simpact/io/sensitivity_file.hpp"

#include <algorithm>
#include <optional>

#include "hdf5_attributes.hpp"

namespace simpact {

void write_sensitivity(const std::string& path, const std::vector<SensitivityAxis>& axes,
                       const std::vector<std::string>& parameters,
                       const std::vector<SensitivityOutput>& outputs) {
  h5::silence_error_printing();
  h5::File file = h5::File::open(path, true);
  const hid_t root = file.id();
  if (h5::link_exists(root, "sensitivity"))
    h5::check_status(H5Ldelete(root, "sensitivity", H5P_DEFAULT),
                     [&] { return "cannot replace /sensitivity in " + path; });
  h5::Group group = h5::Group::create(root, "sensitivity");
  h5::write_string_attribute(group.id(), "long_name", "sensitivity indices (simpact analyze)");
  std::vector<hsize_t> shape;
  for (const auto& axis : axes) shape.push_back(axis.values.size());
  const h5::Datatype text = h5::Datatype::utf8_string();
  std::vector<const char*> names;
  for (const auto& p : parameters) names.push_back(p.c_str());
  // The grid axes and the parameter names as dimension scales of `location`: in /sensitivity and
  // again in every output group, since xarray opens one group at a time and takes coordinates
  // from that group only (to_dataframe() is then indexed by the parameter names).
  auto axis_scales = [&](hid_t location) {
    std::vector<h5::Dataset> scales;
    for (const auto& axis : axes) {
      h5::Dataset scale =
          h5::Dataset::create(location, axis.name, H5T_IEEE_F64LE, h5::Dataspace::simple({axis.values.size()}));
      scale.write(H5T_NATIVE_DOUBLE, axis.values.data());
      scale.make_scale(axis.name);
      h5::write_string_attribute(scale.id(), "units", axis.units);
      h5::write_string_attribute(scale.id(), "long_name", axis.long_name);
      scales.push_back(std::move(scale));
    }
    return scales;
  };
  auto name_scale = [&](hid_t location, const std::string& name, const std::string& long_name) {
    h5::Dataset scale = h5::Dataset::create(location, name, text.id(), h5::Dataspace::simple({names.size()}));
    scale.write(text.id(), names.data());
    scale.make_scale(name);
    h5::write_string_attribute(scale.id(), "long_name", long_name);
    return scale;
  };
  axis_scales(group.id());
  name_scale(group.id(), "parameter", "analysed parameter");
  const bool pairwise = std::any_of(outputs.begin(), outputs.end(), [](const SensitivityOutput& o) {
    return std::any_of(o.indices.begin(), o.indices.end(), [](const auto& i) { return i.pairwise; });
  });
  if (pairwise) name_scale(group.id(), "parameter_2", "second analysed parameter (of S2)");
  for (const auto& out : outputs) {
    h5::Group g = h5::Group::create(group.id(), out.name);
    for (const auto& [k, v] : out.string_attributes) h5::write_string_attribute(g.id(), k, v);
    for (const auto& [k, v] : out.integer_attributes) h5::write_scalar_attribute<std::int64_t>(g.id(), k, v);
    for (const auto& [k, v] : out.double_attributes) h5::write_scalar_attribute<double>(g.id(), k, v);
    const std::vector<h5::Dataset> scales = axis_scales(g.id());
    const h5::Dataset parameter = name_scale(g.id(), "parameter", "analysed parameter");
    std::optional<h5::Dataset> parameter_2;
    for (const auto& index : out.indices) {
      std::vector<hsize_t> dims = shape;
      dims.push_back(parameters.size());
      if (index.pairwise) {
        dims.push_back(parameters.size());
        if (!parameter_2) parameter_2.emplace(name_scale(g.id(), "parameter_2", "second analysed parameter (of S2)"));
      }
      h5::Dataset d = h5::Dataset::create(g.id(), index.name, H5T_IEEE_F64LE, h5::Dataspace::simple(dims));
      d.write(H5T_NATIVE_DOUBLE, index.values.data());
      h5::write_string_attribute(d.id(), "long_name", index.long_name);
      h5::write_string_attribute(d.id(), "units", index.units);
      for (std::size_t a = 0; a < scales.size(); ++a) d.attach_scale(scales[a], static_cast<unsigned>(a));
      d.attach_scale(parameter, static_cast<unsigned>(scales.size()));
      if (index.pairwise) d.attach_scale(*parameter_2, static_cast<unsigned>(scales.size() + 1));
    }
  }
  group.reset();
  file.close();
}

}  // namespace simpact
