// The engines this build has (each is left out when its Debian package was missing at build time).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "simpact/audit/physics_engine.hpp"

namespace simpact {

// Every engine simpact knows: "mujoco", "bullet", "ode".
const std::vector<std::string>& known_engine_names();
// The ones built in: MuJoCo always, Bullet and ODE when found by CMake.
std::vector<std::string> available_engine_names();
// Throws InputError naming `field` for an unknown engine or one this build left out.
std::unique_ptr<PhysicsEngine> make_engine(const std::string& name, const std::string& field);

}  // namespace simpact
