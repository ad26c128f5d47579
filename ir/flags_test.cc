#include "ir/flags.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gtest/gtest.h"

ABSL_FLAG(std::string, format, "json", "the output format");
ABSL_FLAG(bool, check, false, "validate only");
ABSL_FLAG(int, count, 1, "how many");
ABSL_FLAG(std::string, data_dir, "", "where data is");
ABSL_FLAG(std::optional<bool>, log_y, std::nullopt, "log, linear, or decide");
ABSL_FLAG(int, untouched, 0, "a flag only GivenWhateverTheValue gives");

namespace serq {
namespace {

absl::StatusOr<std::vector<std::string>> Parse(std::vector<std::string> words) {
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());
  auto positional = ParseFlags(args);
  if (!positional.ok()) return positional.status();
  return std::vector<std::string>(positional->begin(), positional->end());
}

TEST(Flags, SetsValuesInEveryFormAndKeepsPositionals) {
  auto p = Parse({"tool", "--format=pb", "x.sq", "--check", "-count", "3", "-", "--", "--y"});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, (std::vector<std::string>{"tool", "x.sq", "-", "--y"}));
  EXPECT_EQ(absl::GetFlag(FLAGS_format), "pb");
  EXPECT_TRUE(absl::GetFlag(FLAGS_check));
  EXPECT_EQ(absl::GetFlag(FLAGS_count), 3);
  ASSERT_TRUE(Parse({"tool", "--nocheck"}).ok());
  EXPECT_FALSE(absl::GetFlag(FLAGS_check));
}

// A switch that may be left to the tool: unset, on (alone or =on, =true),
// off (=off, =false); it takes no next word as its value. A bool takes on
// and off too; other flags take them as they are.
TEST(Flags, OptionalSwitchesTakeOnAndOff) {
  EXPECT_EQ(absl::GetFlag(FLAGS_log_y), std::nullopt);
  auto p = Parse({"tool", "--log-y", "x.sq"});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, (std::vector<std::string>{"tool", "x.sq"}));
  EXPECT_EQ(absl::GetFlag(FLAGS_log_y), std::optional<bool>(true));
  ASSERT_TRUE(Parse({"tool", "--log-y=off"}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_log_y), std::optional<bool>(false));
  ASSERT_TRUE(Parse({"tool", "--log-y=on"}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_log_y), std::optional<bool>(true));
  ASSERT_TRUE(Parse({"tool", "--check=off"}).ok());
  EXPECT_FALSE(absl::GetFlag(FLAGS_check));
  // Named as documented, with dashes, however it was written.
  EXPECT_EQ(std::string(Parse({"tool", "--log-y=maybe"}).status().message()),
            "invalid value 'maybe' for flag '--log-y'");
  EXPECT_EQ(std::string(Parse({"tool", "--log_y=maybe"}).status().message()),
            "invalid value 'maybe' for flag '--log-y'");
  ASSERT_TRUE(Parse({"tool", "--format=off"}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_format), "off");
}

TEST(Flags, DashesAndUnderscoresNameTheSameFlag) {
  ASSERT_TRUE(Parse({"tool", "--data-dir=a"}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_data_dir), "a");
  ASSERT_TRUE(Parse({"tool", "--data_dir", "b"}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_data_dir), "b");
  EXPECT_NE(FlagsHelp("u").find("  --data-dir=\"\"\n      where data is\n"), std::string::npos);
}

TEST(Flags, MisuseIsAnErrorNotAnExit) {
  EXPECT_EQ(Parse({"tool", "--bogus"}).status().message(), "unknown flag '--bogus'");
  EXPECT_EQ(std::string(Parse({"tool", "--count=many"}).status().message()),
            "invalid value 'many' for flag '--count'");
  EXPECT_EQ(Parse({"tool", "--format"}).status().message(), "flag '--format' needs a value");
  // An empty value is no number (it once parsed as the flag's nothing).
  // A text flag whose default is empty would take it as not given (an
  // unset variable's `--data-dir="$DIR"`): misuse too. One whose default
  // is not empty ("json") may be given empty: its own meaning.
  EXPECT_EQ(Parse({"tool", "--count="}).status().message(), "flag '--count' needs a value, not an empty one");
  EXPECT_EQ(Parse({"tool", "--data-dir="}).status().message(),
            "flag '--data-dir' needs a value, not an empty one (the flag left out has its default)");
  EXPECT_EQ(Parse({"tool", "--data-dir", ""}).status().message(),
            "flag '--data-dir' needs a value, not an empty one (the flag left out has its default)");
  EXPECT_TRUE(Parse({"tool", "--format="}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_format), "");
  EXPECT_TRUE(absl::IsCancelled(Parse({"tool", "--help"}).status()));
  // A flag twice, in any spelling: the second value would replace the
  // first unseen. Once a parse is fine, again in the next.
  EXPECT_EQ(Parse({"tool", "--count=1", "x", "--count", "2"}).status().message(),
            "flag '--count' is given twice");
  EXPECT_EQ(Parse({"tool", "--data-dir=a", "--data_dir=b"}).status().message(), "flag '--data-dir' is given twice");
  EXPECT_EQ(Parse({"tool", "--check", "--nocheck"}).status().message(), "flag '--check' is given twice");
  EXPECT_TRUE(Parse({"tool", "--count=1"}).ok());
  EXPECT_TRUE(Parse({"tool", "--count=2"}).ok());
}

// A flag is given when the command line names it, its default included.
TEST(Flags, GivenWhateverTheValue) {
  EXPECT_FALSE(FlagGiven("untouched"));
  ASSERT_TRUE(Parse({"tool", "--untouched=0"}).ok());  // the default
  EXPECT_TRUE(FlagGiven("untouched"));
  ASSERT_TRUE(Parse({"tool", "--data_dir=d"}).ok());
  EXPECT_TRUE(FlagGiven("data-dir"));  // either spelling
  EXPECT_FALSE(FlagGiven("no-such-flag"));
  std::string error;
  EXPECT_FALSE(SetFlagAsGiven("count", "many", &error));
  EXPECT_TRUE(SetFlagAsGiven("count", "3", &error)) << error;
  EXPECT_TRUE(FlagGiven("count"));
  EXPECT_EQ(absl::GetFlag(FLAGS_count), 3);
}

TEST(Flags, HelpListsOurFlagsSortedWithDefaults) {
  std::string help = FlagsHelp("usage: tool [x]");
  EXPECT_EQ(help.rfind("usage: tool [x]\n\nflags:\n  --check\n      validate only\n", 0), 0u) << help;
  EXPECT_NE(help.find("  --count=1\n      how many\n  --data-dir=\"\"\n      where data is\n"
                      "  --format=json\n"),
            std::string::npos)
      << help;
}

}  // namespace
}  // namespace serq
