#include "simpact/models/file_mechanism.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "simpact/core/fixed_size.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {

namespace {
// Central-difference step of M(q) and ∇V(q): truncation O(h²) ≈ 1e-12 relative against rounding
// O(ε/h) ≈ 1e-10 (first derivatives enter the DEL residual; second ones only Newton's matrix).
double step_for(double q) {
  return 1e-5 * std::max(1.0, std::abs(q));
}

// The most contacts (features) time stepping takes from one file.
constexpr int kMaxFeatures = 64;

// The geoms a contact side names, as MujocoMechanism resolved them (a geom name first, else a
// body's geoms; "body:"/"geom:" force one kind).
std::vector<int> side_geoms(const mjModel* m, const std::string& name) {
  const bool force_body = name.rfind("body:", 0) == 0, force_geom = name.rfind("geom:", 0) == 0;
  const std::string bare = force_body || force_geom ? name.substr(5) : name;
  const int geom = force_body ? -1 : mj_name2id(m, mjOBJ_GEOM, bare.c_str());
  if (geom >= 0) return {geom};
  std::vector<int> out;
  const int body = force_geom ? -1 : mj_name2id(m, mjOBJ_BODY, bare.c_str());
  for (int g = 0; g < m->ngeom && body >= 0; ++g)
    if (m->geom_bodyid[g] == body) out.push_back(g);
  return out;
}

// A geom's points whose gaps against a plane are smooth and together find its lowest point
// (radius: the rounding around each): a capsule's end-cap centres, a box's corners. Empty for
// other geoms (a sphere keeps MuJoCo's own gap; a cylinder's lowest rim point is not smooth).
std::vector<Eigen::Vector3d> plane_features(const mjModel* m, int g, double& radius) {
  const double* size = m->geom_size + 3 * g;
  std::vector<Eigen::Vector3d> points;
  if (m->geom_type[g] == mjGEOM_CAPSULE) {
    radius = size[0];
    points.emplace_back(0.0, 0.0, -size[1]);
    points.emplace_back(0.0, 0.0, size[1]);
  } else if (m->geom_type[g] == mjGEOM_BOX) {
    radius = 0.0;
    for (int c = 0; c < 8; ++c)
      points.emplace_back((c & 1 ? 1 : -1) * size[0], (c & 2 ? 1 : -1) * size[1], (c & 4 ? 1 : -1) * size[2]);
  }
  return points;
}

}  // namespace

