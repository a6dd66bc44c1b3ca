// Deterministic pseudo-random numbers for the simulator. Every random choice in src/sim goes
// through these generators so that one seed reproduces a run bit for bit on every platform
// (std::random_device and the std:: distributions are implementation-defined, so unused).
//
//   SplitMix64   seeding and stateless hashing of (seed, index) pairs.
//   Xoshiro256   xoshiro256** stream generator, seeded through SplitMix64.
//
// Thread-safety: values; one generator per thread.
#pragma once

#include <cmath>
#include <cstdint>

namespace trimtab::sim {

// One SplitMix64 step: a bijective mix of a 64-bit value.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A stateless hash of (seed, index): the same pair always gives the same value. Used where a
// random value must not depend on evaluation order (noise profiles sampled at arbitrary times).
constexpr uint64_t HashPair(uint64_t seed, uint64_t index) { return Mix64(Mix64(seed) ^ index); }

// Uniform double in [0, 1) from the top 53 bits.
constexpr double ToUnitDouble(uint64_t bits) {
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

// A standard normal value from two independent 64-bit words (Box-Muller, cosine branch).
inline double GaussianFromBits(uint64_t a, uint64_t b) {
  const double u1 = 1.0 - ToUnitDouble(a);  // (0, 1]
  const double u2 = ToUnitDouble(b);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// An approximately standard normal value from one 64-bit word: the Irwin-Hall sum of four
// 16-bit uniforms, centred and scaled to variance 1. Bounded at +-3.46; about 10x cheaper than
// Box-Muller, which matters for noise sampled at every simulation step.
constexpr double ApproxGaussianFromBits(uint64_t bits) {
  // Each 16-bit term is uniform on [0, 65535]: mean 32767.5, variance (65536^2 - 1) / 12.
  const uint64_t sum = (bits & 0xFFFF) + ((bits >> 16) & 0xFFFF) + ((bits >> 32) & 0xFFFF) + (bits >> 48);
  return (static_cast<double>(sum) - 131070.0) * (1.7320508075688772 / 65535.99999618530);
}

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    uint64_t x = seed;
    for (uint64_t& word : s_) {
      x += 0x9e3779b97f4a7c15ULL;
      word = Mix64(x);
    }
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  double Uniform() { return ToUnitDouble(Next()); }
  // Uniform integer in [0, n). REQUIRES: n > 0.
  uint64_t Below(uint64_t n) { return Next() % n; }
  double Gaussian() { return GaussianFromBits(Next(), Next()); }

 private:
  static constexpr uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace trimtab::sim
