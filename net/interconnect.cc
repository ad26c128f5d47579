#include "net/interconnect.h"

#include "absl/strings/str_cat.h"

namespace serq::net {

// The bandwidths are those NCCL's own topology model assigns the links
// (NVIDIA/nccl src/graph/topo.h and topo.cc: PCIe as width x speed / 80
// GB/s, NVLink as the links' count x a link's bandwidth), which it reaches
// in practice rather than the line rate; the latency a ring step is NCCL's
// tuning model's hardware latency of a ring step with the Simple protocol
// (src/graph/tuning.cc hwLat: PCI 5.7 us, NVLink 3.4 us). NCCL adds a base
// latency of 8.4 us a collective, which serq's form leaves out
// (docs/simulation.md §Parallelism).
const std::vector<Interconnect>& Interconnects() {
  static const auto* presets = new std::vector<Interconnect>{
      {"pcie4-x16", "PCIe Gen4 x16", 24e9, 5.7e-6,
       "NCCL topo.cc: 16 GT/s x 16 lanes / 80 = 24 GB/s (line rate 32 GB/s a direction); "
       "tuning.cc: PCI ring step 5.7 us"},
      {"pcie5-x16", "PCIe Gen5 x16", 48e9, 5.7e-6,
       "NCCL topo.cc: 32 GT/s x 16 lanes / 80 = 48 GB/s (line rate 64 GB/s a direction); "
       "tuning.cc: PCI ring step 5.7 us"},
      {"nvlink3", "NVLink 3 (A100, 12 links)", 240e9, 3.4e-6,
       "NCCL topo.h SM80_NVLINK_BW 20 GB/s x 12 links (line rate 300 GB/s a direction; "
       "nccl-tests measures ~230 GB/s); tuning.cc: NVLink ring step 3.4 us"},
      {"nvlink4", "NVLink 4 (H100/H200, 18 links)", 370.8e9, 3.4e-6,
       "NCCL topo.h SM90_NVLINK_BW 20.6 GB/s x 18 links (line rate 450 GB/s a direction); "
       "tuning.cc: NVLink ring step 3.4 us"},
      {"nvlink5", "NVLink 5 (B200, 18 links)", 721.8e9, 3.4e-6,
       "NCCL topo.h SM100_NVLINK_BW 40.1 GB/s x 18 links (line rate 900 GB/s a direction); "
       "tuning.cc: NVLink ring step 3.4 us"},
      // MI300X's xGMI: every GPU of the platform's 8 linked to each other.
      {"xgmi", "AMD Infinity Fabric (xGMI, MI300X: a mesh of 8, a link each pair)", 48e9, 3.4e-6,
       "AMD's ROCm blog 'Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X' "
       "(2025-03-02): 64 GB/s a link a direction, about 48 usable after CRC and protocol overhead; "
       "no published ring-step latency: NCCL's for a direct GPU link (NVLink, 3.4 us)",
       8},
  };
  return *presets;
}

const Interconnect* FindInterconnect(absl::string_view name) {
  for (const Interconnect& i : Interconnects()) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

std::string InterconnectNames() {
  std::string out;
  for (const Interconnect& i : Interconnects()) {
    if (!out.empty()) out += ", ";
    out += i.name;
  }
  return out;
}

std::string UnknownInterconnect(absl::string_view flag, absl::string_view name) {
  if (name.empty() || FindInterconnect(name) != nullptr) return "";
  return absl::StrCat("--", flag, " ", name, ": no such interconnect (known: ", InterconnectNames(), ")");
}

}  // namespace serq::net
