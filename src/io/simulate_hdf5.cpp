#include "simpact/io/simulate_hdf5.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "hdf5_attributes.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/text_io.hpp"

namespace simpact {

namespace {

template <class T>
h5::Dataset write_array(hid_t location, const std::string& name, const std::vector<T>& values,
                        const std::vector<hsize_t>& dims) {
  h5::Dataset d = h5::Dataset::create(location, name, h5::native_type<T>(), h5::Dataspace::simple(dims));
  if (!values.empty()) d.write(h5::native_type<T>(), values.data());
  return d;
}

template <class Item, class Get>
std::vector<double> rows(const std::vector<Item>& items, std::size_t width, Get get) {
  std::vector<double> out;
  out.reserve(items.size() * width);
  for (const Item& item : items) {
    const std::vector<double>& row = get(item);
    if (row.size() != width) throw IoError("simulate HDF5: a state has the wrong number of coordinates");
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

template <class Item, class Get>
std::vector<double> column(const std::vector<Item>& items, Get get) {
  std::vector<double> out;
  for (const Item& item : items) out.push_back(get(item));
  return out;
}

void write_units(hid_t object, const std::string& units, const std::string& long_name) {
  h5::write_string_attribute(object, "units", units);
  h5::write_string_attribute(object, "long_name", long_name);
}

h5::Dataset write_strings(hid_t location, const std::string& name, const std::vector<std::string>& values) {
  const h5::Datatype text = h5::Datatype::utf8_string();
  std::vector<const char*> data;
  for (const std::string& v : values) data.push_back(v.c_str());
  h5::Dataset d = h5::Dataset::create(location, name, text.id(), h5::Dataspace::simple({values.size()}));
  if (!data.empty()) d.write(text.id(), data.data());
  return d;
}

// An int64 dimension scale 0..n-1 named `name` (a netCDF dimension with its coordinate variable).
h5::Dataset index_scale(hid_t location, const std::string& name, hsize_t n, const std::string& long_name) {
  std::vector<std::int64_t> values(n);
  for (hsize_t i = 0; i < n; ++i) values[i] = static_cast<std::int64_t>(i);
  h5::Dataset d = write_array(location, name, values, {n});
  d.make_scale(name);
  write_units(d.id(), "1", long_name);
  return d;
}

// The units of q and p: one UDUNITS string when every coordinate has the same (else ""), and
// per coordinate.
struct CoordinateUnits {
  std::string q, p;
  std::vector<std::string> q_each, p_each;
};

CoordinateUnits coordinate_units(const SimulateReport& report) {
  CoordinateUnits u;
  for (std::size_t i = 0; i < report.coordinates.size(); ++i) {
    const std::string q = i < report.coordinate_units.size() ? report.coordinate_units[i] : "";
    u.q_each.push_back(q.empty() ? "unknown" : q);
    u.p_each.push_back(q == "rad" ? "kg m2 s-1" : q == "m" ? "kg m s-1" : "unknown");
  }
  const auto same = [](const std::vector<std::string>& v) {
    return !v.empty() && v.front() != "unknown" &&
           std::all_of(v.begin(), v.end(), [&](const auto& x) { return x == v.front(); });
  };
  if (same(u.q_each)) u.q = u.q_each.front();
  if (same(u.p_each)) u.p = u.p_each.front();
  return u;
}

// netCDF-4 / CF-1.8 layout (as the sweep files): every dimension has a dimension scale of its own
// name in the group that uses it (xarray opens one group at a time), `coordinates` names auxiliary
// coordinate variables, every variable has `units` and `long_name`.
void write_contents(const h5::File& file, const SimulateRequest& request, const SimulateReport& report) {
  const hid_t root = file.id();
  const std::size_t n = report.coordinates.size();
  const auto nr = static_cast<hsize_t>(report.records.size());
  const auto ni = static_cast<hsize_t>(report.impacts.size());
  const CoordinateUnits units = coordinate_units(report);
  h5::write_string_attribute(root, "format", "simpact-simulate");
  h5::write_string_attribute(root, "Conventions", "CF-1.8");
  h5::write_string_attribute(root, "model", request.model);
  h5::write_scalar_attribute<std::int64_t>(root, "dof", static_cast<std::int64_t>(n));
  h5::write_scalar_attribute<double>(root, "dt", request.dt);
  h5::write_scalar_attribute<std::int64_t>(root, "steps", request.steps);
  h5::write_string_attribute(root, "ordering", std::string(ordering_policy_name(request.policy)));
  h5::write_scalar_attribute<double>(root, "restitution", request.restitution);
  h5::write_scalar_attribute<double>(root, "max_energy_drift", report.max_energy_drift);
  h5::write_scalar_attribute<double>(root, "energy_initial", report.energy_initial);
  h5::write_scalar_attribute<double>(root, "energy_final", report.energy_final);
  h5::write_scalar_attribute<double>(root, "energy_residual", report.energy_residual);
  for (std::size_t i = 0; i < report.work.size(); ++i)
    h5::write_scalar_attribute<double>(root, "work_" + report.work_sources[i], report.work[i]);
  h5::write_scalar_attribute<double>(root, "newton_mean", report.newton_mean);
  h5::write_scalar_attribute<std::int64_t>(root, "newton_max", report.newton_max);
  h5::write_string_attribute(root, "status", "ok");
  // Not `coordinates`: CF reserves that name for a variable's auxiliary coordinate variables.
  h5::write_string_array_attribute(root, "coordinate_names", report.coordinates);
  h5::write_string_array_attribute(root, "coordinate_units", units.q_each);

  // The generalized coordinates as a string-valued dimension `coordinate`, with their units.
  auto coordinate_scale = [&](hid_t group) {
    h5::Dataset c = write_strings(group, "coordinate", report.coordinates);
    c.make_scale("coordinate");
    h5::write_string_attribute(c.id(), "long_name", "generalized coordinate");
    h5::Dataset qu = write_strings(group, "coordinate_units", units.q_each);
    h5::write_string_attribute(qu.id(), "long_name", "units of the generalized coordinate (UDUNITS)");
    qu.attach_scale(c, 0);
    return c;
  };
  auto state_units = [](h5::Dataset& d, const std::string& common, const std::vector<std::string>& each,
                        const std::string& long_name) {
    if (!common.empty()) {
      write_units(d.id(), common, long_name);
    } else {  // mixed m and rad: no single UDUNITS string
      std::string list;
      for (const std::string& u : each) list += (list.empty() ? "" : ", ") + u;
      h5::write_string_attribute(d.id(), "long_name", long_name);
      h5::write_string_attribute(d.id(), "units_per_coordinate", list);
      h5::write_string_attribute(d.id(), "comment",
                                 "units differ by coordinate (m or rad): see units_per_coordinate");
    }
  };

  // records
  const h5::Group records = h5::Group::create(root, "records");
  const hid_t r = records.id();
  const h5::Dataset record = index_scale(r, "record", nr, "recorded state index");
  const h5::Dataset rc = coordinate_scale(r);
  std::vector<std::int64_t> steps;
  for (const auto& s : report.records) steps.push_back(s.step);
  h5::Dataset step = write_array(r, "step", steps, {nr});
  write_units(step.id(), "1", "time step number of the recorded state");
  h5::Dataset t = write_array(r, "t", column(report.records, [](const auto& s) { return s.t; }), {nr});
  write_units(t.id(), "s", "time of the recorded state");
  h5::write_string_attribute(t.id(), "standard_name", "time");
  // On a group (ball, free joints) q has its own nq coordinates (quaternions as MuJoCo stores them).
  const bool group = !report.configuration.empty();
  const std::size_t nq = group ? report.configuration.size() : n;
  h5::Dataset q = write_array(r, "q",
                              rows(
                                  report.records, nq, [](const auto& s) -> const auto& { return s.q; }),
                              {nr, nq});
  if (group) {
    std::vector<std::string> each;
    for (const std::string& u : report.configuration_units) each.push_back(u.empty() ? "unknown" : u);
    state_units(q, "", each, "configuration coordinates (MuJoCo qpos: quaternions w x y z)");
  } else {
    state_units(q, units.q, units.q_each, "generalized coordinates");
  }
  h5::Dataset p = write_array(r, "p",
                              rows(
                                  report.records, n, [](const auto& s) -> const auto& { return s.p; }),
                              {nr, n});
  state_units(p, units.p, units.p_each, "conjugate momenta M(q) v");
  h5::Dataset energy =
      write_array(r, "energy", column(report.records, [](const auto& s) { return s.energy; }), {nr});
  write_units(energy.id(), "J", "total energy T + V");
  for (h5::Dataset* d : {&step, &t, &q, &p, &energy}) d->attach_scale(record, 0);
  if (group) {
    h5::Dataset c = write_strings(r, "configuration", report.configuration);
    c.make_scale("configuration");
    h5::write_string_attribute(c.id(), "long_name", "configuration coordinate (MuJoCo qpos)");
    q.attach_scale(c, 1);
    p.attach_scale(rc, 1);
  } else {
    for (h5::Dataset* d : {&q, &p}) d->attach_scale(rc, 1);
  }
  h5::write_string_attribute(energy.id(), "coordinates", "step t");
  h5::write_string_attribute(q.id(), "coordinates", group ? "step t" : "step t coordinate_units");
  h5::write_string_attribute(p.id(), "coordinates", "step t coordinate_units");

  // impacts
  const h5::Group impacts = h5::Group::create(root, "impacts");
  const hid_t g = impacts.id();
  std::vector<std::int64_t> impact_step, contacts_offsets{0}, sequence_offsets{0};
  std::vector<std::int32_t> contacts, sequence;
  std::vector<std::uint8_t> plastic, zeno;
  std::vector<std::string> status;
  for (const auto& i : report.impacts) {
    impact_step.push_back(i.step);
    contacts.insert(contacts.end(), i.contacts.begin(), i.contacts.end());
    sequence.insert(sequence.end(), i.sequence.begin(), i.sequence.end());
    contacts_offsets.push_back(static_cast<std::int64_t>(contacts.size()));
    sequence_offsets.push_back(static_cast<std::int64_t>(sequence.size()));
    plastic.push_back(i.plastic ? 1 : 0);
    zeno.push_back(i.zeno ? 1 : 0);
    status.push_back(i.status);
  }
  const h5::Dataset impact = index_scale(g, "impact", ni, "impact index");
  const h5::Dataset ic = coordinate_scale(g);
  const h5::Dataset bound = index_scale(g, "impact_bound", ni + 1, "offset index (impact i spans [i, i+1))");
  const h5::Dataset contact_entry =
      index_scale(g, "contact_entry", contacts.size(), "entry of the concatenated contact lists");
  const h5::Dataset sequence_entry =
      index_scale(g, "sequence_entry", sequence.size(), "entry of the concatenated propagation sequences");
  auto per_impact = [&](h5::Dataset d, const std::string& u, const std::string& long_name) {
    write_units(d.id(), u, long_name);
    d.attach_scale(impact, 0);
    if (d.space().rank() == 2) d.attach_scale(ic, 1);
    return d;
  };
  h5::Dataset istep = per_impact(write_array(g, "step", impact_step, {ni}), "1", "time step of the impact");
  h5::Dataset it =
      per_impact(write_array(g, "t", column(report.impacts, [](const auto& i) { return i.t; }), {ni}), "s",
                 "time of the impact");
  h5::write_string_attribute(it.id(), "standard_name", "time");
  std::vector<h5::Dataset> with_time;
  with_time.push_back(
      per_impact(write_array(g, "energy_before",
                             column(report.impacts, [](const auto& i) { return i.energy_before; }), {ni}),
                 "J", "energy just before the impact"));
  with_time.push_back(
      per_impact(write_array(g, "energy_after",
                             column(report.impacts, [](const auto& i) { return i.energy_after; }), {ni}),
                 "J", "energy just after the impact"));
  with_time.push_back(
      per_impact(write_array(g, "restitution",
                             column(report.impacts, [](const auto& i) { return i.restitution; }), {ni}),
                 "1", "coefficient of restitution applied"));
  with_time.push_back(
      per_impact(write_array(g, "plastic", plastic, {ni}), "1", "impact resolved plastic (1) or not (0)"));
  with_time.push_back(
      per_impact(write_array(g, "zeno", zeno, {ni}), "1", "impact resolved as Zeno chatter (1)"));
  std::vector<h5::Dataset> momenta;
  for (const char* which : {"before", "after"}) {
    const bool before = which[0] == 'b';
    h5::Dataset m = write_array(
        g, std::string("momentum_") + which,
        rows(
            report.impacts, n,
            [before](const auto& i) -> const auto& { return before ? i.momentum_before : i.momentum_after; }),
        {ni, n});
    if (!units.p.empty())
      write_units(m.id(), units.p, std::string("conjugate momenta ") + which + " the impact");
    else
      state_units(m, units.p, units.p_each, std::string("conjugate momenta ") + which + " the impact");
    m.attach_scale(impact, 0);
    m.attach_scale(ic, 1);
    h5::write_string_attribute(m.id(), "coordinates", "step t coordinate_units");
    momenta.push_back(std::move(m));
  }
  for (h5::Dataset& d : with_time) h5::write_string_attribute(d.id(), "coordinates", "step t");
  h5::Dataset c = write_array(g, "contacts", contacts, {contacts.size()});
  write_units(c.id(), "1", "contacts closing at the impacts (impact i: contacts_offsets[i] .. [i+1])");
  c.attach_scale(contact_entry, 0);
  h5::Dataset co = write_array(g, "contacts_offsets", contacts_offsets, {contacts_offsets.size()});
  write_units(co.id(), "1", "start of each impact's entries in contacts, and the end");
  co.attach_scale(bound, 0);
  h5::Dataset sq = write_array(g, "sequence", sequence, {sequence.size()});
  write_units(sq.id(), "1", "propagation sequences (impact i: sequence_offsets[i] .. [i+1])");
  sq.attach_scale(sequence_entry, 0);
  h5::Dataset so = write_array(g, "sequence_offsets", sequence_offsets, {sequence_offsets.size()});
  write_units(so.id(), "1", "start of each impact's entries in sequence, and the end");
  so.attach_scale(bound, 0);
  h5::Dataset st = write_strings(g, "impact_status", status);
  h5::write_string_attribute(st.id(), "long_name", "status of the impact resolution");
  st.attach_scale(impact, 0);
  h5::write_string_array_attribute(g, "status", status);
  h5::write_string_attribute(g, "policy", std::string(ordering_policy_name(request.policy)));
}

}  // namespace

void write_simulation_hdf5(const std::string& path, const SimulateRequest& request,
                           const SimulateReport& report) {
  if (const std::string why = check_result_output(path); !why.empty()) throw IoError(why);
  create_parent_directories(path, path);
  h5::silence_error_printing();
  // Same directory, so the rename is atomic. HDF5 creates the temporary with H5F_ACC_EXCL
  // (O_CREAT|O_EXCL): never through a planted link, never over someone else's file.
  const std::string tmp = fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid()));
  try {
    const h5::PropertyList access = h5::PropertyList::serial_file_access();
    h5::File file(h5::check_id(H5Fcreate(tmp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access.id()),
                               [&] { return fmt::format("cannot create '{}' (exclusively)", tmp); }));
    write_contents(file, request, report);
    h5::write_scalar_attribute<std::uint8_t>(file.id(), "complete", 1);  // last
    file.close();
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw IoError(
        fmt::format("cannot write '{}': rename from '{}' failed: {}", path, tmp, std::strerror(err)));
  }
  sync_parent_directory(path);
}

}  // namespace simpact