FileMechanism::FileMechanism(std::shared_ptr<const MujocoMechanism> mechanism, MechanismState edits,
                             const std::string& field)
    : mechanism_(std::move(mechanism)), edits_(std::move(edits)), damping_(mechanism_->damping()) {
  if (mechanism_->nv() > kMaxDynamicDof)
    throw InputError(field + ".file",
                     fmt::format("time stepping takes at most {} velocities (the file has {})",
                                 kMaxDynamicDof, mechanism_->nv()));
  damped_ = (damping_.array() != 0.0).any();
  workspace_ = mechanism_->make_workspace();
  mj_ = mechanism_->mujoco_at(edits_, mechanism_->default_qpos(), *workspace_).first;
  // Contacts as features: under witnesses: all, a contact whose every geom pair is a plane against a
  // capsule or box contributes their points; any other contact its deepest point.
  const auto& contact_names = mechanism_->spec().contacts;
  for (int c = 0; c < static_cast<int>(contact_names.size()); ++c) {
    std::vector<Feature> own;
    bool smooth = mechanism_->spec().witnesses == "all";
    const std::vector<int> a = side_geoms(mj_, contact_names[static_cast<std::size_t>(c)].first);
    const std::vector<int> b = side_geoms(mj_, contact_names[static_cast<std::size_t>(c)].second);
    for (int g0 : a)
      for (int g1 : b) {
        if (!smooth || mj_->geom_bodyid[g0] == mj_->geom_bodyid[g1]) continue;
        const bool plane0 = mj_->geom_type[g0] == mjGEOM_PLANE, plane1 = mj_->geom_type[g1] == mjGEOM_PLANE;
        if (plane0 && plane1) continue;  // nothing to measure (MujocoMechanism skips the pair too)
        Feature f;
        f.contact = c;
        f.plane = plane0 ? g0 : g1;
        f.geom = plane0 ? g1 : g0;
        const std::vector<Eigen::Vector3d> points =
            plane0 != plane1 ? plane_features(mj_, f.geom, f.radius) : std::vector<Eigen::Vector3d>{};
        if (points.empty()) {
          smooth = false;
          continue;
        }
        for (const auto& point : points) {
          f.local = point;
          f.index = static_cast<int>(own.size());
          own.push_back(f);
        }
      }
    if (!smooth || own.empty()) {
      own.assign(1, Feature{});
      own[0].contact = c;
      any_deepest_ = true;
    }
    features_.insert(features_.end(), own.begin(), own.end());
  }
  if (static_cast<int>(features_.size()) > std::min(kMaxFeatures, kMaxDynamicContacts)) {
    std::vector<std::string> counts;
    for (int c = 0; c < static_cast<int>(contact_names.size()); ++c)
      counts.push_back(fmt::format("{}/{}: {}", contact_names[static_cast<std::size_t>(c)].first,
                                   contact_names[static_cast<std::size_t>(c)].second,
                                   std::count_if(features_.begin(), features_.end(),
                                                 [c](const Feature& f) { return f.contact == c; })));
    throw InputError(
        field + ".contacts",
        fmt::format("time stepping takes at most {} contact points (capsule ends, box corners "
                    "against a plane; one per other contact); the contacts give {} ({}); "
                    "witnesses: deepest gives one per contact",
                    std::min(kMaxFeatures, kMaxDynamicContacts), features_.size(), fmt::join(counts, ", ")));
  }
  const int nv = mj_->nv;
  dof_qpos_.assign(static_cast<std::size_t>(nv), -1);
  translation_.assign(static_cast<std::size_t>(nv), 0);
  for (int j = 0; j < mj_->njnt; ++j) {
    const int type = mj_->jnt_type[j], q = mj_->jnt_qposadr[j], d = mj_->jnt_dofadr[j];
    if (type == mjJNT_HINGE || type == mjJNT_SLIDE) {
      dof_qpos_[static_cast<std::size_t>(d)] = q;
      continue;
    }
    if (mj_->jnt_stiffness[j] != 0.0) {
      const char* raw = mj_id2name(mj_, mjOBJ_JOINT, j);
      throw InputError(field + ".file",
                       fmt::format("joint '{}' is a ball or free joint with a spring (stiffness {}): time "
                                   "stepping takes springs on hinge and slide joints only",
                                   raw && *raw ? raw : fmt::format("joint{}", j), mj_->jnt_stiffness[j]));
    }
    if (type == mjJNT_FREE) {
      for (int k = 0; k < 3; ++k) {
        dof_qpos_[static_cast<std::size_t>(d + k)] = q + k;
        translation_[static_cast<std::size_t>(d + k)] = 1;
      }
      rotation_blocks_.push_back(d + 3);
    } else {
      rotation_blocks_.push_back(d);
    }
  }
}

void FileMechanism::integrate(const DynVector& q, const DynVector& v, double s, DynVector& out) const {
  if (rotation_blocks_.empty()) {
    out = q + s * v;
    return;
  }
  if (&out != &q) out = q;
  mj_integratePos(mj_, out.data(), v.data(), s);
}

void FileMechanism::difference(const DynVector& q2, const DynVector& q1, DynVector& v) const {
  if (rotation_blocks_.empty()) {
    v = q2 - q1;
    return;
  }
  v.resize(mj_->nv);
  mj_differentiatePos(mj_, v.data(), 1.0, q1.data(), q2.data());
}

std::string FileMechanism::configuration_name(int i) const {
  return mechanism_->qpos_names().at(static_cast<std::size_t>(i)).substr(5);  // "qpos.<joint>"
}

std::string FileMechanism::configuration_unit(int i) const {
  for (int j = 0; j < mj_->njnt; ++j) {
    const int adr = mj_->jnt_qposadr[j], type = mj_->jnt_type[j];
    const int size = type == mjJNT_FREE ? 7 : type == mjJNT_BALL ? 4 : 1;
    if (i < adr || i >= adr + size) continue;
    if (type == mjJNT_HINGE) return "rad";
    if (type == mjJNT_SLIDE || (type == mjJNT_FREE && i < adr + 3)) return "m";
    return "1";  // a quaternion component
  }
  return "";
}

