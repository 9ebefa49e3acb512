// SHA-256 (FIPS 180-4), used to fingerprint a sweep's config text: `--resume` refuses a file
// whose stored hash differs from the config it is given (DESIGN §4). Written here because
// OpenSSL is not a dependency; speed does not matter (configs are a few kB).
#pragma once

#include <string>
#include <string_view>

namespace simpact {

// The SHA-256 digest of `data` as 64 lowercase hexadecimal digits.
std::string sha256_hex(std::string_view data);

}  // namespace simpact
