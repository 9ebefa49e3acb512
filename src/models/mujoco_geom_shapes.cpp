// MuJoCo's geoms as convex shapes for models/convex_distance, and where MuJoCo 2.2.2's own
// distance is exact enough to keep (pair_distance in mujoco_mechanism.cpp).
#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "convex_distance.hpp"

namespace simpact {

namespace {
using Vec3 = Eigen::Vector3d;
using Kind = ConvexShape::Kind;
}  // namespace

bool mujoco_distance_is_exact(const mjModel* m, const mjData* d, int g1, int g2) {
  const int type1 = m->geom_type[g1], type2 = m->geom_type[g2];
  if (type1 == mjGEOM_PLANE) return type2 != mjGEOM_HFIELD;
  const bool round1 = type1 == mjGEOM_SPHERE || type1 == mjGEOM_CAPSULE;
  // Capsule–capsule is not: for (nearly) parallel segments MuJoCo 2.2.2's distance depends on the
  // margin (two touching parallel capsules: 0.339 m at a margin of 1 m, 0 at 0.1 m).
  if (type1 == mjGEOM_CAPSULE && type2 == mjGEOM_CAPSULE) return false;
  if (round1 && (type2 == mjGEOM_SPHERE || type2 == mjGEOM_CAPSULE)) return true;
  if (!round1 || type2 != mjGEOM_BOX) return false;
  // The sphere's centre or the capsule's segment against the box, in the box's frame (slabs).
  Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>> box_axes(d->geom_xmat + 9 * g2);
  const Vec3 box_centre(d->geom_xpos + 3 * g2), centre(d->geom_xpos + 3 * g1);
  const Vec3 half(m->geom_size + 3 * g2);
  const Vec3 p = box_axes.transpose() * (centre - box_centre);
  Vec3 e = Vec3::Zero();
  if (type1 == mjGEOM_CAPSULE) {
    Eigen::Map<const Eigen::Matrix<mjtNum, 3, 3, Eigen::RowMajor>> axes(d->geom_xmat + 9 * g1);
    e = m->geom_size[3 * g1 + 1] * (box_axes.transpose() * axes.col(2));
  }
  double lo = -1.0, hi = 1.0;  // p + t·e, t in [lo, hi], inside every slab
  for (int i = 0; i < 3; ++i) {
    if (e[i] == 0) {
      if (std::abs(p[i]) > half[i]) return true;
      continue;
    }
    double t0 = (-half[i] - p[i]) / e[i], t1 = (half[i] - p[i]) / e[i];
    if (t0 > t1) std::swap(t0, t1);
    lo = std::max(lo, t0);
    hi = std::min(hi, t1);
  }
  return lo > hi;  // the core misses the box
}

ConvexShape geom_shape(const mjModel* m, const mjData* d, int g) {
  ConvexShape s;
  const mjtNum* size = m->geom_size + 3 * g;
  for (int i = 0; i < 3; ++i) {
    s.centre[i] = d->geom_xpos[3 * g + i];
    for (int j = 0; j < 3; ++j) s.axes(i, j) = d->geom_xmat[9 * g + 3 * i + j];
  }
  switch (m->geom_type[g]) {
    case mjGEOM_SPHERE:
      s.kind = Kind::kPoint;
      s.radius = size[0];
      break;
    case mjGEOM_CAPSULE:
      s.kind = Kind::kSegment;
      s.radius = size[0];
      s.size = Vec3(0, size[1], 0);
      break;
    case mjGEOM_ELLIPSOID:
      s.kind = Kind::kEllipsoid;
      s.size = Vec3(size[0], size[1], size[2]);
      break;
    case mjGEOM_CYLINDER:
      s.kind = Kind::kCylinder;
      s.size = Vec3(size[0], size[1], 0);
      break;
    case mjGEOM_BOX:
      s.kind = Kind::kPolytope;
      for (int i = 0; i < 8; ++i) {
        const Vec3 local((i & 1 ? 1 : -1) * size[0], (i & 2 ? 1 : -1) * size[1], (i & 4 ? 1 : -1) * size[2]);
        s.vertices.push_back(s.centre + s.axes * local);
      }
      // Vertex i has bit b set where its coordinate b is +: each face fixes one bit.
      for (int bit = 0; bit < 3; ++bit)
        for (int value = 0; value < 2; ++value) {
          int corner[4], n = 0;
          for (int i = 0; i < 8; ++i)
            if (((i >> bit) & 1) == value) corner[n++] = i;
          // corner[0..3] holds the other two bits as 00, 01, 10, 11: triangles 0-1-3 and 0-3-2.
          s.faces.push_back({corner[0], corner[1], corner[3]});
          s.faces.push_back({corner[0], corner[3], corner[2]});
        }
      break;
    case mjGEOM_MESH: {
      s.kind = Kind::kPolytope;
      const int mesh = m->geom_dataid[g];
      const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
      for (int i = 0; i < m->mesh_vertnum[mesh]; ++i) {
        const Vec3 local(vert[3 * i], vert[3 * i + 1], vert[3 * i + 2]);
        s.vertices.push_back(s.centre + s.axes * local);
      }
      // The convex hull MuJoCo computed (mesh_graph: numvert, numface, vert_edgeadr[numvert],
      // vert_globalid[numvert], edge_localid[numvert + 3·numface], face_globalid[3·numface]).
      if (const int adr = m->mesh_graphadr[mesh]; adr >= 0) {
        const int* graph = m->mesh_graph + adr;
        const int numvert = graph[0], numface = graph[1];
        const int* face = graph + 2 + 3 * numvert + 3 * numface;
        for (int f = 0; f < numface; ++f) s.faces.push_back({face[3 * f], face[3 * f + 1], face[3 * f + 2]});
      }
      break;
    }
    default:
      break;
  }
  return s;
}

ConvexDistance geom_distance(const mjModel* m, const mjData* d, int g1, int g2) {
  return convex_distance(geom_shape(m, d, g1), geom_shape(m, d, g2));
}

}  // namespace simpact
