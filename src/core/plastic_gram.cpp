// The Gram-form fast path of the plastic LCP and its guard (plastic_gram.hpp).
#include "plastic_gram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpact::detail {

namespace {

constexpr int kK = kMaxContacts;
constexpr double kEps = std::numeric_limits<double>::epsilon();

// The normalized LCP: w = s + Gμ ≥ 0, μ ≥ 0, μ·w = 0 with μ_i = ||u_i||_g λ_i. Normalizing makes
// the diagonal 1, so ||G_FF⁻¹|| measures the conditioning of the active normals themselves.
struct Normalized {
  int k = 0;
  double g[kK][kK];
  double s[kK];         // c⁻_i / ||u_i||_g
  double enter[kK];     // the exact path's entering tolerance, normalized
  double feasible[kK];  // the feasibility tolerance tol_i / ||u_i||_g
};

// Cholesky of G restricted to idx[0..n) into l (lower). False unless every pivot is positive.
bool cholesky(const Normalized& q, const int* idx, int n, double l[kK][kK]) {
  for (int j = 0; j < n; ++j) {
    double d = q.g[idx[j]][idx[j]];
    for (int m = 0; m < j; ++m) d -= l[j][m] * l[j][m];
    if (!(d > 0.0)) return false;
    l[j][j] = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double v = q.g[idx[i]][idx[j]];
      for (int m = 0; m < j; ++m) v -= l[i][m] * l[j][m];
      l[i][j] = v / l[j][j];
    }
  }
  return true;
}

// z = −G_FF⁻¹ s_F from the Cholesky factor.
void solve(const Normalized& q, const int* idx, int n, const double l[kK][kK], double* z) {
  for (int i = 0; i < n; ++i) {
    double v = -q.s[idx[i]];
    for (int m = 0; m < i; ++m) v -= l[i][m] * z[m];
    z[i] = v / l[i][i];
  }
  for (int i = n - 1; i >= 0; --i) {
    double v = z[i];
    for (int m = i + 1; m < n; ++m) v -= l[m][i] * z[m];
    z[i] = v / l[i][i];
  }
}

// ||L⁻¹||_F² ≥ ||L⁻¹||₂² = ||G_FF⁻¹||₂: an upper bound from the factor (n ≤ 8: O(n³/6)).
double inverse_norm_bound(const double l[kK][kK], int n) {
  double sum = 0.0;
  double x[kK];
  for (int c = 0; c < n; ++c) {  // column c of L⁻¹: forward substitution on e_c
    for (int i = c; i < n; ++i) {
      double v = i == c ? 1.0 : 0.0;
      for (int m = c; m < i; ++m) v -= l[i][m] * x[m];
      x[i] = v / l[i][i];
      sum += x[i] * x[i];
    }
  }
  return sum;
}

// Lawson–Hanson on the normalized Gram form: the same pivoting rule as the exact path, with a
// Cholesky of G_FF for the free set's least-squares step. False: not converged, or a free block
// not numerically positive definite.
bool gram_lawson_hanson(const Normalized& q, double* mu) {
  const int k = q.k;
  bool passive[kK] = {};
  double w[kK], z[kK], l[kK][kK];
  int idx[kK];
  for (int i = 0; i < k; ++i) mu[i] = 0.0, w[i] = q.s[i];
  for (int iteration = 0; iteration < 8 * k + 16; ++iteration) {
    int entering = -1;
    double most_negative = 0.0;
    for (int i = 0; i < k; ++i)
      if (!passive[i] && w[i] < -q.enter[i] && (entering < 0 || w[i] < most_negative))
        most_negative = w[i], entering = i;
    if (entering < 0) return true;
    passive[entering] = true;
    bool stepped = false;
    for (int inner = 0; inner <= k; ++inner) {
      int n = 0;
      for (int i = 0; i < k; ++i)
        if (passive[i]) idx[n++] = i;
      if (!cholesky(q, idx, n, l)) return false;
      solve(q, idx, n, l, z);
      double alpha = 1.0;
      int blocking = -1;
      for (int r = 0; r < n; ++r)
        if (z[r] <= 0.0) {
          const double t = mu[idx[r]] / (mu[idx[r]] - z[r]);
          if (t < alpha) alpha = t, blocking = idx[r];
        }
      if (blocking < 0) {
        for (int r = 0; r < n; ++r) mu[idx[r]] = z[r];
        stepped = true;
        break;
      }
      for (int r = 0; r < n; ++r) mu[idx[r]] += alpha * (z[r] - mu[idx[r]]);
      mu[blocking] = 0.0;
      for (int r = 0; r < n; ++r)
        if (mu[idx[r]] <= 0.0) mu[idx[r]] = 0.0, passive[idx[r]] = false;
      if (blocking == entering && alpha == 0.0) return false;  // no progress: let the exact path decide
    }
    if (!stepped) return false;
    for (int i = 0; i < k; ++i) {
      double v = q.s[i];
      for (int j = 0; j < k; ++j) v += q.g[i][j] * mu[j];
      w[i] = v;
    }
  }
  return false;
}

