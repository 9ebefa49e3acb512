#include "simpact/io/impact_json.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <Eigen/QR>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "simpact/core/input_error.hpp"
#include "simpact/io/io_error.hpp"
#include "simpact/io/safe_file.hpp"
#include "simpact/io/sweep_config_yaml.hpp"  // nearest_name: the same "did you mean" as the YAML configs

namespace simpact {

namespace {
std::string joined_after_first_field(const std::vector<InputError>& errors) {
  std::string text = std::string(errors.at(0).what()).substr(errors.at(0).field().size() + 2);
  for (std::size_t i = 1; i < errors.size(); ++i) text += std::string("\n") + errors[i].what();
  return text;
}
}  // namespace

InputErrors::InputErrors(std::vector<InputError> errors)
    : InputError(errors.at(0).field(), joined_after_first_field(errors)), errors_(std::move(errors)) {}

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;  // output keys in a readable, documented order
using Names = std::vector<std::string>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Ranges of user limits. Storage grows with what a resolution reaches (never with a limit), so
// any value up to these costs nothing until it is used.
constexpr long long kMaxStepsCap = INT_MAX;
constexpr long long kMaxDepthCap = INT_MAX;
constexpr long long kMaxNodesCap = 1000000000000LL;
constexpr long long kMaxOutcomesCap = 1LL << 24;
constexpr long long kMaxDefinition1ChecksCap = 1LL << 40;

const Names kProblemKeys = {"mass_matrix", "normals", "momentum", "velocity", "gaps", "gap_tolerance"};
const Names kResolveKeys = {"_comment", "mass_matrix", "normals",  "momentum",   "velocity",
                            "gaps",     "gap_tolerance", "restitution", "ordering", "minimality", "seed",
                            "limits",   "model",       "params"};
const Names kCheckOnlyKeys = {"momentum_after", "velocity_after", "tolerance", "consistency_tolerance"};
const Names kLimitKeys = {"max_steps", "max_depth", "max_nodes", "max_outcomes", "max_definition1_checks"};

// ---- one-line messages -------------------------------------------------------------------------

// User text inside a one-line message: control characters escaped, long text cut.
std::string printable(const std::string& s, std::size_t max_shown = 60) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += s[i];
  }
  if (s.size() > max_shown) out += "...";
  return out;
}

std::string in_quotes(const std::string& s) {
  return "'" + printable(s) + "'";
}

std::string join(const Names& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool contains(const Names& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string index_field(const std::string& field, std::size_t i) {
  return fmt::format("{}[{}]", field, i);
}

// Collects the problems of independent fields, so a request with several mistakes gets one
// line per problem (InputErrors) instead of only the first.
class ErrorList {
 public:
  template <class F>
  bool attempt(F&& f) {
    try {
      f();
      return true;
    } catch (const InputErrors& e) {
      for (const auto& one : e.errors()) errors_.push_back(one);
    } catch (const InputError& e) {
      errors_.push_back(e);
    }
    return false;
  }
  bool empty() const { return errors_.empty(); }
  void raise() const {
    if (errors_.size() == 1) throw errors_.front();
    if (!errors_.empty()) throw InputErrors(errors_);
  }

 private:
  std::vector<InputError> errors_;
};

// The message of an InputError without its "field: " prefix (to re-throw under another field).
std::string message_of(const InputError& e) {
  const std::string what = e.what();
  const std::size_t prefix = e.field().size() + 2;
  return what.size() >= prefix ? what.substr(prefix) : what;
}

bool names_non_finite(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.erase(0, 1);
  return s == "nan" || s == "inf" || s == "infinity";
}

// Whether the JSON syntax error at byte `byte` (1-based, as nlohmann reports it) is a NaN or
// Infinity token, which many writers emit for non-finite doubles.
bool names_non_finite_at(const std::string& text, std::size_t byte) {
  if (byte == 0 || byte > text.size()) return false;
  std::size_t start = byte - 1;
  while (start > 0 && std::isalpha(static_cast<unsigned char>(text[start - 1]))) --start;
  std::size_t end = start;
  while (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end]))) ++end;
  return names_non_finite(text.substr(start, end - start));
}

// ---- parsing the document -----------------------------------------------------------------------

