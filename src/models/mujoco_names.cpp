#include "simpact/models/mujoco_names.hpp"

#include <mujoco/mujoco.h>

namespace simpact {

const char* mujoco_joint_type_name(int type) {
  switch (type) {
    case mjJNT_FREE:
      return "free";
    case mjJNT_BALL:
      return "ball";
    case mjJNT_SLIDE:
      return "slide";
    default:
      return "hinge";
  }
}

const char* mujoco_geom_type_name(int type) {
  static const char* names[] = {"plane",     "hfield",   "sphere", "capsule",
                                "ellipsoid", "cylinder", "box",    "mesh"};
  return type >= 0 && type < 8 ? names[type] : "other";
}

}  // namespace simpact
