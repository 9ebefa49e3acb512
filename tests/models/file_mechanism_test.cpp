// Time stepping a mechanism file (integrate/file_mechanism.hpp): the MJCF chain follows
// the built-in chain's trajectory over 1 000 steps, and the MJCF cradle at 60 Hz, 600 Hz and 6 kHz
// ends at R·[0,0,v] + (1−R)·[v/3,v/3,v/3] with E₁/E₀ = R² + (1−R²)/3 (eq. 16's blend of the
// unique elastic outcome and the plastic one), for R ∈ {1, 0.7, 0}.
#include "simpact/models/file_mechanism.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "../support/mechanism_loading.hpp"
#include "../support/temp_dir.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/integrate/simulation.hpp"
#include "simpact/models/dynamic_models.hpp"

namespace simpact {
namespace {

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

std::shared_ptr<const MujocoMechanism> load(const std::string& file,
                                            std::vector<std::pair<std::string, std::string>> contacts) {
  return testing::load_mechanism(example(file), std::move(contacts));
}

DynVector vec(std::initializer_list<double> x) {
  DynVector v(static_cast<Eigen::Index>(x.size()));
  int i = 0;
  for (double e : x) v[i++] = e;
  return v;
}

TEST(FileMechanism, ChainFollowsTheBuiltinChain) {
  const auto mechanism = load("chain.xml", {});
  const FileMechanism mjcf(mechanism, mechanism->state_from({}));
  const DynamicSystem builtin = make_chain(4);
  const DynVector q0 = vec({0.5, -0.3, 0.2, 0.1});
  const DynVector v0 = vec({0.0, 0.4, 0.0, -0.2});
  // Same M(q) and V(q) to the inertia MuJoCo needs at the point masses (1e-13 kg m²).
  EXPECT_LT((mjcf.mass_matrix(q0) - builtin.model->mass_matrix(q0)).cwiseAbs().maxCoeff(), 1e-11);
  SimulationOptions options;
  options.dt = 1e-3;
  options.steps = 1000;
  for (long s = 100; s <= 1000; s += 100) options.record_steps.push_back(s);
  const SimulationResult a = simulate(*builtin.model, q0, builtin.model->mass_matrix(q0) * v0, options);
  const SimulationResult b = simulate(mjcf, q0, mjcf.mass_matrix(q0) * v0, options);
  ASSERT_EQ(a.records.size(), b.records.size());
  double worst = 0.0;
  for (std::size_t r = 0; r < a.records.size(); ++r) {
    worst = std::max(worst, (a.records[r].q - b.records[r].q).cwiseAbs().maxCoeff());
    worst = std::max(worst, (a.records[r].p - b.records[r].p).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 1e-9) << "largest difference in q or p over 1000 steps";
}

TEST(FileMechanism, CradleEndsAtTheRestitutionBlendAtEveryRate) {
  const auto mechanism = load("cradle3.xml", {{"ball_a", "ball_b"}, {"ball_b", "ball_c"}});
  const FileMechanism cradle(mechanism, mechanism->state_from({}));
  const double v = 1.3;
  for (double rate : {60.0, 600.0, 6000.0})
    for (double r : {1.0, 0.7, 0.0}) {
      SimulationOptions options;
      options.dt = 1.0 / rate;
      options.steps = static_cast<long>(std::ceil(1.0 * rate));  // 1 s: the impact at t = 0.5/v
      options.restitution = r;
      const DynVector q0 = vec({-0.5, 0.0, 0.0});
      const SimulationResult run = simulate(cradle, q0, vec({v, 0.0, 0.0}), options);
      const DynVector expected = r * vec({0.0, 0.0, v}) + (1 - r) * vec({v / 3, v / 3, v / 3});
      SCOPED_TRACE(::testing::Message() << "rate " << rate << " Hz, R = " << r);
      EXPECT_EQ(run.impacts.size(), 1u);
      EXPECT_LT((run.p - expected).cwiseAbs().maxCoeff(), 1e-9);
      EXPECT_NEAR(run.energy.final / run.energy.initial, r * r + (1 - r * r) / 3, 1e-9);
    }
}

TEST(FileMechanism, RefusesJointsItCannotStep) {
  // A spring on a ball joint: V(q) takes springs on hinges and slides only, so it would be lost.
  const testing::TempDir dir("simpact-balljoint");
  const std::string path = dir / "ball_spring.xml";
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(
      "<mujoco><worldbody><body><joint name='root' type='ball' stiffness='2'/><geom size='1'/></body>"
      "</worldbody></mujoco>",
      f);
  std::fclose(f);
  MechanismSpec spec;
  spec.file = path;
  const auto mechanism = std::make_shared<const MujocoMechanism>(spec);
  try {
    FileMechanism model(mechanism, mechanism->state_from({}));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "mechanism.file");
    EXPECT_NE(std::string(e.what()).find("'root'"), std::string::npos);
  }
}

}  // namespace
}  // namespace simpact
