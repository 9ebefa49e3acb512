#include "simpact/models/impact_design.hpp"

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace simpact {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A free variable this close to a bound, in units of its scale, is on it (at_bound).
constexpr double kBoundTolerance = 1e-8;

struct Residual {
  Eigen::Vector3d g = Eigen::Vector3d::Zero();  // [φ_a/ℓ, φ_b/ℓ, c] (c = 0 when not enforced)
  double cosine = 0.0, gap_a = 0.0, gap_b = 0.0;
  bool ok = false;
};

Residual residual_at(const DesignEvaluator& evaluate, const Eigen::VectorXd& w,
                     const DesignSolverOptions& options, DesignPoint& scratch) {
  Residual r;
  try {
    evaluate(w, scratch);
  } catch (const std::exception&) {
    return r;  // outside the model's domain: an infinite merit, the line search steps back
  }
  r.gap_a = scratch.gap_a;
  r.gap_b = scratch.gap_b;
  r.cosine = normalized_metric_cosine(scratch);
  r.g << r.gap_a / options.length_scale, r.gap_b / options.length_scale,
      options.orthogonality ? r.cosine - options.target_cosine : 0.0;
  r.ok = r.g.allFinite();
  return r;
}

double merit(const Residual& r) {
  return r.ok ? r.g.squaredNorm() : kInf;
}

bool converged(const Residual& r, const DesignSolverOptions& options) {
  return r.ok && std::abs(r.gap_a) <= options.gap_tolerance && std::abs(r.gap_b) <= options.gap_tolerance &&
         (!options.orthogonality || std::abs(r.cosine - options.target_cosine) <= options.cosine_tolerance);
}

}  // namespace

double normalized_metric_cosine(const DesignPoint& point) {
  const Eigen::LLT<Eigen::MatrixXd> factor(point.mass);
  if (factor.info() != Eigen::Success) return std::numeric_limits<double>::quiet_NaN();
  // Whitened normals L⁻¹uᵀ, L⁻¹vᵀ: <u,v>_g is their dot product.
  const Eigen::VectorXd a = factor.matrixL().solve(point.normal_a.transpose());
  const Eigen::VectorXd b = factor.matrixL().solve(point.normal_b.transpose());
  return a.dot(b) / (a.norm() * b.norm());
}

std::string to_string(DesignStatus status) {
  switch (status) {
    case DesignStatus::kConverged:
      return "converged";
    case DesignStatus::kMaxIterations:
      return "max_iterations";
    case DesignStatus::kStalled:
      return "stalled";
  }
  return "stalled";
}

