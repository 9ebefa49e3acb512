#include "simpact/io/simulate_hdf5.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "hdf5_attributes.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"

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

void write_contents(const h5::File& file, const SimulateRequest& request, const SimulateReport& report) {
  const hid_t root = file.id();
  const std::size_t n = report.coordinates.size();
  const auto nr = static_cast<hsize_t>(report.records.size());
  const auto ni = static_cast<hsize_t>(report.impacts.size());
  h5::write_string_attribute(root, "format", "simpact-simulate");
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
  h5::write_string_array_attribute(root, "coordinates", report.coordinates);

  // records
  const h5::Group records = h5::Group::create(root, "records");
  std::vector<std::int64_t> steps;
  for (const auto& s : report.records) steps.push_back(s.step);
  h5::Dataset step = write_array(records.id(), "step", steps, {nr});
  h5::Dataset t =
      write_array(records.id(), "t", column(report.records, [](const auto& s) { return s.t; }), {nr});
  step.make_scale("step");
  t.make_scale("t");
  auto attach = [&](h5::Dataset& d) {
    d.attach_scale(step, 0);
    d.attach_scale(t, 0);
  };
  h5::Dataset q = write_array(records.id(), "q",
                              rows(
                                  report.records, n, [](const auto& s) -> const auto& { return s.q; }),
                              {nr, n});
  h5::Dataset p = write_array(records.id(), "p",
                              rows(
                                  report.records, n, [](const auto& s) -> const auto& { return s.p; }),
                              {nr, n});
  h5::Dataset energy = write_array(records.id(), "energy",
                                   column(report.records, [](const auto& s) { return s.energy; }), {nr});
  for (h5::Dataset* d : {&q, &p, &energy}) attach(*d);
  h5::write_string_array_attribute(q.id(), "coordinates", report.coordinates);
  h5::write_string_array_attribute(p.id(), "coordinates", report.coordinates);

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
  write_array(g, "step", impact_step, {ni});
  write_array(g, "t", column(report.impacts, [](const auto& i) { return i.t; }), {ni});
  write_array(g, "energy_before", column(report.impacts, [](const auto& i) { return i.energy_before; }),
              {ni});
  write_array(g, "energy_after", column(report.impacts, [](const auto& i) { return i.energy_after; }), {ni});
  write_array(g, "restitution", column(report.impacts, [](const auto& i) { return i.restitution; }), {ni});
  write_array(g, "plastic", plastic, {ni});
  write_array(g, "zeno", zeno, {ni});
  write_array(g, "momentum_before",
              rows(
                  report.impacts, n, [](const auto& i) -> const auto& { return i.momentum_before; }),
              {ni, n});
  write_array(g, "momentum_after",
              rows(
                  report.impacts, n, [](const auto& i) -> const auto& { return i.momentum_after; }),
              {ni, n});
  write_array(g, "contacts", contacts, {contacts.size()});
  write_array(g, "contacts_offsets", contacts_offsets, {contacts_offsets.size()});
  write_array(g, "sequence", sequence, {sequence.size()});
  write_array(g, "sequence_offsets", sequence_offsets, {sequence_offsets.size()});
  h5::write_string_array_attribute(g, "status", status);
  h5::write_string_attribute(g, "policy", std::string(ordering_policy_name(request.policy)));
}

}  // namespace

void write_simulation_hdf5(const std::string& path, const SimulateRequest& request,
                           const SimulateReport& report) {
  if (const std::string why = check_result_output(path); !why.empty()) throw IoError(why);
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
