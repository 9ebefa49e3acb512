#include "simpact/core/kinetic_metric.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simpact/core/input_error.hpp"

namespace simpact {

KineticMetric::KineticMetric(const Eigen::Ref<const Eigen::MatrixXd>& mass_matrix) {
  const auto d = mass_matrix.rows();
  if (d == 0 || mass_matrix.cols() != d)
    throw InputError("mass_matrix",
                     fmt::format("must be a square d×d matrix (got {}×{})", d, mass_matrix.cols()));
  if (d > kMaxDof)
    throw InputError("mass_matrix", fmt::format("dimension {} exceeds the maximum d = {}", d, kMaxDof));
  if (!mass_matrix.allFinite()) throw InputError("mass_matrix", "must be finite (found NaN or Inf)");
  const double scale = mass_matrix.cwiseAbs().maxCoeff();
  if ((mass_matrix - mass_matrix.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale)
    throw InputError("mass_matrix", "must be symmetric");
  mass_ = mass_matrix;
  diagonal_ = true;
  for (Eigen::Index i = 0; i < d && diagonal_; ++i)
    for (Eigen::Index j = 0; j < d; ++j)
      if (i != j && mass_(i, j) != 0.0) {
        diagonal_ = false;
        break;
      }
  if (diagonal_) {
    if ((mass_.diagonal().array() <= 0.0).any()) throw InputError("mass_matrix", "must be positive definite");
    inverse_diagonal_ = mass_.diagonal().cwiseInverse();
    return;
  }
  factor_.compute(mass_);
  // LLT succeeds on some indefinite matrices with tiny pivots: also require a sane pivot ratio.
  const auto& l = factor_.matrixLLT();
  if (factor_.info() != Eigen::Success || !l.diagonal().allFinite() ||
      l.diagonal().minCoeff() <= 1e-8 * std::sqrt(scale))
    throw InputError("mass_matrix", "must be positive definite");
}

}  // namespace simpact
