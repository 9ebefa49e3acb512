#include "resume_decision.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "output_staging.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sweep_file.hpp"
#include "simpact/study/input_binding.hpp"
#include "simpact/study/sweep_size_estimate.hpp"

namespace simpact::detail {

namespace fs = std::filesystem;

namespace {

// What an existing output file is, as far as --resume is concerned.
struct OutputIdentity {
  bool ours = false;  // a simpact file of this very config
  bool complete = false;
  std::string what;  // otherwise: what it is, for the refusal
};

OutputIdentity identify_output(const std::string& path, const JournalManifest& manifest) {
  const std::string& config_hash = manifest.config_hash;
  OutputIdentity id;
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  char signature[8] = {};
  {
    std::ifstream in(path, std::ios::binary);
    in.read(signature, sizeof signature);
  }
  if (std::memcmp(signature, "\x89HDF\r\n\x1a\n", 8) != 0) {
    id.what = fmt::format("is not an HDF5 file ({} bytes)", ec ? 0 : bytes);
    return id;
  }
  std::string hash;
  try {
    hash = sweep_file_config_hash(path);
  } catch (const std::exception&) {
    id.what = "is an HDF5 file that simpact did not write (it has no config_hash attribute)";
    return id;
  }
  if (hash != config_hash) {
    id.what = fmt::format("is a simpact result of another config (sha256 {} vs this config's {})",
                          hash.substr(0, 12), config_hash.substr(0, 12));
    return id;
  }
  // A shard's file and the whole sweep's (or another shard's) never stand in for each other.
  std::string shard;
  try {
    shard = sweep_file_shard(path);
  } catch (const std::exception&) {
    shard = "?";
  }
  const std::string expected = manifest.shard_count > 1 ? shard_text(manifest) : "";
  if (shard != expected) {
    id.what =
        fmt::format("is {} of this config, this run is {}",
                    shard.empty() ? "the whole sweep's result (no --shard)" : "the file of shard " + shard,
                    shard_description(manifest));
    return id;
  }
  id.ours = true;
  id.complete = sweep_file_is_complete(path);
  return id;
}

// The journal and the final file both live beside the output: refuse to start a sweep whose
// results cannot fit (the estimate is an upper bound before compression).
std::string check_free_space(const fs::path& dir, std::uintmax_t reclaimed_bytes, const SweepConfig& config,
                             const TaskKernel& kernel) {
  const SweepSizeEstimate size = estimate_sweep_sizes(config, kernel);
  double needed = size.journal_bytes + size.file_bytes + 1024.0 * 1024.0;  // + metadata
  std::error_code ec;
  // On --resume the finished part of the journal is already on disk; stale staging files are
  // removed once the run is accepted.
  needed -= static_cast<double>(reclaimed_bytes);
  const fs::space_info info = fs::space(dir, ec);
  if (ec) return "";
  if (static_cast<double>(info.available) < needed)
    return fmt::format(
        "not enough free space in '{}': the sweep needs about {:.1f} MiB, {:.1f} MiB available", dir.string(),
        needed / 1048576.0, static_cast<double>(info.available) / 1048576.0);
  return "";
}

// Bytes of what remove_stale_staging would remove (freed once the run is accepted).
std::uintmax_t stale_staging_bytes(const std::string& journal) {
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(journal, ec)) {
    const std::string name = e.path().filename().string();
    std::error_code size_ec;
    const auto size = e.is_regular_file(size_ec) ? e.file_size(size_ec) : 0;
    if ((name.rfind("staging-", 0) == 0 || name == "manifest.tmp") && !size_ec) bytes += size;
  }
  return bytes;
}

// decide_mode once the output's lock is held: fresh, resume or complete; changes nothing.
std::string decide_locked(const std::string& path, const std::string& journal, const SweepConfig& config,
                          const TaskKernel& kernel, const JournalManifest& manifest,
                          const SweepRunOptions& options, RunMode& mode) {
  const fs::path parent = fs::absolute(path).parent_path();
  const JournalContents contents = journal_contents(journal);
  JournalManifest previous;
  std::string why;
  const ManifestStatus status = read_journal_manifest(journal, previous, &why);
  const bool has_journal = status != ManifestStatus::kMissing || contents.record_files > 0;
  const bool out_exists = path_kind(path) == PathKind::kRegular;
  const std::string work = fmt::format("{} record file(s), {:.1f} MiB", contents.record_files,
                                       static_cast<double>(contents.record_bytes) / 1048576.0);

  if (options.overwrite) {
    mode = RunMode::kFresh;
  } else if (options.resume) {
    if (status == ManifestStatus::kOldVersion)
      return fmt::format(
          "--resume refused: journal '{}' ({}): {}; finish it with that simpact version, or pass "
          "--overwrite to recompute",
          journal, work, why);
    if (has_journal && status != ManifestStatus::kOk)
      return fmt::format(
          "--resume refused: journal '{}' holds finished work ({}) but {}: not deleting it; "
          "move it away, or pass --overwrite to discard it",
          journal, work, why);
    OutputIdentity id;
    if (out_exists) id = identify_output(path, manifest);
    if (status == ManifestStatus::kOk) {
      if (previous.config_hash != manifest.config_hash) {
        const std::string change = describe_input_change(
            parse_input_files(previous.inputs), parse_input_files(manifest.inputs), "when it started", "now");
        if (!change.empty())
          return fmt::format(
              "--resume refused: an input of '{}' changed since it was started: {}; restore "
              "it, or pass --overwrite to recompute with it",
              path, change);
        return fmt::format("--resume refused: the config changed since '{}' was started (sha256 {} vs {})",
                           path, previous.config_hash.substr(0, 12), manifest.config_hash.substr(0, 12));
      }
      if (previous.shard_index != manifest.shard_index || previous.shard_count != manifest.shard_count)
        return fmt::format(
            "--resume refused: journal '{}' is of {}, this run is {}: not mixing them (resume with "
            "the journal's --shard, or pass --overwrite to discard it)",
            journal, shard_description(previous), shard_description(manifest));
      if (previous.build != manifest.build)
        return fmt::format(
            "--resume refused: '{}' was started by another simpact build ({}; this is {}): its journal "
            "records may differ in layout or arithmetic; finish it with that build, or pass --overwrite "
            "to recompute",
            path, previous.build.empty() ? "one that did not record its build" : previous.build,
            manifest.build);
      if (!(previous == manifest))
        return fmt::format("--resume refused: '{}' was started with a different chunk size or results", path);
      if (out_exists && !id.ours)
        return fmt::format(
            "--resume refused: '{}' {}: not replacing it (its journal is of this config; move "
            "the file away to finish the run)",
            path, id.what);
      mode = RunMode::kResume;
    } else if (out_exists) {
      if (!id.ours) return fmt::format("--resume refused: '{}' {}: refusing to replace it", path, id.what);
      mode = id.complete ? RunMode::kAlreadyComplete
                         : RunMode::kFresh;  // ours but incomplete without a journal: recompute
    }
  } else if (out_exists || has_journal) {
    return fmt::format("'{}' already exists: pass --resume to continue it or --overwrite to replace it",
                       out_exists ? path : journal);
  }
  if (mode == RunMode::kAlreadyComplete) return "";  // a complete file needs no space
  return check_free_space(parent, contents.record_bytes + stale_staging_bytes(journal), config, kernel);
}

}  // namespace

