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
#include "simpact/models/mechanism_family.hpp"
#include "simpact/models/mechanism_files.hpp"
#include "simpact/models/mujoco_names.hpp"

namespace simpact {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// A quaternion whose norm is off 1 by more than this is refused (not silently normalized).
constexpr double kQuaternionNormTolerance = 1e-6;
// Placement: Gauss–Newton iterations (∂φ/∂q exact, from the witnesses: see place()).
constexpr int kPlaceIterations = 60;
// Singular values of ∂φ/∂q below this fraction of the largest count as zero (a non-unique
// placement).
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
// The largest |coordinate| + bounding radius of the bounded geoms (not planes or heightfields)
// at qpos0: the length the gaps' rounding scales with and tolerances are relative to. 1 without
// a bounded geom.
double mechanism_length_scale(const mjModel* m) {
  mjData* d = mj_makeData(m);
  if (!d) throw std::bad_alloc();
  std::copy_n(m->qpos0, m->nq, d->qpos);
  mj_kinematics(m, d);
  double scale = 0.0;
  for (int g = 0; g < m->ngeom; ++g) {
    if (m->geom_type[g] == mjGEOM_PLANE || m->geom_type[g] == mjGEOM_HFIELD) continue;
    double largest = 0.0;
    for (int i = 0; i < 3; ++i) largest = std::max(largest, std::abs(d->geom_xpos[3 * g + i]));
    scale = std::max(scale, largest + m->geom_rbound[g]);
  }
  mj_deleteData(d);
  return scale > 0.0 && std::isfinite(scale) ? scale : 1.0;
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

  // Contacts: pairs of geoms or bodies (a body stands for all of its geoms).
  std::vector<std::string> geom_names, body_names;
  for (int g = 0; g < m->ngeom; ++g)
    if (const char* name = mj_id2name(m, mjOBJ_GEOM, g); name && *name) geom_names.emplace_back(name);
  for (int b = 0; b < m->nbody; ++b)
    if (const char* name = mj_id2name(m, mjOBJ_BODY, b); name && *name) body_names.emplace_back(name);
  const auto listed = [](const std::vector<std::string>& names) {
    return names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "));
  };
  for (std::size_t c = 0; c < spec_.contacts.size(); ++c) {
    const auto& [a, b] = spec_.contacts[c];
    std::vector<int> side_geoms[2];
    int side_body[2] = {-1, -1};  // the body a side names (-1: a geom)
    const std::string* names[2] = {&a, &b};
    for (int s = 0; s < 2; ++s) {
      const std::string field = fmt::format("{}.contacts[{}][{}]", f, c, s);
      const std::string& name = *names[s];
      const bool force_body = name.rfind("body:", 0) == 0, force_geom = name.rfind("geom:", 0) == 0;
      const std::string bare = force_body || force_geom ? name.substr(5) : name;
      const int geom = force_body ? -1 : mj_name2id(m, mjOBJ_GEOM, bare.c_str());
      const int body = force_geom || geom >= 0 ? -1 : mj_name2id(m, mjOBJ_BODY, bare.c_str());
      if (geom >= 0) {
        side_geoms[s].push_back(geom);
      } else if (body >= 0) {
        side_body[s] = body;
        for (int g = 0; g < m->ngeom; ++g)
          if (m->geom_bodyid[g] == body) side_geoms[s].push_back(g);
        if (side_geoms[s].empty())
          throw InputError(field, fmt::format("body '{}' has no geoms to touch with", bare));
      } else if (force_geom) {
        throw InputError(field, fmt::format("unknown geom '{}' (geoms: {})", bare, listed(geom_names)));
      } else if (force_body) {
        throw InputError(field, fmt::format("unknown body '{}' (bodies: {})", bare, listed(body_names)));
      } else {
        throw InputError(field, fmt::format("unknown geom or body '{}' (geoms: {}; bodies: {})", bare,
                                            listed(geom_names), listed(body_names)));
      }
    }
    const std::string pair_field = fmt::format("{}.contacts[{}]", f, c);
    if (side_body[0] >= 0 && side_body[0] == side_body[1])
      throw InputError(pair_field, fmt::format("a body cannot touch itself ('{}' and '{}')", a, b));
    const bool two_geoms = side_body[0] < 0 && side_body[1] < 0;
    if (two_geoms) {
      const int g0 = side_geoms[0][0], g1 = side_geoms[1][0];
      if (g0 == g1) throw InputError(pair_field, "a geom cannot touch itself");
      if (m->geom_bodyid[g0] == m->geom_bodyid[g1])
        throw InputError(pair_field, fmt::format("geoms '{}' and '{}' are on the same body", a, b));
    }
    std::vector<std::pair<int, int>> pairs;
    for (int g0 : side_geoms[0])
      for (int g1 : side_geoms[1]) {
        if (m->geom_bodyid[g0] == m->geom_bodyid[g1]) continue;  // a body's own geoms never touch
        const int t0 = std::min(m->geom_type[g0], m->geom_type[g1]);
        const int t1 = std::max(m->geom_type[g0], m->geom_type[g1]);
        if (!mjCOLLISIONFUNC[t0][t1]) {
          if (two_geoms)
            throw InputError(pair_field, fmt::format("MuJoCo has no distance function for a {}–{} pair",
                                                     mujoco_geom_type_name(m->geom_type[g0]),
                                                     mujoco_geom_type_name(m->geom_type[g1])));
          continue;  // a body's plane against a plane: nothing to measure
        }
        pairs.emplace_back(g0, g1);
      }
    if (pairs.empty())
      throw InputError(pair_field,
                       fmt::format("'{}' and '{}' have no pair of geoms on different bodies that MuJoCo "
                                   "can measure",
                                   a, b));
    for (const auto& [g0, g1] : pairs)
      for (int g : {g0, g1})
        if (std::find(contact_geoms_.begin(), contact_geoms_.end(), g) == contact_geoms_.end())
          contact_geoms_.push_back(g);
    contact_pairs_.push_back(std::move(pairs));
  }
  if (spec_.witnesses != "all" && spec_.witnesses != "deepest")
    throw InputError(f + ".witnesses", fmt::format("must be 'all' or 'deepest' (got '{}')", spec_.witnesses));
  if (!(spec_.gap_tolerance >= 0.0) || !std::isfinite(spec_.gap_tolerance))
    throw InputError(f == "model" ? "model.gap_tolerance" : "gap_tolerance", "must be a finite number >= 0");
  length_scale_ = mechanism_length_scale(m);

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
    out.push_back(
        {"geom", name_of(mjOBJ_GEOM, g), mujoco_geom_type_name(m->geom_type[g]), g, m->geom_bodyid[g]});
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
// One witness point of a geom pair: its signed distance, the point midway between the surfaces
// and the normal from the contact's first side to its second, and the bodies of the two geoms.
struct WitnessPoint {
  double dist = kInf;
  Eigen::Vector3d pos = Eigen::Vector3d::Zero();
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  int body_a = 0, body_b = 0;
};

// Two boxes whose closest features include a face (the normal is a face normal of one of them,
// the reference): the contact manifold, as a box–box contact generator clips it — the incident
// face of the other box (the one most opposed to the reference face) clipped to the reference
// face's sides, each clipped point with its separation from the reference face's plane along
// the normal. A box flat on a box: its 4 corners (an overlap rotated 45°: the octagon's 8
// vertices); a box on its edge: 2. False where the closest features are two edges (one point).
bool box_face_witnesses(const mjModel* m, const mjData* d, int g1, int g2, const ConvexDistance& exact,
                        std::vector<std::pair<Eigen::Vector3d, double>>& out) {
  using Axes = Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>;
  const Eigen::Vector3d& n = exact.normal;  // from g1 to g2
  for (int ref : {g2, g1}) {
    const int inc = ref == g2 ? g1 : g2;
    const Eigen::Vector3d f = ref == g2 ? Eigen::Vector3d(-n) : n;  // the reference face's outward normal
    const Eigen::Map<const Axes> r(d->geom_xmat + 9 * ref), q(d->geom_xmat + 9 * inc);
    const Eigen::Map<const Eigen::Vector3d> rc(d->geom_xpos + 3 * ref), qc(d->geom_xpos + 3 * inc);
    const mjtNum* rh = m->geom_size + 3 * ref;
    const mjtNum* qh = m->geom_size + 3 * inc;
    int k = -1;
    for (int i = 0; i < 3; ++i)
      if (r.col(i).dot(f) >= 1 - 1e-12) k = i;
    if (k < 0) continue;
    const Eigen::Vector3d face_point = rc + f * rh[k];
    // The incident face: the one whose outward normal is most opposed to f.
    int j = 0;
    for (int i = 1; i < 3; ++i)
      if (std::abs(q.col(i).dot(f)) > std::abs(q.col(j).dot(f))) j = i;
    const double s = q.col(j).dot(f) > 0 ? -1.0 : 1.0;
    const int u = (j + 1) % 3, v = (j + 2) % 3;
    const Eigen::Vector3d centre = qc + s * qh[j] * q.col(j);
    std::vector<Eigen::Vector3d> polygon = {
        centre + qh[u] * q.col(u) + qh[v] * q.col(v), centre - qh[u] * q.col(u) + qh[v] * q.col(v),
        centre - qh[u] * q.col(u) - qh[v] * q.col(v), centre + qh[u] * q.col(u) - qh[v] * q.col(v)};
    // Sutherland–Hodgman against the reference face's four sides: e·(p − rc) ≤ h.
    for (int i = 0; i < 3; ++i) {
      if (i == k) continue;
      for (double sign : {1.0, -1.0}) {
        const Eigen::Vector3d e = sign * r.col(i);
        const auto inside = [&](const Eigen::Vector3d& p) { return e.dot(p - rc) - rh[i]; };
        std::vector<Eigen::Vector3d> clipped;
        for (std::size_t a = 0; a < polygon.size(); ++a) {
          const Eigen::Vector3d& p = polygon[a];
          const Eigen::Vector3d& next = polygon[(a + 1) % polygon.size()];
          const double dp = inside(p), dn = inside(next);
          if (dp <= 0) clipped.push_back(p);
          if ((dp < 0 && dn > 0) || (dp > 0 && dn < 0)) clipped.push_back(p + (next - p) * (dp / (dp - dn)));
        }
        polygon = std::move(clipped);
      }
    }
    if (polygon.empty()) return false;
    double deepest = kInf;
    out.clear();
    for (const Eigen::Vector3d& p : polygon) {
      const double gap = (p - face_point).dot(f);
      out.emplace_back(p - 0.5 * gap * f, gap);
      deepest = std::min(deepest, gap);
    }
    // The clipped face holds the closest point: else the features are not face-based after all.
    const double size = std::max(m->geom_rbound[g1], m->geom_rbound[g2]);
    if (!(std::abs(deepest - exact.dist) <= 1e-11 * size)) {
      out.clear();
      return false;
    }
    return true;
  }
  return false;
}

// Every witness point of geoms ga (first side) and gb (second side): MuJoCo's primitive
// functions where they are exact (box–plane: the corners below the box's centre, capsule–plane:
// both end caps, ...), else the one point of models/convex_distance. None: beyond every reach.
// False: the distance could not be had to round-off (refuse_pair says so).
bool pair_witnesses(const mjModel* m, mjData* d, int ga, int gb, std::vector<WitnessPoint>& out) {
  int g1 = ga, g2 = gb;
  if (m->geom_type[g1] > m->geom_type[g2]) std::swap(g1, g2);
  // mjCOLLISIONFUNC wants type1 ≤ type2; its normal points from its first geom to its second.
  const double sign = g1 == ga ? 1.0 : -1.0;
  WitnessPoint w;
  w.body_a = m->geom_bodyid[ga];
  w.body_b = m->geom_bodyid[gb];
  if (m->geom_type[g1] == mjGEOM_HFIELD || m->geom_type[g2] == mjGEOM_HFIELD)
    return false;                                 // MuJoCo's heightfield distances are MPR's, per prism
  if (!mujoco_distance_is_exact(m, d, g1, g2)) {  // MPR's pairs, box–box, cores in a box
    const ConvexDistance exact = geom_distance(m, d, g1, g2);
    if (!exact.resolved) return false;
    w.normal = sign * exact.normal;
    if (m->geom_type[g1] == mjGEOM_BOX && m->geom_type[g2] == mjGEOM_BOX) {
      std::vector<std::pair<Eigen::Vector3d, double>> face;
      if (box_face_witnesses(m, d, g1, g2, exact, face)) {
        for (const auto& [pos, dist] : face) {
          w.pos = pos;
          w.dist = dist;
          out.push_back(w);
        }
        return true;
      }
    }
    w.dist = exact.dist;
    w.pos = exact.pos;
    out.push_back(w);
    return true;
  }
  // A margin that reaches any separation of the two shapes: MuJoCo reports every pair closer
  // than it, and primitive distances do not depend on it.
  double centre = 0.0;
  for (int i = 0; i < 3; ++i) centre += std::pow(d->geom_xpos[3 * g1 + i] - d->geom_xpos[3 * g2 + i], 2);
  const double margin = std::sqrt(centre) + m->geom_rbound[g1] + m->geom_rbound[g2] + 1.0;
  mjContact contacts[mjMAXCONPAIR];
  const int n = mjCOLLISIONFUNC[m->geom_type[g1]][m->geom_type[g2]](m, d, contacts, g1, g2, margin);
  for (int c = 0; c < n; ++c) {
    w.dist = contacts[c].dist;
    w.pos = Eigen::Map<const Eigen::Vector3d>(contacts[c].pos);
    w.normal = sign * Eigen::Map<const Eigen::Vector3d>(contacts[c].frame);
    out.push_back(w);
  }
  return true;
}

// One line naming contact c whose distance could not be had: never a wrong gap.
[[noreturn]] void refuse_pair(const mjModel* m, const MechanismSpec& spec, int c, int ga, int gb) {
  const auto& [a, b] = spec.contacts[static_cast<std::size_t>(c)];
  const char* first = mujoco_geom_type_name(m->geom_type[ga]);
  const char* second = mujoco_geom_type_name(m->geom_type[gb]);
  const bool hfield = m->geom_type[ga] == mjGEOM_HFIELD || m->geom_type[gb] == mjGEOM_HFIELD;
  throw InputError(fmt::format("{}.contacts[{}]", spec.field, c),
                   hfield ? fmt::format("contact '{}'–'{}' is a {}–{} pair: MuJoCo only approximates a "
                                        "heightfield's distances, and simpact resolves exact gaps only",
                                        a, b, first, second)
                          : fmt::format("the gap of contact '{}'–'{}' (a {}–{} pair) could not be resolved "
                                        "to round-off at this configuration",
                                        a, b, first, second));
}

// Every witness point of contact c (all of its geom pairs) into `out`; returns the index of the
// deepest one (the first of equals), -1 when none reaches.
int contact_witnesses(const mjModel* m, mjData* d, const MechanismSpec& spec, int c,
                      const std::vector<std::pair<int, int>>& pairs, std::vector<WitnessPoint>& out) {
  out.clear();
  for (const auto& [ga, gb] : pairs)
    if (!pair_witnesses(m, d, ga, gb, out)) refuse_pair(m, spec, c, ga, gb);
  int deepest = -1;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (deepest < 0 || out[i].dist < out[static_cast<std::size_t>(deepest)].dist)
      deepest = static_cast<int>(i);
  return deepest;
}

// Each contact's gap (its deepest witness's distance; +inf when none reaches) and that witness.
void gaps_at(const mjModel* m, mjData* d, const MechanismSpec& spec,
             const std::vector<std::vector<std::pair<int, int>>>& pairs, Eigen::VectorXd& gaps,
             std::vector<WitnessPoint>& deepest_points, std::vector<WitnessPoint>& scratch) {
  const int k = static_cast<int>(pairs.size());
  gaps.resize(k);
  deepest_points.resize(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c) {
    const int deepest = contact_witnesses(m, d, spec, c, pairs[static_cast<std::size_t>(c)], scratch);
    gaps[c] = deepest < 0 ? kInf : scratch[static_cast<std::size_t>(deepest)].dist;
    deepest_points[static_cast<std::size_t>(c)] =
        deepest < 0 ? WitnessPoint{} : scratch[static_cast<std::size_t>(deepest)];
  }
}

// u = nᵀ(J_b − J_a) at the witness point: dφ/dt = <u, q̇> (the angular terms vanish along n, so
// one point serves both bodies).
template <typename Jacobian>
Eigen::RowVectorXd normal_row(const mjModel* m, mjData* d, const WitnessPoint& w, Jacobian& jac_a,
                              Jacobian& jac_b) {
  mj_jac(m, d, jac_a.data(), nullptr, w.pos.data(), w.body_a);
  mj_jac(m, d, jac_b.data(), nullptr, w.pos.data(), w.body_b);
  return w.normal.transpose() * (jac_b - jac_a);
}
}  // namespace

namespace {
// The most witness points pair_witnesses gives geoms of these types: MuJoCo's box–plane keeps at
// most 4 corners (those below the box's centre), its capsule–plane and capsule–box 2; a pair
// through models/convex_distance (box–box, ellipsoids, cylinders but against a plane, meshes
// but against a plane) has one. Others: the cap.
int witness_bound(const mjModel* m, int ga, int gb) {
  const int t1 = std::min(m->geom_type[ga], m->geom_type[gb]);
  const int t2 = std::max(m->geom_type[ga], m->geom_type[gb]);
  if (t1 == mjGEOM_SPHERE || t2 == mjGEOM_SPHERE) return 1;
  if (t1 == mjGEOM_PLANE) {
    if (t2 == mjGEOM_CAPSULE) return 2;
    if (t2 == mjGEOM_BOX || t2 == mjGEOM_CYLINDER) return 4;
    if (t2 == mjGEOM_ELLIPSOID) return 1;
    return kMaxWitnessesPerContact;
  }
  if (t1 == mjGEOM_CAPSULE && t2 == mjGEOM_BOX) return 2;
  if (t1 == mjGEOM_BOX && t2 == mjGEOM_BOX) return kMaxWitnessesPerContact;  // a clipped face: ≤ 8
  return 1;
}
}  // namespace

int MujocoMechanism::max_problem_rows() const {
  if (spec_.witnesses == "deepest") return contacts();
  int rows = 0;
  for (const auto& pairs : contact_pairs_) {
    int bound = 0;
    for (const auto& [ga, gb] : pairs) bound += witness_bound(model_->m, ga, gb);
    rows += std::min(bound, kMaxWitnessesPerContact);
  }
  return rows;
}

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
  std::vector<WitnessPoint> points;
  for (int c = 0; c < k; ++c) {
    const int deepest =
        contact_witnesses(m, d, spec_, c, contact_pairs_[static_cast<std::size_t>(c)], points);
    out.gaps[c] = deepest < 0 ? kInf : points[static_cast<std::size_t>(deepest)].dist;
    if (deepest < 0 || !std::isfinite(out.gaps[c])) continue;
    out.normals.row(c) = normal_row(m, d, points[static_cast<std::size_t>(deepest)], jac_a, jac_b);
  }
}

