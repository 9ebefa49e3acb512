// ImpactTaskKernel on a mechanism file (issue 34 §4): the placement and an open state are
// visible per task. With `place`, each placed coordinate is a column (placed/qpos.root_z, ...)
// holding exactly the configuration the impact was resolved at; contacts/min_gap holds the
// smallest gap there. A task whose contacts are all open (feet in the air, `place` forgotten)
// has status no_contact and ξ NaN, never ξ = 0 (which reads as a unique outcome).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "simpact/analysis/impact_task_kernel.hpp"
#include "simpact/models/billiards_scenario.hpp"
#include "simpact/models/file_mechanism_family.hpp"

namespace simpact {
namespace {

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

std::shared_ptr<const MujocoMechanism> biped(std::vector<std::string> place) {
  MechanismSpec spec;
  spec.file = example("biped.xml");
  spec.contacts = {{"floor", "foot_l"}, {"floor", "foot_r"}};
  spec.place = std::move(place);
  spec.field = "model";
  return std::make_shared<const MujocoMechanism>(spec);
}

ImpactTaskKernel kernel_of(std::shared_ptr<const MujocoMechanism> mechanism) {
  ImpactStudyOptions o;
  o.orderings = {OrderingPolicy::kAll, OrderingPolicy::kArgmin, OrderingPolicy::kArgmax};
  return ImpactTaskKernel(std::make_unique<FileMechanismFamily>(std::move(mechanism)), o);
}

int column(const ImpactTaskKernel& kernel, const std::string& group, const std::string& name) {
  const auto& columns = kernel.columns();
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].group == group && columns[i].name == name) return static_cast<int>(i);
  return -1;
}

// Offsets of scalar columns are their indices while no per-task array precedes them.
std::vector<double> evaluate(const ImpactTaskKernel& kernel, const ParameterSet& params, TaskStatus& status) {
  std::vector<double> values(static_cast<std::size_t>(values_per_task(kernel)));
  const auto scratch = kernel.make_scratch();
  status = kernel.evaluate(0, params, *scratch, values.data());
  return values;
}

ParameterSet touchdown(double hip_l, double hip_r) {
  ParameterSet p;
  p.set("qpos.root_z", -0.1);
  p.set("qpos.knee_l", -0.4);
  p.set("qpos.knee_r", -0.4);
  p.set("qpos.hip_l", hip_l);
  p.set("qpos.hip_r", hip_r);
  p.set("qvel.root_x", 0.5);
  p.set("qvel.root_z", -1.0);
  return p;
}

TEST(ImpactTaskKernelMechanism, PlacedCoordinatesAreTheResolvedConfiguration) {
  const auto mechanism = biped({"qpos.root_z", "qpos.root_pitch"});
  const ImpactTaskKernel kernel = kernel_of(mechanism);
  const int z = column(kernel, "placed", "qpos.root_z"), pitch = column(kernel, "placed", "qpos.root_pitch");
  const int gap = column(kernel, "contacts", "min_gap");
  ASSERT_GE(z, 0);
  ASSERT_GE(pitch, 0);
  ASSERT_GE(gap, 0);
  EXPECT_EQ(kernel.columns()[static_cast<std::size_t>(z)].units, "m");
  EXPECT_EQ(kernel.columns()[static_cast<std::size_t>(pitch)].units, "rad");
  // The new columns come last: every earlier column keeps its place in a task's values.
  const int closed = column(kernel, "contacts", "closed");
  EXPECT_EQ(gap, static_cast<int>(kernel.columns().size()) - 2);
  EXPECT_EQ(closed, static_cast<int>(kernel.columns().size()) - 1);
  EXPECT_LT(z, pitch);

  const ParameterSet params = touchdown(0.3, -0.7);
  TaskStatus status;
  const std::vector<double> v = evaluate(kernel, params, status);
  EXPECT_EQ(status, TaskStatus::kOk);

  // What the mechanism itself solves for the same state, bit for bit.
  auto workspace = mechanism->make_workspace();
  MechanismState state = mechanism->state_from(params);
  MechanismSolvedState solved;
  (void)mechanism->make_problem(state, *workspace, &solved);
  const int iz = mechanism->place_coordinates()[0], ipitch = mechanism->place_coordinates()[1];
  EXPECT_EQ(v[static_cast<std::size_t>(z)], solved.qpos[iz]);
  EXPECT_EQ(v[static_cast<std::size_t>(pitch)], solved.qpos[ipitch]);
  EXPECT_EQ(v[static_cast<std::size_t>(gap)], solved.gaps.minCoeff());
  // The placement moved them: the start was root_z = -0.1, pitch 0.
  EXPECT_NE(v[static_cast<std::size_t>(z)], -0.1);
  EXPECT_GT(std::abs(v[static_cast<std::size_t>(pitch)]), 0.1);
  EXPECT_LE(std::abs(v[static_cast<std::size_t>(gap)]), mechanism->gap_tolerance());
  EXPECT_EQ(v[static_cast<std::size_t>(closed)], 2.0);  // two spherical feet: one witness each
}

