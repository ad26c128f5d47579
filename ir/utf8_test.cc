#include "ir/utf8.h"

#include "gtest/gtest.h"

namespace serq {
namespace {

// RFC 3629's encoding: 1 to 4 bytes, the lead byte saying how many, no
// overlong forms, nothing above U+10FFFF. Each expected prefix is counted
// by hand.
TEST(Utf8, PrefixOfWholeCharacters) {
  EXPECT_EQ(Utf8Prefix(""), 0u);
  EXPECT_EQ(Utf8Prefix("a.csv"), 5u);
  EXPECT_EQ(Utf8Prefix("caf\xc3\xa9"), 5u);                 // é: 2 bytes
  EXPECT_EQ(Utf8Prefix("\xe2\x86\x92!"), 4u);               // →: 3 bytes
  EXPECT_EQ(Utf8Prefix("\xf0\x9f\x98\x80"), 4u);            // U+1F600: 4 bytes
  EXPECT_EQ(Utf8Prefix("ab\xff"), 2u);                      // 0xff never appears
  EXPECT_EQ(Utf8Prefix("a\xa9"), 1u);                       // a continuation first
  EXPECT_EQ(Utf8Prefix("caf\xc3"), 3u);                     // é cut short
  EXPECT_EQ(Utf8Prefix("\xc3(x"), 0u);                      // a lead byte then ASCII
  EXPECT_EQ(Utf8Prefix("x\xc0\xaf"), 1u);                   // '/' overlong in 2 bytes
  EXPECT_EQ(Utf8Prefix("\xf4\x90\x80\x80"), 0u);            // U+110000, past the end
  EXPECT_TRUE(IsUtf8("tokens_\xc3\xa9"));
  EXPECT_FALSE(IsUtf8("a\xe9"));                            // é in Latin-1
}

TEST(Utf8, EscapedShowsEachStrayByte) {
  EXPECT_EQ(Utf8Escaped("a.sq"), "a.sq");
  EXPECT_EQ(Utf8Escaped("caf\xc3\xa9.sq"), "caf\xc3\xa9.sq");
  EXPECT_EQ(Utf8Escaped("caf\xe9.sq"), "caf\\xe9.sq");
  EXPECT_EQ(Utf8Escaped("\xff\xfe"), "\\xff\\xfe");
  EXPECT_TRUE(IsUtf8(Utf8Escaped("\xc3(\xf0\x9f")));
}

// Control characters (C0, DEL) as escapes; UTF-8 and the rest of ASCII as
// they are. With keep_lines, a message's line breaks and tabs stay.
TEST(Utf8, ControlEscapedShowsEachControlCharacter) {
  EXPECT_EQ(ControlEscaped("Llama \xc3\xa9 (8B)"), "Llama \xc3\xa9 (8B)");
  EXPECT_EQ(ControlEscaped("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(ControlEscaped("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  EXPECT_EQ(ControlEscaped(absl::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(ControlEscaped("a\nb\tc\rd\x1b", /*keep_lines=*/true), "a\nb\tc\\rd\\x1b");
}

}  // namespace
}  // namespace serq
