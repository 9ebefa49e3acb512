#include "simpact/io/config_expression.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "simpact/core/input_error.hpp"

namespace simpact {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kE = 2.71828182845904523536;
// Every '(', 'sqrt(' and sign recurses: a cap on the nesting keeps hostile text ("((((...", a
// few ten thousand deep) from overflowing the stack. No real config comes near it.
constexpr int kMaxNesting = 200;

class ExpressionParser {
 public:
  ExpressionParser(std::string_view text, const std::string& field) : text_(text), field_(field) {}

  double parse() {
    skip_space();
    if (pos_ == text_.size()) fail_plain("empty value: expected a number or an expression");
    const double value = expr();
    skip_space();
    if (pos_ != text_.size()) fail(fmt::format("unexpected '{}'", text_[pos_]));
    if (!std::isfinite(value)) fail_plain(fmt::format("'{}' is not finite", text_));
    return value;
  }

 private:
  double expr() {
    const Nesting nesting = nest();
    double value = term();
    for (;;) {
      skip_space();
      if (accept('+')) {
        value += term();
      } else if (accept('-')) {
        value -= term();
      } else {
        return value;
      }
    }
  }

  double term() {
    double value = unary();
    for (;;) {
      skip_space();
      if (accept('*')) {
        value *= unary();
      } else if (accept('/')) {
        const std::size_t at = pos_;
        const double divisor = unary();
        if (divisor == 0.0) fail_at(at, "division by zero");
        value /= divisor;
      } else {
        return value;
      }
    }
  }

  double unary() {
    skip_space();
    if (accept('-')) {
      const Nesting nesting = nest();
      return -unary();
    }
    if (accept('+')) {
      const Nesting nesting = nest();
      return unary();
    }
    return atom();
  }

  double atom() {
    skip_space();
    if (pos_ == text_.size()) fail("expected a number, pi, e, sqrt(...) or '('");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      const double value = expr();
      expect_close();
      return value;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
      const std::string_view name = text_.substr(start, pos_ - start);
      if (name == "pi") return kPi;
      if (name == "e") return kE;
      if (name == "sqrt") {
        skip_space();
        if (!accept('(')) fail("expected '(' after sqrt");
        const std::size_t at = pos_;
        const double arg = expr();
        expect_close();
        if (arg < 0.0) fail_at(at, "sqrt of a negative number");
        return std::sqrt(arg);
      }
      fail_at(start, fmt::format("unknown name '{}' (allowed: pi, e, sqrt)", name));
    }
    fail(fmt::format("unexpected '{}'", c));
  }

  // A decimal literal; parsed by strtod on an exact copy so "1e-3" means what C++ means.
  double number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      std::size_t n = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_, ++n;
      return n;
    };
    std::size_t n = digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      n += digits();
    }
    if (n == 0) fail_at(start, "expected digits");
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      // An exponent only if digits follow; otherwise leave 'e' for the caller to reject.
      std::size_t look = pos_ + 1;
      if (look < text_.size() && (text_[look] == '+' || text_[look] == '-')) ++look;
      if (look < text_.size() && std::isdigit(static_cast<unsigned char>(text_[look]))) {
        pos_ = look;
        digits();
      }
    }
    const std::string literal(text_.substr(start, pos_ - start));
    return std::strtod(literal.c_str(), nullptr);
  }

  // One level of recursion, undone when it returns.
  struct Nesting {
    int& depth;
    ~Nesting() { --depth; }
  };
  Nesting nest() {
    if (++depth_ > kMaxNesting) fail(fmt::format("nested more than {} levels deep", kMaxNesting));
    return Nesting{depth_};
  }

  void expect_close() {
    skip_space();
    if (!accept(')')) fail("expected ')'");
  }
  bool accept(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  [[noreturn]] void fail(const std::string& why) const { fail_at(pos_, why); }
  [[noreturn]] void fail_at(std::size_t at, const std::string& why) const {
    const std::string where =
        at >= text_.size() ? std::string("at the end") : fmt::format("at column {}", at + 1);
    throw InputError(field_, fmt::format("invalid expression '{}': {} {}", text_, why, where));
  }
  [[noreturn]] void fail_plain(const std::string& why) const { throw InputError(field_, why); }

  std::string_view text_;
  const std::string& field_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

double evaluate_expression(std::string_view text, const std::string& field) {
  return ExpressionParser(text, field).parse();
}

}  // namespace simpact
