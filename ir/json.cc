#include "ir/json.h"

#include <cmath>
#include <cstdlib>

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
  return ShortestDouble(x);
}

}  // namespace serq