bool FileMechanism::normalize_configuration(DynVector& q, const std::string& field) const {
  bool normalized = false;
  for (int j = 0; j < mj_->njnt; ++j) {
    const int type = mj_->jnt_type[j];
    if (type != mjJNT_FREE && type != mjJNT_BALL) continue;
    const int adr = mj_->jnt_qposadr[j] + (type == mjJNT_FREE ? 3 : 0);
    if (adr + 4 > q.size()) continue;  // the caller refuses the length
    const double norm = q.segment<4>(adr).norm();
    if (!std::isfinite(norm) || norm < 1e-12) {
      const char* raw = mj_id2name(mj_, mjOBJ_JOINT, j);
      throw InputError(fmt::format("{}[{}:{}]", field, adr, adr + 4),
                       fmt::format("the quaternion of joint '{}' is {} (a rotation needs a nonzero, finite "
                                   "quaternion w x y z)",
                                   raw && *raw ? raw : fmt::format("joint{}", j),
                                   std::isfinite(norm) ? "zero" : "not finite"));
    }
    if (norm != 1.0) {
      q.segment<4>(adr) /= norm;
      normalized = normalized || std::abs(norm - 1.0) > 4.0 * std::numeric_limits<double>::epsilon();
    }
  }
  return normalized;
}

double FileMechanism::perturb(const DynVector& q, int a, DynVector& plus, DynVector& minus) const {
  const int index = dof_qpos_[static_cast<std::size_t>(a)];
  if (index >= 0) {  // a Euclidean coordinate: today's steps, bit for bit
    plus = q;
    minus = q;
    const double h = step_for(q[index]);
    plus[index] += h;
    minus[index] -= h;
    return plus[index] - minus[index];
  }
  constexpr double kRotationStep = 1e-5;  // [rad]
  DynVector e = DynVector::Zero(dof());
  e[a] = 1.0;
  integrate(q, e, kRotationStep, plus);
  integrate(q, e, -kRotationStep, minus);
  return 2.0 * kRotationStep;
}

MujocoMechanism::Workspace& FileMechanism::workspace() const {
  return *workspace_;
}

Eigen::MatrixXd FileMechanism::mass_at(const DynVector& q) const {
  Eigen::MatrixXd m;
  mechanism_->mass_matrix(edits_, q, workspace(), m);
  return m;
}

DynVector FileMechanism::kinetic_gradient(const DynVector& q, const DynVector& v) const {
  const int n = dof();
  DynVector t_q(n);
  DynVector plus, minus;
  for (int a = 0; a < n; ++a) {
    if (translation_[static_cast<std::size_t>(a)]) {  // M does not depend on where the robot is
      t_q[a] = 0.0;
      continue;
    }
    const double span = perturb(q, a, plus, minus);
    const Eigen::MatrixXd dm = (mass_at(plus) - mass_at(minus)) / span;
    t_q[a] = 0.5 * v.dot(dm * v);
  }
  return t_q;
}

void FileMechanism::kinetic(const DynVector& q, const DynVector& v, bool second,
                            KineticDerivatives& out) const {
  const int n = dof();
  const Eigen::MatrixXd m = mass_at(q);
  out.mass = m;
  out.t_v = m * v;
  out.energy = 0.5 * v.dot(out.t_v);
  if (!second && (v.array() == 0.0).all()) {  // ½·0ᵀ∂M·0: exactly what the differences give
    out.t_q.setZero(n);
    return;
  }
  out.t_q = kinetic_gradient(q, v);
  if (!second) return;
  out.t_qq.setZero(n, n);
  out.t_qv.setZero(n, n);
  DynVector plus, minus;
  for (int a = 0; a < n; ++a) {
    const double span = perturb(q, a, plus, minus);
    // (t_qv)_ab = (∂M/∂q_a v)_b; t_qq column a = ∂(∂T/∂q)/∂q_a.
    out.t_qv.row(a) = ((mass_at(plus) - mass_at(minus)) / span * v).transpose();
    out.t_qq.col(a) = (kinetic_gradient(plus, v) - kinetic_gradient(minus, v)) / span;
  }
  out.t_qq = 0.5 * (out.t_qq + out.t_qq.transpose()).eval();
}

