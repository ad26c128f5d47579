// Lines: numbering, blank lines, a BOM and CRLF removed, and lines that
// cross the reader's 64 KB chunks (lines.cc reads a line a chunk at a
// time: one ending exactly at a chunk's end, one byte either side, and one
// without a final newline must come back whole).
#include "text/lines.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace serq::text {
namespace {

std::vector<std::pair<int, std::string>> All(const std::string& text) {
  std::istringstream in(text);
  Lines lines(&in);
  std::vector<std::pair<int, std::string>> out;
  absl::string_view line;
  while (lines.NextNonBlank(&line)) out.emplace_back(lines.number(), std::string(line));
  EXPECT_FALSE(lines.too_long());
  return out;
}

TEST(LinesTest, NumbersSkipsBlankRemovesBomAndCr) {
  using V = std::vector<std::pair<int, std::string>>;
  EXPECT_EQ(All("\xEF\xBB\xBF" "a,b\r\n\n  \t\nc\r\nlast"),
            (V{{1, "a,b"}, {4, "c"}, {5, "last"}}));
  EXPECT_EQ(All(""), V{});
  EXPECT_EQ(All("\n\n"), V{});
  EXPECT_EQ(All("x\n"), (V{{1, "x"}}));
}

// A read that fails (a directory opens as a file on Linux and its read
// fails with EISDIR) ends the lines with the stream bad, for the reader to
// say so; it once read again for ever.
TEST(LinesTest, AReadErrorEndsTheLinesWithTheStreamBad) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::ifstream in(tmp != nullptr ? tmp : "/tmp");
  ASSERT_TRUE(in.is_open());
  Lines lines(&in);
  absl::string_view line;
  EXPECT_FALSE(lines.NextNonBlank(&line));
  EXPECT_TRUE(in.bad());
  EXPECT_FALSE(lines.too_long());
  EXPECT_FALSE(lines.NextNonBlank(&line));  // and stays ended
}

TEST(LinesTest, LinesAcrossChunks) {
  // The chunk holds 65535 characters and its terminating NUL.
  for (size_t n : {65534u, 65535u, 65536u, 65537u, 3u * 65535u, 200000u}) {
    const std::string a(n, 'a'), b(n + 1, 'b');
    auto got = All(a + "\n" + b + "\nc");
    ASSERT_EQ(got.size(), 3u) << n;
    EXPECT_EQ(got[0].second, a) << n;
    EXPECT_EQ(got[1].second, b) << n;
    EXPECT_EQ(got[2], (std::pair<int, std::string>{3, "c"})) << n;
    got = All(a);  // no newline at the end
    ASSERT_EQ(got.size(), 1u) << n;
    EXPECT_EQ(got[0].second, a) << n;
  }
}

}  // namespace
}  // namespace serq::text
