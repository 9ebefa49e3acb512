// Balls as a Mechanism: point masses with radii on 1 or 2 Euclidean coordinates each (a cradle's
// x, a billiards table's x and y, a falling ball's height), no rotation, so M = diag(m) is
// constant and T has no q-derivatives. Contacts: two balls' surfaces (φ = |x_j − x_i| − r_i − r_j)
// or a ball above the floor along its last coordinate (φ = y − r − floor). Gravity pulls along −
// the last coordinate. The billiards, cradle and ball scenarios build it, once for impacts and
// time stepping alike.
#pragma once

#include <string>
#include <vector>

#include "simpact/models/mechanism.hpp"

namespace simpact {

class BallSet final : public Mechanism {
 public:
  // `balls` balls of `axes` (1 or 2) coordinates each: q = [x_0 (, y_0), x_1 (, y_1), …].
  BallSet(std::string name, int balls, int axes, double gravity = 0.0);
  // Ball i's mass [kg] and radius [m] (sizes may be rebuilt in place for every sweep task).
  void set_ball(int i, double mass, double radius);
  // A contact between the surfaces of balls i and j, or of ball i and the floor at `height`.
  void add_pair_contact(int i, int j);
  void add_floor_contact(int i, double height);
  void set_coordinate_names(std::vector<std::string> names) { names_ = std::move(names); }

  std::string name() const override { return name_; }
  int dof() const override { return balls_ * axes_; }
  int contacts() const override { return static_cast<int>(contacts_.size()); }
  std::string coordinate_name(int i) const override;
  std::string coordinate_unit(int /*i*/) const override { return "m"; }
  void kinetic(const DynVector& q, const DynVector& v, bool second, KineticDerivatives& out) const override;
  void momentum_terms(const DynVector& q, const DynVector& v, DynVector& t_q, DynVector& t_v,
                      DynVector& v_q) const override;
  double potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const override;
  void gaps(const DynVector& q, DynVector& phi) const override;
  void gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const override;
  // M = diag(m): the impact's metric is the diagonal's.
  void impact_terms(const DynVector& q, ImpactTerms& out) const override;
  // The diagonal of M (each ball's mass on each of its coordinates).
  const DynVector& mass_diagonal() const { return mass_diagonal_; }

 private:
  struct Contact {
    int i = 0, j = -1;  // j < 0: the floor
    double height = 0.0;
  };
  // Ball i's centre (up to two coordinates) and the gap of contact c with its unit direction.
  double gap_of(const DynVector& q, const Contact& c, double* direction) const;

  std::string name_;
  int balls_, axes_;
  double gravity_;
  DynVector mass_diagonal_;
  std::vector<double> radius_;
  std::vector<Contact> contacts_;
  std::vector<std::string> names_;
};

}  // namespace simpact
