// An independent brute-force model of one impact, for the issue 9 tests: it shares no code with
// src/core. Everything is done in long double, in full d-space (Eigen dynamic types), in the
// whitened coordinates y = L⁻¹p (M = LLᵀ from its own Cholesky), where the kinetic metric is the
// Euclidean one and the reflection across contact i is y ← y − 2 (y·b_i)/(b_i·b_i) b_i, b_i = L⁻¹u_iᵀ.
//   * enumerate(): every reflection sequence, depth first, the violated contacts in index order
//     (the order simpact stores sequences in), end momenta merged by g-distance;
//   * plastic(): the g-projection of p⁻ onto {p : <p,u_i>_g ≥ 0} by trying every active set S:
//     the projection onto {<p,u_i>_g = 0, i ∈ S} (a pseudo-inverse, so dependent normals are
//     fine); the nearest feasible candidate is the projection onto the cone;
//   * definition1(): a sequence is minimal when no proper subsequence (any positions deleted,
//     the empty one included) ends feasible — every mask tried;
//   * blend(): eq. (16)–(17), α from ||p⁺||² = ||p_p||² + R²(||p_e||² − ||p_p||²).
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <vector>

namespace simpact::brute {

using Real = long double;
using RVec = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
using RMat = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic>;

struct BruteOutcome {
  RVec y;                                   // whitened end momentum
  std::vector<std::vector<int>> sequences;  // every sequence reaching it, in DFS order
};

struct Enumeration {
  std::vector<BruteOutcome> outcomes;
  bool capped = false;  // some branch longer than max_length, or more than max_leaves leaves
  long leaves = 0;
  int longest = 0;
};

class System {
 public:
  // normals: k×d (one row per contact), momentum: p⁻.
  System(const Eigen::MatrixXd& mass, const Eigen::MatrixXd& normals, const Eigen::VectorXd& momentum)
      : d_(static_cast<int>(mass.rows())), k_(static_cast<int>(normals.rows())) {
    const RMat m = mass.cast<Real>();
    llt_.compute(m);
    l_ = llt_.matrixL();
    b_ = l_.triangularView<Eigen::Lower>().solve(RMat(normals.cast<Real>().transpose()));
    y0_ = l_.triangularView<Eigen::Lower>().solve(RVec(momentum.cast<Real>()));
    norm0_ = y0_.norm();
  }
  int dof() const { return d_; }
  int contacts() const { return k_; }
  Real momentum_norm() const { return norm0_; }
  const RVec& y0() const { return y0_; }
  // p = L y (back to momentum coordinates).
  Eigen::VectorXd momentum(const RVec& y) const { return (l_ * y).cast<double>(); }
  RVec whiten(const Eigen::VectorXd& p) const {
    return l_.triangularView<Eigen::Lower>().solve(RVec(p.cast<Real>()));
  }
  // The smallest g-angle of a pair of normals from antiparallel, π − ∠(u_i, u_j) [rad].
  double antiparallel_gap() const {
    double gap = 3.141592653589793;
    for (int i = 0; i < k_; ++i)
      for (int j = i + 1; j < k_; ++j) {
        const Real c = b_.col(i).dot(b_.col(j)) / (b_.col(i).norm() * b_.col(j).norm());
        // π − acos(c) = 2 asin(|b_i/|b_i| + b_j/|b_j|| / 2), accurate near antiparallel.
        const Real s = (b_.col(i) / b_.col(i).norm() + b_.col(j) / b_.col(j).norm()).norm() / 2;
        if (c < 0) gap = std::min(gap, static_cast<double>(2 * std::asin(std::min<Real>(1, s))));
      }
    return gap;
  }
  Real rate(const RVec& y, int i) const { return b_.col(i).dot(y); }
  bool violated(const RVec& y, int i, Real relative_tolerance = 1e-10L) const {
    return rate(y, i) < -relative_tolerance * norm0_ * b_.col(i).norm();
  }
  bool feasible(const RVec& y, Real relative_tolerance = 1e-10L) const {
    for (int i = 0; i < k_; ++i)
      if (violated(y, i, relative_tolerance)) return false;
    return true;
  }
  RVec reflect(const RVec& y, int i) const {
    const auto bi = b_.col(i);
    return y - (2 * bi.dot(y) / bi.squaredNorm()) * bi;
  }
  RVec apply(const std::vector<int>& sequence) const {
    RVec y = y0_;
    for (int i : sequence) y = reflect(y, i);
    return y;
  }

