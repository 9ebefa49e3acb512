// MuJoCo 2.2.2: the mechanism's own mjModel (edits applied), stepped by mj_step with MuJoCo's
// soft-contact solver. Restitution R goes in through the direct form of solref on every geom,
// solref = (−k, −b) with k = 1/τ² and b = 2ζ/τ: MuJoCo's documented mass-spring-damper of the
// contact's reference acceleration, aref = −b·v − k·r, whose free response rebounds with
// R = exp(−ζπ/√(1−ζ²)), i.e. ζ = −ln R / √(π² + ln² R) (ζ = 1, critical, at R = 0). τ is the
// `timeconst` option (MuJoCo's default 0.02 s). solimp stays the file's; friction is switched off
// (condim 1) because the propagative model is frictionless.
#include <mujoco/mujoco.h>

#include <cmath>
#include <stdexcept>

#include "engines.hpp"
#include "scene_readout.hpp"

namespace simpact {
namespace {

using Kind = EngineOption::Kind;
const std::vector<EngineOption> kMujocoOptions = {
    {"timeconst", 0.02, 1e-5, 10, Kind::kReal,
     "contact time constant τ of the solref mapping [s] (MuJoCo's default solref[0])"},
    {"iterations", 100, 1, 10000, Kind::kInteger, "constraint solver iterations at most (opt.iterations)"},
};

struct Stiffness {
  double k, b;
};

Stiffness contact_stiffness(double restitution, double timeconst) {
  const double log_r = std::log(restitution);
  const double zeta = restitution <= 0 ? 1.0 : -log_r / std::sqrt(M_PI * M_PI + log_r * log_r);
  return {1.0 / (timeconst * timeconst), 2.0 * zeta / timeconst};
}

class MujocoScene final : public EngineScene, public SceneReadout {
 public:
  MujocoScene(const mjModel* source, const mjData* at, const MechanismState& state,
              const EngineSettings& settings, const std::vector<EngineOption>& options) {
    m_ = mj_copyModel(nullptr, source);
    if (!m_) throw std::bad_alloc();
    d_ = mj_makeData(m_);
    if (!d_) {
      mj_deleteModel(m_);
      throw std::bad_alloc();
    }
    m_->opt.timestep = 1.0 / settings.rate_hz;
    m_->opt.iterations = static_cast<int>(settings.option("iterations", options));
    const Stiffness s = contact_stiffness(state.restitution, settings.option("timeconst", options));
    for (int g = 0; g < m_->ngeom; ++g) {
      m_->geom_solref[2 * g] = -s.k;
      m_->geom_solref[2 * g + 1] = -s.b;
      m_->geom_condim[g] = 1;
    }
    mju_copy(d_->qpos, at->qpos, m_->nq);
    for (int i = 0; i < m_->nv; ++i) d_->qvel[i] = state.qvel[i];
    mj_forward(m_, d_);
    smooth_impulse_ = Eigen::VectorXd::Zero(m_->nv);
  }
  ~MujocoScene() override {
    mj_deleteData(d_);
    mj_deleteModel(m_);
  }
  void step() override {
    mj_step(m_, d_);
    // mj_step's qfrc_smooth is the one the step integrated (at the step's start).
    for (int i = 0; i < m_->nv; ++i) smooth_impulse_[i] += d_->qfrc_smooth[i] * m_->opt.timestep;
    for (int i = 0; i < m_->nv; ++i)
      if (!std::isfinite(d_->qvel[i])) throw EngineFailure("MuJoCo's step gave a non-finite qvel");
    if (d_->warning[mjWARN_BADQACC].number > 0) throw EngineFailure("MuJoCo reported a bad qacc");
  }
  void read_qvel(Eigen::VectorXd& qvel) const override {
    qvel = Eigen::Map<const Eigen::VectorXd>(d_->qvel, m_->nv);
  }
  void read_qpos(Eigen::VectorXd& qpos) const override {
    qpos = Eigen::Map<const Eigen::VectorXd>(d_->qpos, m_->nq);
  }
  void read_smooth_impulse(Eigen::VectorXd& impulse) const override { impulse = smooth_impulse_; }

 private:
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  Eigen::VectorXd smooth_impulse_;
};

class MujocoEngine final : public PhysicsEngine {
 public:
  const char* name() const override { return "mujoco"; }
  const std::vector<EngineOption>& options() const override { return kMujocoOptions; }
  double iterations_per_step(const EngineSettings& settings) const override {
    return settings.option("iterations", kMujocoOptions);
  }
  // The mechanism's own model: nothing it cannot express.
  void check_expressible(const MujocoMechanism&, const MechanismState&,
                         MujocoMechanism::Workspace&) const override {}
  RestitutionMapping restitution_mapping(double restitution, const EngineSettings& settings) const override {
    const Stiffness s = contact_stiffness(restitution, settings.option("timeconst", kMujocoOptions));
    return {{"solref_stiffness", "solref_damping"}, {s.k, s.b}, {"s-2", "s-1"}};
  }
  std::unique_ptr<EngineScene> build(const MujocoMechanism& mechanism, const MechanismState& state,
                                     MujocoMechanism::Workspace& workspace,
                                     const EngineSettings& settings) const override {
    const auto [m, d] = mechanism.mujoco_at(state, state.qpos, workspace);
    return std::make_unique<MujocoScene>(m, d, state, settings, kMujocoOptions);
  }
};

}  // namespace

std::unique_ptr<PhysicsEngine> make_mujoco_engine() {
  return std::make_unique<MujocoEngine>();
}

}  // namespace simpact