// nlohmann keeps the last of repeated keys silently; a repeated key is almost always a mistake
// (two edits of the same field), so the parser callback rejects it, naming the key path.
Json parse_document(const std::string& text) {
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;
  };
  std::vector<Frame> frames;
  const Json::parser_callback_t callback = [&frames](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        frames.push_back({true, {}, {}});
        break;
      case Json::parse_event_t::array_start:
        frames.push_back({false, {}, {}});
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames.empty()) frames.pop_back();
        break;
      case Json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        if (!frames.empty() && !frames.back().keys.insert(key).second) {
          std::string path;
          for (std::size_t i = 0; i + 1 < frames.size(); ++i)
            if (frames[i].object) path += printable(frames[i].key) + ".";
          throw InputError(path + printable(key), "duplicate key");
        }
        if (!frames.empty()) frames.back().key = key;
        break;
      }
      case Json::parse_event_t::value:
        break;
    }
    return true;
  };
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError("input", "is empty (expected a JSON object)");
  try {
    return Json::parse(text, callback);
  } catch (const Json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error ..."
    std::string what = e.what();
    const std::size_t at = what.find(" at line ");
    what = at == std::string::npos ? what.substr(what.find(']') + 2) : what.substr(at + 1);
    throw InputError("input",
                     "invalid JSON " + printable(what, 400) +
                         (names_non_finite_at(text, e.byte) ? " (JSON has no NaN or Infinity)" : ""));
  } catch (const Json::exception& e) {
    // e.g. out_of_range.406 "number overflow parsing '1e400'"
    std::string what = e.what();
    what = what.substr(what.find(']') + 2);
    throw InputError("input", "invalid JSON: " + printable(what, 400));
  }
}

void check_keys(const Json& doc, const Names& allowed, bool check_command) {
  Names suggestions;  // "_comment" is accepted, never suggested
  for (const auto& name : allowed)
    if (name != "_comment") suggestions.push_back(name);
  ErrorList errors;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const std::string& key = it.key();
    if (contains(allowed, key)) continue;
    errors.attempt([&] {
      if (!check_command && contains(kCheckOnlyKeys, key))
        throw InputError(printable(key), "unknown key for 'simpact resolve' (it belongs to 'simpact check')");
      const std::string near = nearest_name(key, suggestions);
      throw InputError(printable(key), near.empty()
                                           ? fmt::format("unknown key (allowed: {})", join(suggestions))
                                           : fmt::format("unknown key (did you mean '{}'?)", near));
    });
  }
  errors.raise();
}

// ---- typed readers, each naming its field -------------------------------------------------------

double read_number(const Json& j, const std::string& field) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) throw InputError(field, "must be finite");
    return v;
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (names_non_finite(s))
      throw InputError(field, fmt::format("must be a finite number (got the string {}; JSON has no NaN "
                                          "or Infinity)",
                                          in_quotes(s)));
    throw InputError(field, fmt::format("must be a number (got the string {})", in_quotes(s)));
  }
  throw InputError(field, fmt::format("must be a number (got {})", j.type_name()));
}

std::string read_string(const Json& j, const std::string& field) {
  if (!j.is_string()) throw InputError(field, fmt::format("must be a string (got {})", j.type_name()));
  return j.get<std::string>();
}

// An integer in [lo, hi]; integral floats (1e3) are accepted, fractions are not.
long long read_integer(const Json& j, const std::string& field, long long lo, long long hi) {
  const std::string range = fmt::format("must be an integer in [{}, {}]", lo, hi);
  if (j.is_number_unsigned()) {
    const auto v = j.get<unsigned long long>();
    if ((lo > 0 && v < static_cast<unsigned long long>(lo)) || v > static_cast<unsigned long long>(hi))
      throw InputError(field, fmt::format("{} (got {})", range, v));
    return static_cast<long long>(v);
  }
  if (j.is_number_integer()) {
    const auto v = j.get<long long>();
    if (v < lo || v > hi) throw InputError(field, fmt::format("{} (got {})", range, v));
    return v;
  }
  const double v = read_number(j, field);
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw InputError(field, fmt::format("{} (got {})", range, v));
  return static_cast<long long>(v);
}

Eigen::VectorXd read_vector(const Json& j, const std::string& field) {
  if (!j.is_array())
    throw InputError(field, fmt::format("must be an array of numbers (got {})", j.type_name()));
  Eigen::VectorXd v(static_cast<Eigen::Index>(j.size()));
  for (std::size_t i = 0; i < j.size(); ++i)
    v[static_cast<Eigen::Index>(i)] = read_number(j[i], index_field(field, i));
  return v;
}

