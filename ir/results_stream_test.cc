#include "ir/results_stream.h"

#include <string>

#include "gtest/gtest.h"
#include "ir/output.h"

namespace serq {
namespace {

results::Results Sample(int replications) {
  results::Results r;
  r.set_version(8);
  r.set_program("x.sq");
  r.set_horizon(10);
  r.set_seed(3);
  r.set_replications(replications);
  for (int i = 0; i < replications; ++i) {
    results::Replication* rep = r.add_replication();
    rep->set_index(i);
    rep->set_seed(100 + i);
    results::Observation* o = rep->add_observation();
    o->set_name("t");
    o->add_sample(1.5);
    o->add_sample(i);
    rep->add_stage()->set_name("P");
    rep->set_events(7);
  }
  return r;
}

// Streamed, the bytes must be EncodeMessage's of the whole message: the
// pipe's goldens and serq run hold serq-sim to them.
std::string Streamed(const results::Results& whole, Format format) {
  std::string out;
  ResultsStream stream(format, [&out](absl::string_view b) {
    out.append(b.data(), b.size());
    return absl::OkStatus();
  });
  EXPECT_TRUE(stream.Begin(whole).ok());
  for (const auto& rep : whole.replication()) EXPECT_TRUE(stream.Add(rep).ok());
  EXPECT_TRUE(stream.End().ok());
  return out;
}

TEST(ResultsStream, SameBytesAsTheWholeMessage) {
  for (int n : {0, 1, 3}) {
    results::Results whole = Sample(n);
    for (Format f : {Format::kJson, Format::kBinary}) {
      EXPECT_EQ(Streamed(whole, f), EncodeMessage(whole, f)) << n << " replications";
    }
  }
}

TEST(ResultsStream, AWriteErrorIsReturned) {
  ResultsStream stream(Format::kJson, [](absl::string_view) {
    return absl::ResourceExhaustedError("No space left on device");
  });
  EXPECT_FALSE(stream.Begin(Sample(1)).ok());
}

// /dev/full: every write fails with ENOSPC, whatever its size (a write
// smaller than stdio's buffer is where fwrite alone loses the error).
TEST(OutputFile, AFullDeviceIsAnErrorWithItsReason) {
  OutputFile out;
  ASSERT_TRUE(out.Open("/dev/full").ok());
  out.stream() << "x";
  absl::Status s = out.Commit();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "No space left on device");
}

TEST(OutputFile, WritesEveryByte) {
  std::string path = ::testing::TempDir() + "/out.txt";
  OutputFile out;
  ASSERT_TRUE(out.Open(path).ok());
  std::string big(200000, 'a');  // more than the 64 KB buffer
  out.stream() << big << "end";
  ASSERT_TRUE(out.Commit().ok());
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string got(300000, '\0');
  got.resize(std::fread(got.data(), 1, got.size(), f));
  std::fclose(f);
  EXPECT_EQ(got, big + "end");
}

}  // namespace
}  // namespace serq
