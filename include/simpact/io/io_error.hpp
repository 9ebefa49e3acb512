// The one exception type of the io layer: a failed file operation. The message is one line
// that names the file and the object (dataset, group, attribute) involved.
#pragma once

#include <stdexcept>
#include <string>

namespace simpact {

class IoError : public std::runtime_error {
 public:
  explicit IoError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace simpact
