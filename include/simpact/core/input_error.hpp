// The one exception type for bad input: names the offending field so every front end
// (JSON, YAML, command line) can print one line "FIELD: what is allowed".
#pragma once

#include <stdexcept>
#include <string>

namespace simpact {

class InputError : public std::runtime_error {
 public:
  InputError(std::string field, const std::string& message)
      : std::runtime_error(field + ": " + message), field_(std::move(field)) {}
  const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

}  // namespace simpact