double FileMechanism::potential(const DynVector& q, DynVector& gradient, DynMatrix* hessian) const {
  Eigen::VectorXd g;
  const double v = mechanism_->potential(edits_, q, workspace(), &g);
  gradient = g;
  if (hessian) {
    const int n = dof();
    hessian->setZero(n, n);
    DynVector plus, minus, gp, gm;
    for (int a = 0; a < n; ++a) {
      const double span = perturb(q, a, plus, minus);
      mechanism_->potential(edits_, plus, workspace(), &gp);
      mechanism_->potential(edits_, minus, workspace(), &gm);
      hessian->col(a) = (gp - gm) / span;
    }
    *hessian = 0.5 * (*hessian + hessian->transpose()).eval();
  }
  return v;
}

void FileMechanism::force(const DynVector& /*q*/, const DynVector& v, double /*t*/, DynVector& f,
                          DynMatrix* f_q, DynMatrix* f_v) const {
  const int n = dof();
  f = -(damping_.array() * Eigen::ArrayXd(v)).matrix();
  if (f_q) f_q->setZero(n, n);
  if (f_v) {
    f_v->setZero(n, n);
    for (int i = 0; i < n; ++i) (*f_v)(i, i) = -damping_[i];
  }
}

std::string FileMechanism::force_part_name(int /*part*/) const {
  return "joint_damping";
}

void FileMechanism::force_part(int /*part*/, const DynVector& q, const DynVector& v, double t,
                               DynVector& f) const {
  force(q, v, t, f, nullptr, nullptr);
}

std::string FileMechanism::feature_name(int i) const {
  const Feature& f = features_.at(static_cast<std::size_t>(i));
  const auto& names = mechanism_->spec().contacts.at(static_cast<std::size_t>(f.contact));
  if (f.geom < 0) return fmt::format("{}/{}", names.first, names.second);
  return fmt::format("{}/{}#{}", names.first, names.second, f.index);
}

void FileMechanism::feature_gaps(const DynVector& q, DynVector* phi, DynRowMatrix* jacobian) const {
  const int k = contacts(), nv = dof();
  if (phi) phi->resize(k);
  if (jacobian) jacobian->setZero(k, nv);
  if (any_deepest_) {  // the contacts' deepest points, as the impacts have them
    MechanismEvaluation e;
    mechanism_->evaluate(edits_, q, workspace(), e);
    for (int i = 0; i < k; ++i) {
      const Feature& f = features_[static_cast<std::size_t>(i)];
      if (f.geom >= 0) continue;
      if (phi) (*phi)[i] = e.gaps[f.contact];
      if (jacobian) jacobian->row(i) = e.normals.row(f.contact);
    }
    if (static_cast<int>(features_.size()) == mechanism_->contacts()) {
      bool all_deepest = true;
      for (const Feature& f : features_) all_deepest = all_deepest && f.geom < 0;
      if (all_deepest) return;
    }
  }
  const auto [m, d] = mechanism_->mujoco_at(edits_, q, workspace());
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jac_geom(3, nv), jac_plane(3, nv);
  for (int i = 0; i < k; ++i) {
    const Feature& f = features_[static_cast<std::size_t>(i)];
    if (f.geom < 0) continue;
    const Eigen::Map<const Eigen::Vector3d> centre(d->geom_xpos + 3 * f.geom);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> frame(d->geom_xmat + 9 * f.geom);
    const Eigen::Map<const Eigen::Vector3d> origin(d->geom_xpos + 3 * f.plane);
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> plane_frame(d->geom_xmat +
                                                                                     9 * f.plane);
    const Eigen::Vector3d normal = plane_frame.col(2);
    const Eigen::Vector3d x = centre + frame * f.local;
    if (phi) (*phi)[i] = normal.dot(x - origin) - f.radius;
    if (jacobian) {  // dφ/dt = n·(ẋ − the plane body's velocity at x)
      mj_jac(m, d, jac_geom.data(), nullptr, x.data(), m->geom_bodyid[f.geom]);
      mj_jac(m, d, jac_plane.data(), nullptr, x.data(), m->geom_bodyid[f.plane]);
      jacobian->row(i) = normal.transpose() * (jac_geom - jac_plane);
    }
  }
}

void FileMechanism::gaps(const DynVector& q, DynVector& phi) const {
  feature_gaps(q, &phi, nullptr);
}

void FileMechanism::gap_jacobian(const DynVector& q, DynRowMatrix& jacobian) const {
  feature_gaps(q, nullptr, &jacobian);
}

double FileMechanism::gap_length_scale(const DynVector& q) const {
  return mechanism_->gap_length_scale(edits_, q, workspace());
}

}  // namespace simpact
