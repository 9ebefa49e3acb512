// The whole `simpact design`: parse the JSON request (io), place the robot so both contacts touch
// (the "initial" row), solve for g-orthogonal contact normals (models/impact_design: the
// "optimized" row), and report both rows. Bad input throws InputError naming the field.
#pragma once

#include <string>

#include "simpact/io/design_json.hpp"

namespace simpact {

struct DesignRun {
  DesignRequest request;
  DesignReport report;
};

DesignRun run_design(const std::string& json_text, const std::string& base_dir = "");

}  // namespace simpact
