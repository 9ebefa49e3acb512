// simpact info FILE.h5: what a result (or shard) file holds, whether it is complete, and where
// it came from — in the terminal, without Python.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "commands.hpp"
#include "simpact/io/chunk_journal.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/io/sweep_file_reader.hpp"

namespace simpact::app {

namespace {

int info(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr, "simpact: error: file: '%s' does not exist\n", path.c_str());
    return 2;
  }
  const bool journal = std::filesystem::exists(journal_directory(path));
  std::unique_ptr<SweepFileReader> file;
  try {
    file = std::make_unique<SweepFileReader>(path);
  } catch (const std::exception& e) {
    fmt::print("{}: unreadable HDF5 file ({})\n", path, e.what());
    fmt::print("status: INCOMPLETE{}\n", journal ? " — finished work is safe in the journal: rerun the same "
                                                   "`simpact run CONFIG -o FILE --resume`"
                                                 : "");
    return 3;
  }
  const bool complete = file->integer_attribute("complete") != 0;
  const bool shard = file->has_attribute("shard");
  fmt::print("{}\n", path);
  if (complete)
    fmt::print("status: complete{}\n", shard ? fmt::format(" shard {} (combine with `simpact merge`)",
                                                           file->string_attribute("shard"))
                                             : "");
  else
    fmt::print("status: INCOMPLETE (interrupted or still running){}\n",
               journal ? " — resume with the same `simpact run CONFIG -o FILE --resume`" : "");
  fmt::print("schema_version: {}   model: {}   orderings: {}   minimality: {}\n",
             file->integer_attribute("schema_version"), file->string_attribute("model"),
             file->string_attribute("orderings"), file->string_attribute("minimality"));
  const std::int64_t chunks = file->integer_attribute("chunk_count");
  std::vector<std::uint8_t> done(static_cast<std::size_t>(chunks));
  file->read("progress/done", 0, chunks, done.data());
  std::int64_t finished = 0;
  for (auto d : done) finished += d;
  fmt::print("tasks: {} ({} replicas per grid point)   chunks done: {}/{}\n",
             file->integer_attribute("task_count"), file->string_attribute("replicas"), finished, chunks);
  fmt::print("config sha256: {}\n", file->string_attribute("config_hash"));
  fmt::print("grid:\n");
  for (const auto& axis : file->string_array_attribute("grid_axes")) {
    const std::string name = "grid/" + axis;
    const auto n = file->shape(name).at(0);
    std::vector<double> v(static_cast<std::size_t>(n));
    file->read(name, 0, n, v.data());
    fmt::print("  {:<14} {:>7} points  {:.6g} .. {:.6g} [{}]  {}\n", axis, n, v.front(), v.back(),
               file->object_string_attribute(name, "units"),
               file->object_string_attribute(name, "long_name"));
  }
  const auto maps = file->has_attribute("map_datasets") ? file->string_array_attribute("map_datasets")
                                                        : std::vector<std::string>{};
  fmt::print("maps: {}\n", maps.size());
  for (const auto& m : maps)
    fmt::print("  {:<40} [{}]  {}\n", m, file->object_string_attribute(m, "units"),
               file->object_string_attribute(m, "long_name"));
  const auto samples = file->has_attribute("sample_datasets")
                           ? file->string_array_attribute("sample_datasets")
                           : std::vector<std::string>{};
  fmt::print("samples: {}\n",
             samples.empty() ? "none" : fmt::format("{} per-task columns under /samples", samples.size()));
  fmt::print("provenance:\n");
  for (const auto& row : read_provenance(path))
    fmt::print("  {} .. {}  {} rank(s) x {} thread(s) on {}{}  tasks {}  simpact {} ({})\n    {}\n",
               row.start_time, row.end_time.empty() ? "(killed)" : row.end_time, row.ranks, row.threads,
               row.hosts, row.slurm_job_id.empty() ? "" : ", Slurm job " + row.slurm_job_id, row.tasks_done,
               row.version, row.git_revision, row.command);
  return complete ? 0 : 3;
}

}  // namespace

CommandRunner add_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("info",
                                 "describe a result file: completeness, grid, maps, provenance "
                                 "(exit 0 complete, 3 incomplete)");
  cmd->add_option("file", *path, "result or shard HDF5 file")->required();
  return [path] { return info(*path); };
}

}  // namespace simpact::app
