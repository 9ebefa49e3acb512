// Reading `simpact resolve` and `simpact check` requests (declared in impact_json.hpp).
#include <fmt/format.h>

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "json_reading.hpp"
#include "simpact/core/magnitude_range.hpp"
#include "simpact/io/impact_json.hpp"
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

template <typename S>
BasicImpactProblem<S> make_raw_problem(const RawProblemInput& input) {
  BasicKineticMetric<S> metric(input.mass_matrix);
  Eigen::VectorXd momentum = input.momentum;
  if (input.velocity.size() > 0) {
    if (!input.velocity.allFinite()) throw InputError("velocity", "must be finite (found NaN or Inf)");
    momentum = input.mass_matrix * input.velocity;
  }
  return BasicImpactProblem<S>(std::move(metric), input.normals, momentum, input.restitution, input.gaps,
                               input.gap_tolerance);
}
template ImpactProblem make_raw_problem<FixedSizes>(const RawProblemInput&);
template DynamicImpactProblem make_raw_problem<DynamicSizes>(const RawProblemInput&);

bool raw_problem_fits_fixed_sizes(const RawProblemInput& input) {
  const int closed = closed_contact_count(input.normals.rows(), input.gaps, input.gap_tolerance);
  return fits_fixed_sizes(static_cast<int>(input.mass_matrix.rows()), closed);
}

namespace {

using namespace detail;

const Names kProblemKeys = {"mass_matrix", "normals", "momentum", "velocity", "gaps", "gap_tolerance"};
const Names kResolveKeys = {"_comment",      "mass_matrix", "normals",   "momentum",   "velocity", "gaps",
                            "gap_tolerance", "restitution", "ordering",  "minimality", "seed",     "limits",
                            "model",         "params",      "mechanism", "qpos",       "qvel"};
const Names kCheckOnlyKeys = {"momentum_after", "velocity_after", "tolerance", "consistency_tolerance"};
// The keys of "limits", from the core's list of user-settable caps.
Names limit_keys() {
  Names names;
  for (const auto& field : kResolveLimitFields) names.emplace_back(field.name);
  return names;
}
const Names kLimitKeys = limit_keys();

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
        throw InputError("limits", fmt::format("must be an object with keys from {} (got {})",
                                               join(kLimitKeys), limits.type_name()));
      ErrorList limit_errors;
      for (auto it = limits.begin(); it != limits.end(); ++it)
        limit_errors.attempt([&] {
          const std::string field = "limits." + printable(it.key());
          for (const auto& limit : kResolveLimitFields)
            if (it.key() == limit.name)
              return limit.set(options.limits, read_integer(*it, field, 1, limit.max));
          const std::string near = nearest_name(it.key(), kLimitKeys);
          throw InputError(field, near.empty() ? fmt::format("unknown key (allowed: {})", join(kLimitKeys))
                                               : fmt::format("unknown key (did you mean '{}'?)", near));
        });
      limit_errors.raise();
    });
  errors.raise();
  return options;
}

// The size path is chosen here: fixed when d and the closed contacts fit it, dynamic beyond.
void set_raw_problem(const RawProblemInput& input, ResolveRequest& request) {
  if (raw_problem_fits_fixed_sizes(input))
    request.problem = make_raw_problem<FixedSizes>(input);
  else
    request.dynamic_problem = make_raw_problem<DynamicSizes>(input);
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
    d = DynamicKineticMetric(input.mass_matrix).dof();  // validated up to the dynamic path's limit
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
  set_raw_problem(input, request);
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
    if (catalog.needs_dynamic_sizes && catalog.needs_dynamic_sizes(request.model, request.params))
      request.dynamic_problem = catalog.make_dynamic_problem(request.model, request.params);
    else
      request.problem = catalog.make_problem(request.model, request.params);
  } catch (const InputError& e) {
    // Models name the bare parameter ("theta"); in JSON it lives under "params".
    const bool parameter = contains(known, e.field()) || request.params.has(e.field());
    if (!parameter || (e.field() == "restitution" && top_level_restitution)) throw;
    throw InputError("params." + e.field(), message_of(e));
  }
}

