#include "simpact/core/kinetic_metric.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"

namespace simpact {

template <typename S>
BasicKineticMetric<S>::BasicKineticMetric(const Eigen::Ref<const Eigen::MatrixXd>& mass_matrix) {
  const auto d = mass_matrix.rows();
  if (d == 0 || mass_matrix.cols() != d)
    throw InputError("mass_matrix",
                     fmt::format("must be a square d×d matrix (got {}×{})", d, mass_matrix.cols()));
  if (d > S::kDofLimit)
    throw InputError("mass_matrix", fmt::format("dimension {} exceeds the maximum d = {}", d, S::kDofLimit));
  const auto out_of_range = [](Eigen::Index i, Eigen::Index j, double value) {
    return InputError("mass_matrix", fmt::format("entry [{}][{}] = {:g} is outside the computable magnitude "
                                                 "range [{:g}, {:g}]: change units",
                                                 i, j, value, kMinMagnitude, kMaxMagnitude));
  };
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
    const auto diag = mass_matrix.diagonal();
    if (!diag.allFinite()) throw InputError("mass_matrix", "must be finite (found NaN or Inf)");
    if ((diag.array() <= 0.0).any()) throw InputError("mass_matrix", "must be positive definite");
    for (Eigen::Index i = 0; i < d; ++i)
      if (!in_computable_range(diag[i])) throw out_of_range(i, i, diag[i]);
    mass_ = mass_matrix;
    diagonal_ = true;
    inverse_diagonal_ = mass_.diagonal().cwiseInverse();
    inverse_sqrt_diagonal_ = inverse_diagonal_.cwiseSqrt();
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