void MujocoMechanism::place(MechanismState& state, Workspace& workspace) const {
  if (place_qpos_.empty()) return;
  workspace.apply(model_->edits, state.edits);
  const mjModel* m = workspace.m;
  mjData* d = workspace.d;
  const int k = contacts(), n = static_cast<int>(place_qpos_.size());
  Eigen::VectorXd q = state.qpos, phi, trial_phi;
  std::vector<WitnessPoint> witnesses, trial_witnesses, scratch;
  auto gaps = [&](const Eigen::VectorXd& at, Eigen::VectorXd& out, std::vector<WitnessPoint>& deepest) {
    Eigen::VectorXd normalized = at;
    mj_normalizeQuat(m, normalized.data());
    std::copy_n(normalized.data(), m->nq, d->qpos);
    mj_kinematics(m, d);
    gaps_at(m, d, spec_, contact_pairs_, out, deepest, scratch);
  };
  gaps(q, phi, witnesses);
  bool at_q = true;  // d holds the kinematics of q (the last gaps() call was at q)
  Eigen::MatrixXd jacobian(k, n);
  // ∂φ_c/∂q_j, exact: n_c · (v_b − v_a) at contact c's deepest witness x, v the velocity of x
  // carried by each side's body when coordinate j moves at unit rate (the impact's normal row
  // nᵀ(J_b − J_a) applied to that motion, from mj_kinematics' joint anchors and axes alone). A
  // hinge turns x about its anchor and axis; a slide, or a free joint's position entry, moves it
  // along its axis; a quaternion entry of a free or ball joint turns it about the joint with
  // ω = R · 2 Im(q̂* ⊗ ∂q̂/∂q_j), q̂ = q/|q| (the gaps see the normalized quaternion) and R the
  // joint's body orientation. Bodies not below the joint's body do not move.
  struct PlacedJoint {
    int joint, body, type, offset;  // offset: the coordinate's place in the joint's qpos
  };
  std::vector<PlacedJoint> placed_joints;
  for (int i : place_qpos_) {
    int j = 0;
    while (j + 1 < m->njnt && m->jnt_qposadr[j + 1] <= i) ++j;
    placed_joints.push_back({j, m->jnt_bodyid[j], m->jnt_type[j], i - m->jnt_qposadr[j]});
  }
  const auto cross = [](const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
    return Eigen::Vector3d(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
  };
  const auto point_velocity = [&](const PlacedJoint& p, int body, const Eigen::Vector3d& x) {
    while (body > p.body) body = m->body_parentid[body];  // MuJoCo numbers parents first
    if (body != p.body) return Eigen::Vector3d::Zero().eval();
    const Eigen::Map<const Eigen::Vector3d> axis(d->xaxis + 3 * p.joint), anchor(d->xanchor + 3 * p.joint);
    if (p.type == mjJNT_SLIDE) return Eigen::Vector3d(axis);
    if (p.type == mjJNT_HINGE) return cross(axis, x - anchor);
    if (p.type == mjJNT_FREE && p.offset < 3) return Eigen::Vector3d::Unit(p.offset).eval();
    const int entry = p.type == mjJNT_FREE ? p.offset - 3 : p.offset;
    const Eigen::Vector4d raw = q.segment<4>(m->jnt_qposadr[p.joint] + (p.type == mjJNT_FREE ? 3 : 0));
    const double norm = raw.norm();
    const Eigen::Vector4d unit = raw / norm;
    Eigen::Vector4d dq = -unit * unit[entry] / norm;  // ∂q̂/∂q_entry
    dq[entry] += 1.0 / norm;
    const Eigen::Vector3d v = unit.tail<3>(), dv = dq.tail<3>();
    const Eigen::Vector3d local = 2.0 * (unit[0] * dv - dq[0] * v - cross(v, dv));
    const Eigen::Vector3d omega =
        Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d->xmat + 9 * p.body) * local;
    const Eigen::Map<const Eigen::Vector3d> centre(p.type == mjJNT_FREE ? d->xpos + 3 * p.body
                                                                        : d->xanchor + 3 * p.joint);
    return cross(omega, x - centre);
  };
  auto differentiate = [&] {
    if (!at_q) gaps(q, phi, witnesses);  // the same q: the same gaps, bit for bit
    at_q = true;
    for (int c = 0; c < k; ++c) {
      const WitnessPoint& w = witnesses[static_cast<std::size_t>(c)];
      for (int j = 0; j < n; ++j) {
        const PlacedJoint& p = placed_joints[static_cast<std::size_t>(j)];
        jacobian(c, j) =
            std::isfinite(w.dist)
                ? w.normal.dot(point_velocity(p, w.body_b, w.pos) - point_velocity(p, w.body_a, w.pos))
                : 0.0;
      }
    }
  };
  // Within the tolerance, up to two more steps toward the root while they shrink the gaps: the
  // placement is then the root to round-off, whatever the tolerance (a file in mm places where
  // the metre file does, ×1000).
  const double round_off = 4 * std::numeric_limits<double>::epsilon() * length_scale_;
  int polishing = 0;
  for (int it = 0; it < kPlaceIterations && phi.allFinite(); ++it) {
    const double worst = phi.cwiseAbs().maxCoeff();
    if (worst <= round_off || (worst <= 0.5 * gap_tolerance() && ++polishing > 2)) break;
    differentiate();
    // The least-norm Gauss–Newton step, halved until the gaps shrink.
    const Eigen::VectorXd step = jacobian.completeOrthogonalDecomposition().solve(-phi);
    double scale = 1.0;
    bool improved = false;
    for (int halving = 0; halving < 30 && !improved; ++halving, scale *= 0.5) {
      Eigen::VectorXd trial = q;
      for (int j = 0; j < n; ++j) trial[place_qpos_[j]] += scale * step[j];
      gaps(trial, trial_phi, trial_witnesses);
      at_q = false;
      if (trial_phi.allFinite() && trial_phi.norm() < phi.norm()) {
        q = trial;
        phi = trial_phi;
        witnesses.swap(trial_witnesses);
        at_q = improved = true;
      }
    }
    if (!improved) break;
  }
  mj_normalizeQuat(m, q.data());
  for (int c = 0; c < k; ++c)
    if (!(std::abs(phi[c]) <= gap_tolerance()))
      throw InputError(fmt::format("{}.contacts[{}]", spec_.field, c),
                       fmt::format("contact '{}'–'{}' is not closed after placing {} (gap {:.6g} m, "
                                   "tolerance {:g})",
                                   spec_.contacts[c].first, spec_.contacts[c].second,
                                   fmt::join(spec_.place, ", "), phi[c], gap_tolerance()));
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
  return !fits_fixed_sizes(nv(), max_problem_rows());
}

