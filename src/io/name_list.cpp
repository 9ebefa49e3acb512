#include "name_list.hpp"  // private to io/ (not installed)

namespace simpact::detail {

std::string join(const Names& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace simpact::detail
