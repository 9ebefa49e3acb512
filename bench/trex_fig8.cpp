// Fig. 8 of Seghete & Murphey for our TREX (docs/trex.md): the optimized design (Table I) dropped
// from 17 cm in two stances — "initial gait" (straight knees, legs 180° out of phase, double
// touchdown) and "optimized gait" (double touchdown with g-orthogonal contact normals) — each
// run twice (argmin / argmax), ξ(t) after every step as CSV on stdout:
//   t_after_touchdown_s, xi_initial, xi_optimized, energy_balance_initial, energy_balance_optimized
// usage: trex_fig8 [DT_S [T_AFTER_S [FORCE_SPLIT]]]   (defaults 1e-4, 0.1, 1: NewtonOptions::
// force_split, L-stable on the paper's stiff hip damping; 0.5 the symmetric midpoint, which rings
// there — docs/trex.md); scripts/trex_fig8.py plots it.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "simpact/integrate/trex_gait.hpp"

int main(int argc, char** argv) {
  using namespace simpact;
  const double dt = argc > 1 ? std::atof(argv[1]) : 1e-4;
  const double after = argc > 2 ? std::atof(argv[2]) : 0.1;
  const double split = argc > 3 ? std::atof(argv[3]) : 1.0;
  if (!(dt > 0.0 && after > 0.0 && split >= 0.5 && split <= 1.0)) {
    std::fprintf(stderr, "usage: trex_fig8 [DT_S > 0 [T_AFTER_S > 0 [FORCE_SPLIT in [0.5, 1]]]]\n");
    return 2;
  }
  const TrexTableRow row = trex_table1_optimized();
  DofVector straight = row.q;
  straight[kTrexKneeL] = straight[kTrexKneeR] = 0.0;
  straight[kTrexHipL] = straight[kTrexHipR] + 3.14159265358979323846;
  const DofVector stances[2] = {trex_double_touchdown(row.design, straight),
                                trex_orthogonal_touchdown(row.design, row.q)};
  const double drop = 0.17;
  const long steps = static_cast<long>(std::ceil((std::sqrt(2.0 * drop / 9.81) + after) / dt));
  TrexPairRun runs[2];
  for (int g = 0; g < 2; ++g) {
    runs[g] = run_trex_pair(make_trex(row.design, stances[g], drop, TrexDrive{}), dt, steps, 1.0, split);
    std::fprintf(stderr, "%s gait: normalized <u,v>_g = %.3e, touchdown %.6f s, impacts %zu / %zu\n",
                 g == 0 ? "initial" : "optimized", trex_normalized_product(row.design, stances[g]),
                 runs[g].touchdown, runs[g].impacts[0].size(), runs[g].impacts[1].size());
  }
  std::printf(
      "t_after_touchdown_s,xi_initial,xi_optimized,energy_balance_initial,energy_balance_optimized\n");
  for (std::size_t k = 0; k < runs[0].t.size(); ++k)
    std::printf("%.9g,%.17g,%.17g,%.6e,%.6e\n", runs[0].t[k] - runs[0].touchdown, runs[0].xi[k],
                runs[1].xi[k], runs[0].energy_balance[k], runs[1].energy_balance[k]);
  return 0;
}
