// What bounds one run of the simulator (docs/cli.md §Limits). Past a bound
// the run stops with a runtime error that names the bound, the time and
// the flag that moves it, never std::bad_alloc or a run without end.
#ifndef SERQ_SIM_ENGINE_RUN_LIMITS_H_
#define SERQ_SIM_ENGINE_RUN_LIMITS_H_

#include <cstdint>

#include "ir/limits.h"

namespace serq {

struct SimLimits {
  // --max-sessions: sessions alive at once (and kLeasesPerSession times as
  // many live leases). Pending events are bounded through them: each
  // session has at most one resume event, each lease one expiry, each
  // station one event, and stale expiries are dropped once they double.
  uint64_t max_sessions = kDefaultMaxSessions;
  uint64_t max_events = 0;  // --max-events: events per replication; 0 = none
  double max_cpu = 0;       // --max-cpu: CPU seconds of the whole run; 0 = none
  // The same-instant guards: a session that runs this many statements at
  // one instant without waiting, or a replication that processes this many
  // events without its clock moving, is taken to loop for ever (a repeat
  // of a huge count over statements that take no time; renewal(0)): a
  // runtime error rather than a hang. Statements are not events, so
  // --max-events does not bound the first; the fuzz targets lower both to
  // keep every input to milliseconds (10^8 statements are 0.8 s, and 17 s
  // under ASan).
  uint64_t statements_per_instant = 100000000;
  uint64_t events_per_instant = 100000000;
};

}  // namespace serq

#endif  // SERQ_SIM_ENGINE_RUN_LIMITS_H_
