#include "convex_distance.hpp"

#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

namespace simpact {

namespace {
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Kind = ConvexShape::Kind;

// Angular tolerances [rad] of the rounds that pick candidate features around the current normal:
// a feature whose support is within tolerance × length scale of the maximum is a candidate.
constexpr double kRoundTolerances[] = {1e-3, 1e-2, 0.1, 0.5};
// At most this many polytope vertices near the support make candidates, the highest first (with
// their pairs as edges, and the hull's faces and edges at them, or their triples as faces).
constexpr std::size_t kMaxCandidateVertices = 6;
// The certificate: support sets are the points within kSupportTolerance × length scale of the
// support, and the optimality condition must hold to kCertificateTolerance × length scale.
// Newton's answers are exact to ~1e-15 of the scale; a wrong feature misses by its angle times
// the scale.
constexpr double kSupportTolerance = 1e-11;
constexpr double kCertificateTolerance = 1e-11;
// An overlap deeper than this × length scale tries every first estimate.
constexpr double kDeepOverlap = 0.01;
// Cores closer than this × length scale touch: the normal there need not be unique.
constexpr double kTouchingTolerance = 1e-6;
constexpr int kNewtonIterations = 60;
// At most this many rounds of candidates.
constexpr int kRounds = 16;

Vec3 unit_or_zero(const Vec3& v) {
  const double norm = v.norm();
  return norm > 0 ? Vec3(v / norm) : Vec3::Zero();
}

// Two unit vectors completing n to an orthonormal basis.
void tangent_basis(const Vec3& n, Vec3& t1, Vec3& t2) {
  const Vec3 other = std::abs(n.x()) < 0.6   ? Vec3::UnitX()
                     : std::abs(n.y()) < 0.6 ? Vec3::UnitY()
                                             : Vec3::UnitZ();
  t1 = (other - other.dot(n) * n).normalized();
  t2 = n.cross(t1);
}

// A smooth piece of a support function: h(d) = p·d + |M·d| (a point: M = 0; an ellipsoid:
// M = diag(semi-axes)·Rᵀ; a cylinder's rim: M = radius·(I − a·aᵀ)).
struct Piece {
  Vec3 p = Vec3::Zero();
  Mat3 m = Mat3::Zero();
  bool curved = false;
};

// The core curve of a feature where it is a point, a segment or a circle (what the touching
// certificate projects onto); kOther for faces, caps, sides and ellipsoids.
struct Curve {
  enum class Kind { kOther, kPoint, kSegment, kCircle };
  Kind kind = Kind::kOther;
  Vec3 p0 = Vec3::Zero(), p1 = Vec3::Zero();  // segment ends; circle: centre and axis (unit)
  double radius = 0.0;                        // circle