// Rows of equal length; expected_cols ≥ 0 also fixes that length (the normals against d).
Eigen::MatrixXd read_matrix(const Json& j, const std::string& field, int expected_cols) {
  if (!j.is_array())
    throw InputError(field,
                     fmt::format("must be an array of rows (arrays of numbers), got {}", j.type_name()));
  const std::size_t rows = j.size();
  std::size_t cols = expected_cols >= 0 ? static_cast<std::size_t>(expected_cols) : 0;
  for (std::size_t i = 0; i < rows; ++i) {
    const Json& row = j[i];
    const std::string row_field = index_field(field, i);
    if (!row.is_array())
      throw InputError(row_field, fmt::format("must be an array of numbers (got {})", row.type_name()));
    if (expected_cols < 0 && i == 0) cols = row.size();
    if (row.size() != cols) {
      if (expected_cols >= 0)
        throw InputError(row_field, fmt::format("must have length d = {} (got {})", cols, row.size()));
      throw InputError(row_field, fmt::format("has {} entries but {}[0] has {} (rows must be equal)",
                                              row.size(), field, cols));
    }
  }
  Eigen::MatrixXd m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(rows == 0 ? 0 : cols));
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < cols; ++c)
      m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) =
          read_number(j[i][c], index_field(index_field(field, i), c));
  return m;
}

// ---- the request --------------------------------------------------------------------------------

ResolveOptions read_options(const Json& doc) {
  ResolveOptions options;
  options.check_definition1 = true;  // resolve and check report definition1_minimal per outcome
  ErrorList errors;
  if (doc.contains("ordering"))
    errors.attempt([&] {
      const std::string name = read_string(doc["ordering"], "ordering");
      if (!parse_ordering_policy(name, options.policy)) {
        Names allowed(kOrderingPolicyNames.begin(), kOrderingPolicyNames.end());
        const std::string near = nearest_name(name, allowed);
        throw InputError("ordering",
                         fmt::format("unknown ordering {} ({}allowed: {})", in_quotes(name),
                                     near.empty() ? "" : "did you mean '" + near + "'?; ", join(allowed)));
      }
    });
  if (doc.contains("minimality"))
    errors.attempt([&] {
      const std::string name = read_string(doc["minimality"], "minimality");
      if (name == "propagation")
        options.minimality = Minimality::kPropagation;
      else if (name == "definition1")
        options.minimality = Minimality::kDefinition1;
      else
        throw InputError(
            "minimality",
            fmt::format("unknown minimality {} (allowed: propagation, definition1)", in_quotes(name)));
    });
  if (doc.contains("seed"))
    errors.attempt([&] {
      const Json& seed = doc["seed"];
      if (seed.is_number_unsigned()) {
        options.seed = seed.get<std::uint64_t>();
      } else {
        const double v = read_number(seed, "seed");                    // errors for strings, booleans, ...
        if (v < 0.0 || v != std::floor(v) || v >= 9007199254740992.0)  // 2^53: exact in a double
          throw InputError("seed", fmt::format("must be a non-negative integer (got {})", v));
        options.seed = static_cast<std::uint64_t>(v);
      }
    });
  if (doc.contains("limits"))
    errors.attempt([&] {
      const Json& limits = doc["limits"];
      if (!limits.is_object())
        throw InputError("limits",
                         fmt::format("must be an object with keys from {} (got {})", join(kLimitKeys),
                                     limits.type_name()));
      ErrorList limit_errors;
      for (auto it = limits.begin(); it != limits.end(); ++it)
        limit_errors.attempt([&] {
          const std::string field = "limits." + printable(it.key());
          if (it.key() == "max_steps")
            options.limits.max_steps = static_cast<int>(read_integer(*it, field, 1, kMaxStepsCap));
          else if (it.key() == "max_depth")
            options.limits.max_depth = static_cast<int>(read_integer(*it, field, 1, kMaxDepthCap));
          else if (it.key() == "max_nodes")
            options.limits.max_nodes = static_cast<long>(read_integer(*it, field, 1, kMaxNodesCap));
          else if (it.key() == "max_outcomes")
            options.limits.max_outcomes = static_cast<int>(read_integer(*it, field, 1, kMaxOutcomesCap));
          else if (it.key() == "max_definition1_checks")
            options.limits.max_definition1_checks =
                static_cast<long>(read_integer(*it, field, 1, kMaxDefinition1ChecksCap));
          else {
            const std::string near = nearest_name(it.key(), kLimitKeys);
            throw InputError(field, near.empty() ? fmt::format("unknown key (allowed: {})", join(kLimitKeys))
                                                 : fmt::format("unknown key (did you mean '{}'?)", near));
          }
        });
      limit_errors.raise();
    });
  errors.raise();
  return options;
}

// A raw request: M, the normals and p⁻ (or q̇⁻, turned into p⁻ = M q̇⁻) given directly.
struct RawProblemInput {
  Eigen::MatrixXd mass_matrix, normals;
  Eigen::VectorXd momentum, velocity, gaps;
  double gap_tolerance = kGapTolerance;
  double restitution = 1.0;
};

