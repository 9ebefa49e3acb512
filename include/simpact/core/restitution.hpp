// Inelastic impacts (Sec. III-A): p⁺ = α p_e + (1−α) p_p, eq. (17), with α chosen so that the
// energy-based restitution of eq. (16) holds exactly:
//   R² = 1 − ΔE/E_p,  ΔE = ½||p⁻||² − ½||p⁺||²,  E_p = ½||p⁻||² − ½||p_p||²  (the energy a
//   plastic impact loses; the paper's "E_p = ½||p_p||²" is an erratum).
// Then ||p⁺||² = ||p_p||² + R²(||p_e||² − ||p_p||²). When <p_p,p_e>_g = ||p_p||² (eq. 18: every
// contact stays active) this gives α = R — the printed α = √(1−R²) is an erratum (it makes
// R = 0 elastic). Otherwise α is the root in [0,1] of the quadratic in α.
#pragma once

namespace simpact {

// e = ||p_e||²_g, p = ||p_p||²_g, x = <p_e,p_p>_g (all [kg²m²/s² per kg], i.e. 2·[J]).
double restitution_alpha(double restitution, double e, double p, double x);

}  // namespace simpact