  // The point of the curve closest to x.
  Vec3 closest(const Vec3& x) const {
    switch (kind) {
      case Kind::kPoint:
        return p0;
      case Kind::kSegment: {
        const Vec3 e = p1 - p0;
        const double len2 = e.squaredNorm();
        return len2 > 0 ? Vec3(p0 + std::clamp((x - p0).dot(e) / len2, 0.0, 1.0) * e) : p0;
      }
      case Kind::kCircle: {
        Vec3 radial = (x - p0) - (x - p0).dot(p1) * p1;
        return radial.norm() > 0 ? Vec3(p0 + radius * radial.normalized()) : p0;
      }
      case Kind::kOther:
        break;
    }
    return x;
  }
};

// A candidate active feature of a shape: its piece and what it asks of the support direction
// d (d = n for the first shape, −n for the second).
struct Feature {
  enum class Constraint { kNone, kPerpendicular, kFixed };
  Piece piece;
  Constraint constraint = Constraint::kNone;
  Vec3 direction = Vec3::Zero();  // kPerpendicular: d ⊥ direction; kFixed: d = direction
  Curve curve;
};

// The support set of a shape in direction d: the hull of `points` inflated by a disk of radius
// `disk` in the plane ⊥ d (a cylinder's cap). Core points: the inflation radius is along d.
struct SupportSet {
  std::vector<Vec3> points;
  double disk = 0.0;
};

Vec3 axis_of(const ConvexShape& s) {
  return s.axes.col(2);
}

// Features of s near its support in direction d (unit), within tolerance tau [m].
void features_near(const ConvexShape& s, const Vec3& d, double tau, std::vector<Feature>& out) {
  out.clear();
  using C = Feature::Constraint;
  using K = Curve::Kind;
  auto point = [&](const Vec3& x) {
    out.push_back({{x, Mat3::Zero(), false}, C::kNone, Vec3::Zero(), {K::kPoint, x, Vec3::Zero(), 0.0}});
  };
  auto segment = [&](const Vec3& x, const Vec3& y) {
    out.push_back(
        {{x, Mat3::Zero(), false}, C::kPerpendicular, (y - x).normalized(), {K::kSegment, x, y, 0.0}});
  };
  auto fixed = [&](const Vec3& x, const Vec3& normal) {
    out.push_back({{x, Mat3::Zero(), false}, C::kFixed, normal, {}});
  };
  switch (s.kind) {
    case Kind::kPoint:
      point(s.centre);
      break;
    case Kind::kSegment: {  // every feature, whatever d (an overlap's answer is not local)
      const Vec3 a = axis_of(s), top = s.centre + s.size[1] * a, bottom = s.centre - s.size[1] * a;
      point(top);
      point(bottom);
      if (s.size[1] > 0) segment(bottom, top);
      break;
    }
    case Kind::kEllipsoid:
      out.push_back({{s.centre, s.size.asDiagonal() * s.axes.transpose(), true}, C::kNone, Vec3::Zero(), {}});
      break;
    case Kind::kCylinder: {
      const Vec3 a = axis_of(s);
      const double radius = s.size[0], half = s.size[1];
      const Mat3 rim = radius * (Mat3::Identity() - a * a.transpose());
      auto rim_feature = [&](double sign) {
        const Vec3 centre = s.centre + sign * half * a;
        out.push_back({{centre, rim, true}, C::kNone, Vec3::Zero(), {K::kCircle, centre, a, radius}});
      };
      // Every feature, whatever d: a rim's piece has a cone point on the axis that Newton only
      // creeps to, and which of a cap, a rim or the side holds an overlap's answer is not local.
      rim_feature(1.0);
      rim_feature(-1.0);
      out.push_back({{s.centre, rim, true}, C::kPerpendicular, a, {}});  // the side
      for (const double sign : {1.0, -1.0}) fixed(s.centre + sign * half * a, sign * a);
      break;
    }
    case Kind::kPolytope: {
      std::vector<std::pair<double, int>> near;
      double top = -std::numeric_limits<double>::infinity();
      for (const Vec3& v : s.vertices) top = std::max(top, v.dot(d));
      for (std::size_t i = 0; i < s.vertices.size(); ++i)
        if (const double h = s.vertices[i].dot(d); h >= top - tau) near.emplace_back(-h, static_cast<int>(i));
      std::sort(near.begin(), near.end());
      if (near.size() > kMaxCandidateVertices) near.resize(kMaxCandidateVertices);
      const int k = static_cast<int>(near.size());
      auto vertex = [&](int i) -> const Vec3& { return s.vertices[static_cast<std::size_t>(i)]; };
      std::vector<int> ids;
      for (const auto& entry : near) ids.push_back(entry.second);
      for (int i : ids) point(vertex(i));
      std::vector<std::pair<int, int>> edges;
      std::vector<Vec3> normals;
      auto add_edge = [&](int i, int j) {
        const std::pair<int, int> e(std::min(i, j), std::max(i, j));
        if (e.first == e.second || std::find(edges.begin(), edges.end(), e) != edges.end()) return;
        if (!((vertex(j) - vertex(i)).norm() > 0)) return;
        edges.push_back(e);
        segment(vertex(e.first), vertex(e.second));
      };
      auto add_face = [&](const Vec3& x, const Vec3& y, const Vec3& z) {
        Vec3 normal = (y - x).cross(z - x);
        if (!(normal.norm() > 1e-12 * (y - x).norm() * (z - x).norm())) return;  // collinear
        normal.normalize();
        if (normal.dot(x - s.centre) < 0) normal = -normal;  // outward: the centre is inside
        for (const Vec3& other : normals)
          if (other.dot(normal) > 1 - 1e-15) return;  // a quad's second triangle
        normals.push_back(normal);
        fixed(x, normal);
      };
      for (int i = 0; i < k; ++i)
        for (int j = i + 1; j < k; ++j) add_edge(ids[i], ids[j]);
      if (s.faces.empty()) {  // no hull: triples of the vertices near the support
        for (int i = 0; i < k; ++i)
          for (int j = i + 1; j < k; ++j)
            for (int l = j + 1; l < k; ++l) add_face(vertex(ids[i]), vertex(ids[j]), vertex(ids[l]));
      } else {  // the hull's faces and edges at the vertices near the support
        for (const auto& f : s.faces)
          for (int c = 0; c < 3; ++c)
            if (std::find(ids.begin(), ids.end(), f[c]) != ids.end()) {
              add_face(vertex(f[0]), vertex(f[1]), vertex(f[2]));
              add_edge(f[c], f[(c + 1) % 3]);
              add_edge(f[c], f[(c + 2) % 3]);
            }
      }
      break;
    }
  }
}

SupportSet support_set(const ConvexShape& s, const Vec3& d, double tau) {
  SupportSet out;
  switch (s.kind) {
    case Kind::kPoint:
      out.points.push_back(s.centre);
      break;
    case Kind::kSegment: {
      const Vec3 a = axis_of(s), top = s.centre + s.size[1] * a, bottom = s.centre - s.size[1] * a;
      const double dt = top.dot(d), db = bottom.dot(d);
      if (dt >= db - tau) out.points.push_back(top);
      if (db >= dt - tau) out.points.push_back(bottom);
      break;
    }
    case Kind::kEllipsoid: {
      const Vec3 md = s.size.asDiagonal() * (s.axes.transpose() * d);
      out.points.push_back(s.centre + s.axes * (s.size.asDiagonal() * md) / md.norm());
      break;
    }
    case Kind::kCylinder: {
      const Vec3 a = axis_of(s);
      const double radius = s.size[0], half = s.size[1], ad = a.dot(d);
      const Vec3 radial = d - ad * a;
      if (radius * radial.norm() <= tau) {
        out.points.push_back(s.centre + (ad >= 0 ? half : -half) * a);
        out.disk = radius;
      } else {
        const Vec3 rim = radius * radial.normalized();
        if (ad >= -tau / (2 * half + 1e-300)) out.points.push_back(s.centre + half * a + rim);
        if (ad <= tau / (2 * half + 1e-300)) out.points.push_back(s.centre - half * a + rim);
      }
      break;
    }
    case Kind::kPolytope: {
      double top = -std::numeric_limits<double>::infinity();
      for (const Vec3& v : s.vertices) top = std::max(top, v.dot(d));
      for (const Vec3& v : s.vertices)
        if (v.dot(d) >= top - tau) out.points.push_back(v);
      break;
    }
  }
  return out;
}

// ---- two dimensions: the plane ⊥ n ----

double cross2(const Vec2& a, const Vec2& b) {
  return a.x() * b.y() - a.y() * b.x();
}

// The convex hull, counter-clockwise, without collinear points (Andrew's monotone chain).
std::vector<Vec2> hull2(std::vector<Vec2> p) {
  std::sort(p.begin(), p.end(),
            [](const Vec2& a, const Vec2& b) { return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y()); });
  p.erase(std::unique(p.begin(), p.end()), p.end());
  if (p.size() < 3) return p;
  std::vector<Vec2> h(2 * p.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    while (k >= 2 && cross2(h[k - 1] - h[k - 2], p[i] - h[k - 2]) <= 0) --k;
    h[k++] = p[i];
  }
  for (std::size_t i = p.size() - 1, t = k + 1; i-- > 0;) {
    while (k >= t && cross2(h[k - 1] - h[k - 2], p[i] - h[k - 2]) <= 0) --k;
    h[k++] = p[i];
  }
  h.resize(k - 1);
  return h;
}

double segment_distance(const Vec2& x, const Vec2& a, const Vec2& b) {
  const Vec2 ab = b - a;
  const double len2 = ab.squaredNorm();
  const double t = len2 > 0 ? std::clamp((x - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return (a + t * ab - x).norm();
}

// Distance from x to the hull h (0 inside).
double hull_distance(const std::vector<Vec2>& h, const Vec2& x) {
  if (h.empty()) return std::numeric_limits<double>::infinity();
  if (h.size() == 1) return (h[0] - x).norm();
  if (h.size() == 2) return segment_distance(x, h[0], h[1]);
  bool inside = true;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < h.size(); ++i) {
    const Vec2 &a = h[i], &b = h[(i + 1) % h.size()];
    if (cross2(b - a, x - a) < 0) inside = false;
    best = std::min(best, segment_distance(x, a, b));
  }
  return inside ? 0.0 : best;
}

// The vertices of the intersection of two hulls (either may be a point or a segment), within eps.
std::vector<Vec2> intersection_vertices(const std::vector<Vec2>& a, const std::vector<Vec2>& b, double eps) {
  std::vector<Vec2> out;
  for (const Vec2& x : a)
    if (hull_distance(b, x) <= eps) out.push_back(x);
  for (const Vec2& x : b)
    if (hull_distance(a, x) <= eps) out.push_back(x);
  auto edges = [](const std::vector<Vec2>& h) {
    std::vector<std::pair<Vec2, Vec2>> e;
    if (h.size() == 2) e.emplace_back(h[0], h[1]);
    if (h.size() >= 3)
      for (std::size_t i = 0; i < h.size(); ++i) e.emplace_back(h[i], h[(i + 1) % h.size()]);
    return e;
  };
  for (const auto& [p, q] : edges(a))
    for (const auto& [r, s] : edges(b)) {
      const Vec2 u = q - p, v = s - r;
      const double den = cross2(u, v);
      if (den == 0) continue;
      const double t = cross2(r - p, v) / den, w = cross2(r - p, u) / den;
      if (t > 0 && t < 1 && w > 0 && w < 1) out.push_back(p + t * u);
    }
  return out;
}

// ---- the objective on directions ----

// G(n) = q·n − Σ|M_i n| for the two pieces: F(n) without the inflation radii. Homogeneous of
// degree 1, so on the unit sphere n·∇G = G.
struct Objective {
  Vec3 q = Vec3::Zero();
  const Mat3* m[2] = {nullptr, nullptr};
  int curved = 0;

  Objective(const Piece& a, const Piece& b) : q(b.p - a.p) {
    if (a.curved) m[curved++] = &a.m;
    if (b.curved) m[curved++] = &b.m;
  }
  double value(const Vec3& n) const {
    double g = q.dot(n);
    for (int i = 0; i < curved; ++i) g -= (*m[i] * n).norm();
    return g;
  }
  void derivatives(const Vec3& n, double& value, Vec3& grad, Mat3& hess) const {
    value = q.dot(n);
    grad = q;
    hess.setZero();
    for (int i = 0; i < curved; ++i) {
      const Mat3& mi = *m[i];
      const Vec3 mn = mi * n;
      const double s = mn.norm();
      if (!(s > 0)) continue;
      const Vec3 w = mi.transpose() * mn;
      value -= s;
      grad -= w / s;
      hess -= (mi.transpose() * mi - w * w.transpose() / (s * s)) / s;
    }
  }
};

// Maximizes G over the unit sphere (2 degrees of freedom) or, with `axis`, over the unit circle
// ⊥ axis, by Newton's method from n (unit, updated). Returns false when it does not settle.
bool maximize(const Objective& objective, const Vec3* axis, Vec3& n) {
  double previous_step = std::numeric_limits<double>::infinity();
  for (int it = 0; it < kNewtonIterations; ++it) {
    double g;
    Vec3 grad;
    Mat3 hess;
    objective.derivatives(n, g, grad, hess);
    // Riemannian gradient and Hessian in a tangent basis: ∇²_R = Tᵀ∇²G T − (n·∇G) I.
    Eigen::Matrix<double, 3, 2> t = Eigen::Matrix<double, 3, 2>::Zero();
    int dims = 2;
    if (axis) {
      t.col(0) = axis->cross(n);
      dims = 1;
    } else {
      Vec3 t1, t2;
      tangent_basis(n, t1, t2);
      t.col(0) = t1;
      t.col(1) = t2;
    }
    const double radial = n.dot(grad);
    Vec2 step = Vec2::Zero();
    if (dims == 1) {
      const double g1 = t.col(0).dot(grad), h1 = t.col(0).dot(hess * t.col(0)) - radial;
      step[0] = h1 < 0 ? -g1 / h1 : (g1 >= 0 ? 0.1 : -0.1);
    } else {
      const Vec2 g2 = t.transpose() * grad;
      const Eigen::Matrix2d h2 = t.transpose() * hess * t - radial * Eigen::Matrix2d::Identity();
      if (h2.trace() < 0 && h2.determinant() > 0) {
        step = -h2.ldlt().solve(g2);
      } else {
        const double norm = g2.norm();
        step = norm > 0 ? Vec2(0.1 * g2 / norm) : Vec2::Zero();
      }
    }
    double size = step.norm();
    if (size > 0.5) step *= 0.5 / size, size = 0.5;
    // Accept a step that does not lower G (beyond round-off); halve it otherwise.
    const double slack = 1e-15 * (std::abs(g) + objective.q.norm());
    bool moved = false;
    for (int halving = 0; halving < 40; ++halving, step *= 0.5) {
      const Vec3 trial =
          (n + t.col(0) * step[0] + (dims == 2 ? Vec3(t.col(1) * step[1]) : Vec3::Zero())).normalized();
      if (objective.value(trial) >= g - slack) {
        n = trial;
        moved = true;
        break;
      }
    }
    size = step.norm();
    if (!moved || size < 1e-15) return true;
    // Convergence ends in round-off: stop once the steps stop shrinking.
    if (size < 1e-12 && size >= previous_step) return true;
    previous_step = size;
  }
  return true;
}

// A normal and F at it; slack_a, slack_b: how far below the support the features that gave it
// are there [m] (0 when they are the support).
struct Candidate {
  double value = -std::numeric_limits<double>::infinity();
  Vec3 n = Vec3::Zero();
  double slack_a = 0.0, slack_b = 0.0;
  Vec3 point_a = Vec3::Zero(), point_b = Vec3::Zero();  // the pieces' support points (cores)
  Curve curve_a, curve_b;                               // the features' curves
};

double piece_value(const Piece& piece, const Vec3& d) {
  return piece.p.dot(d) + (piece.curved ? (piece.m * d).norm() : 0.0);
}
// ∇h of the piece at d: its support point.
Vec3 piece_point(const Piece& piece, const Vec3& d) {
  if (!piece.curved) return piece.p;
  const Vec3 md = piece.m * d;
  const double norm = md.norm();
  return norm > 0 ? Vec3(piece.p + piece.m.transpose() * md / norm) : piece.p;
}

// The normals the features' combinations ask for, each with F at it; `start` is where Newton
// starts.
void solve_candidates(const ConvexShape& a, const ConvexShape& b, const std::vector<Feature>& fa,
                      const std::vector<Feature>& fb, const Vec3& start, std::vector<Candidate>& out) {
  using C = Feature::Constraint;
  auto add = [&](const Vec3& n, const Feature* x, const Feature* y) {
    if (!(n.squaredNorm() > 0.5) || !n.allFinite()) return;
    const double ha = a.support(n), hb = b.support(-n);
    Candidate c;
    c.value = -ha - hb;
    c.n = n;
    // A fixed normal says nothing of the other shape's feature: no slack, no curve.
    if (x) {
      c.slack_a = std::max(0.0, ha - a.radius - piece_value(x->piece, n));
      c.point_a = piece_point(x->piece, n);
      c.curve_a = x->curve;
    }
    if (y) {
      c.slack_b = std::max(0.0, hb - b.radius - piece_value(y->piece, -n));
      c.point_b = piece_point(y->piece, -n);
      c.curve_b = y->curve;
    }
    out.push_back(c);
  };
  for (const Feature& f : fa)
    if (f.constraint == C::kFixed) add(f.direction, &f, nullptr);
  for (const Feature& f : fb)
    if (f.constraint == C::kFixed) add(-f.direction, nullptr, &f);
  for (const Feature& x : fa) {
    if (x.constraint == C::kFixed) continue;
    for (const Feature& y : fb) {
      if (y.constraint == C::kFixed) continue;
      const Objective objective(x.piece, y.piece);
      std::vector<Vec3> axes;
      if (x.constraint == C::kPerpendicular) axes.push_back(x.direction);
      if (y.constraint == C::kPerpendicular) axes.push_back(y.direction);
      if (axes.size() == 2) {
        const Vec3 cross = axes[0].cross(axes[1]);
        if (cross.norm() > 1e-9) {  // two edges: n ⊥ both
          add(cross.normalized(), &x, &y);
          add(-cross.normalized(), &x, &y);
          continue;
        }
        axes.pop_back();  // parallel: one constraint
      }
      if (axes.size() == 1) {
        const Vec3& e = axes[0];
        if (objective.curved == 0) {  // q·n on the circle ⊥ e: its projection
          add(unit_or_zero(objective.q - objective.q.dot(e) * e), &x, &y);
          continue;
        }
        Vec3 n = unit_or_zero(start - start.dot(e) * e);
        if (n.squaredNorm() == 0) {
          Vec3 t2;
          tangent_basis(e, n, t2);
        }
        if (maximize(objective, &e, n)) add(n, &x, &y);
      } else {
        if (objective.curved == 0) {  // q·n on the sphere
          add(unit_or_zero(objective.q), &x, &y);
          continue;
        }
        Vec3 n = start;
        if (maximize(objective, nullptr, n)) add(n, &x, &y);
      }
    }
  }
}

// The optimality condition φ·n ∈ S_b(−n) − S_a(n) in the plane ⊥ n; on success the witness
// point midway between the surfaces.
bool certify(const ConvexShape& a, const ConvexShape& b, const Vec3& n, double scale, Vec3& pos) {
  const SupportSet sa = support_set(a, n, kSupportTolerance * scale);
  const SupportSet sb = support_set(b, -n, kSupportTolerance * scale);
  Vec3 t1, t2;
  tangent_basis(n, t1, t2);
  auto project = [&](const Vec3& x) { return Vec2(t1.dot(x), t2.dot(x)); };
  std::vector<Vec2> difference;
  for (const Vec3& y : sb.points)
    for (const Vec3& x : sa.points) difference.push_back(project(y - x));
  const double gap = hull_distance(hull2(difference), Vec2::Zero()) - sa.disk - sb.disk;
  if (!(gap <= kCertificateTolerance * scale)) return false;
  // The witness: where the support sets meet, projected (the mean of their intersection's
  // vertices where both are extended; a disk as a 32-gon).
  auto polygon = [&](const SupportSet& s) {
    std::vector<Vec2> p;
    for (const Vec3& x : s.points) {
      const Vec2 c = project(x);
      if (s.disk > 0)
        for (int i = 0; i < 32; ++i) {
          const double angle = 2 * M_PI * i / 32;
          p.push_back(c + s.disk * Vec2(std::cos(angle), std::sin(angle)));
        }
      else
        p.push_back(c);
    }
    return hull2(p);
  };
  const std::vector<Vec2> pa = polygon(sa), pb = polygon(sb);
  Vec2 w;
  if (pa.size() == 1) {
    w = pa[0];
  } else if (pb.size() == 1) {
    w = pb[0];
  } else {
    const std::vector<Vec2> meet = intersection_vertices(pa, pb, kCertificateTolerance * scale);
    w.setZero();
    const std::vector<Vec2>& use = meet.empty() ? pa : meet;
    for (const Vec2& x : use) w += x;
    w /= static_cast<double>(use.size());
  }
  pos = w.x() * t1 + w.y() * t2 + 0.5 * (a.support(n) - b.support(-n)) * n;
  return true;
}
// Where two curves of the cores touch (a vertex, an edge or a rim on a vertex, an edge or a rim)
// Newton's support points are only good to √ε and the normal is not unique: φ is certified by
// the duality gap instead, F(n) ≤ φ ≤ |y − x| − r_a − r_b for the curves' closest points x, y
// (alternating projections from the support points).
bool certify_touching(const ConvexShape& a, const ConvexShape& b, const Candidate& c, double scale,
                      Vec3& pos) {
  if (c.curve_a.kind == Curve::Kind::kOther || c.curve_b.kind == Curve::Kind::kOther) return false;
  Vec3 x = c.point_a, y = c.point_b;
  for (int i = 0; i < 100; ++i) {
    x = c.curve_a.closest(y);
    y = c.curve_b.closest(x);
  }
  const double core_distance = (y - x).norm();
  if (!(core_distance <= kTouchingTolerance * scale)) return false;
  if (!(core_distance - a.radius - b.radius - c.value <= kCertificateTolerance * scale)) return false;
  pos = 0.5 * (x + a.radius * c.n + y - b.radius * c.n);
  return true;
}

// ---- the first estimate: GJK on the cores ----

// The point of s's core farthest in direction d, with the core shrunk about its centre by the
// factor 1 − shrink.
Vec3 core_support(const ConvexShape& s, const Vec3& d, double shrink) {
  Vec3 x = s.centre;
  switch (s.kind) {
    case Kind::kPoint:
      break;
    case Kind::kSegment:
      x += (axis_of(s).dot(d) >= 0 ? s.size[1] : -s.size[1]) * axis_of(s);
      break;
    case Kind::kEllipsoid: {
      const Vec3 md = s.size.asDiagonal() * (s.axes.transpose() * d);
      const double norm = md.norm();
      if (norm > 0) x += s.axes * (s.size.asDiagonal() * md) / norm;
      break;
    }
    case Kind::kCylinder: {
      const Vec3 a = axis_of(s);
      const double ad = a.dot(d);
      const Vec3 radial = d - ad * a;
      x += (ad >= 0 ? s.size[1] : -s.size[1]) * a;
      if (radial.norm() > 0) x += s.size[0] * radial.normalized();
      break;
    }
    case Kind::kPolytope: {
      double top = -std::numeric_limits<double>::infinity();
      for (const Vec3& v : s.vertices)
        if (const double h = v.dot(d); h > top) top = h, x = v;
      break;
    }
  }
  return s.centre + (1.0 - shrink) * (x - s.centre);
}

// The closest point to the origin of the simplex p[0..count) (1 to 4 points), which shrinks to
// the face that holds it. False when the origin is inside the tetrahedron.
bool closest_on_simplex(Vec3* p, int& count, Vec3& v) {
  auto keep = [&](std::initializer_list<int> which) {
    Vec3 q[4];
    int k = 0;
    for (int i : which) q[k++] = p[i];
    std::copy_n(q, k, p);
    count = k;
  };
  if (count == 1) {
    v = p[0];
    return true;
  }
  if (count == 2) {
    const Vec3 ab = p[1] - p[0];
    const double t = -p[0].dot(ab) / ab.squaredNorm();
    if (!(t > 0)) {
      keep({0});
      v = p[0];
    } else if (t >= 1) {
      keep({1});
      v = p[0];
    } else {
      v = p[0] + t * ab;
    }
    return true;
  }
  if (count == 3) {  // Ericson, Real-Time Collision Detection §5.1.5, for the origin
    const Vec3 a = p[0], b = p[1], c = p[2], ab = b - a, ac = c - a;
    const double d1 = -ab.dot(a), d2 = -ac.dot(a);
    if (d1 <= 0 && d2 <= 0) return keep({0}), v = a, true;
    const double d3 = -ab.dot(b), d4 = -ac.dot(b);
    if (d3 >= 0 && d4 <= d3) return keep({1}), v = b, true;
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return keep({0, 1}), v = a + d1 / (d1 - d3) * ab, true;
    const double d5 = -ab.dot(c), d6 = -ac.dot(c);
    if (d6 >= 0 && d5 <= d6) return keep({2}), v = c, true;
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return keep({0, 2}), v = a + d2 / (d2 - d6) * ac, true;
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
      return keep({1, 2}), v = b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b), true;
    const double denominator = va + vb + vc;
    v = a + ab * (vb / denominator) + ac * (vc / denominator);
    return true;
  }
  // A tetrahedron: the closest of the faces the origin is outside of.
  static constexpr int kFaces[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
  double best = std::numeric_limits<double>::infinity();
  Vec3 best_p[4];
  int best_count = 0;
  bool outside_any = false;
  for (const auto& f : kFaces) {
    const Vec3 normal = (p[f[1]] - p[f[0]]).cross(p[f[2]] - p[f[0]]);
    const double side_origin = -normal.dot(p[f[0]]), side_other = normal.dot(p[f[3]] - p[f[0]]);
    if (side_origin * side_other > 0 && std::abs(side_other) > 0)
      continue;  // the origin is on the inner side
    outside_any = true;
    Vec3 q[4] = {p[f[0]], p[f[1]], p[f[2]]};
    int k = 3;
    Vec3 x;
    closest_on_simplex(q, k, x);
    if (x.squaredNorm() < best) {
      best = x.squaredNorm();
      std::copy_n(q, k, best_p);
      best_count = k;
      v = x;
    }
  }
  if (!outside_any) return false;
  std::copy_n(best_p, best_count, p);
  count = best_count;
  return true;
}

// GJK: the normal from a to b of the closest points of the shrunk cores; false when they
// overlap (or touch).
bool gjk_normal(const ConvexShape& a, const ConvexShape& b, double shrink, double scale, Vec3& n) {
  auto support = [&](const Vec3& d) {
    return Vec3(core_support(b, d, shrink) - core_support(a, -d, shrink));
  };
  Vec3 p[4];
  int count = 1;
  Vec3 v = b.centre - a.centre;
  if (v.squaredNorm() == 0) v = Vec3::UnitZ();
  p[0] = v = support(-v);
  Vec3 best = v;
  for (int it = 0; it < 200; ++it) {
    if (v.norm() <= 1e-12 * scale) return false;
    const Vec3 w = support(-v);
    // |v| − v·w/|v| bounds the distance's error: small relative to |v| means an accurate normal.
    if (v.squaredNorm() - v.dot(w) <= 1e-13 * v.squaredNorm()) break;
    bool repeated = false;
    for (int i = 0; i < count; ++i) repeated = repeated || (w - p[i]).norm() <= 1e-15 * scale;
    if (repeated) break;
    p[count++] = w;
    if (!closest_on_simplex(p, count, v)) return false;
    // In exact arithmetic |v| decreases; once round-off stops that, the best so far stands.
    if (!(v.squaredNorm() < best.squaredNorm())) break;
    best = v;
  }
  if (best.norm() <= 1e-12 * scale) return false;
  n = best.normalized();
  return true;
}

}  // namespace

double ConvexShape::support(const Vec3& d) const {
  switch (kind) {
    case Kind::kPoint:
      return centre.dot(d) + radius;
    case Kind::kSegment:
      return centre.dot(d) + size[1] * std::abs(axis_of(*this).dot(d)) + radius;
    case Kind::kEllipsoid:
      return centre.dot(d) + (size.asDiagonal() * (axes.transpose() * d)).norm() + radius;
    case Kind::kCylinder: {
      const Vec3 a = axis_of(*this);
      const double ad = a.dot(d);
      return centre.dot(d) + size[0] * (d - ad * a).norm() + size[1] * std::abs(ad) + radius;
    }
    case Kind::kPolytope: {
      double top = -std::numeric_limits<double>::infinity();
      for (const Vec3& v : vertices) top = std::max(top, v.dot(d));
      return top + radius;
    }
  }
  return 0.0;
}

double ConvexShape::length_scale() const {
  switch (kind) {
    case Kind::kPoint:
      return radius;
    case Kind::kSegment:
      return size[1] + radius;
    case Kind::kEllipsoid:
      return size.maxCoeff() + radius;
    case Kind::kCylinder:
      return std::hypot(size[0], size[1]) + radius;
    case Kind::kPolytope: {
      double r = 0.0;
      for (const Vec3& v : vertices) r = std::max(r, (v - centre).norm());
      return r + radius;
    }
  }
  return 0.0;
}

namespace {
// The certified φ from a first estimate n of its normal (unit); false when none is found.
bool search_from(const ConvexShape& a, const ConvexShape& b, Vec3 n, double scale, ConvexDistance& out) {
  // From the current normal: its candidates; the best of them is the next normal while F grows
  // (every F(n) is a lower bound on φ), a wider tolerance once it does not.
  std::vector<Feature> fa, fb;
  std::vector<Candidate> candidates;
  double best = -std::numeric_limits<double>::infinity(), slack_a = 0.0, slack_b = 0.0;
  std::size_t level = 0;
  for (int round = 0; round < kRounds && level < std::size(kRoundTolerances); ++round) {
    // Features near the support, and those that gave the current normal (active-set style: a
    // segment's two ends that each overshoot make its side).
    const double tau = kRoundTolerances[level] * scale;
    features_near(a, n, std::max(tau, 2 * slack_a), fa);
    features_near(b, -n, std::max(tau, 2 * slack_b), fb);
    candidates.clear();
    solve_candidates(a, b, fa, fb, n, candidates);
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& x, const Candidate& y) { return x.value > y.value; });
    for (const Candidate& c : candidates) {
      if (c.value < candidates.front().value - kCertificateTolerance * scale) break;
      Vec3 pos;
      if (certify(a, b, c.n, scale, pos) || certify_touching(a, b, c, scale, pos)) {
        out.resolved = true;
        out.dist = c.value;
        out.normal = c.n;
        out.pos = pos;
        return true;
      }
    }
    if (!candidates.empty() && candidates.front().value > best + kCertificateTolerance * scale) {
      best = candidates.front().value;
      n = candidates.front().n;
      slack_a = candidates.front().slack_a;
      slack_b = candidates.front().slack_b;
    } else {
      ++level;
    }
  }
  return false;
}
}  // namespace