DesignResult solve_impact_design(const DesignEvaluator& evaluate, const Eigen::VectorXd& w0,
                                 const std::vector<FreeVariable>& free, const DesignSolverOptions& options) {
  const int n = static_cast<int>(free.size());
  for (const FreeVariable& f : free) {
    if (f.index < 0 || f.index >= w0.size()) throw std::invalid_argument("free variable index out of range");
    if (!(f.lower <= f.upper)) throw std::invalid_argument("free variable with lower > upper");
    if (!(f.scale > 0.0) || !std::isfinite(f.scale))
      throw std::invalid_argument("free variable scale must be > 0");
    if (w0[f.index] < f.lower || w0[f.index] > f.upper)
      throw std::invalid_argument("free variable starts outside its bounds");
  }
  DesignPoint scratch;
  evaluate(w0, scratch);  // a start outside the model's domain is the caller's error: let it throw

  DesignResult result;
  Eigen::VectorXd w = w0;
  Residual r = residual_at(evaluate, w, options, scratch);
  const int rows = options.orthogonality ? 3 : 2;
  Eigen::MatrixXd jac(rows, n);
  Eigen::VectorXd step(n);
  std::vector<char> fixed(n), pinned(n, 0);  // pinned: held on a bound by the last step computed
  result.status = DesignStatus::kMaxIterations;
  for (int iteration = 0; iteration <= options.max_iterations; ++iteration) {
    if (converged(r, options)) {
      result.status = DesignStatus::kConverged;
      break;
    }
    if (!r.ok || iteration == options.max_iterations) {
      result.status = r.ok ? DesignStatus::kMaxIterations : DesignStatus::kStalled;
      break;
    }
    // J_S by central differences, one column per free variable (in units of its scale).
    for (int j = 0; j < n; ++j) {
      const FreeVariable& f = free[j];
      const double h = options.fd_step * f.scale;
      Eigen::VectorXd wp = w, wm = w;
      wp[f.index] += h;
      wm[f.index] -= h;
      const Residual rp = residual_at(evaluate, wp, options, scratch);
      const Residual rm = residual_at(evaluate, wm, options, scratch);
      if (!rp.ok || !rm.ok) {
        result.status = DesignStatus::kStalled;
        break;
      }
      jac.col(j) = (rp.g - rm.g).head(rows) * (f.scale / (2.0 * h));
    }
    if (result.status == DesignStatus::kStalled) break;

    // Minimum-norm step; variables it would push through a bound are pinned there (their step is
    // the distance to the bound) and the rest re-solve for what remains of −g.
    std::fill(fixed.begin(), fixed.end(), 0);
    for (int pass = 0; pass <= n; ++pass) {
      std::vector<int> open;
      Eigen::VectorXd rhs = -r.g.head(rows);
      for (int j = 0; j < n; ++j) {
        if (fixed[j])
          rhs -= jac.col(j) * step[j];
        else
          open.push_back(j);
      }
      if (!open.empty()) {
        Eigen::MatrixXd sub(rows, static_cast<int>(open.size()));
        for (std::size_t k = 0; k < open.size(); ++k) sub.col(static_cast<int>(k)) = jac.col(open[k]);
        const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(sub);
        const Eigen::VectorXd x = cod.solve(rhs);
        for (std::size_t k = 0; k < open.size(); ++k) step[open[k]] = x[static_cast<int>(k)];
      }
      bool violated = false;
      for (int j = 0; j < n; ++j) {
        if (fixed[j]) continue;
        const FreeVariable& f = free[j];
        const double target = w[f.index] + f.scale * step[j];
        if (target < f.lower || target > f.upper) {
          fixed[j] = 1;
          step[j] = (std::clamp(target, f.lower, f.upper) - w[f.index]) / f.scale;
          violated = true;
        }
      }
      if (!violated) break;
    }
    pinned = fixed;

    // Backtracking on |g|², the full step first. With orthogonality each trial point is first
    // projected back onto the contact manifold φ_a = φ_b = 0 (minimum-norm Newton on the gaps
    // alone): the gaps curve on the scale of the step the cosine asks for, and without the
    // projection their second-order error would dominate |g|² and force tiny steps.
    const double m0 = merit(r);
    bool accepted = false;
    double alpha = 1.0;
    for (int halving = 0; halving <= options.max_halvings; ++halving, alpha *= 0.5) {
      Eigen::VectorXd trial = w;
      for (int j = 0; j < n; ++j) {
        const FreeVariable& f = free[j];
        trial[f.index] = std::clamp(w[f.index] + alpha * f.scale * step[j], f.lower, f.upper);
      }
      if (options.orthogonality) {
        DesignSolverOptions project = options;
        project.orthogonality = false;
        project.max_iterations = 30;
        const DesignResult p = solve_impact_design(evaluate, trial, free, project);
        if (p.status != DesignStatus::kConverged) continue;
        trial = p.w;
      }
      const Residual rt = residual_at(evaluate, trial, options, scratch);
      if (merit(rt) < m0) {
        w = trial;
        r = rt;
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      result.status = DesignStatus::kStalled;  // the merit is at its rounding floor
      break;
    }
    ++result.iterations;
  }
  result.w = w;
  result.cosine = r.cosine;
  result.gap_a = r.gap_a;
  result.gap_b = r.gap_b;
  // The bounds that stopped the solve: a variable on a bound (to kBoundTolerance of its scale: the
  // projection back onto the contacts leaves it a rounding away), or, short of convergence, one
  // the last step wanted past its bound (a stall against it).
  for (int j = 0; j < n; ++j) {
    const FreeVariable& f = free[static_cast<std::size_t>(j)];
    const double tolerance = kBoundTolerance * f.scale;
    const bool on_bound = w[f.index] <= f.lower + tolerance || w[f.index] >= f.upper - tolerance;
    if (on_bound || (result.status != DesignStatus::kConverged && pinned[static_cast<std::size_t>(j)]))
      result.at_bound.push_back(f.index);
  }
  return result;
}

}  // namespace simpact
