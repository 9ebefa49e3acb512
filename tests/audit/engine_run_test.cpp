// The engines on the three-ball line (examples/mechanisms/cradle3.xml: equal masses, touching):
// known answers per engine, momentum conservation, determinism, and the refusals.
#include "simpact/audit/engine_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "simpact/audit/engine_catalog.hpp"
#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

struct Line {
  MujocoMechanism mechanism;
  MujocoMechanism::WorkspacePtr workspace;
  MechanismState state;
  MechanismEvaluation evaluation;
  explicit Line(double v, double restitution, const std::string& file = "cradle3.xml")
      : mechanism(MechanismSpec{
            example(file), {{"ball_a", "ball_b"}, {"ball_b", "ball_c"}}, {}, kGapTolerance, "model"}),
        workspace(mechanism.make_workspace()) {
    state.qpos = Eigen::VectorXd::Zero(3);
    state.qvel = Eigen::Vector3d(v, 0, 0);
    state.restitution = restitution;
    mechanism.evaluate(state, state.qpos, *workspace, evaluation);
  }
  EngineRun run(const std::string& engine, double rate, std::map<std::string, double> options = {},
                const RunInterruption& interruption = {}) {
    EngineSettings settings;
    settings.rate_hz = rate;
    settings.options = std::move(options);
    return run_engine(*make_engine(engine, "audit.engines[0]"), mechanism, state, *workspace, settings,
                      evaluation.normals, AuditLimits{}, interruption);
  }
};

bool available(const std::string& engine) {
  const auto names = available_engine_names();
  return std::find(names.begin(), names.end(), engine) != names.end();
}

std::string describe(const EngineRun& run) {
  return "status " + std::to_string(static_cast<int>(run.status)) + " after " + std::to_string(run.steps) +
         " steps (" + run.message + ")";
}

// COR 0 on the equal-mass line: the plastic outcome, all three at v/3. Bullet's sequential
// impulses converge to it within its default 10 iterations (to ~1e-7 v); ODE's iterative
// dWorldQuickStep too. The step rate does not matter: one step resolves the impact.
TEST(EngineRun, OdeAndBulletLineAtRestitutionZeroReachVOverThree) {
  const double v = 3.0;
  const std::vector<std::pair<std::string, std::map<std::string, double>>> cases = {
      {"bullet", {}}, {"ode", {{"quick_step", 1}}}};
  for (const auto& [engine, options] : cases) {
    if (!available(engine)) continue;
    for (double rate : {60.0, 600.0, 6000.0}) {
      Line line(v, 0.0);
      const EngineRun run = line.run(engine, rate, options);
      ASSERT_EQ(run.status, EngineRunStatus::kSettled) << engine << " " << describe(run);
      for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(run.qvel[i], v / 3, 1e-6 * v) << engine << " at " << rate << " Hz";
      // One or two steps resolve the impact, then each contact's normal velocity must stay
      // unchanged for end_steps (3) steps: 5 at most (4 under the former two-step rest rule).
      EXPECT_LE(run.steps, 2 + AuditLimits{}.end_steps) << engine;
    }
  }
}

// ODE's exact LCP (dWorldStep) on spheres that touch exactly (depth 0) reports "LCP internal
// error" and goes on: the run is a failure with NaN velocities, never the numbers it left.
TEST(EngineRun, OdeWorldStepOnTouchingSpheresIsAFailedRun) {
  // scripts/install-deps.sh installs every engine: one left out of the build is a failed set-up.
  ASSERT_TRUE(available("ode")) << "ODE left out of this build (libode-dev missing)";
  Line line(3.0, 0.0);
  const EngineRun run = line.run("ode", 600.0);
  EXPECT_EQ(run.status, EngineRunStatus::kFailed);
  EXPECT_NE(run.message.find("LCP"), std::string::npos) << run.message;
  EXPECT_TRUE(run.qvel.array().isNaN().all());
}

// Bullet at COR 1 (√R per body, multiplied back to R) gives the simultaneous answer of the
// line, [−v/3, 2v/3, 2v/3], not the propagative [0, 0, v]; energy is kept to Bullet's iteration
// tolerance.
TEST(EngineRun, BulletElasticLineIsTheSimultaneousAnswer) {
  ASSERT_TRUE(available("bullet")) << "Bullet left out of this build (libbullet-dev missing)";
  const double v = 3.0;
  Line line(v, 1.0);
  const EngineRun run = line.run("bullet", 600.0);
  ASSERT_EQ(run.status, EngineRunStatus::kSettled) << describe(run);
  EXPECT_NEAR(run.qvel[0], -v / 3, 1e-5 * v);
  EXPECT_NEAR(run.qvel[1], 2 * v / 3, 1e-5 * v);
  EXPECT_NEAR(run.qvel[2], 2 * v / 3, 1e-5 * v);
}