ConvexDistance convex_distance(const ConvexShape& a, const ConvexShape& b) {
  ConvexDistance out;
  const double scale = std::max(a.length_scale(), b.length_scale());
  // First estimates: GJK's normal between the cores (the shapes without their radii), and where
  // they touch or overlap between cores shrunk about their centres, more and more (slightly
  // shrunk cores keep the touching features; the shallower an overlap, the closer the shrunk
  // cores' normal to its answer); last, the centres' direction.
  // An overlap's certificate is local (F has several maxima on the sphere when the shapes
  // overlap): a deep one takes the best of every estimate.
  bool deep = false;
  for (const double shrink : {0.0, 1e-6, 1e-4, 1e-2, 0.1, 0.3, 0.6, 0.9}) {
    Vec3 n;
    ConvexDistance trial;
    if (!gjk_normal(a, b, shrink, scale, n) || !search_from(a, b, n, scale, trial)) continue;
    if (!out.resolved || trial.dist > out.dist) out = trial;
    deep = out.dist < -kDeepOverlap * scale;
    if (!deep) return out;
  }
  if (!deep && out.resolved) return out;
  // Last, the centres' direction and the shapes' axes both ways.
  std::vector<Vec3> starts = {b.centre - a.centre};
  for (int i = 0; i < 3; ++i)
    for (const double sign : {1.0, -1.0}) {
      starts.push_back(sign * a.axes.col(i));
      starts.push_back(sign * b.axes.col(i));
    }
  for (const Vec3& start : starts) {
    ConvexDistance trial;
    if (start.norm() > 0 && search_from(a, b, start.normalized(), scale, trial) &&
        (!out.resolved || trial.dist > out.dist))
      out = trial;
  }
  return out;
}

}  // namespace simpact
