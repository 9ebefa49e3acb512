#include "simpact/core/kinetic_metric.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"

namespace simpact {

namespace {

void check_dimension(Eigen::Index rows, Eigen::Index cols, int limit) {
  if (rows == 0 || cols != rows)
    throw InputError("mass_matrix", fmt::format("must be a square d×d matrix (got {}×{})", rows, cols));
  if (rows > limit)
    throw InputError("mass_matrix", fmt::format("dimension {} exceeds the maximum d = {}", rows, limit));
}

InputError out_of_range(Eigen::Index i, Eigen::Index j, double value) {
  return InputError("mass_matrix", fmt::format("entry [{}][{}] = {:g} is outside the computable magnitude "
                                               "range [{:g}, {:g}]: change units",
                                               i, j, value, kMinMagnitude, kMaxMagnitude));
}

}  // namespace

template <typename S>
void BasicKineticMetric<S>::assign_diagonal(const Eigen::Ref<const Eigen::VectorXd>& masses) {
  const auto d = masses.size();
  check_dimension(d, d, S::kDofLimit);
  // One pass decides that every mass is fine (a sweep or a batch builds a metric per item); the
  // checks in their order of precedence run only when one is not.
  bool all_fine = true;
  for (Eigen::Index i = 0; i < d; ++i) all_fine &= masses[i] > 0.0 && in_computable_range(masses[i]);
  if (!all_fine) {
    if (!masses.allFinite()) throw InputError("mass_matrix", "must be finite (found NaN or Inf)");
    if ((masses.array() <= 0.0).any()) throw InputError("mass_matrix", "must be positive definite");
    for (Eigen::Index i = 0; i < d; ++i)
      if (!in_computable_range(masses[i])) throw out_of_range(i, i, masses[i]);
  }
  if (!(diagonal_ && mass_.rows() == d)) mass_.setZero(d, d);  // else off the diagonal is zero already
  mass_.diagonal() = masses;
  diagonal_ = true;
  inverse_diagonal_ = masses.cwiseInverse();
  inverse_sqrt_diagonal_ = inverse_diagonal_.cwiseSqrt();
}

template <typename S>
BasicKineticMetric<S>::BasicKineticMetric(const Eigen::Ref<const Eigen::MatrixXd>& mass_matrix) {
  const auto d = mass_matrix.rows();
  check_dimension(d, mass_matrix.cols(), S::kDofLimit);
  // A diagonal M (every model of point masses; a sweep builds one per task) needs only its
  // diagonal checked: the zero off-diagonal entries pass every test below, so the same errors
  // come out in the same order without scanning d² entries several times.
  bool zero_off_diagonal = true;
  for (Eigen::Index j = 0; j < d && zero_off_diagonal; ++j)
    for (Eigen::Index i = 0; i < d; ++i)
      if (i != j && mass_matrix(i, j) != 0.0) {
        zero_off_diagonal = false;
        break;
      }
  if (zero_off_diagonal) {
    assign_diagonal(mass_matrix.diagonal());
    return;
  }
  if (!mass_matrix.allFinite()) throw InputError("mass_matrix", "must be finite (found NaN or Inf)");
  const double scale = mass_matrix.cwiseAbs().maxCoeff();
  if ((mass_matrix - mass_matrix.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale)
    throw InputError("mass_matrix", "must be symmetric");
  mass_ = mass_matrix;
  if ((mass_.diagonal().array() <= 0.0).any()) throw InputError("mass_matrix", "must be positive definite");
  for (Eigen::Index i = 0; i < d; ++i)
    for (Eigen::Index j = 0; j < d; ++j)
      if (mass_(i, j) != 0.0 && !in_computable_range(mass_(i, j))) throw out_of_range(i, j, mass_(i, j));
  // Scale-free definiteness: Cholesky of the unit-diagonal D M D; a pivot below 1e-8 means
  // cond(DMD) ≳ 1e16, i.e. not numerically positive definite.
  const DofVector s_inv = mass_.diagonal().cwiseSqrt().cwiseInverse();
  const DofMatrix scaled = s_inv.asDiagonal() * mass_ * s_inv.asDiagonal();
  const Eigen::LLT<DofMatrix> scaled_factor(scaled);
  if (scaled_factor.info() != Eigen::Success || !scaled_factor.matrixLLT().diagonal().allFinite() ||
      scaled_factor.matrixLLT().diagonal().minCoeff() <= 1e-8)
    throw InputError("mass_matrix", "must be positive definite");
  factor_.compute(mass_);
  if (factor_.info() != Eigen::Success) throw InputError("mass_matrix", "must be positive definite");
}

template class BasicKineticMetric<FixedSizes>;
template class BasicKineticMetric<DynamicSizes>;

}  // namespace simpact