std::string decide_mode(const std::string& path, const std::string& journal, const SweepConfig& config,
                        const TaskKernel& kernel, const JournalManifest& manifest,
                        const SweepRunOptions& options, OutputLock& lock, RunMode& mode) {
  mode = RunMode::kFresh;
  if (manifest.chunk_count() > kMaxJournalChunks)
    return fmt::format(
        "{} tasks in chunks of {} make {} chunks, more than the journal indexes (2^32 = {}): "
        "raise output.chunk_size",
        manifest.task_count, manifest.chunk_size, manifest.chunk_count(), kMaxJournalChunks);
  if (std::string bad = check_result_output(path); !bad.empty()) return bad;
  const fs::path parent = fs::absolute(path).parent_path();
  if (!fs::is_directory(parent)) return fmt::format("directory '{}' does not exist", parent.string());
  if (::access(parent.c_str(), W_OK) != 0)
    return fmt::format("directory '{}' is not writable", parent.string());
  const PathKind journal_kind = path_kind(journal);
  if (journal_kind != PathKind::kAbsent && journal_kind != PathKind::kDirectory)
    return fmt::format("'{}' is {}, not a simpact journal directory: refusing to touch it", journal,
                       path_kind_name(journal_kind));
  // A directory simpact did not create (or one with a planted link) is never touched.
  if (std::string bad = check_journal_ownership(journal); !bad.empty()) return bad;
  lock = OutputLock(journal);  // throws, naming the holder, when another job has it
  // Nothing in the journal is changed before the decision: a refused run leaves every file of it
  // byte-identical (a killed final write's staging file may hold most of its bytes). Stale staging
  // files are removed only once the run is accepted, and count as free space until then.
  std::string refusal = decide_locked(path, journal, config, kernel, manifest, options, mode);
  if (refusal.empty()) remove_stale_staging(journal);
  return refusal;
}

}  // namespace simpact::detail
