// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), the only cryptography the local API server
// needs: it signs the service-account tokens it issues (service_account_tokens.h). Written here
// because the project links no crypto library; checked against the FIPS and RFC 4231 vectors.
//
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace trimtab::cluster::auth {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest Sha256(std::string_view data);
Sha256Digest HmacSha256(std::string_view key, std::string_view message);

// Constant-time comparison of two byte strings of the same length (false when lengths differ).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// Lower-case hex of a digest (tests, key ids).
std::string HexDigest(const Sha256Digest& digest);

}  // namespace trimtab::cluster::auth
