#include "simpact/study/impact_service.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "simpact/core/impact_diagnostics.hpp"
#include "simpact/core/post_impact_check.hpp"
#include "simpact/io/sweep_config_yaml.hpp"
#include "simpact/models/mechanism_files.hpp"
#include "simpact/models/model_catalog.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {

namespace {
// A request's `mechanism`: the file's model, the parameters as edits, then qpos/qvel/momentum.
void make_mechanism_problem(const MechanismRequest& request, ResolveRequest& out) {
  MechanismSpec spec{request.file, request.contacts, request.place, request.gap_tolerance, "mechanism"};
  spec.witnesses = request.witnesses;
  const MujocoMechanism mechanism(std::move(spec));
  auto workspace = mechanism.make_workspace();
  make_mechanism_request_problem(mechanism, *workspace, request, out);
}
}  // namespace

void make_mechanism_request_problem(const MujocoMechanism& mechanism, MujocoMechanism::Workspace& workspace,
                                    const MechanismRequest& request, ResolveRequest& out) {
  std::vector<std::string> known;
  for (const auto& info : mechanism.parameters()) known.push_back(info.name);
  for (const auto& [name, value] : request.params.entries()) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const std::string near = nearest_name(name, known);
      throw InputError("params." + name,
                       near.empty() ? "unknown parameter of the mechanism (see `simpact models FILE`)"
                                    : "unknown parameter of the mechanism (did you mean '" + near + "'?)");
    }
    const bool coordinate = name.rfind("qpos.", 0) == 0   ? request.qpos.has_value()
                            : name.rfind("qvel.", 0) == 0 ? request.qvel || request.momentum
                                                          : name == "restitution" && request.restitution;
    if (coordinate) throw InputError("params." + name, "is also given at the top level");
  }
  MechanismState state;
  try {
    ParameterSet params = request.params;
    if (request.restitution) params.set("restitution", *request.restitution);
    state = mechanism.state_from(params);
  } catch (const InputError& e) {
    if (e.field() == "restitution" && request.restitution) throw;
    throw InputError("params." + e.field(), std::string(e.what()).substr(e.field().size() + 2));
  }
  if (request.qpos) state.qpos = *request.qpos;
  if (request.qvel) state.qvel = *request.qvel;
  if (request.momentum) state.momentum = *request.momentum;
  mechanism.check_state(state, "qpos", request.momentum ? "momentum" : "qvel");
  MechanismSolvedState solved;
  if (mechanism.needs_dynamic_sizes())
    out.dynamic_problem = mechanism.make_dynamic_problem(std::move(state), workspace, &solved);
  else
    out.problem = mechanism.make_problem(std::move(state), workspace, &solved);
  out.placed_qpos.clear();
  for (int i = 0; i < mechanism.nq(); ++i)
    out.placed_qpos.emplace_back(mechanism.qpos_names()[static_cast<std::size_t>(i)], solved.qpos[i]);
  out.contact_points.clear();
  for (const MechanismWitness& w : solved.witnesses) {
    const auto& [a, b] = mechanism.spec().contacts[static_cast<std::size_t>(w.contact)];
    out.contact_points.push_back({a, b, w.position, w.normal, w.gap});
  }
}

const ImpactModelCatalog& builtin_model_catalog() {
  static const ImpactModelCatalog catalog{
      model_names(),
      [](const std::string& model) { return make_model(model)->parameters(); },
      [](const std::string& model, const ParameterSet& params) {
        return make_model(model)->make_problem(params);
      },
      [](const std::string& model, const ParameterSet& params) {
        return make_model(model)->needs_dynamic_sizes(params);
      },
      [](const std::string& model, const ParameterSet& params) {
        return make_model(model)->make_dynamic_problem(params);
      },
      make_mechanism_problem};
  return catalog;
}

ResolveRequest parse_resolve_request(const std::string& json_text, const std::string& base_dir) {
  return parse_resolve_request(json_text, builtin_model_catalog(), base_dir);
}

CheckRequest parse_check_request(const std::string& json_text, const std::string& base_dir) {
  return parse_check_request(json_text, builtin_model_catalog(), base_dir);
}

