#include "simpact/models/trex_model.hpp"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "simpact/core/input_error.hpp"
#include "simpact/models/trex_stance.hpp"

namespace simpact {

std::unique_ptr<PlanarLinkage> make_trex_linkage(const TrexDesign& design, const DofVector& stance,
                                                 const TrexDrive& drive) {
  const TrexGeometry geometry(design);
  auto model = std::make_unique<PlanarLinkage>("trex", kTrexDof, drive.gravity);
  PlanarLinkage::Rows2 centre = PlanarLinkage::Rows2::Zero(2, kTrexDof);
  centre(0, kTrexX) = 1.0;
  centre(1, kTrexY) = 1.0;
  std::vector<std::pair<TrexTerm, int>> added;  // one PlanarLinkage term per distinct link term
  auto term_indices = [&](const TrexPoint& point) {
    std::vector<int> out;
    for (const TrexTerm& t : point.terms) {
      int index = -1;
      for (const auto& [seen, i] : added)
        if (seen.a == t.a && seen.d == t.d) index = i;
      if (index < 0) {
        DofVector a(kTrexDof);
        for (int j = 0; j < kTrexDof; ++j) a[j] = t.a[static_cast<std::size_t>(j)];
        index = model->add_term(a, 0.0, t.d);
        added.emplace_back(t, index);
      }
      out.push_back(index);
    }
    return out;
  };
  DofMatrix inertia = DofMatrix::Zero(kTrexDof, kTrexDof);
  for (const TrexBody& body : geometry.bodies()) {
    model->add_mass(body.mass, centre, term_indices(body.com));
    const Eigen::Map<const Eigen::Matrix<double, kTrexDof, 1>> a(body.a.data());
    inertia += body.inertia * (a * a.transpose());
  }
  model->set_rotational_inertia(inertia);
  model->set_friction(drive.friction);
  for (const TrexPoint& contact : geometry.contact_points())
    model->add_floor_contact(model->add_mass(0.0, centre, term_indices(contact)), 0.0);
  for (int knee : {kTrexKneeL, kTrexKneeR})
    model->add_joint_law({knee, drive.knee_stiffness, drive.knee_damping, stance[knee]});
  model->add_joint_law({kTrexTail, drive.body_stiffness, drive.body_damping, stance[kTrexTail]});
  for (int hip : {kTrexHipL, kTrexHipR})
    model->add_joint_law(
        {hip, drive.hip_kp, drive.hip_kv, stance[hip], drive.hip_rate, drive.drive_start, true});
  std::vector<std::string> names;
  for (const char* n : TrexGeometry::coordinate_names()) names.emplace_back(n);
  model->set_coordinate_names(names);
  return model;
}

DynamicSystem make_trex(const TrexDesign& design, const DofVector& stance, double drop, TrexDrive drive) {
  if (!(std::isfinite(drop) && drop >= 0.0)) throw InputError("drop", "must be a height >= 0 [m]");
  if (!std::isfinite(drive.drive_start)) drive.drive_start = std::sqrt(2.0 * drop / drive.gravity);
  DofVector q = stance;
  q[kTrexY] = 0.0;
  ContactVector phi;
  TrexGeometry(design).gaps(q, phi);
  q[kTrexY] = drop - phi.minCoeff();
  return DynamicSystem{make_trex_linkage(design, stance, drive), q, DofVector::Zero(kTrexDof)};
}

const std::vector<ParameterInfo>& trex_drive_parameters() {
  static const std::vector<ParameterInfo> params = [] {
    std::vector<ParameterInfo> p;
    const TrexDrive d;
    p.push_back({"drop", "m", "height of the lowest contact point above the floor at t = 0", 0.17, 0.0, 100.0,
                 false});
    p.push_back({"knee_k", "N m rad-1", "knee spring stiffness", d.knee_stiffness, 0.0, 1e9, false});
    p.push_back({"knee_c", "N m s rad-1", "knee damping", d.knee_damping, 0.0, 1e9, false});
    p.push_back({"body_k", "N m rad-1", "body joint spring stiffness", d.body_stiffness, 0.0, 1e9, false});
    p.push_back({"body_c", "N m s rad-1", "body joint damping", d.body_damping, 0.0, 1e9, false});
    p.push_back({"hip_kp", "N m rad-1", "hip PD proportional gain", d.hip_kp, 0.0, 1e12, false});
    p.push_back({"hip_kv", "N m s rad-1", "hip PD derivative gain", d.hip_kv, 0.0, 1e12, false});
    p.push_back({"hip_rate", "rad s-1", "hip reference speed (counterclockwise) after touchdown", d.hip_rate,
                 -1e3, 1e3, false});
    p.push_back({"g", "m s-2", "gravity along -y", d.gravity, 0.0, 1e6, false});
    p.push_back(
        {"mu", "1", "Coulomb friction coefficient of resting contacts", d.friction, 0.0, 10.0, false});
    p.push_back({"gait", "1",
                 "stance the robot is dropped in: 0 the stance angles as given; 1 Fig. 8's initial gait "
                 "(straight knees, phi_L = phi_R + pi, phi_R solved for double foot/tail touchdown); 2 "
                 "Fig. 8's optimized gait ((phi_R, phi_T) solved for double touchdown with g-orthogonal "
                 "contact normals)",
                 0.0, 0.0, 2.0, true});
    return p;
  }();
  return params;
}

DynamicSystem make_trex_from_parameters(const std::map<std::string, double>& v) {
  const TrexDesign design{v.at("r1"), v.at("r2"), v.at("l_u"), v.at("l_l")};
  DofVector stance = DofVector::Zero(kTrexDof);
  const auto names = TrexGeometry::coordinate_names();
  for (int i = kTrexTheta; i < kTrexDof; ++i) stance[i] = v.at(names[static_cast<std::size_t>(i)]);
  const double gait = v.at("gait");
  if (gait != 0.0 && gait != 1.0 && gait != 2.0) throw InputError("gait", "must be 0, 1 or 2");
  try {
    if (gait == 1.0) {
      stance[kTrexKneeL] = stance[kTrexKneeR] = 0.0;
      stance[kTrexHipL] = stance[kTrexHipR] + 3.14159265358979323846;
      stance = trex_double_touchdown(design, stance);
    } else if (gait == 2.0) {
      stance = trex_orthogonal_touchdown(design, stance);
    }
  } catch (const std::runtime_error& e) {
    throw InputError("gait", std::string("no such stance for this design: ") + e.what());
  }
  TrexDrive drive;
  drive.knee_stiffness = v.at("knee_k");
  drive.knee_damping = v.at("knee_c");
  drive.body_stiffness = v.at("body_k");
  drive.body_damping = v.at("body_c");
  drive.hip_kp = v.at("hip_kp");
  drive.hip_kv = v.at("hip_kv");
  drive.hip_rate = v.at("hip_rate");
  drive.gravity = v.at("g");
  drive.friction = v.at("mu");
  return make_trex(design, stance, v.at("drop"), drive);
}

}  // namespace simpact