// A `mechanism` request (DESIGN §4): the file and its contacts, the state (qpos, qvel or
// momentum), restitution and parameter edits; the catalogue builds the problem.
void read_mechanism_problem(const Json& doc, const ImpactModelCatalog& catalog, const std::string& base_dir,
                            ResolveRequest& request) {
  if (!catalog.make_mechanism_problem)
    throw InputError("mechanism", "mechanism files are not supported here");
  for (const char* key : {"model", "mass_matrix", "normals", "velocity", "gaps"})
    if (doc.contains(key))
      throw InputError(key,
                       "not allowed with 'mechanism' (the file gives M and the normals; the state is "
                       "'qpos' with 'qvel' or 'momentum')");
  for (const char* key : {"qpos", "qvel"})
    if (!doc.contains("mechanism") && doc.contains(key))
      throw InputError(key, "only allowed with 'mechanism'");
  const Json& spec = doc["mechanism"];
  if (!spec.is_object())
    throw InputError("mechanism",
                     fmt::format("must be an object {{\"file\": ..., \"contacts\": [[a, b], ...]}} "
                                 "(got {})",
                                 spec.type_name()));
  MechanismRequest m;
  ErrorList errors;
  const Names keys = {"file", "contacts", "place", "witnesses"};
  for (auto it = spec.begin(); it != spec.end(); ++it)
    if (!contains(keys, it.key()))
      errors.attempt([&] {
        const std::string near = nearest_name(it.key(), keys);
        throw InputError("mechanism." + printable(it.key()),
                         near.empty() ? fmt::format("unknown key (allowed: {})", join(keys))
                                      : fmt::format("unknown key (did you mean '{}'?)", near));
      });
  errors.attempt([&] {
    if (!spec.contains("file")) throw InputError("mechanism.file", "required field is missing");
    m.file = read_string(spec["file"], "mechanism.file");
    if (m.file.empty()) throw InputError("mechanism.file", "must name an MJCF or URDF file");
    if (!base_dir.empty() && m.file.front() != '/') m.file = base_dir + "/" + m.file;
  });
  errors.attempt([&] {
    if (!spec.contains("contacts")) throw InputError("mechanism.contacts", "required field is missing");
    const Json& contacts = spec["contacts"];
    if (!contacts.is_array() || contacts.empty())
      throw InputError("mechanism.contacts",
                       "must be a non-empty array of [a, b] pairs of geom or body names");
    for (std::size_t c = 0; c < contacts.size(); ++c) {
      const std::string field = index_field("mechanism.contacts", c);
      if (!contacts[c].is_array() || contacts[c].size() != 2)
        throw InputError(field, "must be a pair [a, b] of geom or body names");
      m.contacts.emplace_back(read_string(contacts[c][0], index_field(field, 0)),
                              read_string(contacts[c][1], index_field(field, 1)));
    }
  });
  if (spec.contains("place"))
    errors.attempt([&] {
      const Json& place = spec["place"];
      if (!place.is_array())
        throw InputError("mechanism.place", "must be an array of coordinate names (qpos.<joint>)");
      for (std::size_t i = 0; i < place.size(); ++i)
        m.place.push_back(read_string(place[i], index_field("mechanism.place", i)));
    });
  if (spec.contains("witnesses"))
    errors.attempt([&] {
      m.witnesses = read_string(spec["witnesses"], "mechanism.witnesses");
      if (m.witnesses != "all" && m.witnesses != "deepest")
        throw InputError("mechanism.witnesses",
                         fmt::format("must be 'all' or 'deepest' (got '{}')", printable(m.witnesses)));
    });
  if (doc.contains("qpos")) errors.attempt([&] { m.qpos = read_vector(doc["qpos"], "qpos"); });
  errors.attempt([&] {
    if (doc.contains("qvel") && doc.contains("momentum"))
      throw InputError("qvel", "give exactly one of 'qvel' and 'momentum' (got both)");
    if (doc.contains("qvel")) m.qvel = read_vector(doc["qvel"], "qvel");
    if (doc.contains("momentum")) m.momentum = read_vector(doc["momentum"], "momentum");
  });
  if (doc.contains("restitution"))
    errors.attempt([&] { m.restitution = read_number(doc["restitution"], "restitution"); });
  if (doc.contains("gap_tolerance"))
    errors.attempt([&] {
      m.gap_tolerance = read_number(doc["gap_tolerance"], "gap_tolerance");
      if (!(m.gap_tolerance >= 0.0)) throw InputError("gap_tolerance", "must be a finite number >= 0");
    });
  if (doc.contains("params"))
    errors.attempt([&] {
      const Json& params = doc["params"];
      if (!params.is_object())
        throw InputError("params", fmt::format("must be an object of parameter name to number (got {})",
                                               params.type_name()));
      for (auto it = params.begin(); it != params.end(); ++it)
        m.params.set(it.key(), read_number(*it, "params." + printable(it.key())));
    });
  errors.raise();
  request.model = m.file;
  request.params = m.params;
  catalog.make_mechanism_problem(m, request);
}

