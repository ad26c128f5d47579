// Named GPU interconnects: the links a collective crosses when a run
// folder does not describe its own (serq vllm --interconnect, serq
// physics). Each is a bandwidth a direction and a latency a ring step, in
// the units of net/collective.h, with the public source of each figure.
#ifndef SERQ_NET_INTERCONNECT_H_
#define SERQ_NET_INTERCONNECT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace serq::net {

struct Interconnect {
  std::string name;       // e.g. "pcie5-x16"
  std::string what;       // e.g. "PCIe Gen5 x16"
  double bandwidth = 0;   // bytes a second, each way
  double latency = 0;     // seconds a ring step
  std::string source;     // where the figures come from
  // 0: a GPU's links to the others are one of `bandwidth` (PCIe, or NVLink
  // through switches). N: a fully connected mesh of N GPUs, each pair its
  // own link of `bandwidth`, so a collective among n of them runs its
  // rings over n - 1 links a GPU, (n - 1) x `bandwidth` (AMD's xGMI).
  int mesh = 0;
};

// The presets, in a fixed order.
const std::vector<Interconnect>& Interconnects();
// The preset called `name`, or null.
const Interconnect* FindInterconnect(absl::string_view name);
// Their names, for a message: "pcie4-x16, pcie5-x16, ...".
std::string InterconnectNames();
// "--FLAG NAME: no such interconnect (known: ...)" when NAME is given and
// names no preset; "" for a preset or none given.
std::string UnknownInterconnect(absl::string_view flag, absl::string_view name);

}  // namespace serq::net

#endif  // SERQ_NET_INTERCONNECT_H_
