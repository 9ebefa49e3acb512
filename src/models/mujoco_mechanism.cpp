#include "simpact/models/mujoco_mechanism.hpp"

#include <fmt/format.h>
#include <mujoco/mujoco.h>

#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>

#include "convex_distance.hpp"
#include "mujoco_mechanism_internals.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/core/magnitude_range.hpp"
#include "simpact/models/impact_model.hpp"
#include "simpact/models/mechanism_files.hpp"
#include "simpact/models/mujoco_names.hpp"

namespace simpact {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// A quaternion whose norm is off 1 by more than this is refused (not silently normalized).
constexpr double kQuaternionNormTolerance = 1e-6;
// Placement: Gauss–Newton iterations and the finite-difference step of ∂φ/∂q [m or rad].
constexpr int kPlaceIterations = 60;
constexpr double kPlaceStep = 1e-7;
// Singular values of ∂φ/∂q below this fraction of the largest count as zero (a non-unique
// placement); finite differences are accurate to ~1e-8 here.
constexpr double kPlaceRankTolerance = 1e-6;

// The sizes that mean something per geom type (MuJoCo's geom_size).
int meaningful_sizes(int type) {
  switch (type) {
    case mjGEOM_SPHERE:
      return 1;
    case mjGEOM_CAPSULE:
    case mjGEOM_CYLINDER:
      return 2;
    case mjGEOM_ELLIPSOID:
    case mjGEOM_BOX:
      return 3;
    default:
      return 0;
  }
}
int joint_qpos_count(int type) {
  return type == mjJNT_FREE ? 7 : type == mjJNT_BALL ? 4 : 1;
}
int joint_dof_count(int type) {
  return type == mjJNT_FREE ? 6 : type == mjJNT_BALL ? 3 : 1;
}

std::string indexed(const std::string& base, int count, int i) {
  return count == 1 ? base : fmt::format("{}[{}]", base, i);
}

// MuJoCo's messages to stderr, one line each. Its defaults print to stdout (a `resolve` document
// on stdout was no longer JSON), append to MUJOCO_LOG.TXT in the working directory, and, for an
// error, wait for Enter before exiting.
extern "C" void mujoco_warning_to_stderr(const char* message) {
  std::fprintf(stderr, "simpact: warning: MuJoCo: %s\n", message);
}
extern "C" void mujoco_error_to_stderr(const char* message) {
  std::fprintf(stderr, "simpact: error: MuJoCo: %s\n", message);
  std::fflush(stderr);
  std::_Exit(1);  // MuJoCo's error handler must not return; its state is not safe to unwind
}
void route_mujoco_messages() {
  static std::once_flag once;
  std::call_once(once, [] {
    mju_user_warning = mujoco_warning_to_stderr;
    mju_user_error = mujoco_error_to_stderr;
  });
}

// The compiled model's masses, body positions and geom sizes must be finite (a value MuJoCo
// computed from another non-finite number).
void check_compiled_numbers(const mjModel* m, const std::string& field) {
  const auto finite = [](const mjtNum* v, int n) {
    return std::all_of(v, v + n, [](mjtNum x) { return std::isfinite(x); });
  };
  const auto name = [m](int type, int id) {
    const char* raw = mj_id2name(m, type, id);
    return raw && *raw ? fmt::format("'{}'", raw) : fmt::format("#{}", id);
  };
  for (int b = 0; b < m->nbody; ++b)
    if (!finite(m->body_mass + b, 1) || !finite(m->body_pos + 3 * b, 3) ||
        !finite(m->body_inertia + 3 * b, 3))
      throw InputError(field,
                       fmt::format("body {} has a mass, inertia or position that is not finite: masses, "
                                   "sizes and positions must be finite",
                                   name(mjOBJ_BODY, b)));
  for (int g = 0; g < m->ngeom; ++g)
    if (!finite(m->geom_size + 3 * g, 3) || !finite(m->geom_pos + 3 * g, 3))
      throw InputError(field,
                       fmt::format("geom {} has a size or position that is not finite: masses, sizes and "
                                   "positions must be finite",
                                   name(mjOBJ_GEOM, g)));
}
}  // namespace