// MuJoCo's soft contact at R = 1 is an undamped spring (solref damping 0): two equal balls
// exchange their velocities as the step shrinks. Ball c is placed far away.
TEST(EngineRun, MujocoElasticPairExchangesVelocities) {
  const double v = 2.0;
  Line line(v, 1.0);
  line.state.qpos = Eigen::Vector3d(0, 0, 10);
  line.mechanism.evaluate(line.state, line.state.qpos, *line.workspace, line.evaluation);
  line.evaluation.normals.row(1).setZero();  // b–c is open and far
  const EngineRun fine = line.run("mujoco", 6000.0);
  ASSERT_EQ(fine.status, EngineRunStatus::kSettled) << describe(fine);
  EXPECT_NEAR(fine.qvel[0], 0.0, 1e-2 * v);
  EXPECT_NEAR(fine.qvel[1], v, 1e-2 * v);
  EXPECT_EQ(fine.qvel[2], 0.0);
  EXPECT_NEAR(fine.qvel.sum(), v, 1e-12 * v);  // momentum
}

// Every engine keeps the line's momentum, at every rate and restitution it settles at.
TEST(EngineRun, EveryEngineConservesMomentumOnTheLine) {
  const double v = 3.0;
  for (const std::string& engine : available_engine_names())
    for (double r : {0.0, 0.7, 1.0})
      for (double rate : {60.0, 600.0, 6000.0}) {
        Line line(v, r);
        const EngineRun run = line.run(engine, rate,
                                       engine == "ode" ? std::map<std::string, double>{{"quick_step", 1}}
                                                       : std::map<std::string, double>{});
        if (run.status != EngineRunStatus::kSettled) continue;
        EXPECT_NEAR(run.qvel.sum(), v, 1e-6 * v) << engine << " R " << r << " " << rate << " Hz";
      }
}

// Engines are deterministic run to run: the same inputs give the same bits.
TEST(EngineRun, RunsRepeatBitForBit) {
  for (const std::string& engine : available_engine_names()) {
    Line first(2.5, 0.7), second(2.5, 0.7);
    const EngineRun a = first.run(
        engine, 600.0,
        engine == "ode" ? std::map<std::string, double>{{"quick_step", 1}} : std::map<std::string, double>{});
    const EngineRun b = second.run(
        engine, 600.0,
        engine == "ode" ? std::map<std::string, double>{{"quick_step", 1}} : std::map<std::string, double>{});
    EXPECT_EQ(a.steps, b.steps) << engine;
    for (int i = 0; i < 3; ++i) EXPECT_EQ(std::memcmp(&a.qvel[i], &b.qvel[i], sizeof(double)), 0) << engine;
  }
}

TEST(EngineCatalog, UnknownEngineAndSettingNameTheField) {
  try {
    make_engine("physx", "audit.engines[2].engine");
    FAIL() << "an unknown engine was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "audit.engines[2].engine");
    EXPECT_NE(std::string(e.what()).find("physx"), std::string::npos);
  }
  EngineSettings settings;
  settings.options["erpp"] = 0.1;
  try {
    check_engine_settings(*make_engine("mujoco", "e"), settings, "audit.engines[0]");
    FAIL() << "an unknown setting was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "audit.engines[0].options.erpp");
  }
}

// Every engine option has a range (issue 39: `iterations: 1e12` was cast to an int unchecked and
// MuJoCo and Bullet then ran with no solver iterations): a value outside it, or a fraction where
// an integer counts, is refused naming the field and the allowed values, and never reaches an
// engine even when the check is skipped.
TEST(EngineCatalog, OptionsOutsideTheirRangesAreRefused) {
  for (const std::string& name : available_engine_names()) {
    const auto engine = make_engine(name, "e");
    for (const EngineOption& option : engine->options()) {
      std::vector<double> bad = {option.min - 1, option.max + 1, std::nan(""), 1e12};
      if (option.kind != EngineOption::Kind::kReal) bad.push_back(option.min + 0.5);
      for (double value : bad) {
        EngineSettings settings;
        settings.options[option.name] = value;
        try {
          check_engine_settings(*engine, settings, "audit.engines[0]");
          ADD_FAILURE() << name << "." << option.name << " = " << value << " was accepted";
        } catch (const InputError& e) {
          EXPECT_EQ(e.field(), "audit.engines[0].options." + option.name);
          const std::string what = e.what();
          EXPECT_NE(what.find(allowed_values(option)), std::string::npos) << what;
          EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        }
        EXPECT_THROW((void)settings.option(option.name, engine->options()), std::invalid_argument)
            << name << "." << option.name << " = " << value;
      }
      EngineSettings ends;  // both ends are allowed
      ends.options[option.name] = option.min;
      EXPECT_NO_THROW(check_engine_settings(*engine, ends, "e"));
      ends.options[option.name] = option.max;
      EXPECT_NO_THROW(check_engine_settings(*engine, ends, "e"));
    }
  }
  Line line(3.0, 1.0);
  EXPECT_THROW(line.run("mujoco", 600.0, {{"iterations", 1e12}}), std::invalid_argument);
}

