// A list of allowed names (config keys, JSON fields) and its one-line rendering for messages
// (io/ only; not installed). Defined once, in name_list.cpp: an inline copy in another header
// was a second, different definition of the same function (an ODR violation).
#pragma once

#include <string>
#include <vector>

namespace simpact::detail {

using Names = std::vector<std::string>;

// "a, b, c".
std::string join(const Names& names);

}  // namespace simpact::detail
