#include "ir/cli.h"

#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace serq {
namespace {

std::vector<char*> Args(std::vector<std::string>& storage) {
  std::vector<char*> out;
  for (std::string& s : storage) out.push_back(s.data());
  return out;
}

// ExitOnOutOfMemory: an uncaught std::bad_alloc, in the main thread or
// another, is the tool's error and exit 2 (std::terminate's default is an
// abort, exit 134); a thread that cannot start is its own error.
void ThrowInAThread(bool alloc) {
  ExitOnOutOfMemory("tool");
  std::thread t([alloc] {
    if (alloc) throw std::bad_alloc();
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again), "thread");
  });
  t.join();
}

// Under --config=asan (SERQ_ASAN=1) ASan's allocator reports an
// allocation past its limit and aborts by itself, before any std::bad_alloc
// or null: the cases that allocate so are for the plain build.
bool UnderAsan() {
  const char* v = std::getenv("SERQ_ASAN");
  return v != nullptr && std::string(v) == "1";
}

void AllocatePastAnyAllocator() noexcept {
  ExitOnOutOfMemory("tool");
  std::vector<char> v(SIZE_MAX / 4);
  std::exit(v.empty() ? 5 : 6);
}

[[noreturn]] void Throw(int x) { throw x; }

void ThrowAnInt() noexcept {
  ExitOnOutOfMemory("tool");
  Throw(3);
}

TEST(ExitOnOutOfMemory, AnUncaughtBadAllocIsAnErrorInAnyThread) {
  EXPECT_EXIT(ThrowInAThread(true), ::testing::ExitedWithCode(2),
              "^tool: error: out of memory: an allocation failed \\(");
  EXPECT_EXIT(ThrowInAThread(false), ::testing::ExitedWithCode(2), "^tool: error: a system call failed: thread: ");
  // In the main thread, escaping a noexcept function (gtest would catch it
  // escaping the death test's statement).
  if (!UnderAsan()) {
    EXPECT_EXIT(AllocatePastAnyAllocator(), ::testing::ExitedWithCode(2), "^tool: error: out of memory");
  }
}

// The nothrow operator new still answers null, which callers take (a
// std::stable_sort without scratch sorts in place): a std::new_handler
// would have ended the process there.
TEST(ExitOnOutOfMemory, NothrowNewStillAnswersNull) {
  if (UnderAsan()) GTEST_SKIP() << "ASan aborts an allocation past its limit, nothrow or not";
  EXPECT_EXIT(
      {
        ExitOnOutOfMemory("tool");
        void* p = ::operator new(SIZE_MAX / 4, std::nothrow);
        std::exit(p == nullptr ? 7 : 8);
      },
      ::testing::ExitedWithCode(7), "");
}

// Another uncaught exception is a bug: std::terminate's default, an abort.
TEST(ExitOnOutOfMemory, AnotherExceptionStillAborts) {
  EXPECT_EXIT(ThrowAnInt(), ::testing::KilledBySignal(SIGABRT), "terminate called");
}

TEST(ExtractDefines, EveryFormInOrderAndTheRestKept) {
  std::vector<std::string> storage = {"tool", "-D",       "a=1",  "in.json", "-Db=2.5",
                                      "--check", "--D=c=-3", "-D=d=inf", "--D", "e=1e9",
                                      "--", "-D", "f=1"};
  std::vector<char*> args = Args(storage);
  auto defines = ExtractDefines(&args);
  ASSERT_TRUE(defines.ok()) << defines.status();
  std::vector<std::pair<std::string, double>> want = {
      {"a", 1}, {"b", 2.5}, {"c", -3}, {"d", INFINITY}, {"e", 1e9}};
  EXPECT_EQ(*defines, want);
  // After "--" nothing is a flag: "-D f=1" stays for the tool.
  std::vector<std::string> rest(args.begin(), args.end());
  EXPECT_EQ(rest, (std::vector<std::string>{"tool", "in.json", "--check", "--", "-D", "f=1"}));
}

TEST(ExtractDefines, MalformedOnesAreErrors) {
  for (std::vector<std::string> storage : std::vector<std::vector<std::string>>{
           {"tool", "-D"}, {"tool", "-D", "a"}, {"tool", "-Da="}, {"tool", "-D", "1a=2"},
           {"tool", "-D", "a=x"}, {"tool", "-D", "a=nan"}, {"tool", "-D", "a-b=1"}}) {
    std::vector<char*> args = Args(storage);
    EXPECT_FALSE(ExtractDefines(&args).ok()) << storage.back();
  }
  // inf in each spelling is a value (a pool's unlimited cap); a literal
  // past the largest double, which reads as inf, is not.
  for (const char* inf : {"inf", "-inf", "+Infinity", "INF"}) {
    std::vector<std::string> one = {"tool", "-D", std::string("a=") + inf};
    std::vector<char*> these = Args(one);
    absl::StatusOr<std::vector<std::pair<std::string, double>>> d = ExtractDefines(&these);
    ASSERT_TRUE(d.ok()) << inf << ": " << d.status();
    EXPECT_TRUE(std::isinf((*d)[0].second)) << inf;
  }
  {
    std::vector<std::string> big = {"tool", "-D", "a=1e400"};
    std::vector<char*> these = Args(big);
    EXPECT_EQ(ExtractDefines(&these).status().message(),
              "malformed -D 'a=1e400': past the largest number (write inf for an unlimited value)");
  }
  // A param twice: the second would replace the first unseen.
  std::vector<std::string> storage = {"tool", "-D", "a=1", "-Da=2"};
  std::vector<char*> args = Args(storage);
  EXPECT_EQ(ExtractDefines(&args).status().message(), "-D a is given twice");
}

TEST(RenderProgramDiagnostics, LocatedAgainstTheSourceAndPathsAgainstTheInput) {
  std::string file = ::testing::TempDir() + "/render.sq";
  std::ofstream(file) << "stage S : delay;\nrun { horizon 0; }\n";
  ir::Program program;
  program.set_file(file);
  Diagnostics diags("<stdin>");
  diags.ErrorAtPath("session[0].body[1]", "at a path");
  diags.Error(2, 15, "located");
  diags.ErrorInFile("about the program");
  diags.ErrorInOtherFile("rows.csv", 3, "a bad row of a trace");
  EXPECT_EQ(RenderProgramDiagnostics(diags, program, "<stdin>"),
            file + ":2:15: error: located\n"
            "run { horizon 0; }\n"
            "              ^\n" +
            file + ": error: about the program\n"
            "rows.csv:3: error: a bad row of a trace\n"
            "<stdin>:session[0].body[1]: error: at a path\n");
  // Without a readable source, located errors keep their position.
  program.set_file(file + ".gone");
  EXPECT_EQ(RenderProgramDiagnostics(diags, program, "<stdin>"),
            file + ".gone:2:15: error: located\n" + file +
                ".gone: error: about the program\n"
                "rows.csv:3: error: a bad row of a trace\n"
                "<stdin>:session[0].body[1]: error: at a path\n");
  std::remove(file.c_str());
}

// A message quoting an input's text shows its control characters as
// escapes (a terminal takes ESC [ ... for its own commands), and keeps the
// line breaks of a message of several lines.
TEST(ToolMessages, ControlCharactersAreEscaped) {
  EXPECT_EQ(ToolWarning("serq vllm", "model \x1b[2Jx"), "serq vllm: warning: model \\x1b[2Jx\n");
  EXPECT_EQ(ToolError("serq", "a\nb\x07"), "serq: error: a\nb\\x07\n");
}

}  // namespace
}  // namespace serq
