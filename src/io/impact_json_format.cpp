// The `simpact resolve` and `simpact check` output documents (declared in impact_json.hpp).
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "simpact/io/impact_json.hpp"

namespace simpact {

namespace {

using OrderedJson = nlohmann::ordered_json;  // output keys in a readable, documented order

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
template <typename Problem, typename Vector>
OrderedJson given_impulses(const Problem& problem, const Vector& impulses) {
  std::vector<double> all(static_cast<std::size_t>(problem.given_contacts()), 0.0);
  for (int i = 0; i < problem.contacts(); ++i)
    all[static_cast<std::size_t>(problem.given_index(i))] = impulses[i];
  OrderedJson out = OrderedJson::array();
  for (double v : all) out.push_back(number(v));
  return out;
}

template <typename Problem>
OrderedJson closed_contacts(const Problem& problem) {
  OrderedJson out = OrderedJson::array();
  for (int i = 0; i < problem.contacts(); ++i) out.push_back(problem.given_index(i));
  return out;
}

template <typename Problem, typename OutcomeT>
OrderedJson outcome_json(const Problem& problem, const OutcomeT& o) {
  OrderedJson out;
  const auto& p = o.momentum;
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

// ξ, or null when no contact closed: no impact was posed, and a ξ of 0 would read as a unique
// outcome (status no_impact, closed_contacts []).
template <typename Problem>
OrderedJson indeterminacy(const Problem& problem, double xi) {
  return problem.contacts() == 0 ? OrderedJson(nullptr) : number(xi);
}

template <typename Matrix>
OrderedJson matrix_json(const Matrix& m) {
  OrderedJson out = OrderedJson::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) out.push_back(vector_json(m.row(i).transpose().eval()));
  return out;
}

// Inputs echoed so that a model request's M-derived p⁻ is visible.
template <typename S>
void describe_request(const ResolveRequest& request, OrderedJson& out) {
  const BasicImpactProblem<S>& problem = request.problem_on<S>();
  out["model"] = request.model.empty() ? OrderedJson(nullptr) : OrderedJson(request.model);
  if (!request.model.empty()) {
    OrderedJson params = OrderedJson::object();
    for (const auto& [name, value] : request.params.entries()) params[name] = number(value);
    out["params"] = std::move(params);
  }
  out["ordering"] = std::string(ordering_policy_name(request.options.policy));
  out["minimality"] = request.options.minimality == Minimality::kDefinition1 ? "definition1" : "propagation";
  if (request.options.policy == OrderingPolicy::kRandom) out["seed"] = request.options.seed;
  // A mechanism's configuration as resolved: `place` applied (the placement is visible).
  if (!request.placed_qpos.empty()) {
    OrderedJson placed = OrderedJson::object();
    for (const auto& [name, value] : request.placed_qpos) placed[name] = number(value);
    out["placed_qpos"] = std::move(placed);
  }
  out["dof"] = problem.dof();
  out["contacts"] = problem.given_contacts();
  out["closed_contacts"] = closed_contacts(problem);
  // A mechanism's rows as witness points: row i of the problem (impulses[i], closed_contacts'
  // indices) is contact_points[i].
  if (!request.contact_points.empty()) {
    OrderedJson points = OrderedJson::array();
    for (const auto& point : request.contact_points) {
      OrderedJson one = OrderedJson::object();
      one["pair"] = OrderedJson::array({point.a, point.b});
      one["position"] = OrderedJson::array(
          {number(point.position[0]), number(point.position[1]), number(point.position[2])});
      one["gap"] = number(point.gap);
      one["normal"] =
          OrderedJson::array({number(point.normal[0]), number(point.normal[1]), number(point.normal[2])});
      points.push_back(std::move(one));
    }
    out["contact_points"] = std::move(points);
  }
  // Negative gaps are penetration: those contacts are closed (never dropped), and listed here.
  OrderedJson penetrating = OrderedJson::array();
  for (int j = 0; j < problem.penetrating_contacts(); ++j)
    penetrating.push_back(problem.penetrating_index(j));
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

template <typename S>
std::string resolution_to_json(const ResolveRequest& request, const BasicImpactResolution<S>& resolution,
                               const BasicImpactWorkspace<S>& workspace,
                               const BasicImpactDiagnostics<S>& diagnostics, int indent) {
  const BasicImpactProblem<S>& problem = request.problem_on<S>();
  OrderedJson out;
  out["status"] = resolve_status_name(resolution.status);
  describe_request<S>(request, out);
  out["outcome_count"] = resolution.outcome_count;
  OrderedJson outcomes = OrderedJson::array();
  for (int j = 0; j < workspace.outcomes.size; ++j)
    outcomes.push_back(outcome_json(problem, workspace.outcomes.items[static_cast<std::size_t>(j)]));
  out["outcomes"] = std::move(outcomes);
  out["unique"] = problem.contacts() == 0 ? OrderedJson(nullptr) : OrderedJson(resolution.unique);
  out["xi"] = indeterminacy(problem, resolution.xi);
  // Only when the outcome cap cut the set: the diameter of the outcomes found (ξ ≥ this).
  if (std::isfinite(resolution.xi_lower_bound)) out["xi_lower_bound"] = number(resolution.xi_lower_bound);
  out["xi_argmin_argmax"] = indeterminacy(problem, resolution.xi_argmin_argmax);
  out["minimal_outcomes"] =
      resolution.minimal_outcomes < 0 ? OrderedJson(nullptr) : OrderedJson(resolution.minimal_outcomes);
  if (resolution.plastic_computed) {
    const BasicPlasticOutcome<S>& plastic = resolution.plastic;
    const typename S::DofVector& p = plastic.momentum;
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
  for (const auto& field : kResolveLimitFields) limits[field.name] = field.get(request.options.limits);
  out["limits"] = std::move(limits);
  return dump(out, indent);
}

template <typename S>
std::string check_to_json(const CheckRequest& request, const PostImpactCheck& check,
                          const BasicImpactResolution<S>& resolution,
                          const BasicImpactWorkspace<S>& workspace, int indent) {
  const BasicImpactProblem<S>& problem = request.impact.problem_on<S>();
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
  describe_request<S>(request.impact, out);
  out["momentum_after"] = vector_json(request.momentum_after);
  out["velocity_after"] =
      vector_json(problem.metric().velocity(typename S::DofVector(request.momentum_after)));
  OrderedJson outcomes = OrderedJson::array();
  for (int j = 0; j < workspace.outcomes.size; ++j)
    outcomes.push_back(vector_json(workspace.outcomes.items[static_cast<std::size_t>(j)].momentum));
  out["outcome_momenta"] = std::move(outcomes);
  out["plastic_momentum"] =
      resolution.plastic_computed ? vector_json(resolution.plastic.momentum) : OrderedJson(nullptr);
  out["xi"] = indeterminacy(problem, resolution.xi);
  return dump(out, indent);
}

#define SIMPACT_INSTANTIATE_IMPACT_JSON(S)                                                               \
  template std::string resolution_to_json<S>(const ResolveRequest&, const BasicImpactResolution<S>&,     \
                                             const BasicImpactWorkspace<S>&,                             \
                                             const BasicImpactDiagnostics<S>&, int);                     \
  template std::string check_to_json<S>(const CheckRequest&, const PostImpactCheck&,                     \
                                        const BasicImpactResolution<S>&, const BasicImpactWorkspace<S>&, \
                                        int);
SIMPACT_INSTANTIATE_IMPACT_JSON(FixedSizes)
SIMPACT_INSTANTIATE_IMPACT_JSON(DynamicSizes)
#undef SIMPACT_INSTANTIATE_IMPACT_JSON

}  // namespace simpact
