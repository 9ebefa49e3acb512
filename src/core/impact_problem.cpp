#include "simpact/core/impact_problem.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"

namespace simpact {

ImpactProblem::ImpactProblem(KineticMetric metric, const Eigen::Ref<const RowMajorMatrix>& normals,
                             const Eigen::Ref<const Eigen::VectorXd>& momentum, double restitution,
                             const Eigen::Ref<const Eigen::VectorXd>& gaps, double gap_tolerance)
    : metric_(std::move(metric)) {
  const int d = metric_.dof();
  if (momentum.size() != d)
    throw InputError("momentum", fmt::format("must have length d = {} (got {})", d, momentum.size()));
  if (!momentum.allFinite()) throw InputError("momentum", "must be finite (found NaN or Inf)");
  for (int i = 0; i < d; ++i)
    if (momentum[i] != 0.0 && !in_computable_range(momentum[i]))
      throw InputError("momentum", fmt::format("entry {} = {:g} is outside the computable magnitude range "
                                               "[{:g}, {:g}]: change units",
                                               i, momentum[i], kMinMagnitude, kMaxMagnitude));
  if (!(gap_tolerance >= 0.0 && std::isfinite(gap_tolerance)))
    throw InputError("gap_tolerance", "must be a finite number >= 0");
  if (normals.rows() == 0) throw InputError("normals", "at least one contact normal is required");
  if (normals.cols() != d)
    throw InputError("normals",
                     fmt::format("each normal must have length d = {} (got {})", d, normals.cols()));
  if (gaps.size() != 0 && gaps.size() != normals.rows())
    throw InputError("gaps", fmt::format("must have one entry per normal ({} normals, {} gaps)",
                                         normals.rows(), gaps.size()));
  if (!(restitution >= 0.0 && restitution <= 1.0))
    throw InputError("restitution", "must be a number in [0, 1]");
  restitution_ = restitution;
  momentum_ = momentum;

  given_contacts_ = static_cast<int>(normals.rows());
  int closed = 0;
  for (int i = 0; i < given_contacts_; ++i) {
    const auto row = normals.row(i);
    if (!row.allFinite())
      throw InputError(fmt::format("normals[{}]", i), "must be finite (found NaN or Inf)");
    if (row.cwiseAbs().maxCoeff() == 0.0) throw InputError(fmt::format("normals[{}]", i), "must be non-zero");
    for (int j = 0; j < d; ++j)
      if (row[j] != 0.0 && !in_computable_range(row[j]))
        throw InputError(fmt::format("normals[{}]", i),
                         fmt::format("entry {} = {:g} is outside the computable magnitude range [{:g}, {:g}]: "
                                     "change units",
                                     j, row[j], kMinMagnitude, kMaxMagnitude));
    if (gaps.size() != 0) {
      if (!std::isfinite(gaps[i])) throw InputError(fmt::format("gaps[{}]", i), "must be finite");
      if (gaps[i] > gap_tolerance) continue;  // open contact: no impulse, no constraint
      if (gaps[i] < -gap_tolerance && penetrating_count_ < kMaxContacts) penetrating_[penetrating_count_++] = i;
    }
    if (closed == kMaxContacts)
      throw InputError("normals", fmt::format("more than {} closed contacts", kMaxContacts));
    given_index_[closed++] = i;
  }
  normals_.resize(closed, d);
  for (int i = 0; i < closed; ++i) normals_.row(i) = normals.row(given_index_[i]);

  // W = M⁻¹ Nᵀ (one triangular solve per contact), then A = N W and c⁻ = Wᵀ p⁻ᵀ.
  DofByContact w = normals_.transpose();
  metric_.solve_in_place(w);
  gram_.noalias() = normals_ * w;
  gram_ = 0.5 * (gram_ + gram_.transpose()).eval();  // exact symmetry for the LCP
  rates_.noalias() = w.transpose() * momentum_;
  whitened_normals_ = normals_.transpose();
  metric_.whiten_in_place(whitened_normals_);
  whitened_momentum_ = momentum_;
  metric_.whiten_in_place(whitened_momentum_);
  momentum_norm_sq_ = std::max(0.0, metric_.squared_norm(momentum_));
  momentum_norm_ = std::sqrt(momentum_norm_sq_);
  normal_norms_ = gram_.diagonal().cwiseSqrt();
  tolerances_ = kFeasibilityTolerance * momentum_norm_ * normal_norms_;
}

DofVector ImpactProblem::momentum_from_impulses(const ContactVector& impulses) const {
  DofVector p = momentum_;
  p.noalias() += normals_.transpose() * impulses;
  return p;
}

double ImpactProblem::energy_from_impulses(const ContactVector& impulses) const {
  const double sq = momentum_norm_sq_ + 2.0 * impulses.dot(rates_) + impulses.dot(gram_ * impulses);
  return 0.5 * std::max(0.0, sq);
}

double ImpactProblem::distance_between(const ContactVector& a, const ContactVector& b) const {
  const ContactVector diff = a - b;
  DofVector y = whitened_normals_ * diff;  // L⁻¹ (Δλᵀ N)ᵀ
  return y.norm();
}

}  // namespace simpact
