// simpact info FILE.h5 [--json]: what a result (or shard) file holds, whether it is complete, how
// far an interrupted or running sweep got (from its journal), and where it came from — in the
// terminal, without Python. Exit 0 complete, 3 incomplete, 4 not a simpact result, 2 no such file.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/io/sweep_file_reader.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact::app {

namespace {

using Json = nlohmann::ordered_json;

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

int not_a_result(const std::string& path, const std::string& why, bool json) {
  if (json)
    fmt::print("{}\n", Json{{"file", path}, {"status", "not_simpact"}, {"reason", why}}.dump());
  else
    fmt::print("{}: not a simpact result file ({})\nstatus: NOT A SIMPACT RESULT\n", path, why);
  return kExitNotResult;
}

int info(const std::string& path, bool json) {
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr, "simpact: error: file: '%s' does not exist\n", path.c_str());
    return kExitInput;
  }
  if (std::filesystem::is_directory(path)) {
    std::fprintf(stderr, "simpact: error: file: '%s' is a directory\n", path.c_str());
    return kExitInput;
  }
  const JournalProgress progress = journal_progress(path);
  std::unique_ptr<SweepFileReader> file;
  try {
    if (!has_hdf5_signature(path) && !progress.present) return not_a_result(path, "not an HDF5 file", json);
    file = std::make_unique<SweepFileReader>(path);
  } catch (const std::exception& e) {
    if (!progress.present) return not_a_result(path, fmt::format("unreadable HDF5 file: {}", e.what()), json);
    // The output of a sweep whose journal holds the finished work: resumable.
    if (json)
      fmt::print("{}\n", Json{{"file", path},
                              {"status", "incomplete"},
                              {"reason", e.what()},
                              {"journal",
                               {{"chunks_done", progress.chunks_done},
                                {"chunks", progress.chunks},
                                {"tasks_done", progress.tasks_done},
                                {"tasks", progress.tasks}}}}
                             .dump());
    else
      fmt::print(
          "{}: unreadable HDF5 file ({})\nstatus: INCOMPLETE — journal: {}/{} tasks done; rerun the same "
          "`simpact run CONFIG -o FILE --resume`\n",
          path, e.what(), progress.tasks_done, progress.tasks);
    return kExitIncomplete;
  }
  if (!file->has_attribute("schema_version") || !file->has_attribute("complete") ||
      !file->has_attribute("task_count"))
    return not_a_result(path, "an HDF5 file without simpact's root attributes (schema_version, complete)",
                        json);

  const bool complete = file->integer_attribute("complete") != 0;
  const bool shard = file->has_attribute("shard");
  const std::int64_t tasks = file->integer_attribute("task_count");
  const std::int64_t chunks = file->integer_attribute("chunk_count");
  std::vector<std::uint8_t> done(static_cast<std::size_t>(chunks));
  file->read("progress/done", 0, chunks, done.data());
  std::int64_t file_chunks_done = 0;
  for (auto d : done) file_chunks_done += d;
  // While a sweep runs (or after a kill) the file's bitmap is still empty: the journal knows.
  const std::int64_t chunks_done = progress.present && !complete ? progress.chunks_done : file_chunks_done;
  const std::int64_t tasks_done = progress.present && !complete ? progress.tasks_done : complete ? tasks : 0;
  const std::string replicas = fmt::format("{}", file->integer_attribute("replicas"));
  // Attributes of one kind of sweep only (impact sweeps: orderings, minimality; time-stepped
  // ones have neither): null in JSON, left out of the text.
  auto optional_string = [&](const char* name) {
    return file->has_attribute(name) ? Json(file->string_attribute(name)) : Json(nullptr);
  };

  Json j;
  j["file"] = path;
  j["status"] = complete ? "complete" : "incomplete";
  j["shard"] = shard ? Json(file->string_attribute("shard")) : Json(nullptr);
  j["schema_version"] = file->integer_attribute("schema_version");
  j["model"] = file->string_attribute("model");
  j["orderings"] = optional_string("orderings");
  j["minimality"] = optional_string("minimality");
  j["tasks"] = tasks;
  j["replicas"] = file->integer_attribute("replicas");
  j["chunks"] = chunks;
  j["chunks_done"] = chunks_done;
  j["tasks_done"] = tasks_done;
  j["progress_percent"] =
      tasks > 0 ? 100.0 * static_cast<double>(tasks_done) / static_cast<double>(tasks) : 100.0;
  j["journal"] = progress.present;
  j["config_sha256"] = file->string_attribute("config_hash");
  j["grid"] = Json::array();
  for (const auto& axis : file->string_array_attribute("grid_axes")) {
    const std::string name = "grid/" + axis;
    const auto n = file->shape(name).at(0);
    std::vector<double> v(static_cast<std::size_t>(n));
    file->read(name, 0, n, v.data());
    j["grid"].push_back({{"name", axis},
                         {"points", n},
                         {"first", v.front()},
                         {"last", v.back()},
                         {"units", file->object_string_attribute(name, "units")},
                         {"long_name", file->object_string_attribute(name, "long_name")}});
  }
  const auto maps = file->has_attribute("map_datasets") ? file->string_array_attribute("map_datasets")
                                                        : std::vector<std::string>{};
  j["maps"] = maps;
  const auto samples = file->has_attribute("sample_datasets")
                           ? file->string_array_attribute("sample_datasets")
                           : std::vector<std::string>{};
  j["samples"] = samples;
  // Tasks per status, summed from the /status/<name> count maps (files from before they existed
  // have none: null).
  Json status_counts = Json::object();
  std::int64_t capped = 0;
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
      status_counts[kTaskStatusNames[k]] = static_cast<std::int64_t>(sum);
      if (k == static_cast<int>(TaskStatus::kCapHit)) capped = static_cast<std::int64_t>(sum);
    }
  j["task_status"] = status_counts.empty() ? Json(nullptr) : status_counts;
  j["provenance"] = Json::array();
  std::vector<ProvenanceRow> rows;
  try {
    rows = read_provenance(path);
  } catch (const std::exception&) {  // an incomplete file may have none yet
  }
  for (const auto& row : rows)
    j["provenance"].push_back({{"start", row.start_time},
                               {"end", row.end_time},
                               {"ranks", row.ranks},
                               {"threads", row.threads},
                               {"hosts", row.hosts},
                               {"slurm_job_id", row.slurm_job_id},
                               {"tasks_done", row.tasks_done},
                               {"version", row.version},
                               {"git_revision", row.git_revision},
                               {"command", row.command}});
  const int code = complete ? kExitOk : kExitIncomplete;
  if (json) {
    fmt::print("{}\n", j.dump());
    return code;
  }

  fmt::print("{}\n", path);
  if (complete)
    fmt::print("status: complete{}\n", shard ? fmt::format(" shard {} (combine with `simpact merge`)",
                                                           file->string_attribute("shard"))
                                             : "");
  else
    fmt::print("status: INCOMPLETE (interrupted or still running){}\n",
               progress.present ? " — resume with the same `simpact run CONFIG -o FILE --resume`" : "");
  std::string kind_line =
      fmt::format("schema_version: {}   model: {}", file->integer_attribute("schema_version"),
                  file->string_attribute("model"));
  for (const char* name : {"orderings", "minimality"})
    if (file->has_attribute(name)) kind_line += fmt::format("   {}: {}", name, file->string_attribute(name));
  fmt::print("{}\n", kind_line);
  fmt::print("tasks: {} ({} replicas per grid point)   done: {} ({:.1f}%), chunks {}/{}{}\n", tasks, replicas,
             tasks_done, j["progress_percent"].get<double>(), chunks_done, chunks,
             progress.present && !complete ? " (from the journal)" : "");
  fmt::print("config sha256: {}\n", file->string_attribute("config_hash"));
  if (!status_counts.empty()) {
    std::string line;
    for (auto it = status_counts.begin(); it != status_counts.end(); ++it)
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", it.value().get<std::int64_t>(), it.key());
    fmt::print("task status: {}\n", line);
    if (capped > 0)
      fmt::print(
          "  {} task(s) hit a resolution cap: their values are NaN in the maps (see /status/cap_hit); "
          "raise limits.max_steps, max_depth, max_nodes, max_outcomes or max_definition1_checks\n",
          capped);
  }
  fmt::print("grid:\n");
  for (const auto& a : j["grid"])
    fmt::print("  {:<14} {:>7} points  {:.6g} .. {:.6g} [{}]  {}\n", a["name"].get<std::string>(),
               a["points"].get<std::int64_t>(), a["first"].get<double>(), a["last"].get<double>(),
               a["units"].get<std::string>(), a["long_name"].get<std::string>());
  fmt::print("maps: {}\n", maps.size());
  for (const auto& m : maps)
    fmt::print("  {:<40} [{}]  {}\n", m, file->object_string_attribute(m, "units"),
               file->object_string_attribute(m, "long_name"));
  fmt::print("samples: {}\n",
             samples.empty() ? "none" : fmt::format("{} per-task columns under /samples", samples.size()));
  fmt::print("provenance:\n");
  for (const auto& row : rows)
    fmt::print("  {} .. {}  {} rank(s) x {} thread(s) on {}{}  tasks {}  simpact {} ({})\n    {}\n",
               row.start_time, row.end_time.empty() ? "(killed)" : row.end_time, row.ranks, row.threads,
               row.hosts, row.slurm_job_id.empty() ? "" : ", Slurm job " + row.slurm_job_id, row.tasks_done,
               row.version, row.git_revision, row.command);
  return code;
}

}  // namespace

CommandRunner add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("info",
                                 "describe a result file: completeness and progress, grid, maps, provenance "
                                 "(exit 0 complete, 3 incomplete, 4 not a simpact result)");
  cmd->add_option("file", *path, "result or shard HDF5 file")->required();
  cmd->add_flag("--json", *json,
                "one JSON object (status, tasks_done, progress_percent, grid, maps, provenance)");
  return [path, json] { return info(*path, *json); };
}

}  // namespace simpact::app
