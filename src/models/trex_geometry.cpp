#include "simpact/models/trex_geometry.hpp"

#include <fmt/format.h>

#include <cmath>

#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {

constexpr double kPi = 3.14159265358979323846;

using Angles = std::array<double, kTrexDof>;

Angles angles(std::initializer_list<int> coordinates) {
  Angles a{};
  for (int c : coordinates) a[static_cast<std::size_t>(c)] = 1.0;
  return a;
}

double angle_of(const Angles& a, const DofVector& q) {
  double s = 0.0;
  for (int j = 0; j < kTrexDof; ++j) s += a[static_cast<std::size_t>(j)] * q[j];
  return s;
}

// R(α) d and P R(α) d = ∂/∂α R(α) d.
Eigen::Vector2d rotated(double alpha, const Eigen::Vector2d& d) {
  const double c = std::cos(alpha), s = std::sin(alpha);
  return {c * d.x() - s * d.y(), s * d.x() + c * d.y()};
}
Eigen::Vector2d perp(const Eigen::Vector2d& v) {
  return {-v.y(), v.x()};
}

// Masses grow as r³ and inertias as r⁵ (the tail formula as r⁶ under a root): lengths within
// [1e-12, 1e12] m keep them inside the computable magnitudes (magnitude_range.hpp). Beyond,
// the placing solve stalls with an error that would not name the length.
constexpr double kMinLength = 1e-12, kMaxLength = 1e12;

void check_length(const char* field, double value) {
  if (!(std::isfinite(value) && value > 0.0))
    throw InputError(field, fmt::format("must be a positive length in m, got {}", value));
  if (value < kMinLength || value > kMaxLength)
    throw InputError(field, fmt::format("must be a length in [{:g}, {:g}] m (masses grow as r^3, inertias as "
                                        "r^5), got {:g}",
                                        kMinLength, kMaxLength, value));
}

}  // namespace

double trex_tail_length(double r1, double r2) {
  const double num = r1 * r1 * r1 + r1 * r1 * r2 +
                     std::sqrt(2.0) * std::sqrt(r1 * r1 * r1 * r1 * r2 * r2 + r1 * r1 * r1 * r2 * r2 * r2);
  return num / (r1 * r1 - r2 * r2) - (r1 + r2);
}

TrexGeometry::TrexGeometry(const TrexDesign& design, const TrexMaterial& material) : design_(design) {
  check_length("r1", design.r1);
  check_length("r2", design.r2);
  check_length("l_u", design.l_u);
  check_length("l_l", design.l_l);
  if (!(design.r2 < design.r1))
    throw InputError("r2",
                     fmt::format("must be smaller than r1 = {} m (the tail formula needs a taper), got {}",
                                 design.r1, design.r2));
  tail_length_ = trex_tail_length(design.r1, design.r2);
  const double r1 = design.r1, r2 = design.r2, lu = design.l_u, ll = design.l_l, lt = tail_length_;
  const double limb = material.limb_density * material.limb_section;  // kg per m of limb
  const auto sphere = [&](double r) { return material.body_density * 4.0 / 3.0 * kPi * r * r * r; };
  const Angles body = angles({kTrexTheta}), tail = angles({kTrexTheta, kTrexTail});
  const TrexTerm to_posterior{body, {r1 + r2, 0.0}};

  const double m1 = sphere(r1), m2 = sphere(r2);
  bodies_.push_back({"anterior", m1, 0.4 * m1 * r1 * r1, body, {"anterior", {}}});
  bodies_.push_back({"posterior", m2, 0.4 * m2 * r2 * r2, tail, {"posterior", {to_posterior}}});
  const double mt = limb * lt;
  bodies_.push_back(
      {"tail", mt, mt * lt * lt / 12.0, tail, {"tail", {to_posterior, {tail, {0.5 * lt, 0.0}}}}});
  const char* side[2] = {"L", "R"};
  const int hip[2] = {kTrexHipL, kTrexHipR}, knee[2] = {kTrexKneeL, kTrexKneeR};
  for (int s = 0; s < 2; ++s) {
    const Angles thigh = angles({kTrexTheta, hip[s]}), shank = angles({kTrexTheta, hip[s], knee[s]});
    const TrexTerm to_knee{thigh, {-lu, 0.0}};
    const double mu = limb * lu, ml = limb * ll;
    const std::string suffix = std::string("_") + side[s];
    bodies_.push_back(
        {"thigh" + suffix, mu, mu * lu * lu / 12.0, thigh, {"thigh" + suffix, {{thigh, {-0.5 * lu, 0.0}}}}});
    bodies_.push_back({"shank" + suffix,
                       ml,
                       ml * ll * ll / 12.0,
                       shank,
                       {"shank" + suffix, {to_knee, {shank, {-0.5 * ll, 0.0}}}}});
    contacts_.push_back({"foot" + suffix, {to_knee, {shank, {-ll, 0.0}}}});
    drawing_.push_back({"knee" + suffix, {to_knee}});
    drawing_.push_back(contacts_.back());
  }
  contacts_.push_back({"tail", {to_posterior, {tail, {lt, 0.0}}}});
  drawing_.insert(drawing_.begin(), {{"anterior", {}}, {"posterior", {to_posterior}}});
  drawing_.push_back({"tail_tip", contacts_.back().terms});
}

double TrexGeometry::total_mass() const {
  double m = 0.0;
  for (const auto& b : bodies_) m += b.mass;
  return m;
}

