// `simpact check --jsonl` loads each mechanism once per file (study/impact_service.cpp,
// MechanismCache; issue 39): the reports of a few hundred mechanism lines, mixing three files
// (edits of masses, sizes and positions, a `place`d biped) so that the cache switches between
// them and reuses each file's workspace, equal bit for bit what each line gives on its own.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "simpact/study/impact_service.hpp"

namespace simpact {
namespace {

std::string example(const std::string& name) {
  const char* root = std::getenv("SIMPACT_SOURCE_DIR");
  return std::string(root ? root : SIMPACT_SOURCE_DIR) + "/examples/mechanisms/" + name;
}

std::string number(double x) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string vector_text(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + number(v[i]);
  return out + "]";
}

// One check request per line, cycling through the cradle (mass and size edits), the billiards
// break (positions) and the biped placed on its feet (hip angles, `place`).
std::vector<std::string> mechanism_lines(int count) {
  std::mt19937_64 rng(39);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::string> lines;
  for (int i = 0; i < count; ++i) {
    std::ostringstream line;
    switch (i % 3) {
      case 0: {
        const double v = 1 + 4 * u(rng);
        line << R"({"mechanism": {"file": ")" << example("cradle3.xml")
             << R"(", "contacts": [["ball_a", "ball_b"], ["ball_b", "ball_c"]]}, "params": {"mass.b": )"
             << number(0.5 + u(rng)) << R"(, "size.ball_c[0]": )" << number(1.0)
             << R"(}, "qpos": [0, 0, 0], "qvel": )" << vector_text({v, 0, 0}) << R"(, "restitution": )"
             << number(u(rng)) << R"(, "velocity_after": )"
             << vector_text({v / 3, v / 3, v / 3 + 1e-3 * u(rng)}) << "}";
        break;
      }
      case 1: {
        const double speed = 0.5 + 3 * u(rng);
        line << R"({"mechanism": {"file": ")" << example("billiards.xml")
             << R"(", "contacts": [["ball_c", "ball_a"], ["ball_c", "ball_b"]]}, "params": {"mass.a": )"
             << number(2 + 4 * u(rng)) << R"(}, "qvel": )" << vector_text({0, 0, 0, 0, speed, 0})
             << R"(, "velocity_after": )"
             << vector_text({speed / 2, speed / 2 * u(rng), speed / 2, -speed / 2 * u(rng), 0, 0}) << "}";
        break;
      }
      default: {
        std::vector<double> after(7);
        for (double& a : after) a = u(rng) - 0.5;
        line
            << R"({"mechanism": {"file": ")" << example("biped.xml")
            << R"(", "contacts": [["floor", "foot_l"], ["floor", "foot_r"]], "place": ["qpos.root_z", "qpos.root_pitch"]}, )"
            << R"("params": {"qpos.hip_l": )" << number(0.1 + 0.2 * u(rng)) << R"(, "qpos.hip_r": )"
            << number(-0.1 - 0.2 * u(rng)) << R"(, "qvel.root_z": )" << number(-0.5 - u(rng))
            << R"(}, "velocity_after": )" << vector_text(after) << "}";
        break;
      }
    }
    lines.push_back(line.str());
  }
  return lines;
}

TEST(CheckLinesCache, ReportsEqualUncachedOnes) {
  const std::vector<std::string> lines = mechanism_lines(300);
  std::string text, expected;
  long inconsistent = 0;
  for (const std::string& line : lines) {
    text += line + "\n";
    const CheckReport alone = check_report(line, -1);  // its own mechanism, loaded for it
    expected += alone.json;
    if (expected.back() != '\n') expected += '\n';
    if (!alone.consistent) ++inconsistent;
  }
  const CheckLinesReport report = check_json_lines(text);
  EXPECT_EQ(report.requests, 300);
  EXPECT_EQ(report.inconsistent, inconsistent);
  ASSERT_EQ(report.text.size(), expected.size());
  EXPECT_TRUE(report.text == expected) << "a cached mechanism gave a different report";
}

}  // namespace
}  // namespace simpact
