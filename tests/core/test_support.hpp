// Fixtures shared by the core and model tests: random symmetric positive definite systems and
// an assertion that an InputError names a given field.
#pragma once

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <string>

#include "simpact/core/input_error.hpp"

namespace simpact::testing {

// AᵀA + dI: symmetric positive definite, condition number modest.
inline Eigen::MatrixXd random_spd(int d, std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  Eigen::MatrixXd a(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) a(i, j) = normal(gen);
  return a.transpose() * a + d * Eigen::MatrixXd::Identity(d, d);
}

// Standard normal entries.
inline Eigen::VectorXd random_vector(int d, std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  Eigen::VectorXd v(d);
  for (int i = 0; i < d; ++i) v[i] = normal(gen);
  return v;
}

// k random normals (standard normal entries), one per row.
inline Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> random_normals(
    int k, int d, std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> n(k, d);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < d; ++j) n(i, j) = normal(gen);
  return n;
}

// Expects `fn` to throw InputError whose field() is `field` and whose one-line message starts
// with "FIELD: ".
template <typename Fn>
void expect_input_error(Fn&& fn, const std::string& field) {
  try {
    fn();
    ADD_FAILURE() << "expected InputError naming " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(field + ": ", 0), 0u) << e.what();  // "FIELD: message"
  }
}

}  // namespace simpact::testing
