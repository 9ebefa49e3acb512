#include "simpact/io/simulate_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "json_reading.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;
using detail::in_quotes;
using detail::printable;

const std::vector<std::string> kKeys = {"_comment",
                                        "model",
                                        "mechanism",
                                        "params",
                                        "q0",
                                        "p0",
                                        "v0",
                                        "dt",
                                        "steps",
                                        "t_end",
                                        "ordering",
                                        "restitution",
                                        "record",
                                        "simultaneity_tolerance",
                                        "gap_tolerance",
                                        "localization_tolerance",
                                        "newton",
                                        "seed"};

// A key as a field name: control characters escaped, long keys cut, the empty key as "".
std::string key_field(const std::string& prefix, const std::string& key) {
  return prefix + (key.empty() ? std::string("\"\"") : printable(key));
}

void check_keys(const Json& obj, const std::vector<std::string>& allowed, const std::string& prefix) {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      throw InputError(key_field(prefix, it.key()), "unknown field (allowed: " + detail::join(allowed) + ")");
}

// Model and parameter names are 1–64 printable ASCII characters (every catalogue name is): a
// name outside that is refused before it reaches a message raw.
bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxSimulateName) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}

std::string name_rule() {
  return fmt::format("names are 1-{} printable ASCII characters", kMaxSimulateName);
}

double number(const Json& j, const std::string& field) {
  if (!j.is_number()) throw InputError(field, fmt::format("must be a number, not {}", j.type_name()));
  const double v = j.get<double>();
  if (!std::isfinite(v)) throw InputError(field, "must be finite");
  return v;
}

double positive(const Json& j, const std::string& field) {
  const double v = number(j, field);
  if (!(v > 0.0)) throw InputError(field, fmt::format("{} must be > 0", v));
  return v;
}

