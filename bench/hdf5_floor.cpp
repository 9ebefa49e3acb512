// hdf5_floor [DIR [MAPS [POINTS]]] — what HDF5 itself costs, in a fresh process, for the least
// file a small sweep could write: MAPS float64 maps of POINTS values (24 × 1 025: billiards_theta's
// maps), each with "units" and "long_name" and attached to one coordinate (a dimension scale, as
// xarray reads it), plus that coordinate. Plain HDF5 calls, no simpact code: the floor under
// simpact's own HDF5 time (`bash bench/hdf5_share.sh`). The same file is then written twice more in
// the same process, to separate HDF5's first-use cost (library start, first calls) from its
// per-file work. Prints milliseconds of wall time.
#include <hdf5.h>
#include <hdf5_hl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void string_attribute(hid_t object, const char* name, const char* value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, std::strlen(value) + 1);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attribute, type, value);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(type);
}

// One file: the coordinate, then the maps; false if HDF5 reported a failure.
bool write_file(const std::string& path, int maps, hsize_t points) {
  std::vector<double> values(points);
  for (hsize_t i = 0; i < points; ++i) values[i] = static_cast<double>(i) / static_cast<double>(points);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) return false;
  const hid_t space = H5Screate_simple(1, &points, nullptr);
  const hid_t axis =
      H5Dcreate2(file, "theta", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  bool ok = axis >= 0 &&
            H5Dwrite(axis, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0 &&
            H5DSset_scale(axis, "theta") >= 0;
  string_attribute(axis, "units", "rad");
  for (int m = 0; ok && m < maps; ++m) {
    const std::string name = "map_" + std::to_string(m);
    const hid_t map =
        H5Dcreate2(file, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok = map >= 0 && H5Dwrite(map, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
    string_attribute(map, "units", "1");
    string_attribute(map, "long_name", name.c_str());
    ok = ok && H5DSattach_scale(map, axis, 0) >= 0;
    H5Dclose(map);
  }
  H5Dclose(axis);
  H5Sclose(space);
  return H5Fclose(file) >= 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  const int maps = argc > 2 ? std::atoi(argv[2]) : 24;
  const hsize_t points = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1025;
  if (maps < 0 || points == 0) {
    std::fprintf(stderr, "hdf5_floor: MAPS must be >= 0 and POINTS > 0\n");
    return 2;
  }
  const std::string path = dir + "/hdf5_floor." + std::to_string(::getpid()) + ".h5";
  const auto t0 = Clock::now();
  H5open();
  const auto t1 = Clock::now();
  std::vector<double> files;
  auto last = t1;
  for (int k = 0; k < 3; ++k) {
    if (!write_file(path, maps, points)) {
      std::fprintf(stderr, "hdf5_floor: HDF5 failed writing %s\n", path.c_str());
      ::unlink(path.c_str());
      return 1;
    }
    const auto now = Clock::now();
    files.push_back(ms_between(last, now));
    last = now;
  }
  ::unlink(path.c_str());
  std::printf(
      "%d maps x %llu points: library start %.2f ms, first file %.2f ms (first use: %.2f ms in all), "
      "second %.2f ms, third %.2f ms\n",
      maps, static_cast<unsigned long long>(points), ms_between(t0, t1), files[0],
      ms_between(t0, t1) + files[0], files[1], files[2]);
  return 0;
}
