// A mechanism file loaded for a test, shared by every thread of it (read-only).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simpact/models/mujoco_mechanism.hpp"

namespace simpact::testing {

inline std::shared_ptr<const MujocoMechanism> load_mechanism(
    const std::string& file, std::vector<std::pair<std::string, std::string>> contacts = {}) {
  MechanismSpec spec;
  spec.file = file;
  spec.contacts = std::move(contacts);
  return std::make_shared<const MujocoMechanism>(spec);
}

}  // namespace simpact::testing
