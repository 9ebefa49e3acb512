// MuJoCo's joint and geom type codes (mjtJoint, mjtGeom) as the words simpact prints: one table for
// the mechanism layer and the engine audit.
#pragma once

namespace simpact {

const char* mujoco_joint_type_name(int type);  // free, ball, slide, hinge
const char* mujoco_geom_type_name(int type);   // plane, hfield, sphere, capsule, ..., "other"

}  // namespace simpact
