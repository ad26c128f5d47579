#include "serq-sim/random/random.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace serq::sim {

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t StreamSeed(uint64_t seed, uint32_t replication) {
  // Two rounds of mixing so that neighbouring seeds and neighbouring
  // replications land far apart.
  uint64_t state = seed;
  uint64_t a = SplitMix64(&state);
  state = a ^ (0xd1b54a32d192ed03ULL * (static_cast<uint64_t>(replication) + 1));
  return SplitMix64(&state);
}

Random::Random(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& word : s_) word = SplitMix64(&state);
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;  // xoshiro's one bad state
}

double Random::Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform01(); }

double Random::StandardNormal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  // Marsaglia's polar method.
  double u, v, s;
  do {
    u = 2 * Uniform01() - 1;
    v = 2 * Uniform01() - 1;
    s = u * u + v * v;
  } while (s >= 1 || s == 0);
  double factor = std::sqrt(-2 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

double Random::Normal(double mean, double sd) { return mean + sd * StandardNormal(); }

double Random::Lognormal(double mu, double sigma) { return std::exp(mu + sigma * StandardNormal()); }

double Random::Gamma(double shape, double scale) {
  // Marsaglia and Tsang (2000); for shape < 1, the boost
  // Gamma(a) = Gamma(a + 1) * U^(1/a).
  double boost = 1;
  if (shape < 1) {
    boost = std::pow(Uniform01Open(), 1 / shape);
    shape += 1;
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x, v;
    do {
      x = StandardNormal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    double u = Uniform01Open();
    double x2 = x * x;
    if (u < 1 - 0.0331 * x2 * x2) return d * v * scale * boost;
    if (std::log(u) < 0.5 * x2 + d * (1 - v + std::log(v))) return d * v * scale * boost;
  }
}

// The sum of k exponentials of mean/k is Gamma(k, mean/k): one draw
// whatever k.
double Random::Erlang(double k, double mean) { return Gamma(k, mean / k); }

double Random::Geometric(double mean) {
  // Trials up to the first success, p = 1/mean: 1 + floor(ln U / ln(1 - p)).
  const double p = 1 / mean;
  if (p >= 1) return 1;
  return 1 + std::floor(std::log(Uniform01Open()) / std::log1p(-p));
}

double Random::Bernoulli(double p) { return Uniform01() < p ? 1 : 0; }

namespace {

bool Finite(double x) { return std::isfinite(x); }

}  // namespace

// What is wrong with the parameters of `f` (nullptr: nothing), and the
// rule it breaks; no allocation, so that checking every draw is cheap.
const char* DrawProblem(Function f, absl::Span<const double> a, const char** rule) {
  switch (f) {
    case Function::kExponential:
      if (!(Finite(a[0]) && a[0] >= 0)) return *rule = ">= 0 and finite", "the mean";
      break;
    case Function::kUniform:
      if (!(Finite(a[0]) && Finite(a[1]))) return *rule = "finite", "the bounds";
      if (!(a[0] <= a[1])) return *rule = "<= the upper bound", "the lower bound";
      break;
    case Function::kNormal:
      if (!Finite(a[0])) return *rule = "finite", "the mean";
      if (!(Finite(a[1]) && a[1] >= 0)) return *rule = ">= 0 and finite", "the standard deviation";
      break;
    case Function::kLognormal:
      if (!Finite(a[0])) return *rule = "finite", "mu";
      if (!(Finite(a[1]) && a[1] >= 0)) return *rule = ">= 0 and finite", "sigma";
      break;
    case Function::kGamma:
      if (!(Finite(a[0]) && a[0] > 0)) return *rule = "> 0 and finite", "the shape";
      if (!(Finite(a[1]) && a[1] >= 0)) return *rule = ">= 0 and finite", "the scale";
      break;
    case Function::kErlang:
      if (!(Finite(a[0]) && a[0] >= 1 && std::floor(a[0]) == a[0])) {
        return *rule = "a whole number >= 1", "k";
      }
      if (!(Finite(a[1]) && a[1] >= 0)) return *rule = ">= 0 and finite", "the mean";
      break;
    case Function::kGeometric:
      if (!(Finite(a[0]) && a[0] >= 1)) return *rule = ">= 1 and finite", "the mean";
      break;
    case Function::kBernoulli:
      if (!(a[0] >= 0 && a[0] <= 1)) return *rule = "between 0 and 1", "p";
      break;
    case Function::kShareGptInput:
    case Function::kShareGptOutput:
      break;
    default:
      return *rule = "a random draw", "the function";
  }
  return nullptr;
}

bool DrawValid(Function f, absl::Span<const double> args) {
  const char* rule;
  return DrawProblem(f, args, &rule) == nullptr;
}

std::string CheckDraw(Function f, absl::Span<const double> a) {
  const char* rule = "";
  const char* what = DrawProblem(f, a, &rule);
  if (what == nullptr) return "";
  std::string got;
  for (size_t i = 0; i < a.size(); ++i) absl::StrAppend(&got, i ? ", " : "", a[i]);
  return absl::StrCat(GetFunction(f).name, "(", got, "): ", what, " must be ", rule);
}

namespace {

// The quantiles of the 600 requests of the two measured vLLM runs of
// examples/vllm/runs (each 300 ShareGPT requests as LLMServingSim's
// benchmark samples them: prompts of 257 to 4570 tokens, outputs forced
// to 512 to 1224), pooled: numpy's percentile (type 7) at these levels.
// A draw is the inverse of the piecewise-linear CDF through them at one
// uniform draw, rounded to a whole token (docs/language.md §Named lengths
// has the fit's figures against the data's).
constexpr double kLengthLevels[] = {0,    0.01, 0.02, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3,
                                    0.35, 0.4,  0.45, 0.5,  0.55, 0.6,  0.65, 0.7,  0.75,
                                    0.8,  0.85, 0.9,  0.95, 0.98, 0.99, 1};
constexpr double kShareGptInputs[] = {257,    262.99, 266.98, 301.8,   359,    386.7,   417.8,
                                      478,    519.7,  575.65, 620.6,   647.55, 729.5,   797,
                                      836.2,  897.7,  1027.6, 1120.5,  1220,   1352,    1460.1,
                                      1785.15, 2361.52, 2768.17, 4570};
constexpr double kShareGptOutputs[] = {512, 513, 518,   524, 532, 541, 550, 564.5, 574.7,
                                       585.65, 596, 608.55, 634, 673, 701, 730.35, 758,
                                       767, 769, 771, 775, 788, 854.02, 882.43, 1224};
static_assert(sizeof(kShareGptInputs) == sizeof(kLengthLevels));
static_assert(sizeof(kShareGptOutputs) == sizeof(kLengthLevels));

double FromQuantiles(const double* values, Random& random) {
  const double u = random.Uniform01();
  size_t i = 0;
  constexpr size_t kLast = sizeof(kLengthLevels) / sizeof(kLengthLevels[0]) - 1;
  while (i + 1 < kLast && u >= kLengthLevels[i + 1]) ++i;
  const double x = values[i] + (u - kLengthLevels[i]) / (kLengthLevels[i + 1] - kLengthLevels[i]) *
                                   (values[i + 1] - values[i]);
  return std::round(x);
}

}  // namespace

double ShareGptInput(Random& random) { return FromQuantiles(kShareGptInputs, random); }
double ShareGptOutput(Random& random) { return FromQuantiles(kShareGptOutputs, random); }

double Draw(Function f, absl::Span<const double> a, Random& random) {
  switch (f) {
    case Function::kExponential: return random.Exponential(a[0]);
    case Function::kUniform: return random.Uniform(a[0], a[1]);
    case Function::kNormal: return random.Normal(a[0], a[1]);
    case Function::kLognormal: return random.Lognormal(a[0], a[1]);
    case Function::kGamma: return random.Gamma(a[0], a[1]);
    case Function::kErlang: return random.Erlang(a[0], a[1]);
    case Function::kGeometric: return random.Geometric(a[0]);
    case Function::kBernoulli: return random.Bernoulli(a[0]);
    case Function::kShareGptInput: return ShareGptInput(random);
    case Function::kShareGptOutput: return ShareGptOutput(random);
    default: return std::nan("");
  }
}

}  // namespace serq::sim
