// TREX as a design problem (Sec. VII-B, Table I): the variable vector w = [q (x, y, θ, φ_L, γ_L,
// φ_R, γ_R, φ_T), r1, r2, l_u, l_l] and the evaluator the impact-design solver needs for one foot
// and the tail tip (gaps, normals Dφ, M(q) from TrexGeometry). Also the placement used by the
// `trex` impact model and by `simpact design`: solve the two gap equations for chosen coordinates.
#pragma once

#include <string>
#include <vector>

#include "simpact/models/impact_design.hpp"
#include "simpact/models/trex_geometry.hpp"

namespace simpact {

inline constexpr int kTrexVariables = kTrexDof + 4;
enum TrexDesignVariable { kTrexR1 = kTrexDof, kTrexR2, kTrexThigh, kTrexShank };

// Coordinate names then r1, r2, l_u, l_l.
const std::vector<std::string>& trex_variable_names();
// -1 when `name` is not a variable.
int trex_variable_index(const std::string& name);
// The unit "nearby" is measured in: 0.01 m for lengths (Table I's cm), 1 rad for angles.
double trex_variable_scale(int index);
bool trex_variable_is_length(int index);

Eigen::VectorXd trex_variables(const DofVector& q, const TrexDesign& design);
DofVector trex_configuration(const Eigen::VectorXd& w);
TrexDesign trex_design_of(const Eigen::VectorXd& w);

// Contacts `foot` (kTrexFootL or kTrexFootR) and the tail tip, at w (the geometry is rebuilt from
// w's design; an inadmissible design, r2 ≥ r1, throws).
DesignEvaluator trex_design_evaluator(TrexContact foot, const TrexMaterial& material = {});

// The same contacts at a fixed geometry, w = q: for placing the robot at a given design.
// `geometry` must outlive the evaluator.
DesignEvaluator trex_configuration_evaluator(const TrexGeometry& geometry, TrexContact foot);

// <u,v>_g = u M⁻¹ vᵀ for the two contacts at `point` [kg-1].
double metric_product(const DesignPoint& point);

}  // namespace simpact
