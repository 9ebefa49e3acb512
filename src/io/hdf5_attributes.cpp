#include "hdf5_attributes.hpp"

namespace simpact::h5 {

namespace {

std::string attribute_name(hid_t object, const std::string& name) {
  return "attribute '" + name + "' of " + describe(object);
}

Attribute open_attribute(hid_t object, const std::string& name) {
  return Attribute(check_id(H5Aopen(object, name.c_str(), H5P_DEFAULT),
                            [&] { return "cannot open " + attribute_name(object, name); }));
}

// Deletes `name` if present, then creates it afresh (type or shape may change).
Attribute recreate_attribute(hid_t object, const std::string& name, hid_t type, const Dataspace& space) {
  if (has_attribute(object, name)) {
    check_status(H5Adelete(object, name.c_str()),
                 [&] { return "cannot replace " + attribute_name(object, name); });
  }
  return Attribute(check_id(H5Acreate2(object, name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT),
                            [&] { return "cannot create " + attribute_name(object, name); }));
}

Dataspace attribute_space(const Attribute& attribute) {
  return Dataspace(
      check_id(H5Aget_space(attribute.id()), [] { return std::string("cannot get attribute dataspace"); }));
}

// Reads string attribute data of either string flavour: variable length (what we and h5py
// write) or fixed length (what H5DS and many C tools write).
std::vector<std::string> read_strings(hid_t object, const std::string& name) {
  const Attribute attribute = open_attribute(object, name);
  const Datatype file_type(check_id(H5Aget_type(attribute.id()),
                                    [&] { return "cannot get type of " + attribute_name(object, name); }));
  if (file_type.type_class() != H5T_STRING) {
    throw IoError(attribute_name(object, name) + " is not a string");
  }
  const hsize_t n = attribute_space(attribute).element_count();
  std::vector<std::string> values;
  values.reserve(n);
  const auto what = [&] { return "cannot read " + attribute_name(object, name); };
  if (n == 0) return values;  // HDF5 rejects a null buffer
  if (H5Tis_variable_str(file_type.id()) > 0) {
    const Datatype mem_type = Datatype::utf8_string();
    std::vector<char*> raw(n, nullptr);
    check_status(H5Aread(attribute.id(), mem_type.id(), raw.data()), what);
    for (char* s : raw) {
      values.emplace_back(s != nullptr ? s : "");
      H5free_memory(s);
    }
  } else {
    const std::size_t size = H5Tget_size(file_type.id());
    const Datatype mem_type = Datatype::copy(file_type.id());
    std::vector<char> raw(n * size);
    check_status(H5Aread(attribute.id(), mem_type.id(), raw.data()), what);
    for (hsize_t i = 0; i < n; ++i) {
      const char* s = raw.data() + i * size;
      std::size_t length = 0;
      while (length < size && s[length] != '\0') ++length;  // null-terminated or -padded
      values.emplace_back(s, length);
    }
  }
  return values;
}

}  // namespace

bool has_attribute(hid_t object, const std::string& name) {
  return check_status(H5Aexists(object, name.c_str()),
                      [&] { return "cannot look up " + attribute_name(object, name); });
}

void write_string_attribute(hid_t object, const std::string& name, const std::string& value) {
  const Datatype type = Datatype::utf8_string();
  const Attribute attribute = recreate_attribute(object, name, type.id(), Dataspace::scalar());
  const char* data = value.c_str();
  check_status(H5Awrite(attribute.id(), type.id(), &data),
               [&] { return "cannot write " + attribute_name(object, name); });
}

void write_string_array_attribute(hid_t object, const std::string& name,
                                  const std::vector<std::string>& values) {
  const Datatype type = Datatype::utf8_string();
  const Attribute attribute = recreate_attribute(object, name, type.id(), Dataspace::simple({values.size()}));
  std::vector<const char*> data;
  data.reserve(values.size());
  for (const std::string& value : values) data.push_back(value.c_str());
  if (data.empty()) return;  // nothing to write (and HDF5 rejects a null buffer)
  check_status(H5Awrite(attribute.id(), type.id(), data.data()),
               [&] { return "cannot write " + attribute_name(object, name); });
}

std::string read_string_attribute(hid_t object, const std::string& name) {
  std::vector<std::string> values = read_strings(object, name);
  if (values.size() != 1) throw IoError(attribute_name(object, name) + " is not a single string");
  return std::move(values.front());
}

std::vector<std::string> read_string_array_attribute(hid_t object, const std::string& name) {
  return read_strings(object, name);
}

void write_scalar_attribute(hid_t object, const std::string& name, hid_t type, const void* value) {
  const Attribute attribute = recreate_attribute(object, name, type, Dataspace::scalar());
  check_status(H5Awrite(attribute.id(), type, value),
               [&] { return "cannot write " + attribute_name(object, name); });
}

void read_scalar_attribute(hid_t object, const std::string& name, hid_t mem_type, void* value) {
  const Attribute attribute = open_attribute(object, name);
  if (attribute_space(attribute).element_count() != 1) {
    throw IoError(attribute_name(object, name) + " is not a single value");
  }
  check_status(H5Aread(attribute.id(), mem_type, value),
               [&] { return "cannot read " + attribute_name(object, name); });
}

}  // namespace simpact::h5
