#include "ir/progress.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace serq {
namespace {

// The lines written to a memory stream, with a clock the test moves.
struct Capture {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* file = open_memstream(&buffer, &size);
  double t = 100;  // any start: only differences count
  ~Capture() {
    std::fclose(file);
    std::free(buffer);
  }
  std::string Text() {
    std::fflush(file);
    return std::string(buffer, size);
  }
};

// On a terminal: the first line after 1 s, then one every 0.25 s, each
// drawn over the last; Clear erases it, once.
TEST(ProgressLineTest, InPlace) {
  Capture c;
  ProgressLine p(ProgressLine::Mode::kInPlace, [&] { return c.t; }, c.file);
  c.t = 100.99;
  EXPECT_FALSE(p.Due());
  c.t = 101;
  EXPECT_TRUE(p.Due());
  p.Show("a");
  c.t = 101.2;
  EXPECT_FALSE(p.Due());
  c.t = 101.25;
  EXPECT_TRUE(p.Due());
  p.Show("b");
  EXPECT_DOUBLE_EQ(p.Elapsed(), 1.25);
  p.Clear();
  p.Clear();
  EXPECT_EQ(c.Text(), "\ra\033[K\rb\033[K\r\033[K");
}

// In a log: whole lines, the first after 5 s, then every 5 s; nothing to
// erase.
TEST(ProgressLineTest, Lines) {
  Capture c;
  {
    ProgressLine p(ProgressLine::Mode::kLines, [&] { return c.t; }, c.file);
    c.t = 104.9;
    EXPECT_FALSE(p.Due());
    c.t = 105;
    EXPECT_TRUE(p.Due());
    p.Show("a");
    c.t = 109.9;
    EXPECT_FALSE(p.Due());
    c.t = 110;
    EXPECT_TRUE(p.Due());
    p.Show("b");
  }
  EXPECT_EQ(c.Text(), "a\nb\n");
}

TEST(ProgressLineTest, NoneIsNeverDue) {
  Capture c;
  ProgressLine p(ProgressLine::Mode::kNone, [&] { return c.t; }, c.file);
  c.t = 1e6;
  EXPECT_FALSE(p.Due());
  p.Show("a");
  EXPECT_EQ(c.Text(), "");
}

TEST(ProgressLineTest, TheEnvironmentTurnsLogLinesOff) {
  setenv("SERQ_PROGRESS", "0", 1);
  EXPECT_FALSE(ProgressLinesWanted());
  setenv("SERQ_PROGRESS", "1", 1);
  EXPECT_TRUE(ProgressLinesWanted());
  unsetenv("SERQ_PROGRESS");
  EXPECT_TRUE(ProgressLinesWanted());
}

}  // namespace
}  // namespace serq