ImpactProblem make_raw_problem(const RawProblemInput& input) {
  KineticMetric metric(input.mass_matrix);
  Eigen::VectorXd momentum = input.momentum;
  if (input.velocity.size() > 0) {
    if (!input.velocity.allFinite()) throw InputError("velocity", "must be finite (found NaN or Inf)");
    momentum = input.mass_matrix * input.velocity;
  }
  return ImpactProblem(std::move(metric), input.normals, momentum, input.restitution, input.gaps,
                       input.gap_tolerance);
}

void read_raw_problem(const Json& doc, ResolveRequest& request) {
  if (doc.contains("params"))
    throw InputError("params",
                     "only allowed with 'model' (a raw request gives mass_matrix, normals, momentum)");
  if (!doc.contains("mass_matrix"))
    throw InputError("mass_matrix", "required field is missing (or give 'model')");
  RawProblemInput input;
  ErrorList errors;
  // M's own errors first: the normals and momentum are then measured against a valid d (or
  // only against each other when M is invalid).
  int d = -1;
  errors.attempt([&] {
    input.mass_matrix = read_matrix(doc["mass_matrix"], "mass_matrix", -1);
    d = KineticMetric(input.mass_matrix).dof();
  });
  errors.attempt([&] {
    if (!doc.contains("normals")) throw InputError("normals", "required field is missing");
    input.normals = read_matrix(doc["normals"], "normals", d);
  });
  errors.attempt([&] {
    const bool has_p = doc.contains("momentum"), has_v = doc.contains("velocity");
    if (has_p && has_v)
      throw InputError("momentum", "give exactly one of 'momentum' and 'velocity' (got both)");
    if (!has_p && !has_v) throw InputError("momentum", "required field is missing (or give 'velocity')");
    const char* name = has_p ? "momentum" : "velocity";
    const Eigen::VectorXd v = read_vector(doc[name], name);
    // make_generic_problem tells momentum from velocity by a non-zero length.
    if (d >= 0 && v.size() != d)
      throw InputError(name, fmt::format("must have length d = {} (got {})", d, v.size()));
    (has_p ? input.momentum : input.velocity) = v;
  });
  if (doc.contains("gaps")) errors.attempt([&] { input.gaps = read_vector(doc["gaps"], "gaps"); });
  if (doc.contains("gap_tolerance"))
    errors.attempt([&] { input.gap_tolerance = read_number(doc["gap_tolerance"], "gap_tolerance"); });
  if (doc.contains("restitution"))
    errors.attempt([&] { input.restitution = read_number(doc["restitution"], "restitution"); });
  errors.raise();
  request.problem = make_raw_problem(input);
}

void read_model_problem(const Json& doc, const ImpactModelCatalog& catalog, ResolveRequest& request) {
  request.model = read_string(doc["model"], "model");
  const Names& models = catalog.names;
  if (!contains(models, request.model)) {
    const std::string near = nearest_name(request.model, models);
    throw InputError("model",
                     fmt::format("unknown model {} ({}allowed: {})", in_quotes(request.model),
                                 near.empty() ? "" : "did you mean '" + near + "'?; ", join(models)));
  }
  for (const auto& key : kProblemKeys)
    if (doc.contains(key))
      throw InputError(key, fmt::format("not allowed with 'model' (model '{}' builds M, the normals and p⁻ "
                                        "from 'params')",
                                        request.model));
  Names known;
  for (const auto& info : catalog.parameters(request.model)) known.push_back(info.name);
  auto check_known = [&](const std::string& name, const std::string& field) {
    if (contains(known, name)) return;
    const std::string near = nearest_name(name, known);
    throw InputError(
        field, fmt::format("unknown parameter {} of model '{}' ({})", in_quotes(name), request.model,
                           near.empty() ? "parameters: " + join(known) : "did you mean '" + near + "'?"));
  };

  if (doc.contains("params")) {
    const Json& params = doc["params"];
    if (!params.is_object())
      throw InputError("params", fmt::format("must be an object of parameter name to number (got {})",
                                             params.type_name()));
    ErrorList param_errors;
    for (auto it = params.begin(); it != params.end(); ++it)
      param_errors.attempt([&] {
        const std::string field = "params." + printable(it.key());
        if (it->is_array()) {  // "m": [1, 3, 1] sets m1, m2, m3
          if (it->empty()) throw InputError(field, "must not be an empty array");
          for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string name = it.key() + std::to_string(i + 1);
            check_known(name, index_field(field, i));
            if (request.params.has(name))
              throw InputError(index_field(field, i),
                               fmt::format("sets '{}', which is also given alone", name));
            request.params.set(name, read_number((*it)[i], index_field(field, i)));
          }
        } else {
          check_known(it.key(), field);
          if (request.params.has(it.key())) throw InputError(field, "is also set by an array parameter");
          request.params.set(it.key(), read_number(*it, field));
        }
      });
    param_errors.raise();
  }
  bool top_level_restitution = false;
  if (doc.contains("restitution")) {
    const double r = read_number(doc["restitution"], "restitution");
    if (request.params.has("restitution"))
      throw InputError("restitution", "given both at the top level and in 'params'");
    request.params.set("restitution", r);
    top_level_restitution = true;
  }
  try {
    request.problem = catalog.make_problem(request.model, request.params);
  } catch (const InputError& e) {
    // Models name the bare parameter ("theta"); in JSON it lives under "params".
    const bool parameter = contains(known, e.field()) || request.params.has(e.field());
    if (!parameter || (e.field() == "restitution" && top_level_restitution)) throw;
    throw InputError("params." + e.field(), message_of(e));
  }
}

