// ODE 0.16 (libode-dev, double precision): spheres and planes in a simple space, contacts from
// dCollide each step with ODE's bounce (restitution) and no friction, slide joints as dJointSlider
// (one axis) or dJointPlane2D (x and y), stepped by dWorldStep (the big-matrix LCP) or
// dWorldQuickStep (PGS).
#ifdef SIMPACT_HAVE_ODE
#include <ode/ode.h>

#include <array>
#include <cstdarg>
#include <mutex>
#include <vector>

#include "engines.hpp"
#include "simpact/audit/primitive_scene.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

using Kind = EngineOption::Kind;
const std::vector<EngineOption> kOdeOptions = {
    {"erp", 0.2, 0, 1, Kind::kReal, "error reduction parameter (dWorldSetERP)"},
    {"cfm", 1e-10, 0, 1, Kind::kReal,
     "constraint force mixing (dWorldSetCFM; ODE's double-precision default)"},
    {"quick_step", 0, 0, 1, Kind::kSwitch, "0: dWorldStep (exact LCP), 1: dWorldQuickStep (iterative)"},
    {"iterations", 20, 1, 10000, Kind::kInteger,
     "dWorldQuickStep iterations (dWorldSetQuickStepNumIterations)"},
};

// ODE reports a failed LCP (d_ERR_LCP) through its message handler and carries on with whatever
// the solver left; the flag turns that into a failed step.
thread_local bool lcp_failed = false;
void on_ode_message(int num, const char*, va_list) {
  if (num == d_ERR_LCP) lcp_failed = true;
}

void init_ode_for_this_thread() {
  static std::once_flag once;
  std::call_once(once, [] {
    dInitODE2(0);
    dSetMessageHandler(&on_ode_message);
  });
  // Each thread that steps a world needs its own ODE data; repeated calls are cheap no-ops.
  dAllocateODEDataForThread(dAllocateMaskAll);
}

