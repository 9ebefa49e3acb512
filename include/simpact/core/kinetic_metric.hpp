// The kinetic-energy metric on covectors, eq. (5): <a,b>_g = a M⁻¹ bᵀ.
// M is factored once (Cholesky; a diagonal M is just inverted entrywise) and M⁻¹ is never formed.
#pragma once

#include <Eigen/Cholesky>

#include "simpact/core/fixed_size.hpp"

namespace simpact {

template <typename S>
class BasicKineticMetric {
 public:
  using DofVector = typename S::DofVector;
  using DofMatrix = typename S::DofMatrix;
  BasicKineticMetric() = default;
  // Throws InputError("mass_matrix", ...) unless M is square, finite, symmetric and positive
  // definite. Definiteness is decided on the unit-diagonal matrix D M D (D = diag(M)^-1/2), so a
  // change of units (any positive diagonal scaling) never changes the verdict.
  // d above S::kDofLimit is refused the same way (the fixed path's 16, the dynamic path's 1024).
  explicit BasicKineticMetric(const Eigen::Ref<const Eigen::MatrixXd>& mass_matrix);
  // M = diag(masses), in place (a model of point masses rebuilding its system for each sweep
  // task reuses this storage): the constructor's checks and errors for a diagonal M. After a
  // throw this metric must be assigned again before use.
  void assign_diagonal(const Eigen::Ref<const Eigen::VectorXd>& masses);

  int dof() const { return static_cast<int>(mass_.rows()); }
  const DofMatrix& mass_matrix() const { return mass_; }
  bool diagonal() const { return diagonal_; }
  // A diagonal M's 1/m_i and 1/√m_i (what solve_in_place and whiten_in_place multiply by).
  const DofVector& inverse_diagonal() const { return inverse_diagonal_; }
  const DofVector& inverse_sqrt_diagonal() const { return inverse_sqrt_diagonal_; }

  // x = M⁻¹ b for each column of b (velocity of a momentum, [m/s] for p in [kg·m/s]).
  template <typename Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>& b) const {
    if (diagonal_) {
      for (Eigen::Index c = 0; c < b.cols(); ++c) b.col(c).array() *= inverse_diagonal_.array();
    } else {
      factor_.solveInPlace(b);
    }
  }
  DofVector velocity(const DofVector& momentum) const {
    DofVector v = momentum;
    solve_in_place(v);
    return v;
  }
  // <a,b>_g, [J] for momenta.
  double inner(const DofVector& a, const DofVector& b) const { return a.dot(velocity(b)); }
  double squared_norm(const DofVector& a) const { return inner(a, a); }
  // y = L⁻¹ b for each column of b, with M = L Lᵀ: then <a,b>_g = (L⁻¹a)·(L⁻¹b). Working with
  // whitened vectors keeps norms non-negative and lets the plastic QP be solved by QR on L⁻¹Nᵀ
  // without forming (and squaring the condition of) the Gram matrix.
  template <typename Derived>
  void whiten_in_place(Eigen::MatrixBase<Derived>& b) const {
    if (diagonal_) {
      for (Eigen::Index c = 0; c < b.cols(); ++c) b.col(c).array() *= inverse_sqrt_diagonal_.array();
    } else {
      factor_.matrixL().solveInPlace(b);
    }
  }
  // p = L y: the inverse of whiten_in_place for one vector.
  DofVector unwhiten(const DofVector& y) const {
    if (diagonal_) return (y.array() / inverse_sqrt_diagonal_.array()).matrix();
    return factor_.matrixL() * y;
  }
  // ||a||_g computed as |L⁻¹a| (accurate for small differences of large momenta).
  double norm(const DofVector& a) const {
    DofVector y = a;
    whiten_in_place(y);
    return y.norm();
  }

 private:
  DofMatrix mass_;
  Eigen::LLT<DofMatrix> factor_;
  DofVector inverse_diagonal_;
  DofVector inverse_sqrt_diagonal_;
  bool diagonal_ = false;
};

extern template class BasicKineticMetric<FixedSizes>;
extern template class BasicKineticMetric<DynamicSizes>;

using KineticMetric = BasicKineticMetric<FixedSizes>;
using DynamicKineticMetric = BasicKineticMetric<DynamicSizes>;

}  // namespace simpact
