// HDF5 attributes on a file, group or dataset, and the native HDF5 type of a C++ type
// (io-internal, like hdf5_handle.hpp). Failures throw IoError naming the attribute and object.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_handle.hpp"

namespace simpact::h5 {

// Attributes on a file, group or dataset. Writers replace an existing attribute of that name.
bool has_attribute(hid_t object, const std::string& name);
void write_string_attribute(hid_t object, const std::string& name, const std::string& value);
void write_string_array_attribute(hid_t object, const std::string& name,
                                  const std::vector<std::string>& values);
std::string read_string_attribute(hid_t object, const std::string& name);
std::vector<std::string> read_string_array_attribute(hid_t object, const std::string& name);

// Native HDF5 type of an arithmetic C++ type.
template <class T>
hid_t native_type();
template <>
inline hid_t native_type<double>() {
  return H5T_NATIVE_DOUBLE;
}
template <>
inline hid_t native_type<std::int32_t>() {
  return H5T_NATIVE_INT32;
}
template <>
inline hid_t native_type<std::int64_t>() {
  return H5T_NATIVE_INT64;
}
template <>
inline hid_t native_type<std::uint8_t>() {
  return H5T_NATIVE_UINT8;
}
template <>
inline hid_t native_type<std::uint64_t>() {
  return H5T_NATIVE_UINT64;
}

void write_scalar_attribute(hid_t object, const std::string& name, hid_t type, const void* value);
void read_scalar_attribute(hid_t object, const std::string& name, hid_t mem_type, void* value);

template <class T>
void write_scalar_attribute(hid_t object, const std::string& name, T value) {
  write_scalar_attribute(object, name, native_type<T>(), &value);
}
template <class T>
T read_scalar_attribute(hid_t object, const std::string& name) {
  T value{};
  read_scalar_attribute(object, name, native_type<T>(), &value);
  return value;
}

}  // namespace simpact::h5
