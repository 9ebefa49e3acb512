#include "output_staging.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/study/sweep_runner.hpp"

namespace simpact::detail {

namespace fs = std::filesystem;

std::string new_staging_file(const std::string& journal, const std::string& what) {
  static int serial = 0;
  const std::string staging =
      fmt::format("{}/staging-{}-{}-{}.h5", journal, what, static_cast<long>(::getpid()), ++serial);
  ::close(create_exclusive(staging));
  return staging;
}

void replace_output(const std::string& staging, const std::string& path) {
  if (const std::string bad = check_result_output(path); !bad.empty()) {
    ::unlink(staging.c_str());
    throw AgreedError(bad, true);
  }
  // The file's bytes on disk before its name is: the journal is removed right after a publish,
  // and a crash must not leave a renamed but empty file in place of finished work.
  try {
    sync_file(staging);
  } catch (const IoError&) {
    ::unlink(staging.c_str());
    throw;
  }
  if (::rename(staging.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(staging.c_str());
    throw IoError(fmt::format("cannot move the finished file to '{}': {}", path, std::strerror(err)));
  }
  sync_parent_directory(path);
}

void remove_stale_staging(const std::string& journal) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(journal, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("staging-", 0) == 0 || name == "manifest.tmp") {
      std::error_code rm;
      fs::remove(e.path(), rm);
    }
  }
}

}  // namespace simpact::detail