// The document (a JSON object); unknown keys go to `errors`, so the known fields are still read.
Json parse_object(const std::string& text, bool check_command, ErrorList& errors) {
  Json doc = parse_document(text);
  if (!doc.is_object())
    throw InputError("input", fmt::format("must be a JSON object (got {})", doc.type_name()));
  Names allowed = kResolveKeys;
  if (check_command) allowed.insert(allowed.end(), kCheckOnlyKeys.begin(), kCheckOnlyKeys.end());
  errors.attempt([&] { check_keys(doc, allowed, check_command); });
  return doc;
}

ResolveRequest read_request(const Json& doc, const ImpactModelCatalog& catalog, ErrorList& errors) {
  ResolveRequest request;
  errors.attempt([&] { request.options = read_options(doc); });
  errors.attempt([&] {
    if (doc.contains("model"))
      read_model_problem(doc, catalog, request);
    else
      read_raw_problem(doc, request);
  });
  return request;
}

// ---- output ---------------------------------------------------------------------------------------

OrderedJson number(double v) {
  return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr);
}

template <typename Vector>
OrderedJson vector_json(const Vector& v) {
  OrderedJson out = OrderedJson::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(number(v[i]));
  return out;
}

// Impulses indexed by the given normals: open contacts carry none.
OrderedJson given_impulses(const ImpactProblem& problem, const ContactVector& impulses) {
  std::vector<double> all(static_cast<std::size_t>(problem.given_contacts()), 0.0);
  for (int i = 0; i < problem.contacts(); ++i)
    all[static_cast<std::size_t>(problem.given_index(i))] = impulses[i];
  OrderedJson out = OrderedJson::array();
  for (double v : all) out.push_back(number(v));
  return out;
}

OrderedJson closed_contacts(const ImpactProblem& problem) {
  OrderedJson out = OrderedJson::array();
  for (int i = 0; i < problem.contacts(); ++i) out.push_back(problem.given_index(i));
  return out;
}

OrderedJson outcome_json(const ImpactProblem& problem, const Outcome& o) {
  OrderedJson out;
  const DofVector& p = o.momentum;
  out["momentum"] = vector_json(p);
  out["velocity"] = vector_json(problem.metric().velocity(p));
  out["energy"] = number(o.energy);
  out["impulses"] = given_impulses(problem, o.impulses);
  if (problem.restitution() < 1.0) {
    out["alpha"] = number(o.alpha);
    out["elastic_momentum"] = vector_json(o.elastic_momentum);
  }
  OrderedJson sequences = OrderedJson::array(), lengths = OrderedJson::array();
  bool contacts_truncated = false;
  for (int s = 0; s < o.stored_sequences; ++s) {
    const ContactSequence& seq = o.sequences[s];
    OrderedJson one = OrderedJson::array();
    for (int t = 0; t < seq.stored(); ++t) one.push_back(problem.given_index(seq.contacts[t]));
    sequences.push_back(std::move(one));
    lengths.push_back(seq.length);
    contacts_truncated = contacts_truncated || seq.truncated();
  }
  out["sequences"] = std::move(sequences);
  out["sequence_lengths"] = std::move(lengths);
  out["sequence_count"] = o.sequence_count;
  out["sequences_truncated"] = o.sequence_count > o.stored_sequences;  // not every branch listed
  out["contacts_truncated"] = contacts_truncated;  // a listed sequence shows only its start
  out["shortest"] = o.shortest;
  out["definition1_minimal"] =
      o.definition1_minimal < 0 ? OrderedJson(nullptr) : OrderedJson(o.definition1_minimal == 1);
  return out;
}

