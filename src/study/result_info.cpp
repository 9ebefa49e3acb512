#include "simpact/study/result_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "simpact/core/input_error.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/study/input_binding.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact {

namespace {

bool has_hdf5_signature(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, 8);
  return in.gcount() == 8 && std::string(head, 8) == std::string("\x89HDF\r\n\x1a\n", 8);
}

// Progress of an interrupted or running sweep from its journal: chunks and tasks finished.
struct JournalProgress {
  bool present = false;
  std::int64_t chunks_done = 0, chunks = 0, tasks_done = 0, tasks = 0;
};

JournalProgress journal_progress(const std::string& path) {
  JournalProgress p;
  const std::string dir = journal_directory(path);
  JournalManifest manifest;
  if (!std::filesystem::exists(dir) || read_journal_manifest(dir, manifest) != ManifestStatus::kOk) return p;
  p.present = true;
  p.chunks = manifest.chunk_count();
  p.tasks = manifest.task_count;
  try {
    const auto done = JournalIndex::scan(dir, manifest).done_bitmap();
    for (std::size_t c = 0; c < done.size(); ++c)
      if (done[c]) {
        ++p.chunks_done;
        const auto first = static_cast<std::int64_t>(c) * manifest.chunk_size;
        p.tasks_done += std::min(manifest.chunk_size, manifest.task_count - first);
      }
  } catch (const std::exception&) {  // a journal being written: report what could be read
  }
  return p;
}

}  // namespace

ResultInfo describe_result(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError("file", "'" + path + "' does not exist");
  if (std::filesystem::is_directory(path)) throw InputError("file", "'" + path + "' is a directory");
  ResultInfo info;
  info.file = path;
  const JournalProgress progress = journal_progress(path);
  std::unique_ptr<SweepFileReader> file;
  try {
    if (!has_hdf5_signature(path) && !progress.present) {
      info.reason = "not an HDF5 file";
      return info;
    }
    file = std::make_unique<SweepFileReader>(path);
  } catch (const std::exception& e) {
    if (!progress.present) {
      info.reason = fmt::format("unreadable HDF5 file: {}", e.what());
      return info;
    }
    // The output of a sweep whose journal holds the finished work: resumable.
    info.status = ResultInfo::Status::kIncomplete;
    info.readable = false;
    info.reason = e.what();
    info.journal = true;
    info.chunks_done = progress.chunks_done;
    info.chunks = progress.chunks;
    info.tasks_done = progress.tasks_done;
    info.tasks = progress.tasks;
    return info;
  }
  if (!file->has_attribute("schema_version") || !file->has_attribute("complete") ||
      !file->has_attribute("task_count")) {
    info.reason = "an HDF5 file without simpact's root attributes (schema_version, complete)";
    return info;
  }
  const bool complete = file->integer_attribute("complete") != 0;
  info.status = complete ? ResultInfo::Status::kComplete : ResultInfo::Status::kIncomplete;
  if (file->has_attribute("shard")) info.shard = file->string_attribute("shard");
  info.tasks = file->integer_attribute("task_count");
  info.chunks = file->integer_attribute("chunk_count");
  std::vector<std::uint8_t> done(static_cast<std::size_t>(info.chunks));
  file->read("progress/done", 0, info.chunks, done.data());
  std::int64_t file_chunks_done = 0;
  for (auto d : done) file_chunks_done += d;
  // While a sweep runs (or after a kill) the file's bitmap is still empty: the journal knows.
  info.chunks_done = progress.present && !complete ? progress.chunks_done : file_chunks_done;
  info.tasks_done = progress.present && !complete ? progress.tasks_done : complete ? info.tasks : 0;
  info.journal = progress.present;
  info.schema_version = file->integer_attribute("schema_version");
  info.model = file->string_attribute("model");
  // Impact sweeps only (time-stepped sweeps have neither): empty when absent.
  info.orderings = file->has_attribute("orderings") ? file->string_attribute("orderings") : "";
  info.minimality = file->has_attribute("minimality") ? file->string_attribute("minimality") : "";
  info.replicas = file->integer_attribute("replicas");
  info.config_sha256 = file->string_attribute("config_hash");
  if (file->has_attribute("input_files"))
    info.inputs = parse_input_files(file->string_attribute("input_files"));
  for (const auto& axis : file->string_array_attribute("grid_axes")) {
    const std::string name = "grid/" + axis;
    const auto n = file->shape(name).at(0);
    std::vector<double> v(static_cast<std::size_t>(n));
    file->read(name, 0, n, v.data());
    info.grid.push_back({axis, n, v.front(), v.back(), file->object_string_attribute(name, "units"),
                         file->object_string_attribute(name, "long_name")});
  }
  const auto maps = file->has_attribute("map_datasets") ? file->string_array_attribute("map_datasets")
                                                        : std::vector<std::string>{};
  for (const auto& m : maps)
    info.maps.push_back(
        {m, file->object_string_attribute(m, "units"), file->object_string_attribute(m, "long_name")});
  if (file->has_attribute("sample_datasets")) info.samples = file->string_array_attribute("sample_datasets");
  // Tasks per status, summed from the /status/<name> count maps.
  if (complete)
    for (int k = 0; k < kTaskStatusCount; ++k) {
      const std::string name = std::string("/status/") + kTaskStatusNames[k];
      if (std::find(maps.begin(), maps.end(), name) == maps.end()) continue;
      std::int64_t elements = 1;
      for (auto n : file->shape(name)) elements *= static_cast<std::int64_t>(n);
      std::vector<double> v(static_cast<std::size_t>(elements));
      file->read(name, 0, elements, v.data());
      double sum = 0.0;
      for (double x : v) sum += x;
      info.has_task_status = true;
      info.task_status.emplace_back(kTaskStatusNames[k], static_cast<std::int64_t>(sum));
    }
  try {
    info.provenance = read_provenance(path);
  } catch (const std::exception&) {  // an incomplete file may have none yet
  }
  return info;
}

}  // namespace simpact
