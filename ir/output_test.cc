// Writes that never destroy (ir/output.h): a file is its old self until the
// new one is whole, whatever stops the tool on the way.
#include "ir/output.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace serq {
namespace {

std::string Dir() {
  static int n = 0;
  std::string dir = absl::StrCat(::testing::TempDir(), "/output_test.", ::getpid(), ".", n++);
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

std::string Read(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "<absent>";
  std::string out(1 << 20, '\0');
  out.resize(std::fread(out.data(), 1, out.size(), f));
  std::fclose(f);
  return out;
}

void Put(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// More than OutputFile's 64 KB buffer, so that some of it is written
// before the commit.
const std::string& Big() {
  static const std::string* big = new std::string(200000, 'n');
  return *big;
}

// Outputs on one file, or over an input, are refused: by the path, or
// by the file on disk (a second name for it); "-" and files that are not
// regular are not compared.
TEST(DistinctFiles, OneFileOneRole) {
  const std::string dir = Dir();
  const std::string a = dir + "/a.json", program = dir + "/p.sq", link = dir + "/p-link.sq";
  ASSERT_TRUE(WriteFile(program, "x").ok());
  std::filesystem::remove(link);
  std::filesystem::create_symlink(program, link);
  EXPECT_TRUE(DistinctFiles({{"--results", a}, {"--series", dir + "/b.csv"}, {"--trace", ""}},
                            {{"the program", program}})
                  .ok());
  EXPECT_EQ(DistinctFiles({{"--results", a}, {"--series", dir + "/./a.json"}}, {}).message(),
            "--results and --series name one file, '" + dir + "/./a.json': each would replace the other's");
  EXPECT_EQ(DistinctFiles({{"--series", link}}, {{"the program", program}}).message(),
            "--series names the program, '" + program + "': writing it would destroy what is read");
  EXPECT_TRUE(DistinctFiles({{"--results", "-"}, {"--series", "-"}}, {{"the program", "-"}}).ok());
  EXPECT_TRUE(DistinctFiles({{"--results", "/dev/null"}, {"--series", "/dev/null"}}, {}).ok());
}

TEST(TemporaryPath, IsBesideTheFileAndNamesIt) {
  const std::string pid = absl::StrCat(::getpid());
  EXPECT_EQ(TemporaryPath("/a/b/r.json"), "/a/b/.r.json.tmp-" + pid);
  EXPECT_EQ(TemporaryPath("r.json"), ".r.json.tmp-" + pid);
  // Another process's (a sweep's task, cleaned up after by its parent).
  EXPECT_EQ(TemporaryPath("d/task-3.pb", 0, 4242), "d/.task-3.pb.tmp-4242");
  EXPECT_EQ(TemporaryPath("d/task-3.pb", 2, 4242), "d/.task-3.pb.tmp-4242-2");
  EXPECT_EQ(TemporaryPath("/a/r.json", 2), "/a/.r.json.tmp-" + pid + "-2");
}

// While the new bytes are written, the path holds the old ones; the
// commit replaces them whole and leaves no temporary file.
TEST(OutputFile, TheOldFileStaysUntilTheCommit) {
  const std::string path = Dir() + "/r.json";
  Put(path, "old");
  OutputFile out;
  ASSERT_TRUE(out.Open(path).ok());
  out.stream() << Big();
  EXPECT_EQ(Read(path), "old");
  // 200,000 bytes through a 65,536-byte buffer: 3 full buffers written.
  EXPECT_EQ(Read(TemporaryPath(path)).size(), 3u * 65536);
  ASSERT_TRUE(out.Commit().ok());
  EXPECT_EQ(Read(path), Big());
  EXPECT_FALSE(Exists(TemporaryPath(path)));
}

TEST(OutputFile, WithoutACommitNothingChanges) {
  const std::string dir = Dir();
  const std::string path = dir + "/r.json";
  Put(path, "old");
  {
    OutputFile out;
    ASSERT_TRUE(out.Open(path).ok());
    out.stream() << Big();
  }  // destroyed: discarded
  EXPECT_EQ(Read(path), "old");
  EXPECT_FALSE(Exists(TemporaryPath(path)));
  // A file that did not exist is not made.
  {
    OutputFile out;
    ASSERT_TRUE(out.Open(dir + "/new.json").ok());
    out.stream() << "x";
    out.Discard();
  }
  EXPECT_FALSE(Exists(dir + "/new.json"));
  EXPECT_FALSE(Exists(TemporaryPath(dir + "/new.json")));
}

// A write that fails (here past a file size limit of 100 KB, with SIGXFSZ
// ignored so that write(2) returns EFBIG): the error names the reason, the
// old file is as it was, the temporary file is gone.
void WriteBeyondTheLimit(const std::string& path) {
  ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = {100000, 100000};
  ::setrlimit(RLIMIT_FSIZE, &limit);
  absl::Status s = WriteFile(path, Big());
  std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
  std::exit(s.ok() ? 0 : 3);
}

TEST(OutputFile, AFailedWriteKeepsTheOldFile) {
  const std::string path = Dir() + "/r.json";
  Put(path, "old");
  EXPECT_EXIT(WriteBeyondTheLimit(path), ::testing::ExitedWithCode(3),
              "cannot write '.*/r.json': File too large");
  EXPECT_EQ(Read(path), "old");
  EXPECT_FALSE(Exists(TemporaryPath(path)));
}

// Killed half-way by a signal a user or a pipe sends: the process dies of
// it as before, the old file is as it was, and the temporary file is gone.
void KilledHalfWay(const std::string& path, int sig) {
  OutputFile out;
  if (!out.Open(path).ok()) std::exit(4);
  out.stream() << Big();
  ::raise(sig);
  std::exit(5);  // not reached
}

TEST(OutputFile, ASignalRemovesTheTemporaryFile) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ}) {
    const std::string path = Dir() + "/t.jsonl";
    Put(path, "old");
    EXPECT_EXIT(KilledHalfWay(path, sig), ::testing::KilledBySignal(sig), "") << sig;
    EXPECT_EQ(Read(path), "old") << sig;
    EXPECT_FALSE(Exists(TemporaryPath(path))) << sig;
  }
}