std::pair<const mjModel_*, mjData_*> MujocoMechanism::mujoco_at(const MechanismState& state,
                                                                const Eigen::VectorXd& qpos,
                                                                Workspace& workspace) const {
  workspace.apply(model_->edits, state.edits);
  workspace.derive_constants();
  forward_position(workspace.m, workspace.d, qpos);
  return {workspace.m, workspace.d};
}

void MujocoMechanism::evaluate_witnesses(const MechanismState& state, const Eigen::VectorXd& qpos,
                                         Workspace& workspace, MechanismEvaluation& out,
                                         std::vector<MechanismWitness>& witnesses) const {
  workspace.apply(model_->edits, state.edits);
  const mjModel* m = workspace.m;
  mjData* d = workspace.d;
  forward_position(m, d, qpos);
  const int nv = m->nv, k = contacts();
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense(nv, nv);
  mj_fullM(m, dense.data(), d->qM);
  out.mass = dense;
  const double tolerance = gap_tolerance();
  const bool all = spec_.witnesses == "all";
  // Rows: each contact's deepest point (row c), then the other closed witnesses of each contact.
  std::vector<WitnessPoint> rows, extra, points;
  std::vector<int> row_contact, extra_contact;
  for (int c = 0; c < k; ++c) {
    const int deepest =
        contact_witnesses(m, d, spec_, c, contact_pairs_[static_cast<std::size_t>(c)], points);
    rows.push_back(deepest < 0 ? WitnessPoint{} : points[static_cast<std::size_t>(deepest)]);
    row_contact.push_back(c);
    if (!all || !(rows.back().dist <= tolerance)) continue;
    int closed = 1;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (static_cast<int>(i) != deepest && points[i].dist <= tolerance) {
        extra.push_back(points[i]);
        extra_contact.push_back(c);
        ++closed;
      }
    if (closed > kMaxWitnessesPerContact) {
      const auto& [a, b] = spec_.contacts[static_cast<std::size_t>(c)];
      throw InputError(fmt::format("{}.contacts[{}]", spec_.field, c),
                       fmt::format("contact '{}'–'{}' has {} witness points within the gap tolerance (at "
                                   "most {}): name fewer geoms or bodies, or set witnesses: deepest",
                                   a, b, closed, kMaxWitnessesPerContact));
    }
  }
  rows.insert(rows.end(), extra.begin(), extra.end());
  row_contact.insert(row_contact.end(), extra_contact.begin(), extra_contact.end());
  const int r = static_cast<int>(rows.size());
  out.gaps.resize(r);
  out.normals.setZero(r, nv);
  witnesses.clear();
  Eigen::Matrix<double, 3, Eigen::Dynamic, Eigen::RowMajor> jac_a(3, nv), jac_b(3, nv);
  for (int i = 0; i < r; ++i) {
    const WitnessPoint& w = rows[static_cast<std::size_t>(i)];
    out.gaps[i] = w.dist;
    if (std::isfinite(w.dist)) out.normals.row(i) = normal_row(m, d, w, jac_a, jac_b);
    witnesses.push_back({row_contact[static_cast<std::size_t>(i)], w.pos, w.normal, w.dist});
  }
}

