#include "simpact/io/sensitivity_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "hdf5_attributes.hpp"  // private to io/ (not installed)
#include "simpact/io/safe_file.hpp"

namespace simpact {

namespace {

// Writes /sensitivity into an open file; every handle it opens is closed on return, so the
// file's close afterwards writes (and reports) everything.
void write_group(const std::string& path, hid_t root, const std::vector<SensitivityAxis>& axes,
                 const std::vector<std::string>& parameters, const std::vector<SensitivityOutput>& outputs) {
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
      h5::Dataset scale = h5::Dataset::create(location, axis.name, H5T_IEEE_F64LE,
                                              h5::Dataspace::simple({axis.values.size()}));
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
        if (!parameter_2)
          parameter_2.emplace(name_scale(g.id(), "parameter_2", "second analysed parameter (of S2)"));
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
}

void write_in_place(const std::string& path, const std::vector<SensitivityAxis>& axes,
                    const std::vector<std::string>& parameters,
                    const std::vector<SensitivityOutput>& outputs) {
  h5::File file = h5::File::open(path, true);
  write_group(path, file.id(), axes, parameters, outputs);
  file.close();
}

// Copies the open file `in` into the open, new file `out` (`to`).
void copy_into(int in, const std::string& from, int out, const std::string& to) {
  std::string error;
  std::vector<char> buffer(1 << 20);
  while (error.empty()) {
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = fmt::format("cannot read '{}': {}", from, std::strerror(errno));
    if (n <= 0) break;
    for (ssize_t done = 0; error.empty() && done < n;) {
      const ssize_t w = ::write(out, buffer.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) error = fmt::format("cannot write '{}': {}", to, std::strerror(errno));
      done += w > 0 ? w : 0;
    }
  }
  if (!error.empty()) throw IoError(error);
}

// The staged copy takes the original's owner (where this process may give it) and mode, and is
// synced to disk, before it is renamed over the original.
void finish_staged(const std::string& staged, const struct stat& original) {
  const int fd = ::open(staged.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw IoError(fmt::format("cannot open '{}': {}", staged, std::strerror(errno)));
  std::string error;
  if (::fchown(fd, original.st_uid, original.st_gid) != 0)
    (void)::fchown(fd, static_cast<uid_t>(-1), original.st_gid);  // not root: keep at least the group
  if (::fchmod(fd, original.st_mode & 07777) != 0)
    error = fmt::format("cannot set the mode of '{}': {}", staged, std::strerror(errno));
  else if (::fsync(fd) != 0)
    error = fmt::format("cannot sync '{}': {}", staged, std::strerror(errno));
  ::close(fd);
  if (!error.empty()) throw IoError(error);
}

std::string changed_message(const std::string& path) {
  return fmt::format(
      "'{}' changed while it was analysed (written or replaced by another program): not replacing it; "
      "run simpact analyze on it again",
      path);
}

}  // namespace

void write_sensitivity(const std::string& path, const std::vector<SensitivityAxis>& axes,
                       const std::vector<std::string>& parameters,
                       const std::vector<SensitivityOutput>& outputs, bool in_place,
                       const FileIdentity* read_as) {
  h5::silence_error_printing();
  if (in_place) {
    write_in_place(path, axes, parameters, outputs);
    return;
  }
  // A copy takes /sensitivity and replaces the file only when complete: a full disk or a kill
  // midway leaves the result as it was, never a file with a corrupt /sensitivity. A symbolic
  // link is written through: its target is replaced, in its own directory, and stays linked.
  std::error_code ec;
  const std::filesystem::path target = std::filesystem::canonical(path, ec);
  if (ec) throw IoError(fmt::format("cannot resolve '{}': {}", path, ec.message()));
  const std::string real = target.string();
  const std::string staged =
      (target.parent_path() /
       fmt::format(".{}.sensitivity-{}.tmp", target.filename().string(), static_cast<long>(::getpid())))
          .string();
  int in = ::open(real.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw IoError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  int out = -1;
  auto close_fd = [](int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  };
  try {
    struct stat original {};
    if (::fstat(in, &original) != 0)
      throw IoError(fmt::format("cannot stat '{}': {}", path, std::strerror(errno)));
    // The file copied is the one the indices were computed from (read_as), and it is still the
    // one at `path` when the copy replaces it: no file ever holds two runs' parts.
    const FileIdentity copied = file_identity(in, path);
    if (read_as != nullptr && copied != *read_as) throw IoError(changed_message(path));
    out = create_exclusive(staged, 0600);  // the owner's alone until it takes the original's mode
    try {
      copy_into(in, path, out, staged);
      close_fd(in);
      if (::close(out) != 0) {
        out = -1;
        throw IoError(fmt::format("cannot write '{}': {}", staged, std::strerror(errno)));
      }
      out = -1;
      write_in_place(staged, axes, parameters, outputs);
      finish_staged(staged, original);
      if (file_identity(real) != copied) throw IoError(changed_message(path));
      if (::rename(staged.c_str(), real.c_str()) != 0)
        throw IoError(fmt::format("cannot replace '{}': {}", path, std::strerror(errno)));
    } catch (...) {
      close_fd(out);
      ::unlink(staged.c_str());
      throw;
    }
  } catch (...) {
    close_fd(in);
    throw;
  }
  sync_parent_directory(real);
}

}  // namespace simpact