// The numbers of a check request within the magnitudes resolve accepts: a momentum_after of
// 1e200 would overflow its energy to null and the implied impulses to 0 instead of failing.
void check_magnitudes(const Eigen::VectorXd& v, const std::string& field) {
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (v[i] != 0.0 && !in_computable_range(v[i]))
      throw InputError(
          index_field(field, static_cast<std::size_t>(i)),
          fmt::format("{:g} is outside the computable magnitude range [{:g}, {:g}]: change units", v[i],
                      kMinMagnitude, kMaxMagnitude));
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

ResolveRequest read_request(const Json& doc, const ImpactModelCatalog& catalog, const std::string& base_dir,
                            ErrorList& errors) {
  ResolveRequest request;
  errors.attempt([&] { request.options = read_options(doc); });
  errors.attempt([&] {
    if (doc.contains("mechanism") || doc.contains("qpos") || doc.contains("qvel"))
      read_mechanism_problem(doc, catalog, base_dir, request);
    else if (doc.contains("model"))
      read_model_problem(doc, catalog, request);
    else
      read_raw_problem(doc, request);
  });
  return request;
}

}  // namespace

ResolveRequest parse_resolve_request(const std::string& json_text, const ImpactModelCatalog& catalog,
                                     const std::string& base_dir) {
  ErrorList errors;
  const Json doc = parse_object(json_text, false, errors);
  ResolveRequest request = read_request(doc, catalog, base_dir, errors);
  errors.raise();
  return request;
}

CheckRequest parse_check_request(const std::string& json_text, const ImpactModelCatalog& catalog,
                                 const std::string& base_dir) {
  ErrorList errors;
  const Json doc = parse_object(json_text, true, errors);
  CheckRequest request;
  request.impact = read_request(doc, catalog, base_dir, errors);
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
    check_magnitudes(v, name);
    if (!problem_ok) return;
    if (request.impact.dynamic())
      set_check_state(*request.impact.dynamic_problem, v, !has_p, request);
    else
      set_check_state(request.impact.problem, v, !has_p, request);
  });
  auto read_tolerance = [&](const char* name, double& value, bool& given) {
    if (!doc.contains(name)) return;
    errors.attempt([&] {
      value = checked_check_tolerance(read_number(doc[name], name), name);
      given = true;
    });
  };
  read_tolerance("tolerance", request.tolerance, request.tolerance_given);
  read_tolerance("consistency_tolerance", request.consistency_tolerance, request.consistency_tolerance_given);
  errors.raise();
  set_default_check_tolerances(request);
  return request;
}

template <typename S>
void set_check_state(const BasicImpactProblem<S>& problem, const Eigen::VectorXd& v, bool velocity,
                     CheckRequest& request) {
  const char* name = velocity ? "velocity_after" : "momentum_after";
  check_magnitudes(v, name);
  const int d = problem.dof();
  if (v.size() != d) throw InputError(name, fmt::format("must have length d = {} (got {})", d, v.size()));
  using DofVectorT = typename S::DofVector;
  request.momentum_after = !velocity ? v : Eigen::VectorXd(DofVectorT(problem.metric().mass_matrix() * v));
  if (velocity) {  // M q̇ of in-range factors may still leave the range
    try {
      check_magnitudes(request.momentum_after, "momentum_after");
    } catch (const InputError& e) {
      throw InputError(name, "gives M * " + std::string(name) + " with " + e.what());
    }
  }
  request.precision = printed_precision(problem, v, velocity);
}
template void set_check_state<FixedSizes>(const ImpactProblem&, const Eigen::VectorXd&, bool, CheckRequest&);
template void set_check_state<DynamicSizes>(const DynamicImpactProblem&, const Eigen::VectorXd&, bool,
                                            CheckRequest&);

double checked_check_tolerance(double value, const std::string& name) {
  if (!(value > 0.0 && value < 1.0))
    throw InputError(name, fmt::format("must be a number in (0, 1) (got {})", value));
  if (value < kMinMagnitude)
    throw InputError(name, fmt::format("{:g} is below the computable magnitude range [{:g}, {:g}]", value,
                                       kMinMagnitude, kMaxMagnitude));
  return value;
}

void set_default_check_tolerances(CheckRequest& request) {
  // Defaults follow the printed precision: an exact answer printed to D digits is off by up to
  // precision.relative_rounding (and a normalized rate by no more, by Cauchy–Schwarz).
  if (!request.consistency_tolerance_given)
    request.consistency_tolerance = request.precision.consistency_tolerance;
  if (!request.tolerance_given)
    request.tolerance = std::max(kDefaultCheckTolerance, request.precision.consistency_tolerance);
}

ResolveOptions parse_resolve_options(const std::string& json_text) {
  const Json doc = parse_document(json_text);
  if (!doc.is_object())
    throw InputError("input", fmt::format("must be a JSON object (got {})", doc.type_name()));
  const Names option_keys = {"ordering", "minimality", "seed", "limits"};
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!contains(option_keys, it.key()))
      throw InputError(printable(it.key()), fmt::format("unknown option (allowed: {})", join(option_keys)));
  return read_options(doc);
}

}  // namespace simpact
