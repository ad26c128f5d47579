#include "net/collective.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace serq::net {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Collective, RingShapes) {
  // n = 4: an all-reduce is a reduce-scatter (3 steps) and an all-gather
  // (3 steps), each GPU sending 3/4 of the buffer in each: 6 steps, 6/4.
  EXPECT_EQ(RingOf(Collective::kAllReduce, 4).steps, 6);
  EXPECT_EQ(RingOf(Collective::kAllReduce, 4).factor, 1.5);
  for (Collective c : {Collective::kAllGather, Collective::kReduceScatter, Collective::kAllToAll}) {
    EXPECT_EQ(RingOf(c, 4).steps, 3);
    EXPECT_EQ(RingOf(c, 4).factor, 0.75);
  }
}

TEST(Collective, TwoGpusOverPcie) {
  // A tensor-parallel pair's all-reduce of 2048 tokens x 5120 x 2 bytes
  // (20,971,520 bytes) over 16 GiB/s (17,179,869,184 bytes/s) with 20 us a
  // step: 2 steps x 20 us + (2 x 1 / 2) x 20,971,520 / 17,179,869,184
  // = 40 us + 1,220.703125 us = 1,260.703125 us.
  EXPECT_NEAR(Seconds(Collective::kAllReduce, 2, 20971520, 17179869184.0, 20e-6),
              1260.703125e-6, 1e-15);
  // The all-gather of the same buffer: 1 step, half of it sent.
  EXPECT_NEAR(Seconds(Collective::kAllGather, 2, 20971520, 17179869184.0, 20e-6),
              20e-6 + 610.3515625e-6, 1e-15);
}

TEST(Collective, EightGpus) {
  // 8 GPUs, 1e9 bytes/s, 1 us: all-reduce 14 us + 1.75 x 8e6 / 1e9 s =
  // 14 us + 14,000 us; all-to-all 7 us + 0.875 x 8e6 / 1e9 s = 7,007 us.
  EXPECT_NEAR(Seconds(Collective::kAllReduce, 8, 8e6, 1e9, 1e-6), 14014e-6, 1e-15);
  EXPECT_NEAR(Seconds(Collective::kAllToAll, 8, 8e6, 1e9, 1e-6), 7007e-6, 1e-15);
}

TEST(Collective, OneGpuAndNothingToSendCostLittle) {
  EXPECT_EQ(Seconds(Collective::kAllReduce, 1, 1e9, 1e9, 1e-3), 0);
  // No bytes still pays the ring's steps.
  EXPECT_EQ(Seconds(Collective::kAllGather, 3, 0, 1e9, 1e-6), 2e-6);
  // An infinite bandwidth pays the latency only.
  EXPECT_EQ(Seconds(Collective::kAllReduce, 2, 1e9, kInf, 5e-6), 10e-6);
}

TEST(Collective, OutsideTheDomainIsNaN) {
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 0, 1, 1, 0)));    // no GPU
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 2.5, 1, 1, 0)));  // half a GPU
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 2, -1, 1, 0)));   // bytes < 0
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 2, kInf, 1, 0)));
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 2, 1, 0, 0)));    // no bandwidth
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 2, 1, 1, -1)));   // latency < 0
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 2, 1, 1, kInf)));
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, 2e6, 1, 1, 0)));  // over 2^20 GPUs
  EXPECT_TRUE(std::isnan(Seconds(Collective::kAllReduce, std::nan(""), 1, 1, 0)));
}

}  // namespace
}  // namespace serq::net