TEST(ImpactTaskKernelMechanism, NoClosedContactIsNaNUnderItsOwnStatus) {
  // Without `place` the file's posture holds the feet above the floor.
  const auto mechanism = biped({});
  const ImpactTaskKernel kernel = kernel_of(mechanism);
  EXPECT_EQ(column(kernel, "placed", "qpos.root_z"), -1);
  const int gap = column(kernel, "contacts", "min_gap");
  ASSERT_GE(gap, 0);
  ParameterSet params = touchdown(0.2, -0.2);
  params.set("qpos.root_z", 0.0);  // the torso at the file's height
  TaskStatus status;
  const std::vector<double> v = evaluate(kernel, params, status);
  EXPECT_EQ(status, TaskStatus::kNoContact);
  EXPECT_EQ(std::string(kTaskStatusNames[static_cast<int>(TaskStatus::kNoContact)]), "no_contact");
  for (const char* name : {"outcome_set", "argmin_vs_argmax"}) {
    const int c = column(kernel, "xi_maps", name);
    ASSERT_GE(c, 0) << name;
    EXPECT_TRUE(std::isnan(v[static_cast<std::size_t>(c)]))
        << name << " = " << v[static_cast<std::size_t>(c)];
  }
  for (const char* name : {"unique", "count"}) {
    const int c = column(kernel, "outcomes", name);
    ASSERT_GE(c, 0) << name;
    EXPECT_TRUE(std::isnan(v[static_cast<std::size_t>(c)])) << name;
  }
  // Nothing happened: the energy is what it was, and no contact was approaching.
  const int before = column(kernel, "energy", "before"), after = column(kernel, "energy", "after_argmin");
  EXPECT_GT(v[static_cast<std::size_t>(before)], 0.0);
  EXPECT_EQ(v[static_cast<std::size_t>(after)], v[static_cast<std::size_t>(before)]);
  EXPECT_EQ(v[static_cast<std::size_t>(column(kernel, "outcomes", "impact"))], 0.0);
  // The smallest gap is the feet's height above the floor, as the mechanism measures it.
  auto workspace = mechanism->make_workspace();
  const MechanismState state = mechanism->state_from(params);
  MechanismEvaluation e;
  mechanism->evaluate(state, state.qpos, *workspace, e);
  EXPECT_EQ(v[static_cast<std::size_t>(gap)], e.gaps.minCoeff());
  EXPECT_GT(v[static_cast<std::size_t>(gap)], 0.05);

  // Straight legs lowered until both feet touch: an impact again, with a finite ξ.
  for (const char* joint : {"qpos.hip_l", "qpos.hip_r", "qpos.knee_l", "qpos.knee_r", "qpos.root_z"})
    params.set(joint, 0.0);
  const MechanismState straight = mechanism->state_from(params);
  mechanism->evaluate(straight, straight.qpos, *workspace, e);
  params.set("qpos.root_z", -e.gaps.minCoeff());
  const std::vector<double> touching = evaluate(kernel, params, status);
  EXPECT_NE(status, TaskStatus::kNoContact);
  EXPECT_TRUE(std::isfinite(touching[static_cast<std::size_t>(column(kernel, "xi_maps", "outcome_set"))]));
}

TEST(ImpactTaskKernelMechanism, BuiltInModelsReportNoTaskValues) {
  ImpactStudyOptions o;
  const ImpactTaskKernel kernel(std::make_unique<BilliardsFamily>(), o);
  for (const auto& c : kernel.columns()) {
    EXPECT_NE(c.group, "placed") << c.name;
    EXPECT_NE(c.group, "contacts") << c.name;
  }
}

}  // namespace
}  // namespace simpact