// Two contacts in closed form: the LCP with a positive definite 2×2 G has one solution among
// four candidate active sets; take the first that satisfies it.
bool two_contact_closed_form(const Normalized& q, double* mu) {
  const double g = q.g[0][1], s0 = q.s[0], s1 = q.s[1];
  if (!(s0 < -q.enter[0]) && !(s1 < -q.enter[1])) {  // nothing enters: no impact
    mu[0] = mu[1] = 0.0;
    return true;
  }
  if (-s0 > 0.0 && s1 - g * s0 >= -q.enter[1]) {  // contact 0 alone: μ₀ = −s₀, w₁ = s₁ + gμ₀
    mu[0] = -s0, mu[1] = 0.0;
    return true;
  }
  if (-s1 > 0.0 && s0 - g * s1 >= -q.enter[0]) {
    mu[0] = 0.0, mu[1] = -s1;
    return true;
  }
  const double det = (1.0 - g) * (1.0 + g);  // 1 − g², without cancellation near |g| = 1
  if (!(det > 0.0)) return false;
  mu[0] = (g * s1 - s0) / det;
  mu[1] = (g * s0 - s1) / det;
  return mu[0] > 0.0 && mu[1] > 0.0;
}

}  // namespace

bool gram_plastic(const ImpactProblem& problem, double tolerance, GramPlastic& out) {
  const int k = problem.contacts();
  if (k < 1 || k > kK) return false;
  const ContactVector& norms = problem.normal_norms();
  const ContactMatrix& a = problem.gram();
  const ContactVector& c = problem.initial_rates();
  const double p = problem.momentum_norm();
  Normalized q;
  q.k = k;
  for (int i = 0; i < k; ++i) {
    q.s[i] = c[i] / norms[i];
    q.enter[i] = tolerance / norms[i];
    q.feasible[i] = problem.tolerances()[i] / norms[i];
    for (int j = 0; j < k; ++j) q.g[i][j] = a(i, j) / (norms[i] * norms[j]);
  }
  double mu[kK];
  out.closed_form = k == 2;
  if (!(k == 2 ? two_contact_closed_form(q, mu) : gram_lawson_hanson(q, mu))) return false;

  // The guard. Conditioning of the active normals: a bound on ||G_FF⁻¹||.
  int idx[kK], n = 0;
  for (int i = 0; i < k; ++i)
    if (mu[i] > 0.0) idx[n++] = i;
  double inverse_norm = 1.0;
  if (n == 2 && k == 2) {
    inverse_norm = 1.0 / (1.0 - std::abs(q.g[0][1]));  // exact: the eigenvalues are 1 ± g
  } else if (n >= 2) {
    double l[kK][kK];
    if (!cholesky(q, idx, n, l)) return false;
    inverse_norm = inverse_norm_bound(l, n);
  }
  if (!(inverse_norm <= kMaxGramInverseNorm)) return false;
  // Margin of the active set: rounding moves a rate w_i by at most ~r and an impulse by ~r·||G_FF⁻¹||
  // (|μ| ≤ ||G_FF⁻¹||·|s|); every active impulse and every inactive rate must clear that.
  const double rounding = 4.0 * (k + 1) * kEps * (1.0 + k * inverse_norm) * p;
  for (int i = 0; i < k; ++i) {
    if (mu[i] > 0.0) {
      if (!(mu[i] > rounding * inverse_norm)) return false;
      continue;
    }
    double w = q.s[i];
    for (int j = 0; j < k; ++j) w += q.g[i][j] * mu[j];
    if (!(w >= -q.feasible[i] + rounding)) return false;
  }
  out.impulses.resize(k);
  for (int i = 0; i < k; ++i) out.impulses[i] = mu[i] / norms[i];
  return true;
}

}  // namespace simpact::detail
