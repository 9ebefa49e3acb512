#!/usr/bin/env python3
"""Writes examples/mechanisms/trex.xml: the built-in planar TREX (src/models/trex_geometry.cpp,
docs/trex.md) as an MJCF file at one fixed design row, with the Fig. 8 joint laws of the given
stance as MuJoCo joint springs and dampers.

    /usr/bin/python3 examples/mechanisms/trex_mjcf.py > examples/mechanisms/trex.xml
    /usr/bin/python3 examples/mechanisms/trex_mjcf.py --gait initial \
        > examples/mechanisms/trex_initial_gait.xml

Defaults: Table I's optimized design (r1, r2, l_u, l_l = 6.69, 4.22, 7.81, 9.86 cm) and the
stance of Fig. 8's optimized gait (trex_orthogonal_touchdown of Table I's optimized row) or
initial gait (straight knees, legs 180 deg apart, double touchdown), as `simpact simulate` of the
`trex` model with gait 2 or 1 prints them at step 0. Every mass and inertia is the built-in's
closed form (spheres of 1000 kg/m3, limbs of 0.25 kg/m), written with 17 significant digits.
"""
import argparse
import math


# phi_L, gamma_L, phi_R, gamma_R, phi_T of Fig. 8's two gaits [rad].
STANCES = {
    "optimized": [5.532315105672551, 5.71, 3.592315105672551, 5.67, 0.34361049442529457],
    "initial": [5.702065730568393, 0.0, 2.5604730769785995, 0.0, -0.19],
}


def tail_length(r1, r2):
    num = r1 * r1 * r1 + r1 * r1 * r2 + math.sqrt(2.0) * math.sqrt(
        r1 * r1 * r1 * r1 * r2 * r2 + r1 * r1 * r1 * r2 * r2 * r2)
    return num / (r1 * r1 - r2 * r2) - (r1 + r2)


def g(x):
    return repr(float(x))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", nargs=4, type=float, default=[0.0669, 0.0422, 0.0781, 0.0986],
                    metavar=("R1", "R2", "L_U", "L_L"), help="design row [m]")
    ap.add_argument("--gait", choices=sorted(STANCES), default="optimized",
                    help="Fig. 8 gait whose stance the springs hold")
    ap.add_argument("--stance", nargs=5, type=float,
                    metavar=("PHI_L", "GAMMA_L", "PHI_R", "GAMMA_R", "PHI_T"),
                    help="spring rest angles [rad] (instead of --gait's)")
    ap.add_argument("--foot-radius", type=float, default=1e-3,
                    help="radius of the contact spheres [m]; the floor is lowered by it")
    a = ap.parse_args()
    r1, r2, lu, ll = a.design
    phi_l, gamma_l, phi_r, gamma_r, phi_t = a.stance or STANCES[a.gait]
    run = ("build/simpact run configs/trex_file_fig8.yaml -o results/trex_file_fig8.h5"
           if a.gait == "optimized" and not a.stance else
           "build/simpact simulate (a mechanism request with this file, q0 = the stance)")
    held = f"stance {' '.join(g(x) for x in (phi_l, gamma_l, phi_r, gamma_r, phi_t))}" if a.stance \
        else f"Fig. 8 {a.gait} gait's stance"
    lt = tail_length(r1, r2)
    limb = 2000.0 * 1.25e-4
    m1 = 1000.0 * 4.0 / 3.0 * math.pi * r1 ** 3
    m2 = 1000.0 * 4.0 / 3.0 * math.pi * r2 ** 3
    i1, i2 = 0.4 * m1 * r1 * r1, 0.4 * m2 * r2 * r2
    mt, mu, ml = limb * lt, limb * lu, limb * ll
    it, iu, il = mt * lt * lt / 12.0, mu * lu * lu / 12.0, ml * ll * ll / 12.0
    rf = a.foot_radius

    def inertial(pos, m, i):
        return f'<inertial pos="{pos}" mass="{g(m)}" diaginertia="{g(i)} {g(i)} {g(i)}"/>'

    def leg(side, phi, gamma):
        return f"""      <body name="thigh_{side}" pos="0 0 0">
        <joint name="phi_{side}" type="hinge" axis="0 0 1" stiffness="100000" damping="10000" springref="{g(phi)}"/>
        {inertial(f"{g(-0.5 * lu)} 0 0", mu, iu)}
        <body name="shank_{side}" pos="{g(-lu)} 0 0">
          <joint name="gamma_{side}" type="hinge" axis="0 0 1" stiffness="20" damping="0.2" springref="{g(gamma)}"/>
          {inertial(f"{g(-0.5 * ll)} 0 0", ml, il)}
          <geom name="foot_{side}" type="sphere" pos="{g(-ll)} 0 0" size="{g(rf)}"/>
        </body>
      </body>"""

    print(f"""<!-- TREX, the planar tailed biped of Seghete & Murphey Sec. VII-B, as the built-in `trex`
     (docs/trex.md "TREX from a file"), written by examples/mechanisms/trex_mjcf.py.
     build/simpact models examples/mechanisms/trex.xml
     {run}
     Design row: r1 = {g(r1)}, r2 = {g(r2)}, l_u = {g(lu)}, l_l = {g(ll)} m (Table I optimized),
     tail length {g(lt)} m, total mass {g(m1 + m2 + mt + 2 * mu + 2 * ml)} kg.
     Plane x-y, gravity along -y; qpos = [x, y, theta, phi_L, gamma_L, phi_R, gamma_R, phi_T] in the
     built-in's order and meaning. Contacts: [floor, foot_L], [floor, foot_R], [floor, tail_tip]:
     spheres of radius {g(rf)} m on the points, the floor lowered by the same radius, so the gaps
     are the points' heights. Joint springs/dampers: the Fig. 8 laws held at
     the {held} (hips K_p = 1e5, K_v = 1e4; knees and body joint 20, 0.2); the hip reference does not
     turn (MuJoCo's passive forces are time-independent) and there is no friction. -->
<mujoco model="trex">
  <compiler angle="radian" inertiafromgeom="false"/>
  <option gravity="0 -9.81 0"/>
  <default>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" pos="0 {g(-rf)} 0" zaxis="0 1 0" size="0 0 1"/>
    <body name="anterior" pos="0 0 0">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="theta" type="hinge" axis="0 0 1"/>
      {inertial("0 0 0", m1, i1)}
      <geom name="anterior" type="sphere" size="{g(r1)}"/>
{leg("L", phi_l, gamma_l)}
{leg("R", phi_r, gamma_r)}
      <body name="posterior" pos="{g(r1 + r2)} 0 0">
        <joint name="phi_T" type="hinge" axis="0 0 1" stiffness="20" damping="0.2" springref="{g(phi_t)}"/>
        {inertial("0 0 0", m2, i2)}
        <geom name="posterior" type="sphere" size="{g(r2)}"/>
        <body name="tail" pos="0 0 0">
          {inertial(f"{g(0.5 * lt)} 0 0", mt, it)}
          <geom name="tail_tip" type="sphere" pos="{g(lt)} 0 0" size="{g(rf)}"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>""")


if __name__ == "__main__":
    main()
