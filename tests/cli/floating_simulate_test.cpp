// `simpact simulate` of a floating base (issue 34 §2): q0 has the file's nq coordinates
// (quaternions w x y z as MuJoCo stores them), v0 and p0 its nv velocities; a wrong count, or a
// quaternion that is zero or not finite, is one InputError naming the field; a quaternion that is
// not of unit norm is normalized (and said so on stderr), giving the unit one's trajectory. The
// reply's records hold q with nq entries and p with nv, and name both coordinate lists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "simpact/core/input_error.hpp"
#include "simpact/io/simulate_json.hpp"
#include "simpact/study/simulate_service.hpp"

namespace simpact {
namespace {

std::string mechanisms() {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms";
}

// The humanoid (nq 29, nv 27) standing 10 cm up, falling for `steps` ms.
SimulateRequest humanoid(int steps) {
  SimulateRequest r = parse_simulate_request(
      R"({"mechanism": {"file": "humanoid.xml", "contacts": [["floor", "foot_l"], ["floor", "foot_r"]]},
          "dt": 0.001, "steps": 1, "record": {"every": 1}})",
      {}, mechanisms());
  r.steps = steps;
  r.q0.assign(29, 0.0);
  r.q0[2] = 1.1;
  r.q0[3] = 1.0;  // root quaternion
  r.q0[7] = 1.0;  // waist quaternion
  r.v0.assign(27, 0.0);
  r.v0[3] = 0.5;   // root angular velocity (body x)
  r.v0[15] = 1.0;  // a hinge
  return r;
}

std::string field_of(const SimulateRequest& request, std::string* message = nullptr) {
  try {
    run_simulation(request);
  } catch (const InputError& e) {
    if (message) *message = e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return e.field();
  }
  return "";
}

TEST(FloatingSimulate, RecordsHaveNqCoordinatesAndNvMomenta) {
  SimulateRequest r = humanoid(20);
  r.record_steps.clear();
  for (long s = 0; s <= 20; ++s) r.record_steps.push_back(s);
  const SimulateReport report = run_simulation(r);
  ASSERT_EQ(report.records.size(), 21u);
  EXPECT_EQ(report.records.back().q.size(), 29u);
  EXPECT_EQ(report.records.back().p.size(), 27u);
  ASSERT_EQ(report.configuration.size(), 29u);
  EXPECT_EQ(report.configuration[3], "root[3]");
  EXPECT_EQ(report.configuration_units[3], "1");
  EXPECT_EQ(report.configuration_units[2], "m");
  EXPECT_EQ(report.coordinates.size(), 27u);
  // Free fall: the vertical momentum changes by −m g t exactly (m = 65.4 kg, t = 20 ms), and the
  // quaternions stay unit.
  EXPECT_NEAR(report.records.back().p[2] - report.records.front().p[2], -65.4 * 9.81 * 0.02, 1e-10);
  const auto& q = report.records.back().q;
  double norm = 0.0;
  for (int i = 3; i < 7; ++i) norm += q[static_cast<std::size_t>(i)] * q[static_cast<std::size_t>(i)];
  EXPECT_NEAR(norm, 1.0, 1e-15);
  // The JSON reply names both lists.
  const std::string json = simulation_to_json(r, report, -1);
  EXPECT_NE(json.find("\"nq\":29"), std::string::npos);
  EXPECT_NE(json.find("\"configuration\":[\"root[0]\""), std::string::npos);
}

TEST(FloatingSimulate, RefusesWrongCountsAndBadQuaternions) {
  std::string message;
  SimulateRequest r = humanoid(2);
  r.q0.resize(27);  // nv, not nq
  EXPECT_EQ(field_of(r, &message), "q0");
  EXPECT_NE(message.find("29"), std::string::npos) << message;
  r = humanoid(2);
  r.v0.resize(29);  // nq, not nv
  EXPECT_EQ(field_of(r, &message), "v0");
  EXPECT_NE(message.find("27"), std::string::npos) << message;
  r = humanoid(2);
  r.p0.assign(28, 0.0);
  EXPECT_EQ(field_of(r), "p0");
  r = humanoid(2);
  for (int i = 3; i < 7; ++i) r.q0[static_cast<std::size_t>(i)] = 0.0;
  EXPECT_EQ(field_of(r, &message), "q0[3:7]");
  EXPECT_NE(message.find("'root'"), std::string::npos) << message;
  EXPECT_NE(message.find("zero"), std::string::npos) << message;
  r = humanoid(2);
  r.q0[8] = std::numeric_limits<double>::quiet_NaN();  // the waist's quaternion
  EXPECT_EQ(field_of(r, &message), "q0[7:11]");
  EXPECT_NE(message.find("'waist'"), std::string::npos) << message;
}

TEST(FloatingSimulate, NormalizesANonUnitQuaternion) {
  SimulateRequest unit = humanoid(10), scaled = humanoid(10);
  for (int i = 3; i < 7; ++i) scaled.q0[static_cast<std::size_t>(i)] *= 2.5;
  const SimulateReport a = run_simulation(unit), b = run_simulation(scaled);
  ASSERT_EQ(a.records.size(), b.records.size());
  EXPECT_EQ(a.records.back().q, b.records.back().q);
  EXPECT_EQ(a.records.back().p, b.records.back().p);
}

}  // namespace
}  // namespace simpact
