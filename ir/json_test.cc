// Doubles in hand-written JSON: the shortest exact form, protobuf's strings
// for the values JSON has no number for.
#include "ir/json.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace serq {
namespace {

TEST(Json, FiniteNumbersInTheShortestExactForm) {
  EXPECT_EQ(JsonNumber(0.1), "0.1");  // %.17g would be 0.10000000000000001
  EXPECT_EQ(JsonNumber(1.5), "1.5");
  EXPECT_EQ(JsonNumber(3), "3");
  // -0 with its sign, as protobuf's JSON mapping writes it (the results'
  // samples of `observe x = -0;`): the two files read alike.
  EXPECT_EQ(JsonNumber(-0.0), "-0");
  google::protobuf::Value zero;
  zero.set_number_value(-0.0);
  std::string protobufs;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(zero, &protobufs).ok());
  EXPECT_EQ(JsonNumber(-0.0), protobufs);
  EXPECT_EQ(JsonNumber(1e300), "1e+300");
  // 0.1 + 0.2 needs 17 digits to read back.
  EXPECT_EQ(JsonNumber(0.1 + 0.2), "0.30000000000000004");
  for (double x : {1.0 / 3, 2.0 / 3, 1e-310, 123456789.123456789, -7.25e-5}) {
    EXPECT_EQ(std::strtod(JsonNumber(x).c_str(), nullptr), x) << x;
  }
}

TEST(Json, NonFiniteValuesAsProtobufsStrings) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(JsonNumber(inf), "\"Infinity\"");
  EXPECT_EQ(JsonNumber(-inf), "\"-Infinity\"");
  EXPECT_EQ(JsonNumber(std::nan("")), "\"NaN\"");
}

// The same text as protobuf's JSON mapping writes for a double (what the
// results and report files hold): a Value's number_value printed alone.
TEST(Json, AsProtobufWritesThem) {
  double inf = std::numeric_limits<double>::infinity();
  for (double x : {0.1, 1.5, 0.1 + 0.2, 1e300, 2.0 / 3, inf, -inf, std::nan("")}) {
    google::protobuf::Value v;
    v.set_number_value(x);
    std::string out;
    ASSERT_TRUE(google::protobuf::util::MessageToJsonString(v, &out).ok());
    EXPECT_EQ(JsonNumber(x), out) << x;
  }
}

}  // namespace
}  // namespace serq

namespace serq {
namespace {

// Quotes and backslashes escaped, control characters as \u00XX, the rest
// (UTF-8 included) as it is; the result parses back to the input.
TEST(Json, Strings) {
  EXPECT_EQ(JsonString(""), "\"\"");
  EXPECT_EQ(JsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonString(std::string("\n\t\x01", 3)), "\"\\u000a\\u0009\\u0001\"");
  EXPECT_EQ(JsonString("µs"), "\"µs\"");
  google::protobuf::Value v;
  const std::string text = "x\"y\\\n\x1f µ";
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(JsonString(text), &v).ok());
  EXPECT_EQ(v.string_value(), text);
}

}  // namespace
}  // namespace serq