namespace {

// Both commands on the request's size path S (fixed unless the request is dynamic()).
template <typename S>
std::string resolve_on(const ResolveRequest& request, int indent) {
  const BasicImpactProblem<S>& problem = request.problem_on<S>();
  // The workspace grows with the outcomes found: keep it off the stack.
  auto workspace = std::make_unique<BasicImpactWorkspace<S>>(request.options.limits);
  const BasicImpactResolution<S> resolution = resolve_impact(problem, request.options, *workspace);
  return resolution_to_json(request, resolution, *workspace, diagnose(problem), indent);
}

template <typename S>
CheckReport check_on(const CheckRequest& request, int indent) {
  const BasicImpactProblem<S>& problem = request.impact.problem_on<S>();
  auto workspace = std::make_unique<BasicImpactWorkspace<S>>(request.impact.options.limits);
  const BasicImpactResolution<S> resolution = resolve_impact(problem, request.impact.options, *workspace);
  const PostImpactCheck check =
      check_post_impact_state(problem, typename S::DofVector(request.momentum_after), request.tolerance,
                              request.consistency_tolerance, resolution, *workspace);
  return {check_to_json(request, check, resolution, *workspace, indent),
          check.consistent_with_propagative_model};
}

}  // namespace

std::string resolve_json(const std::string& json_text, int indent, const std::string& base_dir) {
  const ResolveRequest request = parse_resolve_request(json_text, base_dir);
  return request.dynamic() ? resolve_on<DynamicSizes>(request, indent)
                           : resolve_on<FixedSizes>(request, indent);
}

namespace {

CheckReport check_report_with(const std::string& json_text, int indent, const std::string& base_dir,
                              const ImpactModelCatalog& catalog) {
  const CheckRequest request = parse_check_request(json_text, catalog, base_dir);
  return request.impact.dynamic() ? check_on<DynamicSizes>(request, indent)
                                  : check_on<FixedSizes>(request, indent);
}

// What a file is now, cheaply: a replaced, edited, retargeted (symlink) or re-typed file differs.
struct FileStamp {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  mode_t mode = 0;
  off_t size = 0;
  long long mtime_ns = 0;
  bool operator==(const FileStamp& o) const {
    return exists == o.exists && device == o.device && inode == o.inode && mode == o.mode && size == o.size &&
           mtime_ns == o.mtime_ns;
  }
};

FileStamp stamp_of(const std::string& path) {
  struct stat st {};
  FileStamp s;
  if (::stat(path.c_str(), &st) != 0) return s;
  s.exists = true;
  s.device = st.st_dev;
  s.inode = st.st_ino;
  s.mode = st.st_mode;
  s.size = st.st_size;
  s.mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return s;
}

// The bytes of a regular file, or nullopt (missing, unreadable, not a regular file: the
// mechanism's own load then says why).
std::optional<std::string> regular_file_bytes(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// `check --jsonl`'s mechanisms, each loaded once (issue 39: 1e5 lines of one robot loaded and
// compiled its MJCF 1e5 times, 62 s against 3.6 s for raw requests). A line reuses an earlier
// line's mechanism when it names the same file, contacts, place and gap tolerance, the file's
// bytes are the same, and every file it reads (includes, meshes, ...) has the same identity,
// type, size and modification time; otherwise the mechanism is loaded again. The problem is
// made exactly as without the cache, so the reports are identical (test
// cli.CheckLinesCache.ReportsEqualUncachedOnes).
class MechanismCache {
 public:
  void make_problem(const MechanismRequest& request, ResolveRequest& out) {
    const std::optional<std::string> bytes = regular_file_bytes(request.file);
    Entry* entry = bytes ? find(request, *bytes) : nullptr;
    if (entry == nullptr) {
      if (!bytes) {  // not cacheable: load it as a single request does (and fail as it does)
        make_mechanism_problem(request, out);
        return;
      }
      entry = &load(request, *bytes);
    }
    make_mechanism_request_problem(*entry->mechanism, *entry->workspace, request, out);
  }

 private:
  struct Entry {
    std::string file, bytes;
    std::vector<std::pair<std::string, std::string>> contacts;
    std::vector<std::string> place;
    double gap_tolerance = 0;
    std::string witnesses;
    std::vector<std::pair<std::string, FileStamp>> reads;  // the files it reads besides itself
    std::unique_ptr<MujocoMechanism> mechanism;
    MujocoMechanism::WorkspacePtr workspace;  // reused line to line, as a sweep's thread reuses its own
  };
  static constexpr std::size_t kMaxEntries = 16;  // a file of many robots: the latest few

  Entry* find(const MechanismRequest& r, const std::string& bytes) {
    for (Entry& e : entries_) {
      if (e.file != r.file || e.contacts != r.contacts || e.place != r.place ||
          !(e.gap_tolerance == r.gap_tolerance) || e.witnesses != r.witnesses || e.bytes != bytes)
        continue;
      if (std::all_of(e.reads.begin(), e.reads.end(),
                      [](const auto& read) { return stamp_of(read.first) == read.second; }))
        return &e;
    }
    return nullptr;
  }

  Entry& load(const MechanismRequest& r, const std::string& bytes) {
    Entry e;
    e.file = r.file;
    e.bytes = bytes;
    e.contacts = r.contacts;
    e.place = r.place;
    e.gap_tolerance = r.gap_tolerance;
    e.witnesses = r.witnesses;
    // Stamped before the load: a file changed while it loads is seen as changed next time.
    for (const MechanismFileReference& ref : mechanism_file_references(r.file, "mechanism.file"))
      if (ref.path != r.file) e.reads.emplace_back(ref.path, stamp_of(ref.path));
    MechanismSpec spec{r.file, r.contacts, r.place, r.gap_tolerance, "mechanism"};
    spec.witnesses = r.witnesses;
    e.mechanism = std::make_unique<MujocoMechanism>(std::move(spec));
    e.workspace = e.mechanism->make_workspace();
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& old) {
                                    return old.file == e.file && old.contacts == e.contacts &&
                                           old.place == e.place && old.gap_tolerance == e.gap_tolerance &&
                                           old.witnesses == e.witnesses;
                                  }),
                   entries_.end());
    if (entries_.size() >= kMaxEntries) entries_.pop_front();
    entries_.push_back(std::move(e));
    return entries_.back();
  }

  std::deque<Entry> entries_;
};

}  // namespace