OrderedJson matrix_json(const ContactMatrix& m) {
  OrderedJson out = OrderedJson::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) out.push_back(vector_json(m.row(i).transpose().eval()));
  return out;
}

// Inputs echoed so that a model request's M-derived p⁻ is visible.
void describe_request(const ResolveRequest& request, OrderedJson& out) {
  const ImpactProblem& problem = request.problem;
  out["model"] = request.model.empty() ? OrderedJson(nullptr) : OrderedJson(request.model);
  if (!request.model.empty()) {
    OrderedJson params = OrderedJson::object();
    for (const auto& [name, value] : request.params.entries()) params[name] = number(value);
    out["params"] = std::move(params);
  }
  out["ordering"] = std::string(ordering_policy_name(request.options.policy));
  out["minimality"] = request.options.minimality == Minimality::kDefinition1 ? "definition1" : "propagation";
  if (request.options.policy == OrderingPolicy::kRandom) out["seed"] = request.options.seed;
  out["dof"] = problem.dof();
  out["contacts"] = problem.given_contacts();
  out["closed_contacts"] = closed_contacts(problem);
  // Negative gaps are penetration: those contacts are closed (never dropped), and listed here.
  OrderedJson penetrating = OrderedJson::array();
  for (int j = 0; j < problem.penetrating_contacts(); ++j) penetrating.push_back(problem.penetrating_index(j));
  out["penetrating_contacts"] = std::move(penetrating);
  out["restitution"] = number(problem.restitution());
  out["momentum_before"] = vector_json(problem.momentum());
  out["velocity_before"] = vector_json(problem.metric().velocity(problem.momentum()));
  out["energy_before"] = number(problem.energy_before());
}

std::string scalar_text(const OrderedJson& j) {
  return j.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

// Pretty output with vectors (arrays of scalars) on one line, so a matrix reads as rows.
void pretty(const OrderedJson& j, int indent, int level, std::string& out) {
  const bool flat = std::none_of(j.begin(), j.end(), [](const OrderedJson& e) { return e.is_structured(); });
  if (!j.is_structured() || j.empty() || (j.is_array() && flat)) {
    if (!j.is_array()) {
      out += scalar_text(j);
      return;
    }
    out += '[';
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + scalar_text(j[i]);
    out += ']';
    return;
  }
  const std::string pad(static_cast<std::size_t>(indent * (level + 1)), ' ');
  out += j.is_array() ? "[\n" : "{\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out += first ? "" : ",\n";
    first = false;
    out += pad;
    if (j.is_object()) out += scalar_text(OrderedJson(it.key())) + ": ";
    pretty(*it, indent, level + 1, out);
  }
  out += '\n' + std::string(static_cast<std::size_t>(indent * level), ' ') + (j.is_array() ? ']' : '}');
}

std::string dump(const OrderedJson& doc, int indent) {
  if (indent < 0) return scalar_text(doc) + "\n";
  std::string out;
  pretty(doc, indent, 0, out);
  return out + "\n";
}

}  // namespace

// ---- resolve --------------------------------------------------------------------------------------

ResolveRequest parse_resolve_request(const std::string& json_text, const ImpactModelCatalog& catalog) {
  ErrorList errors;
  const Json doc = parse_object(json_text, false, errors);
  ResolveRequest request = read_request(doc, catalog, errors);
  errors.raise();
  return request;
}

