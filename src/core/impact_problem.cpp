#include "simpact/core/impact_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"

namespace simpact {

namespace {

void check_momentum(int d, const Eigen::Ref<const Eigen::VectorXd>& momentum) {
  if (momentum.size() != d)
    throw InputError("momentum", fmt::format("must have length d = {} (got {})", d, momentum.size()));
  if (!momentum.allFinite()) throw InputError("momentum", "must be finite (found NaN or Inf)");
  for (int i = 0; i < d; ++i)
    if (momentum[i] != 0.0 && !in_computable_range(momentum[i]))
      throw InputError("momentum", fmt::format("entry {} = {:g} is outside the computable magnitude range "
                                               "[{:g}, {:g}]: change units",
                                               i, momentum[i], kMinMagnitude, kMaxMagnitude));
}

void check_restitution(double restitution) {
  if (!(restitution >= 0.0 && restitution <= 1.0))
    throw InputError("restitution", "must be a number in [0, 1]");
}

template <typename S>
const BasicImpactSystem<S>& empty_system() {
  static const BasicImpactSystem<S> system;
  return system;
}

}  // namespace

template <typename S>
BasicImpactSystem<S>::BasicImpactSystem(KineticMetric metric, const Eigen::Ref<const RowMajorMatrix>& normals,
                                        const Eigen::Ref<const Eigen::VectorXd>& gaps, double gap_tolerance)
    : metric_(std::move(metric)) {
  assign_normals(normals, gaps, gap_tolerance);
}

template <typename S>
void BasicImpactSystem<S>::assign_diagonal(const Eigen::Ref<const Eigen::VectorXd>& masses,
                                           const Eigen::Ref<const RowMajorMatrix>& normals,
                                           const Eigen::Ref<const Eigen::VectorXd>& gaps,
                                           double gap_tolerance) {
  metric_.assign_diagonal(masses);
  assign_normals(normals, gaps, gap_tolerance);
}

template <typename S>
void BasicImpactSystem<S>::assign_normals(const Eigen::Ref<const RowMajorMatrix>& normals,
                                          const Eigen::Ref<const Eigen::VectorXd>& gaps,
                                          double gap_tolerance) {
  const int d = metric_.dof();
  if (!(gap_tolerance >= 0.0 && std::isfinite(gap_tolerance)))
    throw InputError("gap_tolerance", "must be a finite number >= 0");
  if (normals.rows() == 0) throw InputError("normals", "at least one contact normal is required");
  if (normals.cols() != d)
    throw InputError("normals",
                     fmt::format("each normal must have length d = {} (got {})", d, normals.cols()));
  if (gaps.size() != 0 && gaps.size() != normals.rows())
    throw InputError("gaps", fmt::format("must have one entry per normal ({} normals, {} gaps)",
                                         normals.rows(), gaps.size()));
  given_contacts_ = static_cast<int>(normals.rows());
  penetrating_count_ = 0;
  const int stored = std::min(given_contacts_, S::kContactLimit);
  given_index_.resize(stored);
  penetrating_.resize(stored);
  int closed = 0;
  for (int i = 0; i < given_contacts_; ++i) {
    // One pass over the row; the errors keep their precedence: non-finite, zero, out of range.
    const auto row = normals.row(i);
    bool finite = true, nonzero = false;
    int out_of_range = -1;
    for (int j = 0; j < d; ++j) {
      const double v = row[j];
      finite = finite && std::isfinite(v);
      nonzero = nonzero || v != 0.0;
      if (out_of_range < 0 && v != 0.0 && !in_computable_range(v)) out_of_range = j;
    }
    if (!finite) throw InputError(fmt::format("normals[{}]", i), "must be finite (found NaN or Inf)");
    if (!nonzero) throw InputError(fmt::format("normals[{}]", i), "must be non-zero");
    if (out_of_range >= 0)
      throw InputError(fmt::format("normals[{}]", i),
                       fmt::format("entry {} = {:g} is outside the computable magnitude range [{:g}, {:g}]: "
                                   "change units",
                                   out_of_range, row[out_of_range], kMinMagnitude, kMaxMagnitude));
    if (gaps.size() != 0) {
      if (!std::isfinite(gaps[i])) throw InputError(fmt::format("gaps[{}]", i), "must be finite");
      if (gaps[i] > gap_tolerance) continue;  // open contact: no impulse, no constraint
      if (gaps[i] < -gap_tolerance && penetrating_count_ < S::kContactLimit)
        penetrating_[penetrating_count_++] = i;
    }
    if (closed == S::kContactLimit)
      throw InputError("normals", fmt::format("more than {} closed contacts", S::kContactLimit));
    given_index_[closed++] = i;
  }
  given_index_.conservativeResize(closed);
  penetrating_.conservativeResize(penetrating_count_);
  normals_.resize(closed, d);
  for (int i = 0; i < closed; ++i) normals_.row(i) = normals.row(given_index_[i]);

  // W = M⁻¹ Nᵀ (one triangular solve per contact) and L⁻¹Nᵀ, then A = N W; a state's c⁻ = Wᵀ p⁻ᵀ.
  if (metric_.diagonal()) {
    // The products solve_in_place and whiten_in_place form, n_ij·(1/m_j) and n_ij·(1/√m_j), in
    // one pass over the input's rows instead of two transposed copies scaled in place: the same
    // bits; a billiards problem's set-up 13 % faster (BM_BilliardsBuildAndResolve).
    velocity_directions_.resize(d, closed);
    whitened_normals_.resize(d, closed);
    const auto& inverse = metric_.inverse_diagonal();
    const auto& inverse_sqrt = metric_.inverse_sqrt_diagonal();
    for (int i = 0; i < closed; ++i) {
      const double* n = normals.row(given_index_[i]).data();  // the input's row (normals_ is a copy)
      double* w = velocity_directions_.col(i).data();
      double* b = whitened_normals_.col(i).data();
      for (int j = 0; j < d; ++j) {
        w[j] = n[j] * inverse[j];
        b[j] = n[j] * inverse_sqrt[j];
      }
    }
  } else {
    velocity_directions_ = normals_.transpose();
    metric_.solve_in_place(velocity_directions_);
    whitened_normals_ = normals_.transpose();
    metric_.whiten_in_place(whitened_normals_);
  }
  gram_.noalias() = normals_ * velocity_directions_;
  // Exact symmetry for the LCP: ½(A_ij + A_ji) on both sides (a sum commutes exactly; the
  // diagonal is unchanged, ½(a + a) = a), without a temporary matrix.
  for (int j = 0; j < closed; ++j)
    for (int i = j + 1; i < closed; ++i) gram_(i, j) = gram_(j, i) = 0.5 * (gram_(i, j) + gram_(j, i));
  normal_norms_ = gram_.diagonal().cwiseSqrt();
}

template <typename S>
BasicImpactProblem<S>::BasicImpactProblem() : system_(&empty_system<S>()) {}

template <typename S>
BasicImpactProblem<S>::BasicImpactProblem(KineticMetric metric,
                                          const Eigen::Ref<const RowMajorMatrix>& normals,
                                          const Eigen::Ref<const Eigen::VectorXd>& momentum,
                                          double restitution, const Eigen::Ref<const Eigen::VectorXd>& gaps,
                                          double gap_tolerance)
    : system_(&empty_system<S>()) {
  // p⁻ and R first: their errors read before those of the normals, as they always have.
  check_momentum(metric.dof(), momentum);
  check_restitution(restitution);
  owned_.emplace(std::move(metric), normals, gaps, gap_tolerance);
  system_ = &*owned_;
  set_state(momentum, restitution);
}

template <typename S>
BasicImpactProblem<S>::BasicImpactProblem(const ImpactSystem& system,
                                          const Eigen::Ref<const Eigen::VectorXd>& momentum,
                                          double restitution)
    : system_(&system) {
  set_state(momentum, restitution);
}

template <typename S>
BasicImpactProblem<S>::BasicImpactProblem(const BasicImpactProblem& other)
    : owned_(other.owned_),
      system_(other.owned_ ? &*owned_ : other.system_),
      momentum_(other.momentum_),
      restitution_(other.restitution_),
      rates_(other.rates_),
      tolerances_(other.tolerances_),
      momentum_norm_(other.momentum_norm_),
      momentum_norm_sq_(other.momentum_norm_sq_),
      whitened_momentum_(other.whitened_momentum_) {}

template <typename S>
BasicImpactProblem<S>& BasicImpactProblem<S>::operator=(const BasicImpactProblem& other) {
  if (this != &other) {
    BasicImpactProblem copy(other);
    *this = std::move(copy);
  }
  return *this;
}

template <typename S>
BasicImpactProblem<S>::BasicImpactProblem(BasicImpactProblem&& other) noexcept
    : owned_(std::move(other.owned_)),
      system_(owned_ ? &*owned_ : other.system_),
      momentum_(std::move(other.momentum_)),
      restitution_(other.restitution_),
      rates_(std::move(other.rates_)),
      tolerances_(std::move(other.tolerances_)),
      momentum_norm_(other.momentum_norm_),
      momentum_norm_sq_(other.momentum_norm_sq_),
      whitened_momentum_(std::move(other.whitened_momentum_)) {}

template <typename S>
BasicImpactProblem<S>& BasicImpactProblem<S>::operator=(BasicImpactProblem&& other) noexcept {
  if (this != &other) {
    owned_ = std::move(other.owned_);
    system_ = owned_ ? &*owned_ : other.system_;
    momentum_ = std::move(other.momentum_);
    restitution_ = other.restitution_;
    rates_ = std::move(other.rates_);
    tolerances_ = std::move(other.tolerances_);
    momentum_norm_ = other.momentum_norm_;
    momentum_norm_sq_ = other.momentum_norm_sq_;
    whitened_momentum_ = std::move(other.whitened_momentum_);
  }
  return *this;
}

template <typename S>
void BasicImpactProblem<S>::set_state(const Eigen::Ref<const Eigen::VectorXd>& momentum, double restitution) {
  const ImpactSystem& sys = *system_;
  check_momentum(sys.dof(), momentum);
  check_restitution(restitution);
  restitution_ = restitution;
  momentum_ = momentum;
  rates_.noalias() = sys.velocity_directions().transpose() * momentum_;
  whitened_momentum_ = momentum_;
  sys.metric().whiten_in_place(whitened_momentum_);
  momentum_norm_sq_ = std::max(0.0, sys.metric().squared_norm(momentum_));
  momentum_norm_ = std::sqrt(momentum_norm_sq_);
  tolerances_ = kFeasibilityTolerance * momentum_norm_ * sys.normal_norms();
}

template <typename S>
typename S::DofVector BasicImpactProblem<S>::momentum_from_impulses(const ContactVector& impulses) const {
  // A plain loop over the few rows of N: Eigen's general gemv costs more than the arithmetic here.
  DofVector p = momentum_;
  const NormalMatrix& n = normals();
  const int k = contacts(), d = dof();
  for (int i = 0; i < k; ++i) {
    const double l = impulses[i];
    for (int j = 0; j < d; ++j) p[j] += l * n(i, j);
  }
  return p;
}

template <typename S>
double BasicImpactProblem<S>::energy_from_impulses(const ContactVector& impulses) const {
  const double sq = momentum_norm_sq_ + 2.0 * impulses.dot(rates_) + impulses.dot(gram() * impulses);
  return 0.5 * std::max(0.0, sq);
}

template <typename S>
double BasicImpactProblem<S>::outcome_energy(const ContactVector& impulses, const DofVector& p) const {
  const int k = contacts();
  const ContactMatrix& a = gram();
  double cross = 0.0, quadratic = 0.0;
  for (int i = 0; i < k; ++i) {
    double row = 0.0;
    for (int j = 0; j < k; ++j) row += a(i, j) * impulses[j];
    cross += impulses[i] * rates_[i];
    quadratic += impulses[i] * row;
  }
  const double sum = momentum_norm_sq_ + 2.0 * cross + quadratic;
  const double scale = momentum_norm_sq_ + 2.0 * std::abs(cross) + std::abs(quadratic);
  if (sum >= scale / 64.0 && sum > 0.0) return 0.5 * sum;
  return energy(p);
}

template <typename S>
bool BasicImpactProblem<S>::certainly_farther(const ContactVector& a, const ContactVector& b,
                                              double bound) const {
  const int k = contacts();
  const ContactMatrix& g = gram();
  const ContactVector& norms = normal_norms();
  double squared = 0.0, magnitude = 0.0;  // ΔλᵀAΔλ, and Σ|Δλ_i| ||u_i||_g (|A_ij| ≤ ||u_i|| ||u_j||)
  for (int i = 0; i < k; ++i) {
    const double di = a[i] - b[i];
    double row = 0.0;
    for (int j = 0; j < k; ++j) row += g(i, j) * (a[j] - b[j]);
    squared += di * row;
    magnitude += std::abs(di) * norms[i];
  }
  // Rounding of the quadratic form (~2kε) and of A itself (~2dε), times (Σ|Δλ_i| ||u_i||_g)².
  const double rounding =
      (4.0 * k + 4.0 * dof() + 4.0) * std::numeric_limits<double>::epsilon() * magnitude * magnitude;
  return squared - rounding > bound * bound;
}

template <typename S>
double BasicImpactProblem<S>::distance_between(const ContactVector& a, const ContactVector& b) const {
  const ContactVector diff = a - b;
  DofVector y = whitened_normals() * diff;  // L⁻¹ (Δλᵀ N)ᵀ
  return y.norm();
}

template class BasicImpactSystem<FixedSizes>;
template class BasicImpactSystem<DynamicSizes>;
template class BasicImpactProblem<FixedSizes>;
template class BasicImpactProblem<DynamicSizes>;

}  // namespace simpact
