#include "net/interconnect.h"

#include "gtest/gtest.h"
#include "net/collective.h"

namespace serq::net {
namespace {

TEST(Interconnect, PresetsAreFoundByName) {
  const Interconnect* pcie = FindInterconnect("pcie5-x16");
  ASSERT_NE(pcie, nullptr);
  EXPECT_EQ(pcie->bandwidth, 48e9);  // 32 GT/s x 16 / 80 GB/s
  EXPECT_EQ(FindInterconnect("pcie6"), nullptr);
  EXPECT_EQ(InterconnectNames(), "pcie4-x16, pcie5-x16, nvlink3, nvlink4, nvlink5");
}

TEST(Interconnect, EveryPresetIsInTheCollectivesDomain) {
  for (const Interconnect& i : Interconnects()) {
    EXPECT_TRUE(InDomain(8, 1e6, i.bandwidth, i.latency)) << i.name;
    EXPECT_FALSE(i.source.empty()) << i.name;
  }
  // Two H100s over NVLink 4: a 1 MB all-reduce is 2 steps of 3.4 us and
  // 1e6 / 370.8e9 s: 6.8 + 2.6969 us.
  const Interconnect* nv = FindInterconnect("nvlink4");
  EXPECT_NEAR(Seconds(Collective::kAllReduce, 2, 1e6, nv->bandwidth, nv->latency),
              6.8e-6 + 1e6 / 370.8e9, 1e-15);
}

}  // namespace
}  // namespace serq::net