void MujocoMechanism::impact_at(MechanismState state, Workspace& workspace, ImpactTerms& terms,
                                PreImpact& pre, MechanismSolvedState* solved) const {
  place(state, workspace);
  MechanismEvaluation e;
  std::vector<MechanismWitness> witnesses;
  evaluate_witnesses(state, state.qpos, workspace, e, witnesses);
  const int k = contacts();
  for (std::size_t i = 0; i < witnesses.size(); ++i) {
    const int c = witnesses[i].contact;
    const auto& [a, b] = spec_.contacts[static_cast<std::size_t>(c)];
    const std::string field = fmt::format("{}.contacts[{}]", spec_.field, c);
    if (!std::isfinite(e.gaps[static_cast<Eigen::Index>(i)]))
      throw InputError(field, fmt::format("MuJoCo gave no distance between '{}' and '{}'", a, b));
    if (e.normals.row(static_cast<Eigen::Index>(i)).isZero(0.0))
      throw InputError(
          field,
          fmt::format("contact '{}'–'{}' has a zero normal: no joint moves either geom along it", a, b));
  }
  if (solved) {
    solved->qpos = state.qpos;
    solved->gaps = e.gaps.head(k);
    solved->gap_tolerance = gap_tolerance();
    solved->witnesses = witnesses;
  }
  terms.mass = std::move(e.mass);
  terms.mass_diagonal.resize(0);
  terms.normals = e.normals;
  terms.gaps = std::move(e.gaps);
  terms.every_contact_closed = false;
  pre.velocity = std::move(state.qvel);
  pre.momentum = std::move(state.momentum);
  pre.restitution = state.restitution;
  pre.gap_tolerance = gap_tolerance();
}

ImpactProblem MujocoMechanism::make_problem(MechanismState state, Workspace& workspace,
                                            MechanismSolvedState* solved) const {
  ImpactTerms terms;
  PreImpact pre;
  impact_at(std::move(state), workspace, terms, pre, solved);
  return impact_problem_at<FixedSizes>(terms, pre);
}
DynamicImpactProblem MujocoMechanism::make_dynamic_problem(MechanismState state, Workspace& workspace,
                                                           MechanismSolvedState* solved) const {
  ImpactTerms terms;
  PreImpact pre;
  impact_at(std::move(state), workspace, terms, pre, solved);
  return impact_problem_at<DynamicSizes>(terms, pre);
}

}  // namespace simpact
