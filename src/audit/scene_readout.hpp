// What an engine scene can report beyond its velocities (private to audit/): the configuration
// in the mechanism's qpos order, so that the run can tell a contact that has separated (its gap
// φ_i > 0) from one still pressed, and the smooth (non-contact) forces' generalized impulse
// accumulated over the steps taken. The MuJoCo scene has both; an adapter without them is
// judged on velocities alone (engine_run.cpp).
#pragma once

#include <Eigen/Core>

namespace simpact {

class SceneReadout {
 public:
  virtual ~SceneReadout() = default;
  virtual void read_qpos(Eigen::VectorXd& qpos) const = 0;
  // Σ qfrc_smooth·dt over the steps taken (gravity, passive, actuator and applied forces).
  virtual void read_smooth_impulse(Eigen::VectorXd& impulse) const = 0;
};

}  // namespace simpact
