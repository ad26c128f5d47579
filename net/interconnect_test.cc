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
  EXPECT_EQ(InterconnectNames(), "pcie4-x16, pcie5-x16, nvlink3, nvlink4, nvlink5, xgmi");
  // xGMI is a mesh of 8 (a link each pair): a program charges a collective
  // among n GPUs n - 1 of its links a GPU. Eight MI300Xs: a 1 MB all-reduce
  // is 2 x 7 ring steps of 3.4 us and 2 x 7/8 x 1e6 bytes over 7 x 48e9
  // bytes/s, 47.6 + 5.208 us; over one such link, 47.6 + 36.458 us.
  const Interconnect* xgmi = FindInterconnect("xgmi");
  ASSERT_NE(xgmi, nullptr);
  EXPECT_EQ(xgmi->mesh, 8);
  EXPECT_EQ(pcie->mesh, 0);
  EXPECT_NEAR(Seconds(Collective::kAllReduce, 8, 1e6, 7 * xgmi->bandwidth, xgmi->latency), 47.6e-6 + 5.2083e-6,
              1e-10);
  EXPECT_NEAR(Seconds(Collective::kAllReduce, 8, 1e6, xgmi->bandwidth, xgmi->latency), 47.6e-6 + 36.4583e-6, 1e-10);
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