const std::array<const char*, kTrexDof>& TrexGeometry::coordinate_names() {
  static const std::array<const char*, kTrexDof> names = {"x",       "y",     "theta",   "phi_L",
                                                          "gamma_L", "phi_R", "gamma_R", "phi_T"};
  return names;
}

const std::array<const char*, kTrexContacts>& TrexGeometry::contact_names() {
  static const std::array<const char*, kTrexContacts> names = {"foot_L", "foot_R", "tail"};
  return names;
}

Eigen::Vector2d TrexGeometry::position(const DofVector& q, const TrexPoint& point) const {
  Eigen::Vector2d r(q[kTrexX], q[kTrexY]);
  for (const auto& t : point.terms) r += rotated(angle_of(t.a, q), t.d);
  return r;
}

TrexJacobian TrexGeometry::jacobian(const DofVector& q, const TrexPoint& point) const {
  TrexJacobian j = TrexJacobian::Zero();
  j(0, kTrexX) = 1.0;
  j(1, kTrexY) = 1.0;
  for (const auto& t : point.terms) {
    const Eigen::Vector2d ps = perp(rotated(angle_of(t.a, q), t.d));
    for (int c = 0; c < kTrexDof; ++c) j.col(c) += t.a[static_cast<std::size_t>(c)] * ps;
  }
  return j;
}

TrexJacobian TrexGeometry::jacobian_derivative(const DofVector& q, const TrexPoint& point, int k) const {
  TrexJacobian j = TrexJacobian::Zero();
  for (const auto& t : point.terms) {
    const double ak = t.a[static_cast<std::size_t>(k)];
    if (ak == 0.0) continue;
    const Eigen::Vector2d s = rotated(angle_of(t.a, q), t.d);  // ∂(P R d)/∂α = P² R d = −R d
    for (int c = 0; c < kTrexDof; ++c) j.col(c) -= ak * t.a[static_cast<std::size_t>(c)] * s;
  }
  return j;
}

DofMatrix TrexGeometry::mass_matrix(const DofVector& q) const {
  DofMatrix m = DofMatrix::Zero(kTrexDof, kTrexDof);
  for (const auto& b : bodies_) {
    const TrexJacobian j = jacobian(q, b.com);
    m += b.mass * (j.transpose() * j);
    const Eigen::Map<const Eigen::Matrix<double, kTrexDof, 1>> a(b.a.data());
    m += b.inertia * (a * a.transpose());
  }
  return m;
}

DofMatrix TrexGeometry::mass_matrix_derivative(const DofVector& q, int k) const {
  DofMatrix dm = DofMatrix::Zero(kTrexDof, kTrexDof);
  for (const auto& b : bodies_) {
    const TrexJacobian j = jacobian(q, b.com), dj = jacobian_derivative(q, b.com, k);
    const Eigen::Matrix<double, kTrexDof, kTrexDof> half = b.mass * (dj.transpose() * j);
    dm += half + half.transpose();
  }
  return dm;
}

void TrexGeometry::gaps(const DofVector& q, ContactVector& phi) const {
  phi.resize(kTrexContacts);
  for (int i = 0; i < kTrexContacts; ++i) phi[i] = position(q, contacts_[static_cast<std::size_t>(i)]).y();
}

void TrexGeometry::gap_jacobian(const DofVector& q, NormalMatrix& jac) const {
  jac.resize(kTrexContacts, kTrexDof);
  for (int i = 0; i < kTrexContacts; ++i)
    jac.row(i) = jacobian(q, contacts_[static_cast<std::size_t>(i)]).row(1);
}

std::vector<std::pair<std::string, Eigen::Vector2d>> TrexGeometry::points(const DofVector& q) const {
  std::vector<std::pair<std::string, Eigen::Vector2d>> out;
  for (const auto& p : drawing_) out.emplace_back(p.name, position(q, p));
  return out;
}

const std::vector<ParameterInfo>& trex_design_parameters() {
  static const std::vector<ParameterInfo> params = {
      {"r1", "m", "radius of the anterior body (sphere)", 0.07, 1e-4, 10.0, false},
      {"r2", "m", "radius of the posterior body (sphere), below r1", 0.04, 1e-4, 10.0, false},
      {"l_u", "m", "thigh length (hip to knee)", 0.08, 1e-4, 10.0, false},
      {"l_l", "m", "shank length (knee to foot)", 0.10, 1e-4, 10.0, false}};
  return params;
}

namespace {
// Table I lists x y θ φ_L φ_R γ_L γ_R φ_T in cm and rad.
TrexTableRow table_row(double r1, double r2, double lu, double ll, double y, double theta, double phi_l,
                       double phi_r, double gamma_l, double gamma_r, double phi_t, double product) {
  TrexTableRow row;
  row.design = {r1 * 0.01, r2 * 0.01, lu * 0.01, ll * 0.01};
  row.q = DofVector::Zero(kTrexDof);
  row.q << 0.0, y * 0.01, theta, phi_l, gamma_l, phi_r, gamma_r, phi_t;
  row.normalized_product = product;
  return row;
}
}  // namespace

TrexTableRow trex_table1_initial() {
  return table_row(7, 4, 8, 10, 12.38, 5.78, 5.13, 1.99, 5.24, 5.24, 0.0, 1.65e-3);
}

TrexTableRow trex_table1_optimized() {
  return table_row(6.69, 4.22, 7.81, 9.86, 13.69, 5.92, 4.79, 2.85, 5.71, 5.67, -0.19, -2.28e-7);
}

}  // namespace simpact
