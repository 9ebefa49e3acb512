// A flat, specialized reference of the billiards break (issue 37 §1): d = 6, two contacts, a
// diagonal mass matrix, the reflections and ξ written as plain loops with no library, scalar and
// interleaved over 8 problems in a structure of arrays. It does the core's work for this problem
// and nothing more, so the core's time over its time says what the core's generality costs.
// core_bench checks it against the core (outcomes and ξ to 1e-12) before timing it.
#pragma once

#include <cmath>

namespace simpact::bench {

constexpr int kFlatDof = 6;
constexpr int kFlatLanes = 8;
constexpr int kFlatMaxSteps = 64;  // the core's default depth cap is larger; billiards needs ≤ 3

// One problem: normals n (2 × 6), p⁻, M⁻¹'s diagonal; feasibility tolerance on normalized rates.
struct FlatProblem {
  double n[2][kFlatDof];
  double p[kFlatDof];
  double minv[kFlatDof];
  double tolerance = 1e-12;
};

struct FlatResult {
  double momentum[2][kFlatDof];  // the distinct outcomes
  int outcomes = 0;
  double xi = 0.0;                // diameter / ||p⁻||_g
  double xi_argmin_argmax = 0.0;  // g-distance of the argmin and argmax outcomes / ||p⁻||_g
};

inline double flat_rate(const FlatProblem& f, const double* p, int i) {
  double r = 0.0;
  for (int j = 0; j < kFlatDof; ++j) r += f.n[i][j] * f.minv[j] * p[j];
  return r;
}
inline double flat_norm_sq(const FlatProblem& f, const double* a) {
  double s = 0.0;
  for (int j = 0; j < kFlatDof; ++j) s += a[j] * a[j] * f.minv[j];
  return s;
}

// Reflects p across violated contacts until both are feasible. The first choice among two
// violated contacts: `policy` 0 or 1 (that contact), -1 argmin, -2 argmax (ties: argmin the
// first index, argmax the last, as the core). After a reflection across i, <p,u_i>_g > 0, so
// only the other contact can be violated: every later choice is forced.
inline void flat_chain(const FlatProblem& f, const double nn[2], int policy, double* p) {
  for (int step = 0; step < kFlatMaxSteps; ++step) {
    const double r0 = flat_rate(f, p, 0), r1 = flat_rate(f, p, 1);
    const double s0 = r0 / std::sqrt(nn[0]), s1 = r1 / std::sqrt(nn[1]);
    const bool v0 = s0 < -f.tolerance, v1 = s1 < -f.tolerance;
    if (!v0 && !v1) return;
    const int i = v0 && v1 ? (policy >= 0 ? policy : ((s0 <= s1) == (policy == -1) ? 0 : 1)) : (v0 ? 0 : 1);
    const double c = 2.0 * (i == 0 ? r0 : r1) / nn[i];
    for (int j = 0; j < kFlatDof; ++j) p[j] -= c * f.n[i][j];
  }
}

inline void flat_contact_norms(const FlatProblem& f, double nn[2]) {
  for (int i = 0; i < 2; ++i) nn[i] = flat_norm_sq(f, f.n[i]);
}

// One ordering: argmin throughout.
inline void flat_one_ordering(const FlatProblem& f, double* out) {
  double nn[2];
  flat_contact_norms(f, nn);
  for (int j = 0; j < kFlatDof; ++j) out[j] = f.p[j];
  flat_chain(f, nn, -1, out);
}

// The full outcome set (every ordering: with two contacts, the chain starting at each violated
// contact), deduplicated, its ξ, and ξ between the argmin and argmax orderings.
inline void flat_full_set(const FlatProblem& f, FlatResult& r) {
  double nn[2];
  flat_contact_norms(f, nn);
  const double scale = std::sqrt(flat_norm_sq(f, f.p));
  double ends[2][kFlatDof];
  int count = 0;
  int argmin_end = 0, argmax_end = 0;
  const double s0 = flat_rate(f, f.p, 0) / std::sqrt(nn[0]), s1 = flat_rate(f, f.p, 1) / std::sqrt(nn[1]);
  for (int first = 0; first < 2; ++first) {
    if (!((first == 0 ? s0 : s1) < -f.tolerance)) continue;
    for (int j = 0; j < kFlatDof; ++j) ends[count][j] = f.p[j];
    flat_chain(f, nn, first, ends[count]);
    if ((first == 0) == (s0 <= s1)) argmin_end = count;
    if ((first == 0) == (s0 > s1)) argmax_end = count;
    ++count;
  }
  if (count == 0) {  // nothing violated: p⁻ is the outcome
    for (int j = 0; j < kFlatDof; ++j) ends[0][j] = f.p[j];
    count = 1;
  }
  double d = 0.0;
  if (count == 2) {
    double diff[kFlatDof];
    for (int j = 0; j < kFlatDof; ++j) diff[j] = ends[0][j] - ends[1][j];
    d = std::sqrt(flat_norm_sq(f, diff));
    if (d <= 1e-12 * scale) count = 1, d = 0.0;  // the same outcome
  }
  r.outcomes = count;
  for (int o = 0; o < count; ++o)
    for (int j = 0; j < kFlatDof; ++j) r.momentum[o][j] = ends[o][j];
  r.xi = d / scale;
  r.xi_argmin_argmax = argmin_end == argmax_end ? 0.0 : r.xi;
}

// Eight problems interleaved: every array is [.][lane], every loop runs over the lanes with a
// mask, so the compiler can vectorize across problems.
struct FlatLanes {
  double n[2][kFlatDof][kFlatLanes];
  double p[kFlatDof][kFlatLanes];
  double minv[kFlatDof][kFlatLanes];
  double tolerance = 1e-12;
};

// Chains from p (in place): the first reflection across `first[lane]` (-1: argmin), then
// whichever contact is violated, all lanes in step until every lane is feasible.
inline void flat_lanes_chain(const FlatLanes& f, const double nn[2][kFlatLanes],
                             const double rnorm[2][kFlatLanes], const int* first,
                             double p[kFlatDof][kFlatLanes]) {
  int pick_first[kFlatLanes];
  for (int l = 0; l < kFlatLanes; ++l) pick_first[l] = first[l];
  for (int step = 0; step < kFlatMaxSteps; ++step) {
    double r[2][kFlatLanes];
    for (int i = 0; i < 2; ++i)
      for (int l = 0; l < kFlatLanes; ++l) {
        double s = 0.0;
        for (int j = 0; j < kFlatDof; ++j) s += f.n[i][j][l] * f.minv[j][l] * p[j][l];
        r[i][l] = s;
      }
    double c[2][kFlatLanes];
    int active = 0;
    for (int l = 0; l < kFlatLanes; ++l) {
      const double s0 = r[0][l] * rnorm[0][l], s1 = r[1][l] * rnorm[1][l];
      const bool v0 = s0 < -f.tolerance, v1 = s1 < -f.tolerance;
      const int want = pick_first[l] >= 0 ? pick_first[l] : (s0 <= s1 ? 0 : 1);
      const bool take0 = v0 && (!v1 || want == 0), take1 = v1 && !take0;
      c[0][l] = take0 ? 2.0 * r[0][l] / nn[0][l] : 0.0;
      c[1][l] = take1 ? 2.0 * r[1][l] / nn[1][l] : 0.0;
      active += take0 || take1;
      pick_first[l] = -1;
    }
    if (active == 0) return;
    for (int j = 0; j < kFlatDof; ++j)
      for (int l = 0; l < kFlatLanes; ++l) p[j][l] -= c[0][l] * f.n[0][j][l] + c[1][l] * f.n[1][j][l];
  }
}

inline void flat_lanes_norms(const FlatLanes& f, double nn[2][kFlatLanes], double rnorm[2][kFlatLanes]) {
  for (int i = 0; i < 2; ++i)
    for (int l = 0; l < kFlatLanes; ++l) {
      double s = 0.0;
      for (int j = 0; j < kFlatDof; ++j) s += f.n[i][j][l] * f.n[i][j][l] * f.minv[j][l];
      nn[i][l] = s;
      rnorm[i][l] = 1.0 / std::sqrt(s);
    }
}

inline void flat_lanes_one_ordering(const FlatLanes& f, double out[kFlatDof][kFlatLanes]) {
  double nn[2][kFlatLanes], rnorm[2][kFlatLanes];
  flat_lanes_norms(f, nn, rnorm);
  for (int j = 0; j < kFlatDof; ++j)
    for (int l = 0; l < kFlatLanes; ++l) out[j][l] = f.p[j][l];
  int first[kFlatLanes];
  for (int& x : first) x = -1;
  flat_lanes_chain(f, nn, rnorm, first, out);
}

// Both chains of every lane (a lane whose start contact is not violated keeps p⁻: the other
// chain then holds its only outcome), the outcome distance, and ξ per lane.
inline void flat_lanes_full_set(const FlatLanes& f, double xi[kFlatLanes], int outcomes[kFlatLanes]) {
  double nn[2][kFlatLanes], rnorm[2][kFlatLanes];
  flat_lanes_norms(f, nn, rnorm);
  double ends[2][kFlatDof][kFlatLanes];
  for (int o = 0; o < 2; ++o) {
    int first[kFlatLanes];
    for (int l = 0; l < kFlatLanes; ++l) {
      double s = 0.0;
      for (int j = 0; j < kFlatDof; ++j) s += f.n[o][j][l] * f.minv[j][l] * f.p[j][l];
      first[l] = s * rnorm[o][l] < -f.tolerance ? o : -1;  // not violated: argmin instead
    }
    for (int j = 0; j < kFlatDof; ++j)
      for (int l = 0; l < kFlatLanes; ++l) ends[o][j][l] = f.p[j][l];
    flat_lanes_chain(f, nn, rnorm, first, ends[o]);
  }
  for (int l = 0; l < kFlatLanes; ++l) {
    double d = 0.0, scale = 0.0;
    for (int j = 0; j < kFlatDof; ++j) {
      const double e = ends[0][j][l] - ends[1][j][l];
      d += e * e * f.minv[j][l];
      scale += f.p[j][l] * f.p[j][l] * f.minv[j][l];
    }
    d = std::sqrt(d);
    scale = std::sqrt(scale);
    const bool same = d <= 1e-12 * scale;
    outcomes[l] = same ? 1 : 2;
    xi[l] = same ? 0.0 : d / scale;
  }
}

}  // namespace simpact::bench