CheckReport check_report(const std::string& json_text, int indent, const std::string& base_dir) {
  return check_report_with(json_text, indent, base_dir, builtin_model_catalog());
}

std::string check_json(const std::string& json_text, int indent, const std::string& base_dir) {
  return check_report(json_text, indent, base_dir).json;
}

CheckLinesReport check_json_lines(const std::string& jsonl_text, const std::string& base_dir) {
  CheckLinesReport out;
  MechanismCache cache;
  ImpactModelCatalog catalog = builtin_model_catalog();
  catalog.make_mechanism_problem = [&cache](const MechanismRequest& request, ResolveRequest& problem) {
    cache.make_problem(request, problem);
  };
  std::vector<std::string> errors;
  constexpr long kReportedBadLines = 20;  // a wholly wrong file is summed up, not printed whole
  long bad_lines = 0;
  std::size_t begin = 0;
  long line_number = 0;
  while (begin < jsonl_text.size()) {
    const std::size_t end = std::min(jsonl_text.find('\n', begin), jsonl_text.size());
    std::string line = jsonl_text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = "line " + std::to_string(line_number) + ": ";
    std::vector<std::string> problems;
    if (line.find_first_not_of(" \t") == std::string::npos) {
      problems.push_back("input: empty line (JSON Lines: one check request per line)");
    } else {
      try {
        const CheckReport report = check_report_with(line, -1, base_dir, catalog);
        if (bad_lines > 0) continue;  // no report is kept once a line is bad
        out.text += report.json;      // one line: compact, its own newline ensured
        if (out.text.empty() || out.text.back() != '\n') out.text += '\n';
        if (!report.consistent) ++out.inconsistent;
      } catch (const ConfigErrors& e) {
        problems = e.lines;
      } catch (const InputError& e) {  // one line per problem, as the single-request command
        const std::string text = e.what();
        std::size_t from = 0;
        while (from <= text.size()) {
          const std::size_t to = std::min(text.find('\n', from), text.size());
          if (to > from) problems.push_back(text.substr(from, to - from));
          from = to + 1;
        }
      }
    }
    if (problems.empty()) continue;
    if (++bad_lines <= kReportedBadLines)
      for (const auto& text : problems) errors.push_back(where + text);
    out.text.clear();
  }
  out.requests = line_number;
  if (bad_lines > kReportedBadLines)
    errors.push_back("input: " + std::to_string(bad_lines - kReportedBadLines) +
                     " more bad lines not listed (" + std::to_string(bad_lines) + " of " +
                     std::to_string(line_number) + ")");
  if (line_number == 0) errors.push_back("input: no check request (JSON Lines: one request per line)");
  if (!errors.empty()) throw ConfigErrors(std::move(errors));
  return out;
}

}  // namespace simpact
