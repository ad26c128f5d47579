// --trace: the session and pool events of the JSON-lines event log
// (docs/cli.md §serq-sim), formatted here, out of the hot functions that
// call them; the step events are written where they happen.
//
// Every unit a session takes from a pool has an `admit` and, when it goes
// back, a `release` (by a release statement, at the end of its hold block,
// or when its session ends), or a `lease` then a `release`, an `expire` or
// an `evict`; a `pool` event follows every change of a pool's used or
// loaded units, so a reader can draw each pool's use exactly.
#include "absl/strings/str_format.h"
#include "ir/json.h"
#include "serq-sim/engine/engine.h"

namespace serq::sim {

void Engine::LogSession(const char* event, const Session& s, const char* text_key,
                        absl::string_view text, const char* number_key, double number) {
  std::string json = absl::StrFormat(R"({"t":%s,"event":"%s","session":%d)", JsonNumber(now_),
                                     event, s.serial);
  if (text_key) absl::StrAppend(&json, ",\"", text_key, "\":\"", text, "\"");
  if (number_key) absl::StrAppend(&json, ",\"", number_key, "\":", JsonNumber(number));
  Log(json + "}");
}

void Engine::LogStation(const char* event, const Session& s, const char* number_key,
                        double number) {
  LogSession(event, s, "stage", StationName(s.run_stations[0]), number_key, number);
}

void Engine::LogResume(const Session& s) {
  if (s.state == SessionState::kWaitHold) {
    LogHolds("admit", s);
  } else {
    LogSession("grow", s);
  }
}

void Engine::LogHolds(const char* event, const Session& s) {
  const Session::Frame& f = s.frames.back();
  for (uint32_t k = 0; k < f.count; ++k) {
    const Hold& h = pools_.hold(s.holds[f.first + k]);
    Log(absl::StrFormat(R"({"t":%s,"event":"%s","session":%d,"pool":"%s","amount":%s})", JsonNumber(now_),
                        event, s.serial, PoolName(h.pool), JsonNumber(h.amount)));
  }
}

void Engine::LogRelease(const Session& s, HoldId hold, const char* by) {
  const Hold& h = pools_.hold(hold);
  if (h.state != Hold::State::kActive) return;
  Log(absl::StrFormat(
      R"({"t":%s,"event":"release","session":%d,"pool":"%s","units":%s,"by":"%s"})", JsonNumber(now_),
      s.serial, PoolName(h.pool), JsonNumber(h.size), by));
}

void Engine::LeaseStarted(const Lease& l, double duration) {
  if (!options_.trace) return;
  std::string json = absl::StrFormat(R"({"t":%s,"event":"lease","session":%d,"pool":"%s","units":%s)",
                                     JsonNumber(now_), sessions_[l.owner].serial, PoolName(l.pool),
                                     JsonNumber(l.units));
  // An infinite lease (until released) has no duration field.
  if (std::isfinite(duration)) absl::StrAppend(&json, ",\"duration\":", JsonNumber(duration));
  Log(json + "}");
}

void Engine::LeaseEnding(const Lease& lease, LeaseEnd how) {
  if (!options_.trace) return;
  const char* event = how == LeaseEnd::kEvicted   ? "evict"
                      : how == LeaseEnd::kExpired ? "expire"
                                                  : "release";
  std::string json = absl::StrFormat(R"({"t":%s,"event":"%s","session":%d,"pool":"%s","units":%s)",
                                     JsonNumber(now_), event, sessions_[lease.owner].serial,
                                     PoolName(lease.pool), JsonNumber(lease.units));
  if (how == LeaseEnd::kReleased) absl::StrAppend(&json, ",\"by\":\"lease\"");
  Log(json + "}");
}

void Engine::PoolChanged(uint32_t pool) {
  std::string json =
      absl::StrFormat(R"({"t":%s,"event":"pool","pool":"%s","used":%s,"loaded":%s)", JsonNumber(now_),
                      PoolName(pool), JsonNumber(pools_.used(pool)), JsonNumber(pools_.loaded(pool)));
  // A cache pool: the units of its evictable blocks (free, but there).
  if (pools_.cache_block(pool) > 0) {
    absl::StrAppend(&json, ",\"evictable\":", JsonNumber(pools_.CachedFree(pool)));
  }
  Log(json + "}");
}

}  // namespace serq::sim
