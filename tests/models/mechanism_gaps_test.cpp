// Gaps and normals of a mechanism file's contacts are exact for every pair of geom types MuJoCo
// collides, not only where MuJoCo's own functions are (issue 34 §3): pairs placed touching and
// 1 mm apart by closed forms, in random orientations — sphere–ellipsoid, sphere–cylinder (side,
// cap, rim), capsule–cylinder (end and side contacts), a mesh cube against the box primitive
// (on a plane, under a sphere, on another cube) — give the gap to 1e-9 m and the normal to
// 1e-9 rad; a ball dropped straight onto a mesh cube leaves straight up; a heightfield pair is
// refused naming the contact. MuJoCo 2.2.2's MPR (ellipsoids, cylinders, meshes) and its box–box
// are off by up to centimetres here.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../../tests/support/temp_dir.hpp"
#include "simpact/core/impact_resolution.hpp"
#include "simpact/core/input_error.hpp"
#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact {
namespace {

using Vec3 = Eigen::Vector3d;
using Quat = Eigen::Quaterniond;

constexpr double kGapAccuracy = 1e-9;     // m
constexpr double kNormalAccuracy = 1e-9;  // rad
constexpr int kOrientations = 12;         // random orientations per case

const char* kCube =
    "-0.5 -0.5 -0.5  0.5 -0.5 -0.5  -0.5 0.5 -0.5  0.5 0.5 -0.5  "
    "-0.5 -0.5 0.5  0.5 -0.5 0.5  -0.5 0.5 0.5  0.5 0.5 0.5";

// A file with two free bodies, A (geom "a") and B (geom "b"), and a plane "floor"; `assets` goes
// into <asset>.
std::string two_bodies(const std::string& geom_a, const std::string& geom_b, const std::string& assets = "") {
  return "<mujoco>\n  <asset>" + assets + "</asset>\n  <worldbody>\n" +
         "    <geom name=\"floor\" type=\"plane\" size=\"10 10 0.1\"/>\n"
         "    <body name=\"A\" pos=\"0 0 5\"><freejoint name=\"ja\"/><geom name=\"a\" " +
         geom_a + "/></body>\n    <body name=\"B\" pos=\"3 0 5\"><freejoint name=\"jb\"/><geom name=\"b\" " +
         geom_b + "/></body>\n  </worldbody>\n</mujoco>\n";
}

class Pair {
 public:
  Pair(const testing::TempDir& dir, const std::string& xml, const std::string& first,
       const std::string& second = "b")
      : mechanism_(spec(dir, xml, first, second)), workspace_(mechanism_.make_workspace()) {
    state_.qpos = mechanism_.default_qpos();
    state_.qvel = Eigen::VectorXd::Zero(mechanism_.nv());
  }
  // Places body A (qpos 0..6) and body B (qpos 7..13).
  void place(const Vec3& pa, const Quat& qa, const Vec3& pb, const Quat& qb) {
    set(0, pa, qa);
    set(7, pb, qb);
  }
  void place_b(const Vec3& pb, const Quat& qb) { set(7, pb, qb); }
  // φ [m] and the normal: u's entries on B's free-joint translation are n (pointing toward B,
  // from the contact's first geom) whichever geom MuJoCo's type order puts first.
  void evaluate(double& gap, Vec3& normal) {
    MechanismEvaluation e;
    mechanism_.evaluate(state_, state_.qpos, *workspace_, e);
    gap = e.gaps[0];
    normal = e.normals.row(0).segment<3>(6).transpose();
  }
  const MujocoMechanism& mechanism() const { return mechanism_; }
  MechanismState& state() { return state_; }
  MujocoMechanism::Workspace& workspace() { return *workspace_; }