std::string resolution_to_json(const ResolveRequest& request, const ImpactResolution& resolution,
                               const ImpactWorkspace& workspace, const ImpactDiagnostics& diagnostics,
                               int indent) {
  const ImpactProblem& problem = request.problem;
  OrderedJson out;
  out["status"] = resolve_status_name(resolution.status);
  describe_request(request, out);
  out["outcome_count"] = resolution.outcome_count;
  OrderedJson outcomes = OrderedJson::array();
  for (int j = 0; j < workspace.outcomes.size; ++j)
    outcomes.push_back(outcome_json(problem, workspace.outcomes.items[static_cast<std::size_t>(j)]));
  out["outcomes"] = std::move(outcomes);
  out["unique"] = resolution.unique;
  out["xi"] = number(resolution.xi);
  // Only when the outcome cap cut the set: the diameter of the outcomes found (ξ ≥ this).
  if (std::isfinite(resolution.xi_lower_bound)) out["xi_lower_bound"] = number(resolution.xi_lower_bound);
  out["xi_argmin_argmax"] = number(resolution.xi_argmin_argmax);
  out["minimal_outcomes"] =
      resolution.minimal_outcomes < 0 ? OrderedJson(nullptr) : OrderedJson(resolution.minimal_outcomes);
  if (resolution.plastic_computed) {
    const PlasticOutcome& plastic = resolution.plastic;
    const DofVector& p = plastic.momentum;
    OrderedJson pj;
    pj["momentum"] = vector_json(p);
    pj["velocity"] = vector_json(problem.metric().velocity(p));
    pj["impulses"] = given_impulses(problem, plastic.impulses);
    pj["energy"] = number(plastic.energy);
    pj["complementarity_residual"] = number(plastic.complementarity_residual);
    pj["converged"] = plastic.converged;  // the KKT conditions were verified after the solve
    out["plastic"] = std::move(pj);
  } else {
    out["plastic"] = nullptr;
  }
  out["gram"] = matrix_json(diagnostics.normalized_gram);
  out["orthogonal"] = diagnostics.orthogonal;
  out["dihedral_m"] =
      diagnostics.dihedral_m == 0 ? OrderedJson(nullptr) : OrderedJson(diagnostics.dihedral_m);
  out["theorem1_bound"] =
      diagnostics.theorem1_bound == 0 ? OrderedJson(nullptr) : OrderedJson(diagnostics.theorem1_bound);
  OrderedJson caps;
  caps["step_cap_hit"] = resolution.step_cap_hit;
  caps["depth_cap_hit"] = resolution.depth_cap_hit;
  caps["node_cap_hit"] = resolution.node_cap_hit;
  caps["outcome_cap_hit"] = resolution.outcome_cap_hit;
  caps["definition1_cap_hit"] = resolution.definition1_cap_hit;
  caps["nodes"] = resolution.nodes;
  out["caps"] = std::move(caps);
  OrderedJson limits;
  limits["max_steps"] = request.options.limits.max_steps;
  limits["max_depth"] = request.options.limits.max_depth;
  limits["max_nodes"] = request.options.limits.max_nodes;
  limits["max_outcomes"] = request.options.limits.max_outcomes;
  limits["max_definition1_checks"] = request.options.limits.max_definition1_checks;
  out["limits"] = std::move(limits);
  return dump(out, indent);
}

// ---- check ------------------------------------------------------------------------------------------

CheckRequest parse_check_request(const std::string& json_text, const ImpactModelCatalog& catalog) {
  ErrorList errors;
  const Json doc = parse_object(json_text, true, errors);
  CheckRequest request;
  request.impact = read_request(doc, catalog, errors);
  const bool problem_ok = errors.empty();  // the length check below needs a valid problem
  errors.attempt([&] {
    const bool has_p = doc.contains("momentum_after"), has_v = doc.contains("velocity_after");
    if (has_p && has_v)
      throw InputError("momentum_after",
                       "give exactly one of 'momentum_after' and 'velocity_after' (got both)");
    if (!has_p && !has_v)
      throw InputError("momentum_after", "required field is missing (or give 'velocity_after')");
    const char* name = has_p ? "momentum_after" : "velocity_after";
    const Eigen::VectorXd v = read_vector(doc[name], name);
    if (!problem_ok) return;
    const ImpactProblem& problem = request.impact.problem;
    const int d = problem.dof();
    if (v.size() != d) throw InputError(name, fmt::format("must have length d = {} (got {})", d, v.size()));
    request.momentum_after = has_p ? DofVector(v) : DofVector(problem.metric().mass_matrix() * v);
    request.precision = printed_precision(problem, v, !has_p);
  });
  auto read_tolerance = [&](const char* name, double& value, bool& given) {
    if (!doc.contains(name)) return;
    errors.attempt([&] {
      value = read_number(doc[name], name);
      if (!(value > 0.0 && value < 1.0))
        throw InputError(name, fmt::format("must be a number in (0, 1) (got {})", value));
      given = true;
    });
  };
  read_tolerance("tolerance", request.tolerance, request.tolerance_given);
  read_tolerance("consistency_tolerance", request.consistency_tolerance, request.consistency_tolerance_given);
  errors.raise();
  // Defaults follow the printed precision: an exact answer printed to D digits is off by up to
  // precision.relative_rounding (and a normalized rate by no more, by Cauchy–Schwarz).
  if (!request.consistency_tolerance_given)
    request.consistency_tolerance = request.precision.consistency_tolerance;
  if (!request.tolerance_given)
    request.tolerance = std::max(kDefaultCheckTolerance, request.precision.consistency_tolerance);
  return request;
}