// A run takes at most 1e7 steps (time_limit × rate) and 1e9 solver iterations (issue 39:
// `rates: [1e12]` or `time_limit: 1e9` never ended): refused beyond, naming the rates.
TEST(EngineRun, StepsAndWorkOfARunAreBounded) {
  const auto mujoco = make_engine("mujoco", "e");
  const auto refused = [&](double rate, double time_limit, std::map<std::string, double> options,
                           const std::string& field) {
    EngineSettings settings;
    settings.rate_hz = rate;
    settings.options = std::move(options);
    AuditLimits limits;
    limits.time_limit = time_limit;
    try {
      check_run_size(*mujoco, settings, limits, "audit.engines[0]");
      ADD_FAILURE() << rate << " Hz × " << time_limit << " s was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field);
      EXPECT_NE(std::string(e.what()).find("allowed"), std::string::npos) << e.what();
    }
  };
  refused(1e12, 2.0, {}, "audit.engines[0].rates");
  refused(60, 1e9, {}, "audit.engines[0].rates");
  refused(1e300, 1e300, {}, "audit.engines[0].rates");
  refused(600, 1000, {{"iterations", 10000}}, "audit.engines[0].options.iterations");  // 6e5 × 1e4
  EngineSettings settings;
  settings.rate_hz = 5e6;  // 2 s: exactly 1e7 steps at MuJoCo's 100 iterations, 1e9 in all
  EXPECT_NO_THROW(check_run_size(*mujoco, settings, AuditLimits{}, "e"));
  EXPECT_EQ(run_step_limit(AuditLimits{}, settings), 10'000'000);
  settings.rate_hz = 1e300;
  EXPECT_EQ(run_step_limit(AuditLimits{}, settings), static_cast<std::int64_t>(kMaxRunSteps));
}

// A raised stop flag (SIGINT) ends a run within kStopCheckSteps steps, and a wall-time budget (the
// dry run's timing) cuts one: kInterrupted, NaN velocities, never a settled answer.
TEST(EngineRun, StopFlagAndWallBudgetInterruptARun) {
  for (const std::string& engine : available_engine_names()) {
    Line line(3.0, 1.0);
    volatile std::sig_atomic_t stop = SIGINT;
    const EngineRun stopped = line.run(engine, 6000.0, {}, RunInterruption{&stop, 0.0});
    EXPECT_EQ(stopped.status, EngineRunStatus::kInterrupted) << engine << ": " << describe(stopped);
    EXPECT_LE(stopped.steps, kStopCheckSteps) << engine;
    EXPECT_TRUE(stopped.qvel.array().isNaN().all()) << engine;
    const EngineRun cut = line.run(engine, 6000.0, {}, RunInterruption{nullptr, 1e-12});
    EXPECT_EQ(cut.status, EngineRunStatus::kInterrupted) << engine << ": " << describe(cut);
    EXPECT_EQ(cut.step_limit, 12000) << engine;  // 2 s × 6 kHz
    stop = 0;
    const EngineRun whole = line.run(engine, 6000.0, {}, RunInterruption{&stop, 0.0});
    EXPECT_NE(whole.status, EngineRunStatus::kInterrupted) << engine << ": " << describe(whole);
  }
}

// The biped's hinges cannot be built from primitive shapes: one line naming the joint, from
// build() and from the preflight's check_expressible().
TEST(EngineCatalog, AdaptersRefuseWhatTheyCannotExpress) {
  MujocoMechanism biped(MechanismSpec{example("biped.xml"), {}, {}, kGapTolerance, "model"});
  auto workspace = biped.make_workspace();
  MechanismState state;
  state.qpos = biped.default_qpos();
  state.qvel = Eigen::VectorXd::Zero(biped.nv());
  for (const std::string engine : {"bullet", "ode"}) {
    if (!available(engine)) continue;
    EngineSettings settings;
    try {
      make_engine(engine, "e")->build(biped, state, *workspace, settings);
      FAIL() << engine << " built the biped";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "model.file");
      const std::string what = e.what();
      EXPECT_NE(what.find(engine + ": joint '"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      // The preflight's check, without a world: the same refusal.
      try {
        make_engine(engine, "e")->check_expressible(biped, state, *workspace);
        ADD_FAILURE() << engine << ": check_expressible passed the biped";
      } catch (const InputError& again) {
        EXPECT_EQ(std::string(again.what()), what);
      }
    }
  }
  // The refusal names the element it cannot express: with the trunk pitched, the slide joints
  // root_x and root_z still run along world x and z (MuJoCo's xaxis; the body frame after the
  // pitch hinge would turn them), so the hinge is the one named.
  state.qpos[2] = 0.3;  // root_pitch
  for (const std::string engine : {"bullet", "ode"}) {
    if (!available(engine)) continue;
    try {
      make_engine(engine, "e")->check_expressible(biped, state, *workspace);
      ADD_FAILURE() << engine << ": check_expressible passed the pitched biped";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("root_x"), std::string::npos) << what;
      EXPECT_EQ(what.find("root_z"), std::string::npos) << what;
      EXPECT_NE(what.find("(hinge)"), std::string::npos) << what;
    }
  }
  Line line(3.0, 1.0);  // and what they can build passes
  for (const std::string& engine : available_engine_names())
    EXPECT_NO_THROW(make_engine(engine, "e")->check_expressible(line.mechanism, line.state, *line.workspace));
}

}  // namespace
}  // namespace simpact