long long integer(const Json& j, const std::string& field, long long lo, long long hi) {
  const double v = number(j, field);
  if (v != std::round(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw InputError(field, fmt::format("{} must be an integer in [{}, {}]", v, lo, hi));
  return static_cast<long long>(v);
}

std::vector<double> vector(const Json& j, const std::string& field) {
  if (!j.is_array())
    throw InputError(field, fmt::format("must be an array of numbers, not {}", j.type_name()));
  std::vector<double> out;
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(number(j[i], fmt::format("{}[{}]", field, i)));
  return out;
}

}  // namespace

namespace {
// "mechanism": {"file": ..., "contacts": [[a, b], ...]}.
SimulateMechanism read_mechanism(const Json& spec, const std::string& base_dir) {
  if (!spec.is_object())
    throw InputError("mechanism", "must be an object {\"file\": ..., \"contacts\": [[a, b], ...]}");
  check_keys(spec, {"file", "contacts"}, "mechanism.");
  SimulateMechanism m;
  if (!spec.contains("file") || !spec["file"].is_string() || spec["file"].get<std::string>().empty())
    throw InputError("mechanism.file", "required: an MJCF or URDF file name");
  m.file = spec["file"].get<std::string>();
  if (!base_dir.empty() && m.file.front() != '/') m.file = base_dir + "/" + m.file;
  if (!spec.contains("contacts") || !spec["contacts"].is_array())
    throw InputError("mechanism.contacts", "required: an array of [geom_a, geom_b] pairs");
  const Json& contacts = spec["contacts"];
  for (std::size_t c = 0; c < contacts.size(); ++c) {
    const Json& pair = contacts[c];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      throw InputError(fmt::format("mechanism.contacts[{}]", c),
                       "must be a pair [geom_a, geom_b] of geom names");
    m.contacts.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  }
  return m;
}
}  // namespace

SimulateRequest parse_simulate_request(const std::string& json_text, const SimulateLimits& limits,
                                       const std::string& base_dir) {
  // Repeated keys and numbers beyond the doubles (1e999) are InputErrors, as for `resolve`.
  Json doc = detail::parse_document(json_text);
  if (!doc.is_object()) throw InputError("input", "must be a JSON object");
  // Independent fields are checked one by one: a request with several mistakes gets a line each.
  detail::ErrorList errors;
  errors.attempt([&] { check_keys(doc, kKeys, ""); });
  SimulateRequest r;
  errors.attempt([&] {
    if (doc.contains("mechanism")) {
      if (doc.contains("model")) throw InputError("model", "give 'model' or 'mechanism', not both");
      r.mechanism = read_mechanism(doc["mechanism"], base_dir);
      r.model = r.mechanism->file;
    } else {
      if (!doc.contains("model"))
        throw InputError("model", "required (e.g. \"chain\", \"cradle\"; or a \"mechanism\" file)");
      if (!doc["model"].is_string()) throw InputError("model", "must be a string");
      r.model = doc["model"].get<std::string>();
    }
    if (!r.mechanism && !valid_name(r.model))
      throw InputError("model",
                       fmt::format("{} is not a model name ({})",
                                   r.model.empty() ? std::string("\"\"") : in_quotes(r.model), name_rule()));
  });
  errors.attempt([&] {
    if (doc.contains("params")) {
      const Json& p = doc["params"];
      if (!p.is_object()) throw InputError("params", "must be an object of numbers");
      for (auto it = p.begin(); it != p.end(); ++it) {
        const std::string field = key_field("params.", it.key());
        if (!valid_name(it.key())) throw InputError(field, "is not a parameter name (" + name_rule() + ")");
        r.params.set(it.key(), number(*it, field));
      }
    }
  });
  errors.attempt([&] {
    if (doc.contains("q0")) r.q0 = vector(doc["q0"], "q0");
  });
  errors.attempt([&] {
    if (doc.contains("p0") && doc.contains("v0")) throw InputError("v0", "give p0 or v0, not both");
    if (doc.contains("p0")) r.p0 = vector(doc["p0"], "p0");
    if (doc.contains("v0")) r.v0 = vector(doc["v0"], "v0");
  });
  SimulateRequest& o = r;
  const bool dt_ok = errors.attempt([&] {
    if (!doc.contains("dt")) throw InputError("dt", "required: the time step [s]");
    o.dt = number(doc["dt"], "dt");
    if (!(o.dt >= kMinSimulateDt && o.dt <= kMaxSimulateDt))
      throw InputError("dt", fmt::format("{} is outside [1e-12, 1e6] s", o.dt));  // kMin/kMaxSimulateDt
  });
  const bool steps_ok = errors.attempt([&] {
    if (doc.contains("steps") == doc.contains("t_end"))
      throw InputError("steps", "give exactly one of steps, t_end");
    if (doc.contains("steps")) {
      o.steps = static_cast<long>(integer(doc["steps"], "steps", 1, limits.max_steps));  // 0: no run
    } else {
      const double t_end = number(doc["t_end"], "t_end");
      if (!dt_ok) throw InputError("t_end", "needs a valid dt");
      const double n = t_end / o.dt;
      if (!(t_end > 0.0) || n > static_cast<double>(limits.max_steps))
        throw InputError("t_end", fmt::format("{} must be in (0, {}·dt]", t_end, limits.max_steps));
      const double rounded = std::round(n);
      if (std::abs(n - rounded) > 1e-9 * std::max(1.0, n))
        throw InputError("t_end", fmt::format("{} is not a whole number of steps of dt = {}", t_end, o.dt));
      o.steps = static_cast<long>(rounded);
    }
  });
  errors.attempt([&] {
    if (doc.contains("ordering")) {
      if (!doc["ordering"].is_string()) throw InputError("ordering", "must be a string");
      const std::string name = doc["ordering"].get<std::string>();
      if (!parse_ordering_policy(name, o.policy) || o.policy == OrderingPolicy::kAll)
        throw InputError(
            "ordering",
            in_quotes(name) + " is not a single ordering (allowed: argmin, argmax, index, reverse, random)");
    }
  });
  errors.attempt([&] {
    if (doc.contains("restitution")) {
      o.restitution = number(doc["restitution"], "restitution");
      if (o.restitution < 0.0 || o.restitution > 1.0)
        throw InputError("restitution", fmt::format("{} is outside [0, 1]", o.restitution));
    }
  });
  errors.attempt([&] {
    if (doc.contains("simultaneity_tolerance")) {
      o.simultaneity_tolerance = number(doc["simultaneity_tolerance"], "simultaneity_tolerance");
      if (*o.simultaneity_tolerance < 0.0) throw InputError("simultaneity_tolerance", "must be >= 0 [s]");
    }
  });
  errors.attempt([&] {
    if (doc.contains("gap_tolerance")) o.gap_tolerance = positive(doc["gap_tolerance"], "gap_tolerance");
  });
  errors.attempt([&] {
    if (doc.contains("localization_tolerance")) {
      o.localization_tolerance = positive(doc["localization_tolerance"], "localization_tolerance");
      if (*o.localization_tolerance >= 1.0)
        throw InputError("localization_tolerance", "must be < 1 (relative to dt)");
    }
  });
  errors.attempt([&] {
    if (doc.contains("newton")) {
      const Json& nw = doc["newton"];
      if (!nw.is_object())
        throw InputError("newton", "must be an object {tolerance, max_iterations, force_split}");
      check_keys(nw, {"tolerance", "max_iterations", "force_split"}, "newton.");
      if (nw.contains("force_split")) {
        o.force_split = number(nw["force_split"], "newton.force_split");
        if (!(*o.force_split >= 0.5 && *o.force_split <= 1.0))
          throw InputError("newton.force_split", fmt::format("{} is outside [0.5, 1]", *o.force_split));
      }
      if (nw.contains("tolerance")) {
        o.newton_tolerance = positive(nw["tolerance"], "newton.tolerance");
        if (*o.newton_tolerance >= 1.0) throw InputError("newton.tolerance", "must be < 1 (relative)");
      }
      if (nw.contains("max_iterations"))
        o.newton_max_iterations =
            static_cast<int>(integer(nw["max_iterations"], "newton.max_iterations", 1, 1000));
    }
  });
  errors.attempt([&] {
    if (doc.contains("seed"))
      o.seed = static_cast<std::uint64_t>(integer(doc["seed"], "seed", 0, (1LL << 53)));
  });
  // Every recorded state is kept in memory and written out: their number is capped before any
  // step number is stored (record {every: 1} of 10^9 steps asked for 10^9 + 1 of them).
  if (steps_ok)
    errors.attempt([&] {  // record.steps are bounded by steps
      if (doc.contains("record")) {
        const Json& rec = doc["record"];
        if (!rec.is_object()) throw InputError("record", "must be {\"steps\": [..]} or {\"every\": N}");
        check_keys(rec, {"steps", "every"}, "record.");
        if (rec.contains("steps") == rec.contains("every"))
          throw InputError("record", "give exactly one of steps, every");
        if (rec.contains("steps")) {
          const Json& s = rec["steps"];
          if (!s.is_array()) throw InputError("record.steps", "must be an array of step numbers");
          if (s.size() > static_cast<std::size_t>(limits.max_records))
            throw InputError("record.steps", fmt::format("has {} entries: at most {} recorded states",
                                                         s.size(), limits.max_records));
          for (std::size_t i = 0; i < s.size(); ++i) {
            const std::string field = fmt::format("record.steps[{}]", i);
            const long step = static_cast<long>(integer(s[i], field, 0, o.steps));
            // One record per step, in the order they are taken (a repeat or a step out of order was
            // silently reordered, or recorded twice).
            if (!o.record_steps.empty() && step <= o.record_steps.back())
              throw InputError(field,
                               fmt::format("{} must be greater than record.steps[{}] = {} (step numbers in "
                                           "increasing order, each once)",
                                           step, i - 1, o.record_steps.back()));
            o.record_steps.push_back(step);
          }
        } else {
          const long every = static_cast<long>(integer(rec["every"], "record.every", 1, limits.max_steps));
          const long states = o.steps / every + 1;
          if (states > limits.max_records)
            throw InputError(
                "record.every",
                fmt::format("every {} of {} steps gives {} states: at most {} recorded states (raise "
                            "every)",
                            every, o.steps, states, limits.max_records));
          for (long k = 0; k <= o.steps; k += every) o.record_steps.push_back(k);
        }
      } else {
        o.record_steps.push_back(o.steps);  // the final state
      }
    });
  errors.raise();
  return r;
}

namespace {
OrderedJson num(double v) {
  return std::isfinite(v) ? OrderedJson(v) : OrderedJson(nullptr);
}
OrderedJson vec(const std::vector<double>& v) {
  OrderedJson a = OrderedJson::array();
  for (double x : v) a.push_back(num(x));
  return a;
}
}  // namespace

std::string simulation_to_json(const SimulateRequest& request, const SimulateReport& report, int indent) {
  OrderedJson out;
  OrderedJson records = OrderedJson::array();
  for (const auto& r : report.records)
    records.push_back(
        {{"step", r.step}, {"t", num(r.t)}, {"q", vec(r.q)}, {"p", vec(r.p)}, {"energy", num(r.energy)}});
  OrderedJson impacts = OrderedJson::array();
  for (const auto& i : report.impacts) {
    impacts.push_back({{"t", num(i.t)},
                       {"contacts", i.contacts},
                       {"sequence", i.sequence},
                       {"energy_before", num(i.energy_before)},
                       {"energy_after", num(i.energy_after)},
                       {"plastic", i.plastic},
                       {"step", i.step},
                       {"zeno", i.zeno},
                       {"restitution", num(i.restitution)},
                       {"policy", std::string(ordering_policy_name(i.policy))},
                       {"status", i.status},
                       {"momentum_before", vec(i.momentum_before)},
                       {"momentum_after", vec(i.momentum_after)}});
  }
  out["records"] = records;
  out["impacts"] = impacts;
  // The impacts made plastic as Zeno chatter, and the energy they took (energy_change <= 0).
  int zeno_count = 0;
  double zeno_energy = 0.0;
  for (const auto& i : report.impacts) {
    if (!i.zeno) continue;
    ++zeno_count;
    zeno_energy += i.energy_after - i.energy_before;
  }
  out["zeno"] = {{"impacts", zeno_count}, {"energy_change", num(zeno_energy)}};
  out["max_energy_drift"] = num(report.max_energy_drift);
  OrderedJson work = OrderedJson::object();
  for (std::size_t i = 0; i < report.work.size(); ++i) work[report.work_sources[i]] = num(report.work[i]);
  out["energy"] = {{"initial", num(report.energy_initial)},
                   {"final", num(report.energy_final)},
                   {"work", work},
                   {"residual", num(report.energy_residual)},
                   {"relative_residual", report.energy_initial != 0.0
                                             ? num(report.energy_residual / std::abs(report.energy_initial))
                                             : OrderedJson(nullptr)}};
  out["newton"] = {{"mean", num(report.newton_mean)}, {"max", report.newton_max}};
  out["status"] = "ok";
  out["model"] = request.model;
  out["dof"] = report.coordinates.size();
  out["coordinates"] = report.coordinates;
  if (!report.configuration.empty()) {  // q on a group: nq coordinates, quaternions included
    out["nq"] = report.configuration.size();
    out["configuration"] = report.configuration;
  }
  out["dt"] = num(request.dt);
  out["steps"] = request.steps;
  return out.dump(indent < 0 ? -1 : indent) + "\n";
}

}  // namespace simpact
