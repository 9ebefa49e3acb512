// simpact info FILE.h5 [--json]: what a result (or shard) file holds, whether it is complete, how
// far an interrupted or running sweep got (from its journal), and where it came from — in the
// terminal, without Python. Exit 0 complete, 3 incomplete, 4 not a simpact result, 2 no such file.
#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "simpact/study/result_info.hpp"
#include "simpact/sweep/task_kernel.hpp"

namespace simpact::app {

namespace {

using Json = nlohmann::ordered_json;

// `simpact info --json`: the summary as one JSON object.
Json info_json(const ResultInfo& info) {
  if (info.status == ResultInfo::Status::kNotSimpact)
    return Json{{"file", info.file}, {"status", "not_simpact"}, {"reason", info.reason}};
  if (!info.readable)
    return Json{{"file", info.file},
                {"status", "incomplete"},
                {"reason", info.reason},
                {"journal",
                 {{"chunks_done", info.chunks_done},
                  {"chunks", info.chunks},
                  {"tasks_done", info.tasks_done},
                  {"tasks", info.tasks}}}};
  Json j;
  j["file"] = info.file;
  j["status"] = ResultInfo::status_name(info.status);
  j["shard"] = info.shard.empty() ? Json(nullptr) : Json(info.shard);
  j["schema_version"] = info.schema_version;
  j["model"] = info.model;
  // Attributes of one kind of sweep only (impact sweeps: orderings, minimality; time-stepped
  // ones have neither): null in JSON, left out of the text.
  j["orderings"] = info.orderings.empty() ? Json(nullptr) : Json(info.orderings);
  j["minimality"] = info.minimality.empty() ? Json(nullptr) : Json(info.minimality);
  j["tasks"] = info.tasks;
  j["replicas"] = info.replicas;
  j["chunks"] = info.chunks;
  j["chunks_done"] = info.chunks_done;
  j["tasks_done"] = info.tasks_done;
  j["progress_percent"] = info.progress_percent();
  j["journal"] = info.journal;
  j["config_sha256"] = info.config_sha256;
  j["inputs"] = Json::array();
  for (const auto& f : info.inputs)
    j["inputs"].push_back({{"role", f.role}, {"path", f.path}, {"sha256", f.sha256}});
  j["grid"] = Json::array();
  for (const auto& a : info.grid)
    j["grid"].push_back({{"name", a.name},
                         {"points", a.points},
                         {"first", a.first},
                         {"last", a.last},
                         {"units", a.units},
                         {"long_name", a.long_name}});
  j["maps"] = Json::array();
  for (const auto& m : info.maps) j["maps"].push_back(m.name);
  j["samples"] = info.samples;
  Json status_counts = Json::object();
  for (const auto& [name, count] : info.task_status) status_counts[name] = count;
  j["task_status"] = info.has_task_status ? status_counts : Json(nullptr);
  j["provenance"] = Json::array();
  for (const auto& row : info.provenance)
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
  return j;
}

int exit_code(const ResultInfo& info) {
  return info.status == ResultInfo::Status::kComplete     ? kExitOk
         : info.status == ResultInfo::Status::kIncomplete ? kExitIncomplete
                                                          : kExitNotResult;
}

int info(const std::string& path, bool json) {
  ResultInfo info;
  try {
    info = describe_result(path);
  } catch (const InputError& e) {
    std::fprintf(stderr, "simpact: error: %s\n", e.what());
    return kExitInput;
  }
  const int code = exit_code(info);
  if (json) {
    fmt::print("{}\n", info_json(info).dump());
    return code;
  }
  if (info.status == ResultInfo::Status::kNotSimpact) {
    fmt::print("{}: not a simpact result file ({})\nstatus: NOT A SIMPACT RESULT\n", path, info.reason);
    return code;
  }
  if (!info.readable) {
    fmt::print(
        "{}: unreadable HDF5 file ({})\nstatus: INCOMPLETE — journal: {}/{} tasks done; rerun the same "
        "`simpact run CONFIG -o FILE --resume`\n",
        path, info.reason, info.tasks_done, info.tasks);
    return code;
  }
  const bool complete = info.status == ResultInfo::Status::kComplete;
  fmt::print("{}\n", path);
  if (complete)
    fmt::print("status: complete{}\n",
               info.shard.empty() ? "" : fmt::format(" shard {} (combine with `simpact merge`)", info.shard));
  else
    fmt::print("status: INCOMPLETE (interrupted or still running){}\n",
               info.journal ? " — resume with the same `simpact run CONFIG -o FILE --resume`" : "");
  std::string kind_line = fmt::format("schema_version: {}   model: {}", info.schema_version, info.model);
  if (!info.orderings.empty()) kind_line += "   orderings: " + info.orderings;
  if (!info.minimality.empty()) kind_line += "   minimality: " + info.minimality;
  fmt::print("{}\n", kind_line);
  fmt::print("tasks: {} ({} replicas per grid point)   done: {} ({:.1f}%), chunks {}/{}{}\n", info.tasks,
             info.replicas, info.tasks_done, info.progress_percent(), info.chunks_done, info.chunks,
             info.journal && !complete ? " (from the journal)" : "");
  fmt::print("config sha256: {}\n", info.config_sha256);
  for (const auto& f : info.inputs)
    fmt::print("input: {} {} sha256 {}\n", f.role, f.path.empty() ? "(the config text)" : f.path, f.sha256);
  if (!info.task_status.empty()) {
    std::string line;
    std::int64_t capped = 0;
    for (const auto& [name, count] : info.task_status) {
      line += fmt::format("{}{} {}", line.empty() ? "" : ", ", count, name);
      if (name == kTaskStatusNames[static_cast<int>(TaskStatus::kCapHit)]) capped = count;
    }
    fmt::print("task status: {}\n", line);
    if (capped > 0)
      fmt::print(
          "  {} task(s) hit a resolution cap: their values are NaN in the maps (see /status/cap_hit); "
          "raise limits.max_steps, max_depth, max_nodes, max_outcomes or max_definition1_checks\n",
          capped);
  }
  fmt::print("grid:\n");
  for (const auto& a : info.grid)
    fmt::print("  {:<14} {:>7} points  {:.6g} .. {:.6g} [{}]  {}\n", a.name, a.points, a.first, a.last,
               a.units, a.long_name);
  fmt::print("maps: {}\n", info.maps.size());
  for (const auto& m : info.maps) fmt::print("  {:<40} [{}]  {}\n", m.name, m.units, m.long_name);
  fmt::print("samples: {}\n", info.samples.empty()
                                  ? "none"
                                  : fmt::format("{} per-task columns under /samples", info.samples.size()));
  fmt::print("provenance:\n");
  for (const auto& row : info.provenance)
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
