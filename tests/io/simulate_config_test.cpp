// The `simulate:` section of a sweep config (time-stepped sweeps): what it parses to, that dt,
// restitution and simultaneity_tolerance are parameters like the model's (fixed in the section,
// grid axes or random), and the one-line errors naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "simpact/io/sweep_config_yaml.hpp"

namespace simpact {
namespace {

// Stand-ins for the impact models' and the dynamic models' catalogs.
bool impact_catalog(const std::string& model, std::vector<ParameterInfo>& parameters) {
  if (model != "cradle") return false;
  parameters = {{"n", "1", "number of balls", 3.0, 2.0, 9.0, true}};
  return true;
}

DynamicCatalog dynamic() {
  return {{"ball", "cradle"}, [](const std::string& model, std::vector<ParameterInfo>& parameters) {
            if (model != "cradle" && model != "ball") return false;
            parameters = {{"gap", "m", "initial gap", 0.1, 0.0, 1e6, false},
                          {"dt", "s", "time step", std::nan(""), 1e-12, 1e6, false},
                          {"restitution", "1", "restitution", 1.0, 0.0, 1.0, false},
                          {"simultaneity_tolerance", "s", "tolerance", 0.0, 0.0, 1e6, false}};
            return true;
          }};
}

SweepConfig parse(const std::string& yaml) {
  return parse_sweep_config(yaml, {"cradle"}, impact_catalog, dynamic());
}

std::vector<std::string> errors_of(const std::string& yaml, const DynamicCatalog& catalog = dynamic()) {
  try {
    parse_sweep_config(yaml, {"cradle"}, impact_catalog, catalog);
  } catch (const ConfigErrors& e) {
    return e.lines;
  }
  ADD_FAILURE() << "accepted: " << yaml;
  return {};
}

TEST(SimulateConfig, ParsesTheSectionAndItsParameters) {
  const SweepConfig c = parse(
      "simulate:\n  model: cradle\n  t_end: 0.25\n  dt: 1/600\n  record: 4\n"
      "grid:\n  gap: {values: [0.01, 0.1]}\n  restitution: {values: [0, 0.7, 1]}\n");
  ASSERT_TRUE(c.simulate.has_value());
  EXPECT_EQ(c.model, "cradle");
  EXPECT_EQ(c.simulate->steps, 0);
  EXPECT_DOUBLE_EQ(c.simulate->t_end, 0.25);
  EXPECT_EQ(c.simulate->record, 4);
  EXPECT_DOUBLE_EQ(c.fixed.get("dt", 0.0), 1.0 / 600.0);
  ASSERT_EQ(c.grid.size(), 2u);
  EXPECT_EQ(c.grid[1].name, "restitution");
  EXPECT_EQ(c.task_count(), 6);
  // Default orderings of a time-stepped sweep: the two single orderings.
  EXPECT_EQ(c.orderings, (std::vector<OrderingPolicy>{OrderingPolicy::kArgmin, OrderingPolicy::kArgmax}));
}

TEST(SimulateConfig, IntegratorSettingsAreSweepable) {
  const SweepConfig c = parse(
      "simulate: {model: ball, steps: 100}\n"
      "grid:\n  dt: {values: [1e-3, 1e-4]}\n"
      "monte_carlo:\n  samples_per_point: 3\n  params:\n"
      "    simultaneity_tolerance: {dist: uniform, low: 0, high: 1e-6}\n"
      "orderings: [index, reverse, random]\n");
  EXPECT_EQ(c.simulate->steps, 100);
  EXPECT_EQ(c.grid[0].name, "dt");
  EXPECT_EQ(c.task_count(), 6);
  EXPECT_EQ(c.orderings.size(), 3u);
  EXPECT_EQ(c.simulate->record, 0);
}

TEST(SimulateConfig, EachMistakeIsOneLineNamingTheField) {
  const std::string ok = "simulate:\n  model: cradle\n  steps: 10\n  dt: 1e-3\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"simulate:\n  model: cradel\n  steps: 10\n  dt: 1e-3\n",
       "simulate.model: unknown time-stepping model 'cradel' (did you mean 'cradle'?; allowed: ball, "
       "cradle)"},
      {"simulate:\n  steps: 10\n", "simulate.model: required: a time-stepping model (ball, cradle)"},
      {"simulate:\n  model: cradle\n  dt: 1e-3\n",
       "simulate.steps: give exactly one of steps, t_end (the length of every run)"},
      {"simulate:\n  model: cradle\n  steps: 10\n  t_end: 1\n  dt: 1e-3\n",
       "simulate.steps: give exactly one of steps, t_end (the length of every run)"},
      {"simulate:\n  model: cradle\n  steps: 0\n  dt: 1e-3\n",
       "simulate.steps: must be an integer in 1..1000000000 (steps of dt per run)"},
      {"simulate:\n  model: cradle\n  t_end: 0\n  dt: 1e-3\n",
       "simulate.t_end: 0 must be a positive time [s]"},
      {"simulate:\n  model: cradle\n  steps: 10\n",
       "params: missing required parameter 'dt' of model 'cradle' "
       "(give it in params, grid or monte_carlo.params)"},
      {ok + "  stpes: 3\n", "simulate.stpes: unknown key (did you mean 'steps'?)"},
      {ok + "  restitution: 2\n",
       "simulate.restitution: 2 is outside the allowed range [0, 1] of 'restitution'"},
      {ok + "  record: 1.5\n",
       "simulate.record: must be an integer in 1..100000 (record + 1 equally spaced states per task)"},
      {ok + "params: {dt: 1e-4}\n",
       "params.dt: 'dt' is already given in simulate (a parameter is fixed, a grid axis or random, only one "
       "of "
       "these)"},
      {ok + "params: {n: 3}\n",
       "params.n: 'n' is read by the impact model 'cradle' (model: cradle), not by its time-stepping "
       "model (`simpact models cradle` says which reads what)"},
      {ok + "params: {nn: 3}\n",
       "params.nn: unknown parameter of model 'cradle' (parameters: gap, dt, restitution, "
       "simultaneity_tolerance)"},
      {ok + "orderings: all\n",
       "orderings: 'all' is not available with simulate: (each run follows one ordering; "
       "list single orderings, e.g. [argmin, argmax])"},
      {ok + "minimality: definition1\n", "minimality: not used with simulate: (time-stepped sweeps)"},
      {ok + "output: {momenta: true}\n",
       "output.momenta: not used with simulate: (ask for trajectories with simulate.record)"},
      {"model: cradle\n" + ok,
       "model: not used with simulate: (name the time-stepping model in simulate.model)"},
      {"simulate: cradle\n",
       "simulate: must be a mapping (model, steps, t_end, dt, restitution, "
       "simultaneity_tolerance, record)"},
  };
  for (const auto& [yaml, line] : cases) {
    const auto lines = errors_of(yaml);
    ASSERT_EQ(lines.size(), 1u) << yaml
                                << (lines.empty() ? ""
                                                  : lines[0] + (lines.size() > 1 ? " | " + lines[1] : ""));
    EXPECT_EQ(lines[0], line) << yaml;
  }
  // A program without time-stepping models refuses the section.
  EXPECT_EQ(errors_of(ok, {}),
            std::vector<std::string>{"simulate: time-stepped sweeps are not available in this "
                                     "program"});
}

}  // namespace
}  // namespace simpact
