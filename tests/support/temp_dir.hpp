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

// One private directory for the whole test process, removed when it exits, with a trailing '/':
// for fixtures that a file's tests share (ctest runs each test in a process of its own, two at a
// time, so a fixed name under /tmp would be written by two processes at once).
inline const std::string& process_dir() {
  static const TempDir dir("simpact-process");
  static const std::string path = dir.path.string() + "/";
  return path;
}

}  // namespace simpact::testing
