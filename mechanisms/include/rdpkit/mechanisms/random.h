// Uniform random bits for the samplers: a seeded, reproducible generator (xoshiro256++) for tests
// and experiments, and a secure generator (ChaCha20, RFC 8439, keyed from getrandom(2)), the
// default outside tests. docs/mechanisms.md §Randomness describes both.
#ifndef RDPKIT_MECHANISMS_RANDOM_H_
#define RDPKIT_MECHANISMS_RANDOM_H_

#include <array>
#include <cstdint>

namespace rdpkit::mechanisms {

class Random {
 public:
  // Reproducible stream: xoshiro256++ (Blackman & Vigna 2019) whose state is filled by splitmix64
  // from seed. Fast, statistically strong, NOT cryptographically secure: for tests and
  // experiments only.
  static Random Seeded(std::uint64_t seed);
  // ChaCha20 keystream (RFC 8439 §2.3 block function, 20 rounds) under a 256-bit key and 96-bit
  // nonce read from the operating system (getrandom(2)). Throws std::runtime_error if the OS has
  // no entropy to give. Use this for any release of private data.
  static Random Secure();
  // The same ChaCha20 keystream under a caller-supplied key and nonce, block counter from 0
  // (secure() is true). For test vectors and for audits that replay a stream with a secret key.
  static Random FromKey(const std::array<std::uint32_t, 8>& key,
                        const std::array<std::uint32_t, 3>& nonce);

  Random(Random&&) noexcept = default;
  Random& operator=(Random&&) noexcept = default;
  Random(const Random&) = delete;
  Random& operator=(const Random&) = delete;
  ~Random();  // wipes the key and buffered keystream

  // 64 uniform random bits.
  std::uint64_t NextU64() noexcept {
    if (!secure_) return NextXoshiro();
    if (buffer_pos_ == kBufferWords) Refill();
    return buffer_[buffer_pos_++];
  }
  // 53 uniform random bits: an integer uniform on [0, 2^53), the draw under Uniform01.
  std::uint64_t NextU53() noexcept { return NextU64() >> 11; }
  // Uniform on [0, 1): 53 random bits scaled by 2^-53.
  double Uniform01() noexcept { return static_cast<double>(NextU53()) * 0x1.0p-53; }
  bool secure() const noexcept { return secure_; }

  // ChaCha20 block function of RFC 8439 §2.3: 16 little-endian output words for a key, a block
  // counter and a nonce. Public so tests can check it against the RFC's test vectors.
  static std::array<std::uint32_t, 16> ChaCha20Block(const std::array<std::uint32_t, 8>& key,
                                                     std::uint32_t counter,
                                                     const std::array<std::uint32_t, 3>& nonce);

 private:
  // 4 ChaCha20 blocks per refill: 32 words of 64 bits.
  static constexpr int kBufferWords = 32;

  Random() = default;
  std::uint64_t NextXoshiro() noexcept {
    // xoshiro256++ 1.0, Blackman & Vigna, "Scrambled linear pseudorandom number generators",
    // ACM TOMS 2021 (reference description at prng.di.unimi.it).
    const std::uint64_t result = Rotl(state_[0] + state_[3], 23) + state_[0];
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }
  static std::uint64_t Rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  void Refill() noexcept;

  bool secure_ = false;
  std::array<std::uint64_t, 4> state_{};  // xoshiro256++ state (seeded mode)
  std::array<std::uint32_t, 8> key_{};    // ChaCha20 key (secure mode)
  std::array<std::uint32_t, 3> nonce_{};  // ChaCha20 nonce (secure mode)
  std::uint64_t block_counter_ = 0;       // blocks used under the current nonce
  std::array<std::uint64_t, kBufferWords> buffer_{};
  int buffer_pos_ = kBufferWords;
};

}  // namespace rdpkit::mechanisms

#endif  // RDPKIT_MECHANISMS_RANDOM_H_
