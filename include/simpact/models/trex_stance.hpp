// The TREX stances Fig. 8 starts from: double touchdown (right foot and tail tip at the same
// height, so the held stance dropped straight down hits both at once) and the orthogonal one
// (double touchdown with <Dφ_R, Dφ_T>_g = 0, a quick 2×2 Newton — `simpact design` does the
// general, bounded version). Kinematics only: the gait runs are integrate/trex_gait.hpp.
#pragma once

#include "simpact/models/trex_model.hpp"

namespace simpact {

double trex_normalized_product(const TrexDesign& design, const DofVector& q);
DofVector trex_double_touchdown(const TrexDesign& design, DofVector stance);
DofVector trex_orthogonal_touchdown(const TrexDesign& design, DofVector stance);

}  // namespace simpact
