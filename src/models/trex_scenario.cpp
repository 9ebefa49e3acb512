#include "simpact/models/trex_scenario.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"
#include "simpact/models/trex_design.hpp"
#include "simpact/models/trex_model.hpp"

namespace simpact {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Parameter order after the four design parameters.
enum { kTheta = 4, kPhiL, kGammaL, kPhiR, kGammaR, kPhiT, kFoot, kSpeed, kRestitution, kCount };

struct Placed {
  TrexGeometry geometry;
  DofVector q;
  TrexContact foot;
};

Placed place(const std::vector<ParameterInfo>& infos, const ParameterSet& params) {
  double v[kCount];
  for (int i = 0; i < kCount; ++i) v[i] = read_parameter(params, infos[i]);
  Placed p{TrexGeometry(TrexDesign{v[0], v[1], v[2], v[3]}), DofVector::Zero(kTrexDof),
           v[kFoot] == 0.0 ? kTrexFootL : kTrexFootR};
  p.q << 0.0, 0.0, v[kTheta], v[kPhiL], v[kGammaL], v[kPhiR], v[kGammaR], v[kPhiT];
  ContactVector phi;
  p.geometry.gaps(p.q, phi);
  p.q[kTrexY] = -phi[kTrexTailTip];  // the tail tip on the floor; Newton then moves y and θ
  DesignSolverOptions options;
  options.orthogonality = false;
  options.max_iterations = 50;
  const DesignResult r = solve_impact_design(trex_configuration_evaluator(p.geometry, p.foot), p.q,
                                             {{kTrexY, -kInf, kInf, 0.01}, {kTrexTheta}}, options);
  if (r.status != DesignStatus::kConverged)
    throw InputError("theta",
                     fmt::format("no configuration near theta = {} where the {} and the tail tip both "
                                 "touch the floor (placement {})",
                                 v[kTheta], TrexGeometry::contact_names()[p.foot], to_string(r.status)));
  p.q = r.w;
  p.geometry.gaps(p.q, phi);
  const int other = p.foot == kTrexFootL ? kTrexFootR : kTrexFootL;
  if (!(phi[other] > kGapTolerance))
    throw InputError(
        other == kTrexFootL ? "phi_L" : "phi_R",
        fmt::format("the {} is {} m above the floor when the {} and the tail touch (must be above it)",
                    TrexGeometry::contact_names()[other], phi[other], TrexGeometry::contact_names()[p.foot]));
  return p;
}

}  // namespace

TrexFamily::TrexFamily() {
  const TrexTableRow initial = trex_table1_initial();
  parameters_ = trex_design_parameters();
  parameters_.push_back(
      {"theta", "rad",
       "body angle (impact: the placement's starting guess, solved with y; time stepping: the stance's)",
       initial.q[kTrexTheta], -kMaxMagnitude, kMaxMagnitude, false});
  parameters_.push_back(
      {"phi_L", "rad", "left hip angle", initial.q[kTrexHipL], -kMaxMagnitude, kMaxMagnitude, false});
  parameters_.push_back(
      {"gamma_L", "rad", "left knee angle", initial.q[kTrexKneeL], -kMaxMagnitude, kMaxMagnitude, false});
  parameters_.push_back(
      {"phi_R", "rad", "right hip angle", initial.q[kTrexHipR], -kMaxMagnitude, kMaxMagnitude, false});
  parameters_.push_back(
      {"gamma_R", "rad", "right knee angle", initial.q[kTrexKneeR], -kMaxMagnitude, kMaxMagnitude, false});
  parameters_.push_back({"phi_T", "rad", "body joint (tail) angle", initial.q[kTrexTail], -kMaxMagnitude,
                         kMaxMagnitude, false});
  parameters_.push_back(
      {"foot", "1", "the foot that touches with the tail: 0 left, 1 right", 1.0, 0.0, 1.0, true});
  parameters_.push_back(
      {"speed", "m s-1", "falling speed of the whole robot", 1.0, 0.0, kMaxMagnitude, false});
  parameters_.push_back(restitution_parameter());
}

DofVector TrexFamily::placed_configuration(const ParameterSet& params) const {
  return place(parameters_, params).q;
}

void TrexFamily::impact_at(const ParameterSet& params, FamilyScratch& /*scratch*/, ImpactTerms& terms,
                           PreImpact& pre, double* /*values*/) const {
  const Placed p = place(parameters_, params);
  const double speed = read_parameter(params, parameters_[kSpeed]);
  // The time-stepping robot's linkage (its joint laws do not enter an impact): M(q) and the three
  // floor contacts; the foot and the tail tip are closed, the other foot above the floor (place).
  const std::unique_ptr<PlanarLinkage> linkage = make_trex_linkage(p.geometry.design(), p.q, TrexDrive{});
  linkage->impact_terms(p.q, terms);
  pre.velocity = DynVector::Zero(kTrexDof);
  pre.velocity[kTrexY] = -speed;
  pre.momentum.resize(0);
  pre.restitution = read_parameter(params, parameters_[kRestitution]);
  pre.gap_tolerance = kGapTolerance;
}

}  // namespace simpact