class OdeScene final : public EngineScene {
 public:
  OdeScene(PrimitiveScene scene, double restitution, const EngineSettings& settings)
      : scene_(std::move(scene)), dt_(1.0 / settings.rate_hz), restitution_(restitution) {
    init_ode_for_this_thread();
    world_ = dWorldCreate();
    // ODE's default step threading is one process-wide object with fake (no-op) mutexes: two
    // threads stepping their own worlds through it corrupt its job list (an abort in ReleaseAJob,
    // every other fig2b run at 2 threads). Each world gets its own self-threaded implementation.
    threading_ = dThreadingAllocateSelfThreadedImplementation();
    dWorldSetStepThreadingImplementation(world_, dThreadingImplementationGetFunctions(threading_),
                                         threading_);
    space_ = dSimpleSpaceCreate(nullptr);
    contacts_ = dJointGroupCreate(0);
    dWorldSetGravity(world_, scene_.gravity[0], scene_.gravity[1], scene_.gravity[2]);
    dWorldSetERP(world_, settings.option("erp", kOdeOptions));
    dWorldSetCFM(world_, settings.option("cfm", kOdeOptions));
    quick_ = settings.option("quick_step", kOdeOptions) != 0.0;
    dWorldSetQuickStepNumIterations(world_, static_cast<int>(settings.option("iterations", kOdeOptions)));
    dWorldSetAutoDisableFlag(world_, 0);
    for (const PrimitiveBody& body : scene_.bodies) {
      dBodyID id = nullptr;
      if (body.dynamic()) {
        id = dBodyCreate(world_);
        dMass mass;
        dMassSetParameters(&mass, body.mass, 0, 0, 0, body.inertia[0], body.inertia[1], body.inertia[2], 0, 0,
                           0);
        dBodySetMass(id, &mass);
        dBodySetPosition(id, body.position[0], body.position[1], body.position[2]);
        dMatrix3 r = {};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) r[4 * i + j] = body.rotation(i, j);
        dBodySetRotation(id, r);
        dBodySetLinearVel(id, body.velocity[0], body.velocity[1], body.velocity[2]);
        dBodySetAngularVel(id, body.angular_velocity[0], body.angular_velocity[1], body.angular_velocity[2]);
        attach_slides(body, id);
      }
      bodies_.push_back(id);
      for (const PrimitiveGeom& geom : body.geoms) {
        dGeomID g = nullptr;
        switch (geom.type) {
          case PrimitiveGeom::Type::kSphere:
            g = dCreateSphere(space_, geom.radius);
            break;
          case PrimitiveGeom::Type::kBox:
            g = dCreateBox(space_, 2 * geom.half_sizes[0], 2 * geom.half_sizes[1], 2 * geom.half_sizes[2]);
            break;
          case PrimitiveGeom::Type::kCapsule:  // ODE's capsule, like MuJoCo's, lies along its z
            g = dCreateCapsule(space_, geom.radius, 2 * geom.half_length);
            break;
          case PrimitiveGeom::Type::kPlane:
            g = dCreatePlane(space_, geom.normal[0], geom.normal[1], geom.normal[2], geom.offset);
            break;
        }
        if (geom.type == PrimitiveGeom::Type::kPlane) continue;
        if (id) dGeomSetBody(g, id);
        if (geom.type == PrimitiveGeom::Type::kSphere) {
          if (!id) dGeomSetPosition(g, body.position[0], body.position[1], body.position[2]);
          continue;
        }
        // A box or capsule: posed in its own frame (on a free body that is the body frame).
        dMatrix3 gr = {};
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) gr[4 * i + j] = geom.rotation(i, j);
        if (id) {
          dGeomSetOffsetWorldRotation(g, gr);
        } else {
          dGeomSetPosition(g, body.position[0], body.position[1], body.position[2]);
          dGeomSetRotation(g, gr);
        }
      }
    }
  }
  ~OdeScene() override {
    dJointGroupDestroy(contacts_);
    dSpaceDestroy(space_);  // destroys its geoms
    dWorldDestroy(world_);  // and the bodies and joints
    dThreadingFreeImplementation(threading_);
  }

  void step() override {
    // One ODE step at a time in the process: dWorldStep runs its islands through ODE's one default
    // (self-)threading implementation, whose job list two OpenMP threads corrupt ("ODE INTERNAL
    // ERROR 1: assertion current_job->m_prev_job_next_ptr == NULL", abort: seen on the billiards
    // audit at 2 threads). dWorldQuickStep shuffles its constraints with ODE's one global
    // generator: each scene keeps its own seed (from 0), swapped in under the same lock, so a
    // result depends on nothing but its task.
    std::lock_guard<std::mutex> lock(rand_mutex());
    dSpaceCollide(space_, this, &OdeScene::near);
    lcp_failed = false;
    int ok = 0;
    if (quick_) {
      dRandSetSeed(seed_);
      ok = dWorldQuickStep(world_, dt_);
      seed_ = dRandGetSeed();
    } else {
      ok = dWorldStep(world_, dt_);
    }
    dJointGroupEmpty(contacts_);
    if (!ok) throw EngineFailure("ODE's step failed (dWorldStep returned 0)");
    if (lcp_failed) throw EngineFailure("ODE's LCP failed (\"LCP internal error, s <= 0\")");
  }

  void read_qvel(Eigen::VectorXd& qvel) const override {
    const std::size_t n = bodies_.size();
    std::vector<Eigen::Vector3d> v(n, Eigen::Vector3d::Zero()), w(n, Eigen::Vector3d::Zero());
    std::vector<Eigen::Matrix3d> r(n, Eigen::Matrix3d::Identity());
    for (std::size_t b = 0; b < n; ++b) {
      if (!bodies_[b]) continue;
      v[b] = Eigen::Vector3d(dBodyGetLinearVel(bodies_[b]));
      w[b] = Eigen::Vector3d(dBodyGetAngularVel(bodies_[b]));
      const dReal* rot = dBodyGetRotation(bodies_[b]);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r[b](i, j) = rot[4 * i + j];
    }
    scene_qvel(scene_, v, w, r, qvel);
  }

 private:
  void attach_slides(const PrimitiveBody& body, dBodyID id) {
    const auto& axes = body.slide_axes;
    if (axes.size() == 1) {
      dJointID j = dJointCreateSlider(world_, nullptr);
      dJointAttach(j, id, nullptr);
      dJointSetSliderAxis(j, axes[0][0], axes[0][1], axes[0][2]);
    } else if (axes.size() == 2) {
      dJointID j = dJointCreatePlane2D(world_, nullptr);
      dJointAttach(j, id, nullptr);
    }
  }

  static void near(void* self, dGeomID a, dGeomID b) {
    auto* scene = static_cast<OdeScene*>(self);
    dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
    if (!ba && !bb) return;
    std::array<dContact, 4> contact{};
    const int n = dCollide(a, b, static_cast<int>(contact.size()), &contact[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      contact[i].surface.mode = dContactBounce;
      contact[i].surface.mu = 0;  // the propagative model is frictionless
      contact[i].surface.bounce = scene->restitution_;
      contact[i].surface.bounce_vel = 0;
      dJointID j = dJointCreateContact(scene->world_, scene->contacts_, &contact[i]);
      dJointAttach(j, ba, bb);
    }
  }

  static std::mutex& rand_mutex() {
    static std::mutex m;
    return m;
  }

  PrimitiveScene scene_;
  unsigned long seed_ = 0;
  double dt_, restitution_;
  bool quick_ = false;
  dWorldID world_ = nullptr;
  dThreadingImplementationID threading_ = nullptr;
  dSpaceID space_ = nullptr;
  dJointGroupID contacts_ = nullptr;
  std::vector<dBodyID> bodies_;
};