std::string resolve_relative_path(const std::string& path, const std::string& base_dir) {
  namespace fs = std::filesystem;
  if (path.empty() || base_dir.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

// ---- the loaded model --------------------------------------------------------------------------

MujocoMechanism::MujocoMechanism(MechanismSpec spec)
    : model_(std::make_unique<Model>()), spec_(std::move(spec)) {
  const std::string& f = spec_.field;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (spec_.file.empty()) throw InputError(f + ".file", "must name an MJCF or URDF file");
  if (!fs::is_regular_file(spec_.file, ec))
    throw InputError(f + ".file",
                     fmt::format("cannot read '{}': {}", spec_.file,
                                 fs::exists(spec_.file, ec) ? "not a regular file" : "no such file"));
  route_mujoco_messages();
  const auto references = mechanism_file_references(
      spec_.file, f + ".file");  // refuses a FIFO or device before MuJoCo blocks on it
  for (const MechanismFileReference& r : references)
    if (r.role == "mechanism_file" || r.role == "include") check_finite_numbers(r.path, f + ".file");
  char error[1000] = "";
  model_->m = mj_loadXML(spec_.file.c_str(), nullptr, error, sizeof error);
  if (!model_->m) {
    std::string message = error;
    std::replace(message.begin(), message.end(), '\n', ' ');
    while (!message.empty() && message.back() == ' ') message.pop_back();
    throw InputError(f + ".file",
                     fmt::format("'{}' is not a valid MJCF/URDF model: {}", spec_.file, message));
  }
  const mjModel* m = model_->m;
  check_compiled_numbers(m, f + ".file");

  // Contacts: pairs of named geoms.
  std::vector<std::string> geom_names;
  for (int g = 0; g < m->ngeom; ++g)
    if (const char* name = mj_id2name(m, mjOBJ_GEOM, g); name && *name) geom_names.emplace_back(name);
  for (std::size_t c = 0; c < spec_.contacts.size(); ++c) {
    const auto& [a, b] = spec_.contacts[c];
    int ids[2];
    const std::string* names[2] = {&a, &b};
    for (int s = 0; s < 2; ++s) {
      ids[s] = mj_name2id(m, mjOBJ_GEOM, names[s]->c_str());
      if (ids[s] < 0)
        throw InputError(
            fmt::format("{}.contacts[{}][{}]", f, c, s),
            fmt::format("unknown geom '{}' (geoms: {})", *names[s], fmt::join(geom_names, ", ")));
    }
    if (ids[0] == ids[1])
      throw InputError(fmt::format("{}.contacts[{}]", f, c), "a geom cannot touch itself");
    if (m->geom_bodyid[ids[0]] == m->geom_bodyid[ids[1]])
      throw InputError(fmt::format("{}.contacts[{}]", f, c),
                       fmt::format("geoms '{}' and '{}' are on the same body", a, b));
    const int t0 = std::min(m->geom_type[ids[0]], m->geom_type[ids[1]]);
    const int t1 = std::max(m->geom_type[ids[0]], m->geom_type[ids[1]]);
    if (!mjCOLLISIONFUNC[t0][t1])
      throw InputError(fmt::format("{}.contacts[{}]", f, c),
                       fmt::format("MuJoCo has no distance function for a {}–{} pair",
                                   mujoco_geom_type_name(m->geom_type[ids[0]]),
                                   mujoco_geom_type_name(m->geom_type[ids[1]])));
    contact_geoms_.push_back(ids[0]);
    contact_geoms_.push_back(ids[1]);
  }

  // Coordinates and their parameters.
  qpos_names_.assign(m->nq, "");
  qvel_names_.assign(m->nv, "");
  qvel_units_.assign(m->nv, "");
  for (int j = 0; j < m->njnt; ++j) {
    const char* raw = mj_id2name(m, mjOBJ_JOINT, j);
    const std::string name = raw && *raw ? raw : fmt::format("joint{}", j);
    const int type = m->jnt_type[j], nqj = joint_qpos_count(type), nvj = joint_dof_count(type);
    const bool linear = type == mjJNT_SLIDE;
    for (int i = 0; i < nqj; ++i) {
      const int adr = m->jnt_qposadr[j] + i;
      qpos_names_[adr] = indexed("qpos." + name, nqj, i);
      double lo = -kMaxMagnitude, hi = kMaxMagnitude;  // every range finite
      if (nqj == 1 && m->jnt_limited[j]) lo = m->jnt_range[2 * j], hi = m->jnt_range[2 * j + 1];
      const char* units = type == mjJNT_HINGE             ? "rad"
                          : linear                        ? "m"
                          : (type == mjJNT_FREE && i < 3) ? "m"
                                                          : "1";
      const std::string meaning =
          nqj == 1 ? fmt::format("{} of joint '{}'", linear ? "position" : "angle", name)
                   : fmt::format("qpos {} of {} joint '{}'", i, mujoco_joint_type_name(type), name);
      parameters_.push_back({qpos_names_[adr], units, meaning, m->qpos0[adr], lo, hi, false});
      targets_.push_back({Target::kQpos, adr});
    }
    for (int i = 0; i < nvj; ++i) {
      const int adr = m->jnt_dofadr[j] + i;
      qvel_names_[adr] = indexed("qvel." + name, nvj, i);
      const bool angular = type == mjJNT_HINGE || type == mjJNT_BALL || (type == mjJNT_FREE && i >= 3);
      qvel_units_[adr] = angular ? "rad" : "m";
      parameters_.push_back(
          {qvel_names_[adr], angular ? "rad s-1" : "m s-1",
           nvj == 1 ? fmt::format("velocity of joint '{}'", name)
                    : fmt::format("qvel {} of {} joint '{}'", i, mujoco_joint_type_name(type), name),
           0.0, -kMaxMagnitude, kMaxMagnitude, false});
      targets_.push_back({Target::kQvel, adr});
    }
  }
  for (int b = 1; b < m->nbody; ++b) {
    const char* raw = mj_id2name(m, mjOBJ_BODY, b);
    if (!raw || !*raw) continue;
    const std::string name = raw;
    if (m->body_mass[b] > 0) {
      parameters_.push_back({"mass." + name, "kg", fmt::format("mass of body '{}'", name), m->body_mass[b],
                             kMinMagnitude, kMaxMagnitude, false});
      targets_.push_back({Target::kEdit, static_cast<int>(model_->edits.size())});
      model_->edits.push_back({EditTarget::kMass, b, 0});
    }
    for (int i = 0; i < 3; ++i) {
      parameters_.push_back({fmt::format("pos.{}[{}]", name, i), "m",
                             fmt::format("position {} of body '{}' in its parent's frame", i, name),
                             m->body_pos[3 * b + i], -kMaxMagnitude, kMaxMagnitude, false});
      targets_.push_back({Target::kEdit, static_cast<int>(model_->edits.size())});
      model_->edits.push_back({EditTarget::kPos, b, i});
    }
  }
  for (int g = 0; g < m->ngeom; ++g) {
    const char* raw = mj_id2name(m, mjOBJ_GEOM, g);
    if (!raw || !*raw) continue;
    for (int i = 0; i < meaningful_sizes(m->geom_type[g]); ++i) {
      parameters_.push_back(
          {fmt::format("size.{}[{}]", raw, i), "m",
           fmt::format("size {} of geom '{}' ({})", i, raw, mujoco_geom_type_name(m->geom_type[g])),
           m->geom_size[3 * g + i], kMinMagnitude, kMaxMagnitude, false});
      targets_.push_back({Target::kEdit, static_cast<int>(model_->edits.size())});
      model_->edits.push_back({EditTarget::kSize, g, i});
    }
  }
  parameters_.push_back(restitution_parameter());
  targets_.push_back({Target::kRestitution, 0});

  for (std::size_t i = 0; i < spec_.place.size(); ++i) {
    const auto it = std::find(qpos_names_.begin(), qpos_names_.end(), spec_.place[i]);
    if (it == qpos_names_.end())
      throw InputError(fmt::format("{}.place[{}]", f, i),
                       fmt::format("unknown coordinate '{}' (coordinates: {})", spec_.place[i],
                                   fmt::join(qpos_names_, ", ")));
    place_qpos_.push_back(static_cast<int>(it - qpos_names_.begin()));
  }
}

MujocoMechanism::~MujocoMechanism() = default;

int MujocoMechanism::nq() const {
  return model_->m->nq;
}
int MujocoMechanism::nv() const {
  return model_->m->nv;
}

std::vector<MechanismElement> MujocoMechanism::elements() const {
  const mjModel* m = model_->m;
  std::vector<MechanismElement> out;
  auto name_of = [&](int type, int id) {
    const char* raw = mj_id2name(m, type, id);
    return std::string(raw ? raw : "");
  };
  for (int j = 0; j < m->njnt; ++j)
    out.push_back({"joint", name_of(mjOBJ_JOINT, j), mujoco_joint_type_name(m->jnt_type[j]), j});
  for (int b = 0; b < m->nbody; ++b) out.push_back({"body", name_of(mjOBJ_BODY, b), "", b});
  for (int g = 0; g < m->ngeom; ++g)
    out.push_back({"geom", name_of(mjOBJ_GEOM, g), mujoco_geom_type_name(m->geom_type[g]), g});
  return out;
}

Eigen::VectorXd MujocoMechanism::default_qpos() const {
  return Eigen::Map<const Eigen::VectorXd>(model_->m->qpos0, model_->m->nq);
}

MujocoMechanism::WorkspacePtr MujocoMechanism::make_workspace() const {
  return WorkspacePtr(new Workspace(model_->m));
}

void MujocoMechanism::WorkspaceDeleter::operator()(Workspace* workspace) const {
  delete workspace;
}

MechanismState MujocoMechanism::state_from(const ParameterSet& params) const {
  MechanismState state;
  state.qpos = default_qpos();
  state.qvel = Eigen::VectorXd::Zero(nv());
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const ParameterInfo& info = parameters_[i];
    const bool given = params.has(info.name);
    const double v = check_parameter(info, given, given ? params.get(info.name, 0.0) : 0.0);
    switch (targets_[i].kind) {
      case Target::kQpos:
        state.qpos[targets_[i].index] = v;
        break;
      case Target::kQvel:
        state.qvel[targets_[i].index] = v;
        break;
      case Target::kRestitution:
        state.restitution = v;
        break;
      case Target::kEdit:
        if (given) state.edits.emplace_back(targets_[i].index, v);
        break;
    }
  }
  return state;
}

void MujocoMechanism::check_state(const MechanismState& state, const std::string& qpos_field,
                                  const std::string& qvel_field) const {
  const mjModel* m = model_->m;
  if (state.qpos.size() != m->nq)
    throw InputError(qpos_field, fmt::format("must have length nq = {} (got {})", m->nq, state.qpos.size()));
  const bool p = state.momentum.size() > 0;
  const Eigen::VectorXd& v = p ? state.momentum : state.qvel;
  if (v.size() != m->nv)
    throw InputError(qvel_field, fmt::format("must have length nv = {} (got {})", m->nv, v.size()));
  for (int i = 0; i < m->nq; ++i)
    if (!std::isfinite(state.qpos[i]) || std::abs(state.qpos[i]) > kMaxMagnitude)
      throw InputError(
          fmt::format("{}[{}]", qpos_field, i),
          fmt::format("must be finite with magnitude ≤ {:g} (got {})", kMaxMagnitude, state.qpos[i]));
  for (int i = 0; i < m->nv; ++i)
    if (!std::isfinite(v[i]) || std::abs(v[i]) > kMaxMagnitude)
      throw InputError(fmt::format("{}[{}]", qvel_field, i),
                       fmt::format("must be finite with magnitude ≤ {:g} (got {})", kMaxMagnitude, v[i]));
  for (int j = 0; j < m->njnt; ++j) {
    const int type = m->jnt_type[j];
    if (type != mjJNT_FREE && type != mjJNT_BALL) continue;
    const int adr = m->jnt_qposadr[j] + (type == mjJNT_FREE ? 3 : 0);
    const double norm = state.qpos.segment<4>(adr).norm();
    const char* raw = mj_id2name(m, mjOBJ_JOINT, j);
    const std::string field = fmt::format("{}[{}:{}]", qpos_field, adr, adr + 4);
    if (norm < 1e-12)
      throw InputError(field, fmt::format("the quaternion of joint '{}' has zero norm", raw ? raw : ""));
    if (std::abs(norm - 1.0) > kQuaternionNormTolerance)
      throw InputError(
          field, fmt::format("the quaternion of joint '{}' must have norm 1 (got {})", raw ? raw : "", norm));
  }
  if (!(state.restitution >= 0.0 && state.restitution <= 1.0))
    throw InputError("restitution", fmt::format("must be in [0, 1] (got {})", state.restitution));
}

namespace {
// The signed distance of geoms (g1, g2) and its witness (mjCOLLISIONFUNC wants type1 ≤ type2;
// its normal points from its first geom to its second). Beyond reach: dist = +inf. resolved =
// false: the distance could not be had to round-off (refuse_pair says so).
struct PairDistance {
  double dist = kInf;
  double pos[3] = {0, 0, 0};
  double normal[3] = {0, 0, 0};
  int first = -1, second = -1;
  bool resolved = true;
};

PairDistance pair_distance(const mjModel* m, mjData* d, int ga, int gb) {
  PairDistance out;
  int g1 = ga, g2 = gb;
  if (m->geom_type[g1] > m->geom_type[g2]) std::swap(g1, g2);
  out.first = g1;
  out.second = g2;
  if (m->geom_type[g1] == mjGEOM_HFIELD || m->geom_type[g2] == mjGEOM_HFIELD) {
    out.resolved = false;  // MuJoCo's heightfield distances are MPR's, per prism
    return out;
  }
  if (!mujoco_distance_is_exact(m, d, g1, g2)) {  // MPR's pairs, box–box, cores in a box
    const ConvexDistance exact = geom_distance(m, d, g1, g2);
    out.resolved = exact.resolved;
    out.dist = exact.dist;
    std::copy_n(exact.pos.data(), 3, out.pos);
    std::copy_n(exact.normal.data(), 3, out.normal);
    return out;
  }
  // A margin that reaches any separation of the two shapes: MuJoCo reports every pair closer
  // than it, and primitive distances do not depend on it.
  double centre = 0.0;
  for (int i = 0; i < 3; ++i) centre += std::pow(d->geom_xpos[3 * g1 + i] - d->geom_xpos[3 * g2 + i], 2);
  const double margin = std::sqrt(centre) + m->geom_rbound[g1] + m->geom_rbound[g2] + 1.0;
  mjContact contacts[mjMAXCONPAIR];
  const int n = mjCOLLISIONFUNC[m->geom_type[g1]][m->geom_type[g2]](m, d, contacts, g1, g2, margin);
  for (int c = 0; c < n; ++c)
    if (contacts[c].dist < out.dist) {  // several witnesses (box on a plane): the closest one
      out.dist = contacts[c].dist;
      std::copy_n(contacts[c].pos, 3, out.pos);
      std::copy_n(contacts[c].frame, 3, out.normal);
    }
  return out;
}

// One line naming contact c whose distance could not be had: never a wrong gap.
[[noreturn]] void refuse_pair(const mjModel* m, const MechanismSpec& spec, int c, const PairDistance& pair) {
  const auto& [a, b] = spec.contacts[static_cast<std::size_t>(c)];
  const char* first = mujoco_geom_type_name(m->geom_type[pair.first]);
  const char* second = mujoco_geom_type_name(m->geom_type[pair.second]);
  const bool hfield = m->geom_type[pair.first] == mjGEOM_HFIELD || m->geom_type[pair.second] == mjGEOM_HFIELD;
  throw InputError(fmt::format("{}.contacts[{}]", spec.field, c),
                   hfield ? fmt::format("contact '{}'–'{}' is a {}–{} pair: MuJoCo only approximates a "
                                        "heightfield's distances, and simpact resolves exact gaps only",
                                        a, b, first, second)
                          : fmt::format("the gap of contact '{}'–'{}' (a {}–{} pair) could not be resolved "
                                        "to round-off at this configuration",
                                        a, b, first, second));
}

void gaps_at(const mjModel* m, mjData* d, const MechanismSpec& spec, const std::vector<int>& geoms,
             Eigen::VectorXd& gaps) {
  const int k = static_cast<int>(geoms.size() / 2);
  gaps.resize(k);
  for (int c = 0; c < k; ++c) {
    const PairDistance pair = pair_distance(m, d, geoms[2 * c], geoms[2 * c + 1]);
    if (!pair.resolved) refuse_pair(m, spec, c, pair);
    gaps[c] = pair.dist;
  }
}
}  // namespace

void MujocoMechanism::evaluate(const MechanismState& state, const Eigen::VectorXd& qpos, Workspace& workspace,
                               MechanismEvaluation& out) const {
  workspace.apply(model_->edits, state.edits);
  const mjModel* m = workspace.m;
  mjData* d = workspace.d;
  forward_position(m, d, qpos);
  const int nv = m->nv, k = contacts();
  out.mass.resize(nv, nv);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense(nv, nv);
  mj_fullM(m, dense.data(), d->qM);
  out.mass = dense;
  out.gaps.resize(k);
  out.normals.setZero(k, nv);
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jac_a(3, nv), jac_b(3, nv);
  for (int c = 0; c < k; ++c) {
    const PairDistance pair = pair_distance(m, d, contact_geoms_[2 * c], contact_geoms_[2 * c + 1]);
    if (!pair.resolved) refuse_pair(m, spec_, c, pair);
    out.gaps[c] = pair.dist;
    if (!std::isfinite(pair.dist)) continue;
    // u = nᵀ(J_second − J_first) at the witness point: dφ/dt = <u, q̇> (the angular terms vanish
    // along n, so one point serves both bodies).
    mj_jac(m, d, jac_a.data(), nullptr, pair.pos, m->geom_bodyid[pair.first]);
    mj_jac(m, d, jac_b.data(), nullptr, pair.pos, m->geom_bodyid[pair.second]);
    const Eigen::Map<const Eigen::Vector3d> n(pair.normal);
    out.normals.row(c) = n.transpose() * (jac_b - jac_a);
  }
}

void MujocoMechanism::place(MechanismState& state, Workspace& workspace) const {
  if (place_qpos_.empty()) return;
  workspace.apply(model_->edits, state.edits);
  const mjModel* m = workspace.m;
  mjData* d = workspace.d;
  const int k = contacts(), n = static_cast<int>(place_qpos_.size());
  Eigen::VectorXd q = state.qpos, phi, trial_phi;
  auto gaps = [&](const Eigen::VectorXd& at, Eigen::VectorXd& out) {
    Eigen::VectorXd normalized = at;
    mj_normalizeQuat(m, normalized.data());
    std::copy_n(normalized.data(), m->nq, d->qpos);
    mj_kinematics(m, d);
    gaps_at(m, d, spec_, contact_geoms_, out);
  };
  gaps(q, phi);
  Eigen::MatrixXd jacobian(k, n);
  auto differentiate = [&] {  // central differences: φ is smooth away from shape edges
    for (int j = 0; j < n; ++j) {
      Eigen::VectorXd plus = q, minus = q, phi_plus, phi_minus;
      plus[place_qpos_[j]] += kPlaceStep;
      minus[place_qpos_[j]] -= kPlaceStep;
      gaps(plus, phi_plus);
      gaps(minus, phi_minus);
      jacobian.col(j) = (phi_plus - phi_minus) / (2 * kPlaceStep);
    }
  };
  for (int it = 0;
       it < kPlaceIterations && phi.allFinite() && phi.cwiseAbs().maxCoeff() > 0.5 * spec_.gap_tolerance;
       ++it) {
    differentiate();
    // The least-norm Gauss–Newton step, halved until the gaps shrink.
    const Eigen::VectorXd step = jacobian.completeOrthogonalDecomposition().solve(-phi);
    double scale = 1.0;
    bool improved = false;
    for (int halving = 0; halving < 30 && !improved; ++halving, scale *= 0.5) {
      Eigen::VectorXd trial = q;
      for (int j = 0; j < n; ++j) trial[place_qpos_[j]] += scale * step[j];
      gaps(trial, trial_phi);
      if (trial_phi.allFinite() && trial_phi.norm() < phi.norm()) {
        q = trial;
        phi = trial_phi;
        improved = true;
      }
    }
    if (!improved) break;
  }
  mj_normalizeQuat(m, q.data());
  for (int c = 0; c < k; ++c)
    if (!(std::abs(phi[c]) <= spec_.gap_tolerance))
      throw InputError(fmt::format("{}.contacts[{}]", spec_.field, c),
                       fmt::format("contact '{}'–'{}' is not closed after placing {} (gap {:.6g} m, "
                                   "tolerance {:g})",
                                   spec_.contacts[c].first, spec_.contacts[c].second,
                                   fmt::join(spec_.place, ", "), phi[c], spec_.gap_tolerance));
  // A placement is a function of the other coordinates only where the placed coordinates move
  // the gaps independently (rank min(n, k)): elsewhere (two feet at one point) a whole family of
  // placements closes the contacts, and the one found would depend on the solver's path.
  differentiate();
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(jacobian);
  const auto& sigma = svd.singularValues();
  const int rank_needed = std::min(n, k);
  if (sigma.size() < rank_needed || !(sigma[rank_needed - 1] > kPlaceRankTolerance * sigma[0]))
    throw InputError(spec_.field + ".place",
                     fmt::format("the placement of {} is not unique here: the contacts' gaps move with "
                                 "fewer than {} independent combinations of them",
                                 fmt::join(spec_.place, ", "), rank_needed));
  state.qpos = q;
}

bool MujocoMechanism::needs_dynamic_sizes() const {
  return !fits_fixed_sizes(nv(), contacts());
}

std::pair<const mjModel_*, mjData_*> MujocoMechanism::mujoco_at(const MechanismState& state,
                                                                const Eigen::VectorXd& qpos,
                                                                Workspace& workspace) const {
  workspace.apply(model_->edits, state.edits);
  forward_position(workspace.m, workspace.d, qpos);
  return {workspace.m, workspace.d};
}

template <typename Problem>
Problem MujocoMechanism::problem_at(MechanismState state, Workspace& workspace,
                                    MechanismSolvedState* solved) const {
  place(state, workspace);
  MechanismEvaluation e;
  evaluate(state, state.qpos, workspace, e);
  if (solved) {
    solved->qpos = state.qpos;
    solved->gaps = e.gaps;
  }
  using Metric = typename Problem::KineticMetric;
  const Eigen::VectorXd momentum =
      state.momentum.size() > 0 ? state.momentum : Eigen::VectorXd(e.mass * state.qvel);
  for (int c = 0; c < contacts(); ++c) {
    const auto& [a, b] = spec_.contacts[c];
    if (!std::isfinite(e.gaps[c]))
      throw InputError(fmt::format("{}.contacts[{}]", spec_.field, c),
                       fmt::format("MuJoCo gave no distance between geoms '{}' and '{}'", a, b));
    if (e.normals.row(c).isZero(0.0))
      throw InputError(
          fmt::format("{}.contacts[{}]", spec_.field, c),
          fmt::format("contact '{}'–'{}' has a zero normal: no joint moves either geom along it", a, b));
  }
  return Problem(Metric(e.mass), e.normals, momentum, state.restitution, e.gaps, spec_.gap_tolerance);
}

ImpactProblem MujocoMechanism::make_problem(MechanismState state, Workspace& workspace,
                                            MechanismSolvedState* solved) const {
  return problem_at<ImpactProblem>(std::move(state), workspace, solved);
}
DynamicImpactProblem MujocoMechanism::make_dynamic_problem(MechanismState state, Workspace& workspace,
                                                           MechanismSolvedState* solved) const {
  return problem_at<DynamicImpactProblem>(std::move(state), workspace, solved);
}

}  // namespace simpact
