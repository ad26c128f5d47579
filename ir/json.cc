#include "ir/json.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace serq {

std::string ShortestDouble(double x) {
  if (x == 0) return "0";  // and not "-0"
  std::string text = absl::StrFormat("%.15g", x);
  if (std::strtod(text.c_str(), nullptr) != x) text = absl::StrFormat("%.17g", x);
  return text;
}

std::string JsonNumber(double x) {
  if (std::isnan(x)) return "\"NaN\"";
  if (std::isinf(x)) return x > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  // -0 keeps its sign, as protobuf's JSON mapping writes it in the results.
  if (x == 0 && std::signbit(x)) return "-0";
  return ShortestDouble(x);
}

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace serq