class OdeEngine final : public PhysicsEngine {
 public:
  const char* name() const override { return "ode"; }
  const std::vector<EngineOption>& options() const override { return kOdeOptions; }
  // dWorldStep's LCP is direct: one solve a step.
  double iterations_per_step(const EngineSettings& settings) const override {
    return settings.option("quick_step", kOdeOptions) != 0.0 ? settings.option("iterations", kOdeOptions)
                                                             : 1.0;
  }
  void check_expressible(const MujocoMechanism& mechanism, const MechanismState& state,
                         MujocoMechanism::Workspace& workspace) const override {
    (void)expressible_scene(mechanism, state, workspace);
  }
  RestitutionMapping restitution_mapping(double restitution, const EngineSettings&) const override {
    return {{"bounce"}, {restitution}, {"1"}};
  }
  std::unique_ptr<EngineScene> build(const MujocoMechanism& mechanism, const MechanismState& state,
                                     MujocoMechanism::Workspace& workspace,
                                     const EngineSettings& settings) const override {
    return std::make_unique<OdeScene>(expressible_scene(mechanism, state, workspace), state.restitution,
                                      settings);
  }

 private:
  PrimitiveScene expressible_scene(const MujocoMechanism& mechanism, const MechanismState& state,
                                   MujocoMechanism::Workspace& workspace) const {
    PrimitiveScene scene = primitive_scene(mechanism, state, workspace, name(), mechanism.spec().field);
    for (const PrimitiveBody& body : scene.bodies) {
      const auto& axes = body.slide_axes;
      // dJointPlane2D keeps a body in the plane z = 0: two slide joints must be x and y there.
      if (axes.size() == 2 && (axes[0][2] != 0 || axes[1][2] != 0 || body.position[2] != 0))
        throw InputError(mechanism.spec().field + ".file",
                         "ode: body '" + body.name +
                             "' cannot be expressed: two slide joints only along x and y at z = 0");
    }
    return scene;
  }
};

}  // namespace

std::unique_ptr<PhysicsEngine> make_ode_engine() {
  return std::make_unique<OdeEngine>();
}

}  // namespace simpact
#endif  // SIMPACT_HAVE_ODE
