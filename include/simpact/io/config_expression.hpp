// Numeric config fields may be written as small expressions ("pi/3", "(pi - 0.1)/2", "1e-3"),
// because angles and ratios are natural to write that way and decimal copies lose digits.
// Grammar (a tiny recursive-descent parser, no variables, no side effects):
//   expr   := term (('+' | '-') term)*
//   term   := unary (('*' | '/') unary)*
//   unary  := ('-' | '+') unary | atom
//   atom   := NUMBER | 'pi' | 'e' | 'sqrt' '(' expr ')' | '(' expr ')'
// NUMBER is a decimal literal with optional fraction and exponent (1, 0.5, .5, 1e-3, 2.5E+4).
#pragma once

#include <string>
#include <string_view>

namespace simpact {

// The value of `text`; throws InputError(field, ...) naming the field, the text and the column
// of the problem when `text` is not a valid expression or its value is not finite.
double evaluate_expression(std::string_view text, const std::string& field);

}  // namespace simpact
