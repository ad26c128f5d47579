// --trace: the pool events of the JSON-lines event log (docs/cli.md
// §serq-sim). The engine's other events are written where they happen.
//
// Every unit a session takes from a pool has an `admit` and, when it goes
// back, a `release` (by a release statement, at the end of its hold block,
// or when its session ends), or a `lease` then a `release`, an `expire` or
// an `evict`; a `pool` event follows every change of a pool's used or
// loaded units, so a reader can draw each pool's use exactly.
#include "absl/strings/str_format.h"
#include "serq-sim/engine.h"

namespace serq::sim {
namespace {

// A JSON number: %.17g reads back exactly; infinity has no JSON form.
std::string Number(double x) {
  return std::isfinite(x) ? absl::StrFormat("%.17g", x) : std::string("null");
}

}  // namespace

void Engine::LogHolds(const char* event, const Session& s) {
  const Session::Frame& f = s.frames.back();
  for (uint32_t k = 0; k < f.count; ++k) {
    const Hold& h = pools_.hold(s.holds[f.first + k]);
    Log(absl::StrFormat(R"({"t":%.17g,"event":"%s","session":%d,"pool":"%s","amount":%s})", now_,
                        event, s.serial, PoolName(h.pool), Number(h.amount)));
  }
}

void Engine::LogRelease(const Session& s, HoldId hold, const char* by) {
  const Hold& h = pools_.hold(hold);
  if (h.state != Hold::State::kActive) return;
  Log(absl::StrFormat(
      R"({"t":%.17g,"event":"release","session":%d,"pool":"%s","units":%s,"by":"%s"})", now_,
      s.serial, PoolName(h.pool), Number(h.size), by));
}

void Engine::LogLease(const Session& s, const LeaseRef& ref, double duration) {
  const Lease& l = pools_.lease(ref.id);
  std::string json = absl::StrFormat(R"({"t":%.17g,"event":"lease","session":%d,"pool":"%s","units":%s)",
                                     now_, s.serial, PoolName(l.pool), Number(l.units));
  // An infinite lease (until released) has no duration field.
  if (std::isfinite(duration)) absl::StrAppend(&json, ",\"duration\":", Number(duration));
  Log(json + "}");
}

void Engine::LeaseEnding(const Lease& lease, LeaseEnd how) {
  if (!options_.trace) return;
  const char* event = how == LeaseEnd::kEvicted   ? "evict"
                      : how == LeaseEnd::kExpired ? "expire"
                                                  : "release";
  std::string json = absl::StrFormat(R"({"t":%.17g,"event":"%s","session":%d,"pool":"%s","units":%s)",
                                     now_, event, sessions_[lease.owner].serial,
                                     PoolName(lease.pool), Number(lease.units));
  if (how == LeaseEnd::kReleased) absl::StrAppend(&json, ",\"by\":\"lease\"");
  Log(json + "}");
}

void Engine::PoolChanged(uint32_t pool) {
  Log(absl::StrFormat(R"({"t":%.17g,"event":"pool","pool":"%s","used":%s,"loaded":%s})", now_,
                      PoolName(pool), Number(pools_.used(pool)), Number(pools_.loaded(pool))));
}

}  // namespace serq::sim
