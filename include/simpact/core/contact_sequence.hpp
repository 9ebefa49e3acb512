// A sequence of contact indices w_1, w_2, … whose reset maps are applied in order (eq. 14).
#pragma once

#include <array>
#include <cstdint>

namespace simpact {

inline constexpr int kMaxStoredSequenceLength = 48;

// One byte per index: the reason the dynamic path stops at kMaxDynamicContacts = 255 contacts.
struct ContactSequence {
  std::array<std::uint8_t, kMaxStoredSequenceLength> contacts{};  // closed-contact indices
  int length = 0;  // full length; only the first kMaxStoredSequenceLength are stored

  bool truncated() const { return length > kMaxStoredSequenceLength; }
  int stored() const { return length < kMaxStoredSequenceLength ? length : kMaxStoredSequenceLength; }
  void push(int contact) {
    if (length < kMaxStoredSequenceLength) contacts[length] = static_cast<std::uint8_t>(contact);
    ++length;
  }
  void pop() { --length; }
};

}  // namespace simpact
