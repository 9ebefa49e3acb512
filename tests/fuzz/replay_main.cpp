// Replays a fuzz corpus without libFuzzer (any compiler): runs LLVMFuzzerTestOneInput once on
// every file given, or on every regular file of every directory given, in name order.
//   config_fuzz_replay tests/fuzz/corpus/config
// A crash or an uncaught exception fails the run (ctest shows the file name printed before it);
// the slowest input is reported so a creeping slowdown shows up in the test log.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// NOLINTNEXTLINE(readability-identifier-naming): the harness entry point libFuzzer defines
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (fs::is_directory(arg)) {
      std::vector<fs::path> in_dir;
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) in_dir.push_back(entry.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "no inputs found in the arguments\n");
    return 2;
  }
  double slowest = 0.0;
  std::string slowest_file;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read\n", file.c_str());
      return 2;
    }
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", file.c_str(), bytes.size());
    const auto start = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds >= slowest) {
      slowest = seconds;
      slowest_file = file.string();
    }
  }
  std::printf("replayed %zu inputs; slowest %.3f s (%s)\n", files.size(), slowest, slowest_file.c_str());
  return 0;
}
