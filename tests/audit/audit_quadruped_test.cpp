// Issue 35 §1–§2: the end of the impact on the 18-DOF quadruped's trot touchdown (gravity on),
// checked against an independent stepping of the same file: MuJoCo's own mjModel/mjData stepped
// with mj_step under the documented solref mapping, the end rule applied to MuJoCo's own contact
// list (a foot has separated when the floor–foot pair has no contact at dist ≤ 0). run_engine
// must stop at the same step with the same velocities, bit for bit.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "simpact/audit/engine_catalog.hpp"
#include "simpact/audit/engine_run.hpp"

namespace simpact {
namespace {

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

struct Reference {
  int steps = 0;
  bool ended = false;
  Eigen::VectorXd qvel;
};

// The end rule, from MuJoCo's data alone.
Reference step_mujoco(const std::string& file, const Eigen::VectorXd& qpos, const Eigen::VectorXd& qvel,
                      const Eigen::MatrixXd& normals, double rate, const AuditLimits& limits) {
  char error[512] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  EXPECT_NE(m, nullptr) << error;
  mjData* d = mj_makeData(m);
  mjData* probe = mj_makeData(m);
  m->opt.timestep = 1.0 / rate;
  m->opt.iterations = 100;
  const double tau = 0.02;  // R = 0: critical damping, ζ = 1
  for (int g = 0; g < m->ngeom; ++g) {
    m->geom_solref[2 * g] = -1.0 / (tau * tau);
    m->geom_solref[2 * g + 1] = -2.0 / tau;
    m->geom_condim[g] = 1;
  }
  for (int i = 0; i < m->nq; ++i) d->qpos[i] = qpos[i];
  for (int i = 0; i < m->nv; ++i) d->qvel[i] = qvel[i];
  mj_forward(m, d);
  const int floor = mj_name2id(m, mjOBJ_GEOM, "floor");
  const int feet[2] = {mj_name2id(m, mjOBJ_GEOM, "foot_fl"), mj_name2id(m, mjOBJ_GEOM, "foot_rr")};
  const double tol = limits.rest_tolerance * qvel.cwiseAbs().maxCoeff();
  Eigen::VectorXd previous = normals * qvel;
  int unchanged[2] = {0, 0};
  Reference ref;
  const int limit = static_cast<int>(std::ceil(limits.time_limit * rate));
  while (ref.steps < limit) {
    mj_step(m, d);
    ++ref.steps;
    const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(d->qvel, m->nv);
    const Eigen::VectorXd normal_velocity = normals * v;
    bool approaching = false, ended = true;
    mj_copyData(probe, m, d);
    mj_fwdPosition(m, probe);
    for (int i = 0; i < 2; ++i) {
      const double t = tol * normals.row(i).norm();
      approaching = approaching || normal_velocity[i] < -t;
      unchanged[i] = std::abs(normal_velocity[i] - previous[i]) <= t ? unchanged[i] + 1 : 0;
      bool touching = false;
      for (int c = 0; c < probe->ncon; ++c) {
        const mjContact& k = probe->contact[c];
        if (((k.geom1 == floor && k.geom2 == feet[i]) || (k.geom2 == floor && k.geom1 == feet[i])) &&
            k.dist <= 0)
          touching = true;
      }
      ended = ended && (unchanged[i] >= limits.end_steps || !touching);
    }
    previous = normal_velocity;
    if (!approaching && ended) {
      ref.ended = true;
      ref.qvel = v;
      break;
    }
  }
  mj_deleteData(probe);
  mj_deleteData(d);
  mj_deleteModel(m);
  return ref;
}

TEST(AuditQuadruped, EndOfTheTrotImpactMatchesIndependentMujocoStepping) {
  const std::string file = example("quadruped.xml");
  MujocoMechanism mechanism(MechanismSpec{file,
                                          {{"floor", "foot_fl"}, {"floor", "foot_rr"}},
                                          {"qpos.root[2]", "qpos.root[5]"},
                                          kGapTolerance,
                                          "model"});
  ASSERT_TRUE(mechanism.needs_dynamic_sizes());  // nv 18 > 16
  auto workspace = mechanism.make_workspace();
  char error[512] = "";
  mjModel* m = mj_loadXML(file.c_str(), nullptr, error, sizeof error);
  ASSERT_NE(m, nullptr) << error;
  const auto qadr = [&](const char* joint) { return m->jnt_qposadr[mj_name2id(m, mjOBJ_JOINT, joint)]; };
  AuditLimits limits;
  limits.rest_tolerance = 1e-4;  // as configs/audit_quadruped.yaml
  int ended = 0, compared = 0;
  for (double fl : {-0.8, -0.5, -0.2}) {
    for (double rr : {-0.8, -0.4, 0.0}) {
      MechanismState state;
      state.qpos = Eigen::Map<const Eigen::VectorXd>(m->qpos0, m->nq);
      state.qpos[2] = 0.45;
      state.qpos[qadr("fl_knee")] = 1.0;
      state.qpos[qadr("rr_knee")] = 1.0;
      state.qpos[qadr("fr_hip")] = -0.9;
      state.qpos[qadr("fr_knee")] = 1.8;
      state.qpos[qadr("rl_hip")] = -0.9;
      state.qpos[qadr("rl_knee")] = 1.8;
      state.qpos[qadr("fl_hip")] = fl;
      state.qpos[qadr("rr_hip")] = rr;
      state.qvel = Eigen::VectorXd::Zero(m->nv);
      state.qvel[0] = 1.0;
      state.qvel[2] = -0.5;
      state.restitution = 0.0;
      mechanism.place(state, *workspace);
      MechanismEvaluation ev;
      mechanism.evaluate(state, state.qpos, *workspace, ev);
      ASSERT_EQ(ev.normals.rows(), 2);
      EngineSettings settings;
      settings.rate_hz = 600;
      const EngineRun run = run_engine(*make_engine("mujoco", "audit.engines[0]"), mechanism, state,
                                       *workspace, settings, ev.normals, limits);
      const Reference ref = step_mujoco(file, state.qpos, state.qvel, ev.normals, 600, limits);
      ASSERT_EQ(run.status == EngineRunStatus::kSettled, ref.ended) << fl << " " << rr << ": " << run.message;
      if (!ref.ended) continue;
      ++ended;
      EXPECT_EQ(run.steps, ref.steps) << fl << " " << rr;
      for (int i = 0; i < m->nv; ++i)
        EXPECT_EQ(std::memcmp(&run.qvel[i], &ref.qvel[i], sizeof(double)), 0)
            << fl << " " << rr << " qvel[" << i << "] " << run.qvel[i] << " vs " << ref.qvel[i];
      // The smooth impulse: MuJoCo's qfrc_smooth summed over the impact's steps; on the trunk's
      // vertical coordinate gravity (its weight, 9.81 × the total mass, over the duration) dominates.
      EXPECT_TRUE(run.smooth_impulse.allFinite());
      EXPECT_LT(run.smooth_impulse[2], 0.0) << fl << " " << rr;
      EXPECT_NEAR(run.duration, run.steps / 600.0, 1e-15);
      ++compared;
    }
  }
  mj_deleteModel(m);
  EXPECT_GE(ended, 9 * 95 / 100) << "fewer than 95 % of the touchdowns ended within the time limit";
  EXPECT_EQ(compared, ended);
}

}  // namespace
}  // namespace simpact