 private:
  static MechanismSpec spec(const testing::TempDir& dir, const std::string& xml, const std::string& first,
                            const std::string& second) {
    static int count = 0;
    const std::string file = dir / ("pair" + std::to_string(count++) + ".xml");
    std::ofstream(file) << xml;
    MechanismSpec s;
    s.file = file;
    s.contacts = {{first, second}};
    return s;
  }
  void set(int at, const Vec3& p, const Quat& q) {
    for (int i = 0; i < 3; ++i) state_.qpos[at + i] = p[i];
    state_.qpos[at + 3] = q.w();
    state_.qpos[at + 4] = q.x();
    state_.qpos[at + 5] = q.y();
    state_.qpos[at + 6] = q.z();
  }
  MujocoMechanism mechanism_;
  MujocoMechanism::WorkspacePtr workspace_;
  MechanismState state_;
};

double angle(const Vec3& a, const Vec3& b) {
  return std::atan2(a.cross(b).norm(), a.dot(b));
}

struct Random {
  std::mt19937_64 engine{20260834};
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(engine); }
  Vec3 unit() {
    Vec3 v;
    do v = Vec3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    while (v.norm() < 0.1 || v.norm() > 1);
    return v.normalized();
  }
  Quat rotation() {
    Quat q(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    return q.normalized();
  }
};

// Expects φ and the normal (from A toward B) of the pair as placed.
void expect_gap(Pair& pair, double gap, const Vec3& normal, const std::string& what) {
  double got;
  Vec3 n;
  pair.evaluate(got, n);
  EXPECT_NEAR(got, gap, kGapAccuracy) << what;
  EXPECT_LE(angle(n, normal), kNormalAccuracy)
      << what << ": normal " << n.transpose() << ", want " << normal.transpose();
}

TEST(MechanismGaps, SphereAgainstEllipsoidTouchingAnd1mmApart) {
  const testing::TempDir dir;
  const Vec3 semi(0.3, 0.15, 0.08);
  const double radius = 0.05;
  Pair pair(dir, two_bodies("type=\"ellipsoid\" size=\"0.3 0.15 0.08\"", "type=\"sphere\" size=\"0.05\""),
            "a");
  Random random;
  for (int i = 0; i < kOrientations; ++i)
    for (const double gap : {0.0, 1e-3}) {
      // A point of the ellipsoid and its normal: x = S·u, n ∝ S⁻¹·u for a unit u (local).
      const Vec3 u = random.unit();
      const Quat q = random.rotation();
      const Vec3 centre(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(0, 2));
      const Vec3 x = centre + q * Vec3(semi.cwiseProduct(u));
      const Vec3 n = q * Vec3(semi.cwiseInverse().cwiseProduct(u)).normalized();
      pair.place(centre, q, x + (radius + gap) * n, random.rotation());
      expect_gap(pair, gap, n, "orientation " + std::to_string(i) + ", gap " + std::to_string(gap));
    }
}

TEST(MechanismGaps, AFileInMillimetresGivesTheSameGapsAndNormals) {
  // The ellipsoid and sphere above, and a mesh cube, in mm: gaps 1000× to 1e-6 mm, same normals.
  const testing::TempDir dir;
  const Vec3 semi(300, 150, 80);
  const double radius = 50;
  Pair ellipsoid(dir, two_bodies("type=\"ellipsoid\" size=\"300 150 80\"", "type=\"sphere\" size=\"50\""),
                 "a");
  const std::string mesh =
      "<mesh name=\"cube\" scale=\"1000 1000 1000\" vertex=\"" + std::string(kCube) + "\"/>";
  Pair cube(dir, two_bodies("type=\"mesh\" mesh=\"cube\"", "type=\"sphere\" size=\"50\"", mesh), "a");
  Random random;
  for (int i = 0; i < kOrientations; ++i)
    for (const double gap : {0.0, 1.0}) {
      const Vec3 u = random.unit();
      const Quat q = random.rotation();
      const Vec3 centre(random.uniform(-1000, 1000), random.uniform(-1000, 1000), random.uniform(0, 2000));
      const Vec3 n = q * Vec3(semi.cwiseInverse().cwiseProduct(u)).normalized();
      ellipsoid.place(centre, q, centre + q * Vec3(semi.cwiseProduct(u)) + (radius + gap) * n,
                      random.rotation());
      double got;
      Vec3 normal;
      ellipsoid.evaluate(got, normal);
      EXPECT_NEAR(got, gap, 1000 * kGapAccuracy) << "ellipsoid " << i;
      EXPECT_LE(angle(normal, n), kNormalAccuracy) << "ellipsoid " << i;
      // Over the middle of the cube's top face (in its frame).
      const Vec3 top(random.uniform(-450, 450), random.uniform(-450, 450), 500);
      cube.place(centre, q, centre + q * Vec3(top + (radius + gap) * Vec3::UnitZ()), random.rotation());
      cube.evaluate(got, normal);
      EXPECT_NEAR(got, gap, 1000 * kGapAccuracy) << "cube " << i;
      EXPECT_LE(angle(normal, q * Vec3::UnitZ()), kNormalAccuracy) << "cube " << i;
    }
}

// A point of a cylinder (radius r, half-height h, centre c, rotation q) with a normal of its
// normal cone: on the side, a cap, or a rim (a normal between the radial and the axial ones).
void cylinder_point(Random& random, const Vec3& c, const Quat& q, double r, double h, int where, Vec3& x,
                    Vec3& n) {
  const double theta = random.uniform(0, 2 * M_PI), sign = random.uniform(-1, 1) < 0 ? -1.0 : 1.0;
  const Vec3 radial(std::cos(theta), std::sin(theta), 0), axis(0, 0, 1);
  Vec3 local, normal;
  if (where == 0) {
    local = r * radial + random.uniform(-0.95, 0.95) * h * axis;
    normal = radial;
  } else if (where == 1) {
    local = random.uniform(0, 0.95) * r * radial + sign * h * axis;
    normal = sign * axis;
  } else {
    const double tilt = random.uniform(0.05, M_PI / 2 - 0.05);
    local = r * radial + sign * h * axis;
    normal = std::cos(tilt) * radial + std::sin(tilt) * sign * axis;
  }
  x = c + q * local;
  n = q * normal;
}

TEST(MechanismGaps, SphereAgainstCylinderSideCapAndRim) {
  const testing::TempDir dir;
  const double r = 0.2, h = 0.25, radius = 0.07;
  Pair pair(dir, two_bodies("type=\"cylinder\" size=\"0.2 0.25\"", "type=\"sphere\" size=\"0.07\""), "a");
  Random random;
  const char* names[] = {"side", "cap", "rim"};
  for (int where = 0; where < 3; ++where)
    for (int i = 0; i < kOrientations; ++i)
      for (const double gap : {0.0, 1e-3}) {
        const Quat q = random.rotation();
        const Vec3 centre(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(0, 2));
        Vec3 x, n;
        cylinder_point(random, centre, q, r, h, where, x, n);
        pair.place(centre, q, x + (radius + gap) * n, random.rotation());
        expect_gap(pair, gap, n,
                   std::string(names[where]) + " " + std::to_string(i) + ", gap " + std::to_string(gap));
      }
}

TEST(MechanismGaps, CapsuleAgainstCylinderEndAndSide) {
  const testing::TempDir dir;
  const double r = 0.2, h = 0.25, radius = 0.06, half = 0.2;
  Pair pair(dir, two_bodies("type=\"cylinder\" size=\"0.2 0.25\"", "type=\"capsule\" size=\"0.06 0.2\""),
            "a");
  Random random;
  for (int where = 0; where < 3; ++where)
    for (int i = 0; i < kOrientations; ++i)
      for (const bool end : {true, false})
        for (const double gap : {0.0, 1e-3}) {
          const Quat q = random.rotation();
          const Vec3 centre(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(0, 2));
          Vec3 x, n;
          cylinder_point(random, centre, q, r, h, where, x, n);
          // The segment's nearest point sits r + gap along n from x: its end (the segment
          // leaving at an angle < 90° to n) or its middle (the segment ⊥ n). The supporting
          // plane at x bounds every other point farther.
          Vec3 along;
          if (end) {
            do along = random.unit();
            while (along.dot(n) < 0.1);
          } else {
            const Vec3 t = random.unit();
            along = (t - t.dot(n) * n).normalized();
          }
          const Vec3 nearest = x + (radius + gap) * n;
          const Vec3 middle =
              end ? Vec3(nearest + half * along) : Vec3(nearest + random.uniform(-0.9, 0.9) * half * along);
          pair.place(centre, q, middle, Quat::FromTwoVectors(Vec3::UnitZ(), along));
          expect_gap(pair, gap, n,
                     std::to_string(where) + (end ? " end " : " side ") + std::to_string(i) + ", gap " +
                         std::to_string(gap));
        }
}

// A point of the unit cube's surface and a normal of its normal cone, in the cube's frame.
void cube_point(Random& random, int where, Vec3& x, Vec3& n) {
  // where = 0: a face point, 1: an edge point, 2: a vertex of [-0.5, 0.5]³.
  Vec3 local(random.uniform(-0.45, 0.45), random.uniform(-0.45, 0.45), random.uniform(-0.45, 0.45));
  Vec3 normal = Vec3::Zero();
  for (int axis = 0; axis <= where; ++axis) {  // where + 1 coordinates on the boundary
    const double sign = random.uniform(-1, 1) < 0 ? -1.0 : 1.0;
    local[axis] = 0.5 * sign;
    normal[axis] = sign * random.uniform(0.2, 1.0);
  }
  x = local;
  n = normal.normalized();
}

TEST(MechanismGaps, MeshCubeAgainstPlaneSphereAndCubeAsTheBoxPrimitive) {
  const testing::TempDir dir;
  const std::string mesh = "<mesh name=\"cube\" vertex=\"" + std::string(kCube) + "\"/>";
  const std::string box = "type=\"box\" size=\"0.5 0.5 0.5\"", cube = "type=\"mesh\" mesh=\"cube\"";
  Random random;
  const char* names[] = {"face", "edge", "vertex"};
  for (const std::string& shape : {cube, box}) {
    const std::string kind = shape == cube ? "mesh cube" : "box";
    // On the plane: the lowest vertex is the gap, the normal the plane's.
    Pair on_floor(dir, two_bodies(shape, "type=\"sphere\" size=\"0.1\"", mesh), "floor", "a");
    for (int i = 0; i < kOrientations; ++i)
      for (const double gap : {0.0, 1e-3}) {
        const Quat q = random.rotation();
        double lowest = 1e9;
        for (int v = 0; v < 8; ++v)
          lowest =
              std::min(lowest, (q * Vec3(v & 1 ? 0.5 : -0.5, v & 2 ? 0.5 : -0.5, v & 4 ? 0.5 : -0.5)).z());
        on_floor.place(Vec3(random.uniform(-1, 1), random.uniform(-1, 1), gap - lowest), q, Vec3(3, 0, 5),
                       Quat::Identity());
        double got;
        Vec3 n;
        on_floor.evaluate(got, n);
        EXPECT_NEAR(got, gap, kGapAccuracy) << kind << " on the floor " << i;
        // The plane is the contact's first geom: u's entries on A's translation are n.
        MechanismEvaluation e;
        on_floor.mechanism().evaluate(on_floor.state(), on_floor.state().qpos, on_floor.workspace(), e);
        EXPECT_LE(angle(e.normals.row(0).segment<3>(0).transpose(), Vec3::UnitZ()), kNormalAccuracy)
            << kind << " on the floor " << i;
      }
    // Under a sphere, and under a second cube (the box primitive) touching with one vertex.
    Pair sphere(dir, two_bodies(shape, "type=\"sphere\" size=\"0.1\"", mesh), "a");
    Pair second(dir, two_bodies(shape, box, mesh), "a");
    for (int where = 0; where < 3; ++where)
      for (int i = 0; i < kOrientations; ++i)
        for (const double gap : {0.0, 1e-3}) {
          const Quat q = random.rotation();
          const Vec3 centre(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(0, 2));
          Vec3 x, n;
          cube_point(random, where, x, n);
          const std::string what =
              kind + " " + names[where] + " " + std::to_string(i) + ", gap " + std::to_string(gap);
          sphere.place(centre, q, centre + q * Vec3(x + (0.1 + gap) * n), random.rotation());
          expect_gap(sphere, gap, q * n, what + " (sphere)");
          if (where != 0) continue;
          // A face of A under the box B's lowest vertex (B's orientation random, so that vertex is
          // unique): φ = gap along the face normal. Its projection must land on the face: keep x.
          const Quat qb = random.rotation();
          const Vec3 down = -(q * n);
          Vec3 low = Vec3::Zero();
          for (int v = 0; v < 8; ++v) {
            const Vec3 corner = qb * Vec3(v & 1 ? 0.5 : -0.5, v & 2 ? 0.5 : -0.5, v & 4 ? 0.5 : -0.5);
            if (corner.dot(down) > low.dot(down)) low = corner;
          }
          second.place(centre, q, centre + q * Vec3(x + gap * n) - low, qb);
          expect_gap(second, gap, q * n, what + " (box on it)");
        }
  }
}

TEST(MechanismGaps, PlacementFindsTheTouchingHeight) {
  // B touching A by a closed form, then lifted 0.3 m: placing B's height brings it back to the
  // touching height (the normal leans up: dφ/dz = n_z ≥ 0.3).
  const testing::TempDir dir;
  const std::string mesh = "<mesh name=\"cube\" vertex=\"" + std::string(kCube) + "\"/>";
  Random random;
  auto check = [&](const std::string& a, const std::string& b, auto&& touching) {
    const std::string file = dir / "place.xml";
    std::ofstream(file) << two_bodies(a, b, mesh);
    MechanismSpec spec;
    spec.file = file;
    spec.contacts = {{"a", "b"}};
    spec.place = {"qpos.jb[2]"};
    const MujocoMechanism mechanism(spec);
    auto ws = mechanism.make_workspace();
    for (int placed = 0; placed < 4;) {
      Vec3 pa, pb, n;
      Quat qa, qb;
      touching(pa, qa, pb, qb, n);
      if (n.z() < 0.3) continue;
      ++placed;
      MechanismState state;
      state.qpos = mechanism.default_qpos();
      state.qvel = Eigen::VectorXd::Zero(mechanism.nv());
      const double at[] = {pa.x(), pa.y(), pa.z(),       qa.w(), qa.x(), qa.y(), qa.z(),
                           pb.x(), pb.y(), pb.z() + 0.3, qb.w(), qb.x(), qb.y(), qb.z()};
      for (int j = 0; j < 14; ++j) state.qpos[j] = at[j];
      ASSERT_NO_THROW(mechanism.place(state, *ws)) << a << " / " << b;
      EXPECT_NEAR(state.qpos[9], pb.z(), kGapAccuracy) << a << " / " << b;
    }
  };
  check("type=\"ellipsoid\" size=\"0.3 0.15 0.08\"", "type=\"sphere\" size=\"0.05\"",
        [&](Vec3& pa, Quat& qa, Vec3& pb, Quat& qb, Vec3& n) {
          const Vec3 semi(0.3, 0.15, 0.08), u = random.unit();
          qa = random.rotation();
          qb = random.rotation();
          pa = Vec3(0, 0, 1);
          n = qa * Vec3(semi.cwiseInverse().cwiseProduct(u)).normalized();
          pb = pa + qa * Vec3(semi.cwiseProduct(u)) + 0.05 * n;
        });
  check("type=\"cylinder\" size=\"0.2 0.25\"", "type=\"capsule\" size=\"0.06 0.2\"",
        [&](Vec3& pa, Quat& qa, Vec3& pb, Quat& qb, Vec3& n) {
          qa = random.rotation();
          pa = Vec3(0, 0, 1);
          Vec3 x;
          cylinder_point(random, pa, qa, 0.2, 0.25, static_cast<int>(random.uniform(0, 3)), x, n);
          Vec3 along;
          do along = random.unit();
          while (along.dot(n) < 0.1);
          pb = x + 0.06 * n + 0.2 * along;  // the end nearest
          qb = Quat::FromTwoVectors(Vec3::UnitZ(), along);
        });
  check("type=\"mesh\" mesh=\"cube\"", "type=\"box\" size=\"0.5 0.5 0.5\"",
        [&](Vec3& pa, Quat& qa, Vec3& pb, Quat& qb, Vec3& n) {
          qa = random.rotation();
          qb = random.rotation();
          pa = Vec3(0, 0, 1);
          Vec3 x, local_n;
          cube_point(random, 0, x, local_n);
          n = qa * local_n;
          Vec3 low = Vec3::Zero();  // B's vertex lowest along −n, on A's face point x
          for (int v = 0; v < 8; ++v) {
            const Vec3 corner = qb * Vec3(v & 1 ? 0.5 : -0.5, v & 2 ? 0.5 : -0.5, v & 4 ? 0.5 : -0.5);
            if (corner.dot(-n) > low.dot(-n)) low = corner;
          }
          pb = pa + qa * x - low;
        });
}

TEST(MechanismGaps, BallDroppedStraightOnMeshCubeLeavesStraightUp) {
  const testing::TempDir dir;
  const std::string xml =
      std::string("<mujoco>\n  <asset><mesh name=\"cube\" vertex=\"") + kCube +
      "\"/></asset>\n  <worldbody>\n"
      "    <body name=\"block\" pos=\"0 0 0.5\"><geom name=\"cube\" type=\"mesh\" mesh=\"cube\"/></body>\n"
      "    <body name=\"ball\" pos=\"0.13 -0.07 1.1\"><freejoint name=\"j\"/>"
      "<geom name=\"ball\" type=\"sphere\" size=\"0.1\"/></body>\n  </worldbody>\n</mujoco>\n";
  const std::string file = dir / "drop.xml";
  std::ofstream(file) << xml;
  MechanismSpec spec;
  spec.file = file;
  spec.contacts = {{"ball", "cube"}};
  spec.place = {"qpos.j[2]"};
  const MujocoMechanism mechanism(spec);
  auto ws = mechanism.make_workspace();
  ParameterSet params;
  params.set("qvel.j[2]", -2.0);
  params.set("restitution", 1.0);
  const MechanismState state = mechanism.state_from(params);
  const ImpactProblem problem = mechanism.make_problem(state, *ws);
  ImpactWorkspace impact;
  ResolveOptions options;
  const ImpactResolution res = resolve_impact(problem, options, impact);
  ASSERT_GE(res.outcome_count, 1);
  // The ball's momentum after: straight up (its linear part ∝ (0, 0, 1), no spin).
  const auto& p = impact.outcomes.items[0].momentum;
  const Vec3 linear(p[0], p[1], p[2]);
  EXPECT_LE(angle(linear, Vec3::UnitZ()), 1e-9) << "leaves along " << linear.normalized().transpose();
  EXPECT_LE(Vec3(p[3], p[4], p[5]).norm(), 1e-9 * linear.norm());
}

TEST(MechanismGaps, HeightfieldPairIsRefusedNamingTheContact) {
  const testing::TempDir dir;
  const std::string xml =
      "<mujoco>\n  <asset><hfield name=\"ground\" nrow=\"3\" ncol=\"3\" size=\"1 1 0.1 0.1\"/></asset>\n"
      "  <worldbody>\n    <geom name=\"terrain\" type=\"hfield\" hfield=\"ground\"/>\n"
      "    <body name=\"B\" pos=\"0 0 1\"><freejoint/><geom name=\"ball\" type=\"sphere\" "
      "size=\"0.1\"/></body>\n"
      "  </worldbody>\n</mujoco>\n";
  const std::string file = dir / "hfield.xml";
  std::ofstream(file) << xml;
  MechanismSpec spec;
  spec.file = file;
  spec.contacts = {{"ball", "terrain"}};
  const MujocoMechanism mechanism(spec);
  auto ws = mechanism.make_workspace();
  MechanismState state = mechanism.state_from(ParameterSet());
  MechanismEvaluation e;
  try {
    mechanism.evaluate(state, state.qpos, *ws, e);
    FAIL() << "a heightfield gap was returned";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field(), "mechanism.contacts[0]");
    EXPECT_NE(std::string(error.what()).find("hfield"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace simpact
