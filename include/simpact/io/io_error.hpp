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

// An IoError of a collective call that every rank of its communicator threw alike (agreed
// before it was thrown): no rank is left in a collective, and the callers may end together.
class CollectiveIoError : public IoError {
 public:
  using IoError::IoError;
};

}  // namespace simpact
