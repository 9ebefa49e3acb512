// TREX, the planar tailed biped of Seghete & Murphey Sec. VII-B (Fig. 6, Table I): its design
// parameters, bodies, masses, kinematics, mass matrix M(q) and floor contacts — the one place
// that holds the geometry (docs/trex.md explains every choice). SI units throughout [m, kg, rad].
//
// q = [x, y, θ, φ_L, γ_L, φ_R, γ_R, φ_T] (Table I's variables):
//   (x, y)  centre c of the anterior body (a solid sphere of radius r1);
//   θ       its orientation: e(θ) = (cos θ, sin θ) points from the anterior to the posterior body
//           (the robot faces −x, so spinning the legs counterclockwise drives it forward);
//   φ, γ    hip and knee angles: thigh from the hip (= c) along −e(θ+φ), length l_u; shank from
//           the knee along −e(θ+φ+γ), length l_l; the foot is the shank's end;
//   φ_T     body joint: the posterior body (sphere of radius r2) and the tail rotate together at
//           absolute angle θ+φ_T about the posterior centre c₂ = c + (r1+r2) e(θ), which is fixed
//           on the anterior body's axis (the spheres touch); the tail is a uniform rod from c₂
//           along e(θ+φ_T), length L_tail(r1, r2) (the paper's formula), its tip the contact.
// Every point is c + Σ_k R(a_k·q) d_k with a_k a 0/1 vector of angle coordinates, so the body
// Jacobians, M(q) = Σ_b m_b J_bᵀJ_b + Σ_b I_b a_b a_bᵀ and ∂M/∂q are exact and closed-form.
// Contacts (gaps with the floor y = 0): foot_L, foot_R, tail (points, no radius).
#pragma once

#include <Eigen/Core>
#include <array>
#include <string>
#include <vector>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/parameter_info.hpp"

namespace simpact {

inline constexpr int kTrexDof = 8;
inline constexpr int kTrexContacts = 3;
enum TrexCoordinate { kTrexX, kTrexY, kTrexTheta, kTrexHipL, kTrexKneeL, kTrexHipR, kTrexKneeR, kTrexTail };
enum TrexContact { kTrexFootL, kTrexFootR, kTrexTailTip };

// Design parameters [m] (Table I's "Initial" row by default).
struct TrexDesign {
  double r1 = 0.07;   // anterior body radius
  double r2 = 0.04;   // posterior body radius (< r1: the formula below needs a taper)
  double l_u = 0.08;  // thigh length
  double l_l = 0.10;  // shank length
};

// Fixed material constants of the paper.
struct TrexMaterial {
  double body_density = 1000.0;   // kg m-3 (water)
  double limb_density = 2000.0;   // kg m-3 (carbon fibre)
  double limb_section = 1.25e-4;  // m2
};

// L_tail = (r1³ + r1²r2 + √2·√(r1⁴r2² + r1³r2³)) / (r1² − r2²) − (r1 + r2)   [m].
double trex_tail_length(double r1, double r2);

// One link term R(a·q) d of a point's position.
struct TrexTerm {
  std::array<double, kTrexDof> a{};  // angle coefficients (0/1)
  Eigen::Vector2d d = Eigen::Vector2d::Zero();
};
// A point c + Σ terms.
struct TrexPoint {
  std::string name;
  std::vector<TrexTerm> terms;
};
// A rigid body: mass at a point, inertia about it (z), rotating at angle a·q.
struct TrexBody {
  std::string name;
  double mass = 0.0;     // kg
  double inertia = 0.0;  // kg m2 about the centre of mass
  std::array<double, kTrexDof> a{};
  TrexPoint com;
};

using TrexJacobian = Eigen::Matrix<double, 2, kTrexDof>;

class TrexGeometry {
 public:
  // Throws InputError naming the design field when r2 ≥ r1, or a length is not positive/finite.
  explicit TrexGeometry(const TrexDesign& design, const TrexMaterial& material = {});

  const TrexDesign& design() const { return design_; }
  double tail_length() const { return tail_length_; }
  double total_mass() const;
  // anterior, posterior, tail, thigh_L, shank_L, thigh_R, shank_R.
  const std::vector<TrexBody>& bodies() const { return bodies_; }
  // The contact points in TrexContact order.
  const std::vector<TrexPoint>& contact_points() const { return contacts_; }
  static const std::array<const char*, kTrexDof>& coordinate_names();
  static const std::array<const char*, kTrexContacts>& contact_names();

  Eigen::Vector2d position(const DofVector& q, const TrexPoint& point) const;
  TrexJacobian jacobian(const DofVector& q, const TrexPoint& point) const;
  // ∂J/∂q_k.
  TrexJacobian jacobian_derivative(const DofVector& q, const TrexPoint& point, int k) const;

  DofMatrix mass_matrix(const DofVector& q) const;
  DofMatrix mass_matrix_derivative(const DofVector& q, int k) const;  // ∂M/∂q_k
  // φ = heights of foot_L, foot_R, tail tip above y = 0; Dφ one row per contact.
  void gaps(const DofVector& q, ContactVector& phi) const;
  void gap_jacobian(const DofVector& q, NormalMatrix& jacobian) const;
  // Named points for drawing: anterior, posterior, hip, knee_L, foot_L, knee_R, foot_R, tail_tip.
  std::vector<std::pair<std::string, Eigen::Vector2d>> points(const DofVector& q) const;

 private:
  TrexDesign design_;
  double tail_length_ = 0.0;
  std::vector<TrexBody> bodies_;
  std::vector<TrexPoint> contacts_;
  std::vector<TrexPoint> drawing_;
};

// The design parameters as model parameters (names r1, r2, l_u, l_l; units m).
const std::vector<ParameterInfo>& trex_design_parameters();

// Table I of the paper, converted to SI and to q's order (the table lists φ_L, φ_R, γ_L, γ_R).
struct TrexTableRow {
  TrexDesign design;
  DofVector q;
  double normalized_product = 0.0;  // the paper's printed <u,v>_g
};
TrexTableRow trex_table1_initial();
TrexTableRow trex_table1_optimized();

}  // namespace simpact
