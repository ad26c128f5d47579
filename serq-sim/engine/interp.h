// A session at run time: where it is in its session's code, its variables
// in numbered slots, its holds (a stack of hold blocks) and its leases.
// The interpreter that runs it is Engine::Execute (interp.cc).
#ifndef SERQ_SIM_ENGINE_INTERP_H_
#define SERQ_SIM_ENGINE_INTERP_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "proto/ir.pb.h"
#include "serq-sim/pools/pool.h"

namespace serq::sim {

enum class SessionState : uint8_t {
  kFree,      // the slot is unused
  kRunning,   // executing statements (within one instant)
  kInRun,     // its job is at a stage (or its flow on shared stages)
  kWaitHold,  // waiting for admission of a hold
  kWaitLoad,  // waiting for units to grow a hold's content
  kStalled,   // its decode job at a step stage waits for a unit to grow its hold
  kEnded,     // ended, kept while leases it made are alive (evict by reads its variables)
};

// The fields every statement and every run touch come first, in the
// session's first two cache lines: a model with 10^4 sessions in flight
// touches them at random.
struct alignas(64) Session {
  // One hold block in progress: its site and its holds, holds[first ...
  // first + count).
  struct Frame {
    uint32_t site;
    uint32_t first;
    uint32_t count;
  };

  uint32_t pc = 0;
  uint32_t decl = 0;
  SessionState state = SessionState::kFree;
  double arrival = 0;
  // `queued`: when its current job was taken in by its stage (IR 11).
  double queued = 0;
  uint64_t serial = 0;
  uint64_t index = 0;  // its arrival number within its workload (`index`)
  // The run in progress.
  double service_start = 0;  // when its service began: the run's start, or later at a fifo
  absl::InlinedVector<uint32_t, 2> run_stations;
  HoldId grow_hold = 0;  // a run `growing P`: its hold on P
  ir::Statement::Run::Mode run_mode = ir::Statement::Run::PLAIN;
  double run_work = 0;  // its work: a prefill's or decode's tokens, for the window's token counts
  // The stage element of its last prefill, until a decode follows it (the
  // report's output tokens: a decode elsewhere, as in P/D, makes the first
  // token again); kNoPrefill: none pending.
  static constexpr uint32_t kNoPrefill = ~0u;
  uint32_t prefill_station = kNoPrefill;
  absl::InlinedVector<double, 4> variables;  // NaN: never set
  std::vector<Frame> frames;
  std::vector<HoldId> holds;
  std::vector<LeaseRef> leases;  // the leases it made, oldest first (live or not)
  uint32_t live_leases = 0;      // of those, alive: the record is kept while > 0
  // What a waiting session waits for, for deadlock reports (and the run
  // statement of a decode run that grows a hold).
  uint32_t wait_statement = 0;
  // When it began to wait (a hold, a load, a stalled growth), or its run
  // began: a stall is dated by the last of its sessions to block.
  double wait_since = 0;
  HoldId wait_hold = 0;
  double wait_units = 0;
  // The prefix cache (engine_cache.cc): the session's block list; the
  // block size of the trace that set it (Mooncake's 512, 0: set by
  // `prefix`); the hit of its last lookup on each pool, as (pool, blocks).
  std::vector<BlockTag> blocks;
  absl::InlinedVector<std::pair<uint64_t, uint64_t>, 2> families;  // (family, its blocks)
  double trace_block = 0;
  absl::InlinedVector<std::pair<uint32_t, uint32_t>, 1> hits;
};

}  // namespace serq::sim

#endif  // SERQ_SIM_ENGINE_INTERP_H_
