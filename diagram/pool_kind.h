// Pools that are flags or counters, not load: a pool whose units, once a
// session takes them, are never given back (`hold P (1) { ... } lease P
// (inf);` with no `release P`, no `evict by`, no run growing it) records
// that something happened (a handshake done, a count of events); the
// program reads it with used(P). Full is then its normal state, not a
// saturated resource, so the station row does not colour it as load.
// docs/view.md §Results.
#ifndef SERQ_DIAGRAM_POOL_KIND_H_
#define SERQ_DIAGRAM_POOL_KIND_H_

#include "proto/ir.pb.h"

namespace serq::view {

// Whether pool `pool` (an index into Program.pool) of the linked `program`
// is a flag or a counter: at least one hold takes it, every hold that
// takes it leases it for `inf` (a constant), no `release` names it, no run
// grows it, and it has no `evict by` and no cache.
bool FlagOrCounterPool(const ir::Program& program, int pool);

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_POOL_KIND_H_
