#include "stats/format.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/json.h"

namespace serq::report {

std::string FormatFixed(double x, int decimals) {
  if (std::isnan(x)) return "-";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::string text = absl::StrFormat("%.*f", decimals, x);
  if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) {
    text.erase(0, 1);
  }
  return text;
}

std::string FormatShortest(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return ShortestDouble(x);  // as the JSON writers (ir/json.h)
}

std::string ElementName(absl::string_view name, bool array, uint32_t index) {
  if (!array) return std::string(name);
  return absl::StrCat(name, "[", index, "]");
}

std::string CsvField(absl::string_view text) {
  if (text.find_first_of(",\"\r\n") == absl::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace serq::report
