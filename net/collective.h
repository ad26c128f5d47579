// The cost of a collective among GPUs, as a ring of point-to-point links
// moves it: the model of NCCL's ring algorithm that NCCL's own performance
// notes state (nccl-tests' "bus bandwidth"), with a fixed latency for each
// step of the ring.
//
// A collective among n GPUs over links of `bandwidth` bytes a second each
// way and `latency` seconds a step takes
//
//   steps x latency + factor x bytes / bandwidth
//
// where `bytes` is the buffer each GPU holds (the all-reduce's input, the
// all-gather's output, the reduce-scatter's input, the all-to-all's send
// buffer) and
//
//   collective       steps      factor (the share of `bytes` each GPU sends)
//   all-reduce       2 (n - 1)  2 (n - 1) / n  (a reduce-scatter, then an all-gather)
//   all-gather       n - 1      (n - 1) / n
//   reduce-scatter   n - 1      (n - 1) / n
//   all-to-all       n - 1      (n - 1) / n    (each GPU keeps its own 1/n)
//
// One GPU costs nothing. docs/simulation.md §Parallelism says why this
// form, and how LLMServingSim's (ASTRA-Sim's analytical ring) differs.
#ifndef SERQ_NET_COLLECTIVE_H_
#define SERQ_NET_COLLECTIVE_H_

namespace serq::net {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kAllToAll };

// A collective's ring among `gpus` GPUs: its steps, and the share of the
// buffer each GPU sends over them.
struct Ring {
  double steps = 0;
  double factor = 0;
};
Ring RingOf(Collective collective, double gpus);

// Whether the arguments are in the model's domain: gpus a whole number at
// least 1 (at most 2^20), bytes finite and at least 0, bandwidth above 0
// (inf: the links take no time), latency finite and at least 0.
bool InDomain(double gpus, double bytes, double bandwidth, double latency);

// The collective's time in seconds; NaN outside the domain (the
// language's callers report a NaN as a runtime error).
double Seconds(Collective collective, double gpus, double bytes, double bandwidth,
               double latency);

}  // namespace serq::net

#endif  // SERQ_NET_COLLECTIVE_H_
