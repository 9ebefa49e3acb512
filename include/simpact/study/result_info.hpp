// What a result (or shard) file holds — `simpact info` and `simpact.info` print this one summary:
// complete or not, how far an interrupted or running sweep got (from its journal), the grid, the
// maps and samples, the tasks per status, and the provenance rows.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simpact/io/sweep_file.hpp"
#include "simpact/sweep/sweep_config.hpp"

namespace simpact {

struct ResultInfo {
  enum class Status { kComplete, kIncomplete, kNotSimpact };
  std::string file;
  Status status = Status::kNotSimpact;
  std::string reason;    // not_simpact, or an unreadable output with a journal: why
  bool readable = true;  // false: only the journal could be read (an unreadable output)
  std::string shard;     // "i/N" for a shard file, else empty
  std::int64_t schema_version = 0;
  std::string model, orderings, minimality, config_sha256;
  std::vector<InputFile> inputs;  // the files the results were computed from (empty: not recorded)
  std::int64_t tasks = 0, replicas = 0, chunks = 0, chunks_done = 0, tasks_done = 0;
  bool journal = false;  // a journal beside the file: progress counted from it
  struct Axis {
    std::string name;
    std::int64_t points = 0;
    double first = 0.0, last = 0.0;
    std::string units, long_name;
  };
  std::vector<Axis> grid;
  struct Dataset {
    std::string name, units, long_name;
  };
  std::vector<Dataset> maps;
  std::vector<std::string> samples;
  bool has_task_status = false;  // files from before the /status maps have none
  std::vector<std::pair<std::string, std::int64_t>> task_status;  // complete files: tasks per status
  std::vector<ProvenanceRow> provenance;

  double progress_percent() const {
    return tasks > 0 ? 100.0 * static_cast<double>(tasks_done) / static_cast<double>(tasks) : 100.0;
  }
  static const char* status_name(Status s) {
    return s == Status::kComplete ? "complete" : s == Status::kIncomplete ? "incomplete" : "not_simpact";
  }
};

// Throws InputError("file", ...) when `path` does not exist or is a directory; anything else
// (not HDF5, not simpact's) is a ResultInfo with status kNotSimpact and the reason.
ResultInfo describe_result(const std::string& path);

}  // namespace simpact
