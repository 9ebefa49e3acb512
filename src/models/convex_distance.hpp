// The signed distance of two convex shapes to round-off, with its normal and a witness point,
// for the geom pairs MuJoCo 2.2.2 only approximates (models/ only, not installed).
//
// MuJoCo collides ellipsoids, cylinders and meshes (except against a plane) with libccd's MPR on
// shapes inflated by the margin: its distance is off by up to a few mm at the margins a
// mechanism needs, and its normal by as much. Here the distance is the dual of the closest-point
// problem,
//     φ = max over unit n of F(n),   F(n) = −h_a(n) − h_b(−n),
// where h_s(n) = max over x in s of n·x is the support function [m] and n points from the first
// shape to the second. Every F(n) is a lower bound on φ; for separated shapes φ is the distance,
// for overlapping ones minus the penetration depth (the shortest translation that separates
// them). The maximizer's active features (a vertex, an edge, a face, an ellipsoid point, a
// cylinder's rim, side or cap) make F smooth on a circle or a sphere of directions or fix n;
// Newton's method solves each candidate combination to round-off, and the optimality condition
// φ·n ∈ S_b(−n) − S_a(n) (S: the support sets) certifies the answer. A shape is a core (a point,
// a segment, an ellipsoid, a cylinder, the hull of points) inflated by a radius: MuJoCo's sphere
// is a point and its radius, a capsule a segment and its radius.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

struct mjModel_;
struct mjData_;

namespace simpact {

struct ConvexShape {
  enum class Kind { kPoint, kSegment, kEllipsoid, kCylinder, kPolytope };
  Kind kind = Kind::kPoint;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  // Columns: the shape's axes in world coordinates (a segment's and a cylinder's axis is the third).
  Eigen::Matrix3d axes = Eigen::Matrix3d::Identity();
  // Ellipsoid: semi-axes; cylinder: (radius, half-height, −); segment: (−, half-length, −) [m].
  Eigen::Vector3d size = Eigen::Vector3d::Zero();
  double radius = 0.0;                    // inflation [m]
  std::vector<Eigen::Vector3d> vertices;  // polytope: world coordinates [m]
  // Polytope: the hull's triangles (indices into vertices), when known: their normals and edges
  // are candidates around a supporting vertex.
  std::vector<std::array<int, 3>> faces;

  // h(d) for a unit d [m].
  double support(const Eigen::Vector3d& d) const;
  // The shape's extent around its centre [m]: what tolerances scale with.
  double length_scale() const;
};

struct ConvexDistance {
  bool resolved = false;                             // false: no candidate could be certified
  double dist = 0.0;                                 // φ [m]
  Eigen::Vector3d pos = Eigen::Vector3d::Zero();     // midway between the two surfaces [m]
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();  // from a to b, unit
};

// φ, its normal (from a to b) and witness.
ConvexDistance convex_distance(const ConvexShape& a, const ConvexShape& b);

// MuJoCo's side. True where MuJoCo 2.2.2's function for geoms g1, g2 (type1 ≤ type2) is exact
// at d's kinematics: a plane against anything convex; sphere–sphere and sphere–capsule (not
// capsule–capsule: wrong for parallel segments at a large margin); a sphere or a capsule against
// a box while its point or segment stays outside the box (MuJoCo's box–box, and
// its sphere–box and capsule–box deeper than that, are not).
bool mujoco_distance_is_exact(const mjModel_* m, const mjData_* d, int g1, int g2);
// Geom g's shape at d's kinematics (sphere, capsule, ellipsoid, cylinder, box or mesh).
ConvexShape geom_shape(const mjModel_* m, const mjData_* d, int g);
// φ of geoms g1, g2 at d's kinematics, the normal from g1 to g2. resolved = false when no
// answer could be certified.
ConvexDistance geom_distance(const mjModel_* m, const mjData_* d, int g1, int g2);

}  // namespace simpact
