// The generic model: the user gives M, the normals and p⁻ (or q̇⁻) directly — how users plug in
// their own mechanisms, and how other simulators' impacts are checked.
#pragma once

#include "simpact/core/impact_problem.hpp"

namespace simpact {

struct GenericImpactInput {
  Eigen::MatrixXd mass_matrix;
  Eigen::MatrixXd normals;               // one row per contact
  Eigen::VectorXd momentum;              // p⁻ (set this or velocity)
  Eigen::VectorXd velocity;              // q̇⁻: p⁻ = M q̇⁻
  Eigen::VectorXd gaps;                  // optional φ_i; empty = every contact closed
  double gap_tolerance = kGapTolerance;  // φ_i ≤ this: closed (negative: penetrating, closed)
  double restitution = 1.0;
};

// Throws InputError naming the field.
ImpactProblem make_generic_problem(const GenericImpactInput& input);

}  // namespace simpact
