// A private temporary directory for one test (mkdtemp under /tmp), removed with everything in it
// when the test ends: tests write nowhere else.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace simpact::testing {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "simpact-test") {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace simpact::testing
