// Serial, read-only access to a finished sweep (or shard) file: root attributes and slabs of
// 1-D datasets. Used by `simpact merge` (reading shards chunk by chunk) and `simpact info`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simpact {

class SweepFileReader {
 public:
  explicit SweepFileReader(const std::string& path);  // throws IoError
  ~SweepFileReader();
  SweepFileReader(SweepFileReader&&) noexcept;
  SweepFileReader& operator=(SweepFileReader&&) noexcept;

  const std::string& path() const;
  bool has(const std::string& object) const;
  bool has_attribute(const std::string& name) const;
  std::string string_attribute(const std::string& name) const;                     // root attribute
  std::int64_t integer_attribute(const std::string& name) const;                   // root attribute
  std::vector<std::string> string_array_attribute(const std::string& name) const;  // root attribute
  // A string attribute of a dataset or group, or "" when absent.
  std::string object_string_attribute(const std::string& object, const std::string& name) const;
  std::string string_dataset(const std::string& name) const;  // scalar string (e.g. /config)
  std::vector<std::int64_t> shape(const std::string& dataset) const;
  void read(const std::string& dataset, std::int64_t first, std::int64_t count, double* out) const;
  void read(const std::string& dataset, std::int64_t first, std::int64_t count, std::int64_t* out) const;
  void read(const std::string& dataset, std::int64_t first, std::int64_t count, std::uint8_t* out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simpact
