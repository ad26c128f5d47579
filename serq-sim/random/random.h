// The replication's random stream and the language's distributions.
//
// The engine is xoshiro256++ (Blackman and Vigna), whose output sequence is
// fixed by its published definition, seeded from (seed, replication)
// through SplitMix64. The distributions are written here rather than taken
// from <random>, whose algorithms are implementation-defined: the same seed
// must give the same draws with every standard library.
#ifndef SERQ_SIM_RANDOM_RANDOM_H_
#define SERQ_SIM_RANDOM_RANDOM_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "ir/builtins.h"

namespace serq::sim {

// One step of SplitMix64: advances `state` and returns the mixed output.
uint64_t SplitMix64(uint64_t* state);

// The seed of replication `replication`'s stream, derived from the run's
// seed: distinct replications get unrelated streams, and replication r of
// seed s is the same whatever the number of replications.
uint64_t StreamSeed(uint64_t seed, uint32_t replication);

class Random {
 public:
  // The 256-bit state is filled from `seed` by SplitMix64 (never all zero).
  explicit Random(uint64_t seed);
  // A stream started from a raw state (for the published test vectors).
  static Random FromState(uint64_t s0, uint64_t s1, uint64_t s2, uint64_t s3) {
    Random r(0);
    r.s_[0] = s0, r.s_[1] = s1, r.s_[2] = s2, r.s_[3] = s3;
    return r;
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[0] + s_[3], 23) + s_[0];
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform on [0, 1) with 53 random bits.
  double Uniform01() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform on (0, 1]: safe to take the logarithm of.
  double Uniform01Open() { return static_cast<double>((Next() >> 11) + 1) * 0x1.0p-53; }

  // Draws, for parameters already checked by CheckDraw. Exponential
  // inline: an M/M/1 customer draws two (its arrival and its service).
  double Exponential(double mean) { return -mean * std::log(Uniform01Open()); }
  double Uniform(double lo, double hi);
  double StandardNormal();
  double Normal(double mean, double sd);
  double Lognormal(double mu, double sigma);
  double Gamma(double shape, double scale);
  double Erlang(double k, double mean);
  double Geometric(double mean);
  double Bernoulli(double p);

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
  // The polar method makes normals in pairs; the second waits here.
  bool has_spare_normal_ = false;
  double spare_normal_ = 0;
};

// Checks the parameters of random function `f` (arity already checked by
// the linker): returns an empty string when they are valid, else what is
// wrong, in diagnostic style ("exponential(mean): the mean must be >= 0 and
// finite, got -1").
std::string CheckDraw(Function f, absl::Span<const double> args);
// The same check, without building a message: true when valid.
bool DrawValid(Function f, absl::Span<const double> args);

// Draws from `f` with `args`: the parameters must have passed CheckDraw.
double Draw(Function f, absl::Span<const double> args, Random& random);

// The named lengths (IR 11): a prompt's and an output's tokens of ShareGPT
// as the measured runs of examples/vllm/runs sampled them, whole tokens.
double ShareGptInput(Random& random);
double ShareGptOutput(Random& random);

}  // namespace serq::sim

#endif  // SERQ_SIM_RANDOM_RANDOM_H_