std::string check_to_json(const CheckRequest& request, const PostImpactCheck& check,
                          const ImpactResolution& resolution, const ImpactWorkspace& workspace, int indent) {
  const ImpactProblem& problem = request.impact.problem;
  OrderedJson out;
  out["consistent_with_propagative_model"] = check.consistent_with_propagative_model;
  out["energy_before"] = number(check.energy_before);
  out["energy_after"] = number(check.energy_after);
  out["relative_energy_error"] = number(check.relative_energy_error);
  out["predicted_energy_after"] = number(check.predicted_energy_after);
  out["relative_energy_error_vs_model"] = number(check.relative_energy_error_vs_model);
  OrderedJson violations = OrderedJson::array();
  for (const auto& v : check.feasibility_violations) {
    OrderedJson one;
    one["contact"] = v.contact;
    one["rate"] = number(v.rate);
    violations.push_back(std::move(one));
  }
  out["feasibility_violations"] = std::move(violations);
  out["max_feasibility_violation"] = number(check.max_feasibility_violation);
  OrderedJson impulses = OrderedJson::array();
  for (double v : check.implied_impulses) impulses.push_back(number(v));
  out["implied_impulses"] = std::move(impulses);
  out["impulse_residual"] = number(check.impulse_residual);
  out["nonnegative_impulse_residual"] = number(check.nonnegative_impulse_residual);
  out["complementarity_residual"] = number(check.complementarity_residual);
  out["negative_impulses"] = check.negative_impulses;
  out["distance_to_nearest_outcome"] = number(check.distance_to_nearest_outcome);
  out["nearest_outcome"] =
      check.nearest_outcome < 0 ? OrderedJson(nullptr) : OrderedJson(check.nearest_outcome);
  out["distance_to_plastic"] = number(check.distance_to_plastic);
  out["tolerance"] = number(request.tolerance);
  out["consistency_tolerance"] = number(request.consistency_tolerance);
  out["consistency_tolerance_from"] = request.consistency_tolerance_given ? "input" : "printed_precision";
  out["printed_significant_digits"] = request.precision.digits;
  out["status"] = resolve_status_name(resolution.status);
  out["outcome_count"] = resolution.outcome_count;
  describe_request(request.impact, out);
  out["momentum_after"] = vector_json(request.momentum_after);
  out["velocity_after"] = vector_json(problem.metric().velocity(request.momentum_after));
  OrderedJson outcomes = OrderedJson::array();
  for (int j = 0; j < workspace.outcomes.size; ++j)
    outcomes.push_back(vector_json(workspace.outcomes.items[static_cast<std::size_t>(j)].momentum));
  out["outcome_momenta"] = std::move(outcomes);
  out["plastic_momentum"] = resolution.plastic_computed
                                ? vector_json(resolution.plastic.momentum)
                                : OrderedJson(nullptr);
  out["xi"] = number(resolution.xi);
  return dump(out, indent);
}

// ---- text in and out --------------------------------------------------------------------------------

std::string read_text_input(const std::string& path) {
  return read_capped_input(path, kMaxJsonBytes, "input", true);
}

void write_text_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw IoError("cannot write standard output");
    return;
  }
  // A symlink is resolved: the file it points to is the output (a dangling one is refused).
  std::string target = path;
  if (path_kind(path) == PathKind::kSymlink) {
    std::error_code ec;
    target = std::filesystem::canonical(path, ec).string();
    if (ec) throw IoError(fmt::format("cannot write '{}': it is a symbolic link to a missing file", path));
  }
  const PathKind kind = path_kind(target);
  if (kind == PathKind::kCharDevice || kind == PathKind::kFifo) {
    // A device or FIFO is written through (a stream), never replaced.
    const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        const int err = errno;
        ::close(fd);
        throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
      }
      done += static_cast<std::size_t>(w);
    }
    if (::close(fd) != 0) throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    return;
  }
  if (kind != PathKind::kAbsent && kind != PathKind::kRegular)
    throw IoError(fmt::format("cannot write '{}': it is {}; the output must be a regular file, a character "
                              "device or a FIFO",
                              path, path_kind_name(kind)));
  // Same directory, so the rename is atomic: readers see the old file or the whole new one. The
  // temporary file is created exclusively, never through a planted link.
  const std::string tmp = fmt::format("{}.tmp.{}", target, static_cast<long>(::getpid()));
  int fd = -1;
  try {
    fd = create_exclusive(tmp);
  } catch (const IoError& e) {
    throw IoError(fmt::format("cannot write '{}': {}", path, e.what()));
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
    }
    done += static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw IoError(fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  }
}

}  // namespace simpact