  Enumeration enumerate(int max_length, long max_leaves, Real merge = 1e-9L) const {
    Enumeration e;
    std::vector<int> path;
    dfs(y0_, path, max_length, max_leaves, merge * norm0_, e);
    return e;
  }

  // 1 minimal, 0 not. Cost n·2^n reflections.
  bool definition1(const std::vector<int>& sequence) const {
    const int n = static_cast<int>(sequence.size());
    if (n == 0) return true;
    const unsigned long full = (1UL << n) - 1;
    for (unsigned long mask = 0; mask < full; ++mask) {
      RVec y = y0_;
      for (int t = 0; t < n; ++t)
        if (mask >> t & 1UL) y = reflect(y, sequence[static_cast<std::size_t>(t)]);
      if (feasible(y)) return false;
    }
    return true;
  }

  // The g-projection of p⁻ onto the feasible cone (whitened), by every active set.
  RVec plastic() const {
    RVec best = y0_;
    Real best_distance = feasible(y0_, 1e-13L) ? 0 : -1;
    if (best_distance == 0) return best;
    for (unsigned long mask = 1; mask < (1UL << k_); ++mask) {
      std::vector<int> active;
      for (int i = 0; i < k_; ++i)
        if (mask >> i & 1UL) active.push_back(i);
      RMat bs(d_, static_cast<Eigen::Index>(active.size()));
      for (std::size_t c = 0; c < active.size(); ++c)
        bs.col(static_cast<Eigen::Index>(c)) = b_.col(active[c]);
      // Orthonormal basis of span(B_S) from the SVD, rank by a relative threshold (dependent
      // normals given in decimals are dependent only to rounding).
      Eigen::JacobiSVD<RMat> svd(bs, Eigen::ComputeThinU);
      const auto& s = svd.singularValues();
      int rank = 0;
      for (Eigen::Index r = 0; r < s.size(); ++r)
        if (s[r] > 1e-13L * s[0]) ++rank;
      const RMat u = svd.matrixU().leftCols(rank);
      const RVec y = y0_ - u * (u.transpose() * y0_);
      if (!feasible(y, 1e-12L)) continue;
      const Real distance = (y - y0_).norm();
      if (best_distance < 0 || distance < best_distance) {
        best_distance = distance;
        best = y;
      }
    }
    return best;
  }

  // Eq. (16)–(17): p⁺ = α y_e + (1−α) y_p with ||p⁺||² = ||y_p||² + R²(||y_e||² − ||y_p||²).
  static RVec blend(const RVec& ye, const RVec& yp, Real r) {
    if (r >= 1) return ye;
    if (r <= 0) return yp;
    const RVec dvec = ye - yp;
    const Real a = dvec.squaredNorm();
    if (a == 0) return ye;
    const Real b = yp.dot(dvec);
    const Real c = r * r * (ye.squaredNorm() - yp.squaredNorm());
    const Real alpha = (-b + std::sqrt(std::max<Real>(0, b * b + a * c))) / a;
    return yp + alpha * dvec;
  }

  // The diameter of a set of whitened momenta, relative to ||p⁻||_g.
  Real xi(const std::vector<RVec>& ys) const {
    Real d = 0;
    for (std::size_t a = 0; a < ys.size(); ++a)
      for (std::size_t b = a + 1; b < ys.size(); ++b) d = std::max(d, (ys[a] - ys[b]).norm());
    return d / norm0_;
  }

 private:
  void dfs(const RVec& y, std::vector<int>& path, int max_length, long max_leaves, Real merge,
           Enumeration& e) const {
    if (e.capped) return;
    bool any = false;
    for (int i = 0; i < k_; ++i) {
      if (!violated(y, i)) continue;
      any = true;
      if (static_cast<int>(path.size()) >= max_length) {
        e.capped = true;
        return;
      }
      path.push_back(i);
      dfs(reflect(y, i), path, max_length, max_leaves, merge, e);
      path.pop_back();
      if (e.capped) return;
    }
    if (any) return;
    if (++e.leaves > max_leaves) {
      e.capped = true;
      return;
    }
    e.longest = std::max(e.longest, static_cast<int>(path.size()));
    for (auto& o : e.outcomes)
      if ((o.y - y).norm() <= merge) {
        o.sequences.push_back(path);
        return;
      }
    e.outcomes.push_back({y, {path}});
  }

  int d_, k_;
  Eigen::LLT<RMat> llt_;
  RMat l_;
  RMat b_;  // d×k, column i = L⁻¹u_iᵀ
  RVec y0_;
  Real norm0_ = 0;
};

}  // namespace simpact::brute
