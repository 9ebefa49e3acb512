// Expressions in numeric config fields: the values they mean and the errors that name the field.
#include "simpact/io/config_expression.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.14159265358979323846;

double eval(const std::string& text) {
  return evaluate_expression(text, "grid.theta.start");
}

std::string error_of(const std::string& text) {
  try {
    eval(text);
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "grid.theta.start");
    return e.what();
  }
  ADD_FAILURE() << "accepted '" << text << "'";
  return "";
}

TEST(ConfigExpression, Numbers) {
  EXPECT_EQ(eval("1"), 1.0);
  EXPECT_EQ(eval("0.5"), 0.5);
  EXPECT_EQ(eval(".5"), 0.5);
  EXPECT_EQ(eval("5."), 5.0);
  EXPECT_EQ(eval("1e-3"), 1e-3);
  EXPECT_EQ(eval("2.5E+4"), 2.5e4);
  EXPECT_EQ(eval("  7 "), 7.0);
  EXPECT_EQ(eval("0.1"), 0.1);  // correctly rounded, as the C++ literal
}

TEST(ConfigExpression, ConstantsOperatorsAndPrecedence) {
  EXPECT_EQ(eval("pi"), kPi);
  EXPECT_EQ(eval("e"), std::exp(1.0));
  EXPECT_EQ(eval("pi/3"), kPi / 3);
  EXPECT_EQ(eval("2*pi/3"), 2 * kPi / 3);
  EXPECT_EQ(eval("(pi - 0.1)/2"), (kPi - 0.1) / 2);
  EXPECT_EQ(eval("1 + 2 * 3"), 7.0);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9.0);
  EXPECT_EQ(eval("8 / 4 / 2"), 1.0);  // left associative
  EXPECT_EQ(eval("10 - 4 - 3"), 3.0);
  EXPECT_EQ(eval("-pi"), -kPi);
  EXPECT_EQ(eval("--2"), 2.0);
  EXPECT_EQ(eval("+3"), 3.0);
  EXPECT_EQ(eval("2*-3"), -6.0);
  EXPECT_EQ(eval("-2*e"), -2 * std::exp(1.0));
  EXPECT_EQ(eval("sqrt(2)"), std::sqrt(2.0));
  EXPECT_EQ(eval("sqrt( 3 ) / 2"), std::sqrt(3.0) / 2);
  EXPECT_EQ(eval("2*sqrt(pi*pi)"), 2 * kPi);
  EXPECT_EQ(eval("((((1))))"), 1.0);
}

TEST(ConfigExpression, ErrorsNameTheFieldTheTextAndTheColumn) {
  EXPECT_EQ(error_of("pi/"),
            "grid.theta.start: invalid expression 'pi/': expected a number, pi, e, sqrt(...) or "
            "'(' at the end");
  EXPECT_EQ(error_of("pie"),
            "grid.theta.start: invalid expression 'pie': unknown name 'pie' (allowed: pi, e, sqrt) "
            "at column 1");
  EXPECT_EQ(error_of("(1 + 2"), "grid.theta.start: invalid expression '(1 + 2': expected ')' at the end");
  EXPECT_EQ(error_of("1 2"), "grid.theta.start: invalid expression '1 2': unexpected '2' at column 3");
  EXPECT_EQ(error_of("2e"), "grid.theta.start: invalid expression '2e': unexpected 'e' at column 2");
  EXPECT_EQ(error_of("2^3"), "grid.theta.start: invalid expression '2^3': unexpected '^' at column 2");
  EXPECT_EQ(error_of("1/(2-2)"),
            "grid.theta.start: invalid expression '1/(2-2)': division by zero at column 3");
  EXPECT_EQ(error_of("sqrt(-1)"),
            "grid.theta.start: invalid expression 'sqrt(-1)': sqrt of a negative number at column 6");
  EXPECT_EQ(error_of("sqrt 2"),
            "grid.theta.start: invalid expression 'sqrt 2': expected '(' after sqrt at column 6");
  EXPECT_EQ(error_of(""), "grid.theta.start: empty value: expected a number or an expression");
  EXPECT_EQ(error_of("1e400"), "grid.theta.start: '1e400' is not finite");
  EXPECT_EQ(error_of("nan"),
            "grid.theta.start: invalid expression 'nan': unknown name 'nan' (allowed: pi, e, sqrt) "
            "at column 1");
}

}  // namespace
}  // namespace simpact

namespace simpact {
namespace {

// Found by fuzzing: unbounded recursion on 30 000 '(' overflowed the stack. 200 levels are
// accepted (the top level counts as one), 201 refused with an error naming the field.
TEST(ConfigExpression, NestingIsBoundedNotACrash) {
  const std::string ok = std::string(199, '(') + "1" + std::string(199, ')');  // + the top level = 200
  EXPECT_EQ(evaluate_expression(ok, "grid.theta.start"), 1.0);
  const std::string deep = std::string(201, '(') + "1" + std::string(201, ')');
  try {
    evaluate_expression(deep, "grid.theta.start");
    ADD_FAILURE() << "201 levels accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "grid.theta.start");
    EXPECT_NE(std::string(e.what()).find("nested more than 200 levels"), std::string::npos) << e.what();
  }
  EXPECT_THROW(evaluate_expression(std::string(40000, '('), "x"), InputError);
}

}  // namespace
}  // namespace simpact
