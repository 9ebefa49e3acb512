// The adapters, each compiled only when its package was found (engine_catalog.cpp lists them).
#pragma once

#include <memory>

#include "simpact/audit/physics_engine.hpp"

namespace simpact {

std::unique_ptr<PhysicsEngine> make_mujoco_engine();
std::unique_ptr<PhysicsEngine> make_bullet_engine();
std::unique_ptr<PhysicsEngine> make_ode_engine();

}  // namespace simpact