// A name that is taken (a killed run's leftover with the same process id)
// is left alone: the next name is used.
TEST(OutputFile, ATakenTemporaryNameIsSkipped) {
  const std::string path = Dir() + "/r.json";
  Put(TemporaryPath(path), "leftover");
  ASSERT_TRUE(WriteFile(path, "new").ok());
  EXPECT_EQ(Read(path), "new");
  EXPECT_EQ(Read(TemporaryPath(path)), "leftover");
  EXPECT_FALSE(Exists(TemporaryPath(path, 1)));
}

// Not a regular file: written in place, never replaced by one.
TEST(OutputFile, ADeviceIsWrittenInPlace) {
  ASSERT_TRUE(WriteFile("/dev/null", Big()).ok());
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  absl::Status s = WriteFile("/dev/full", "x");
  EXPECT_EQ(s.message(), "cannot write '/dev/full': No space left on device");
}

TEST(OutputFile, ASymbolicLinkIsWrittenThrough) {
  const std::string dir = Dir();
  Put(dir + "/real.json", "old");
  ASSERT_EQ(::symlink("real.json", (dir + "/link.json").c_str()), 0);
  ASSERT_TRUE(WriteFile(dir + "/link.json", "new").ok());
  struct stat st;
  ASSERT_EQ(::lstat((dir + "/link.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Read(dir + "/real.json"), "new");
}

// The new file keeps the old one's permissions (a private 0600 stays so).
TEST(OutputFile, ThePermissionsAreKept) {
  const std::string path = Dir() + "/r.json";
  Put(path, "old");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(WriteFile(path, "new").ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(OutputFile, AMissingDirectoryIsTheError) {
  absl::Status s = WriteFile("/nonexistent/r.json", "x");
  EXPECT_EQ(s.message(), "cannot write '/nonexistent/r.json': No such file or directory");
}

}  // namespace
}  // namespace serq
