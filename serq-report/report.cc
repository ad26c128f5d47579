#include "serq-report/report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "stats/format.h"
#include "stats/merge.h"
#include "serq-report/model.h"
#include "serq-report/render.h"

namespace serq::report {
namespace {

absl::Status CheckQuantiles(const std::vector<double>& quantiles) {
  for (size_t i = 0; i < quantiles.size(); ++i) {
    double q = quantiles[i];
    if (!(q > 0 && q < 100)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "quantile ", FormatShortest(q), " is not between 0 and 100 (exclusive)"));
    }
    if (std::find(quantiles.begin(), quantiles.begin() + i, q) != quantiles.begin() + i) {
      return absl::InvalidArgumentError(
          absl::StrCat("quantile ", FormatShortest(q), " is given twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<double>> ParseQuantiles(absl::string_view list) {
  std::vector<double> quantiles;
  if (absl::StripAsciiWhitespace(list).empty()) return quantiles;
  for (absl::string_view item : absl::StrSplit(list, ',')) {
    item = absl::StripAsciiWhitespace(item);
    double q;
    if (!absl::SimpleAtod(item, &q)) {
      return absl::InvalidArgumentError(
          absl::StrCat("quantile '", item, "' is not a number (expected e.g. 50,90,99)"));
    }
    quantiles.push_back(q);
  }
  if (absl::Status s = CheckQuantiles(quantiles); !s.ok()) return s;
  return quantiles;
}

absl::Status ValidateReportOptions(const ReportOptions& options) {
  const std::string& f = options.format;
  if (f != "text" && f != "csv" && f != "json" && f != "md" && f != "html") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown format '", f, "' (expected text, csv, json, md or html)"));
  }
  return CheckQuantiles(options.quantiles);
}

absl::StatusOr<std::string> RenderReport(const std::vector<results::Results>& inputs,
                                         const ReportOptions& options,
                                         const std::vector<std::string>& files) {
  if (absl::Status s = ValidateReportOptions(options); !s.ok()) return s;
  absl::StatusOr<MergedResults> merged = MergeResults(NamedResults(inputs, files));
  if (!merged.ok()) return merged.status();
  // html needs serq-view's pictures, which depend on this library.
  if (options.format == "html") {
    return absl::InternalError("html is rendered by RenderHtml (serq-report/html.h)");
  }
  Report report = BuildReport(*merged, options.quantiles);
  if (options.format == "csv") return RenderCsv(report);
  if (options.format == "json") return RenderJson(report);
  if (options.format == "md") return RenderMarkdown(report);
  return RenderText(report);
}

}  // namespace serq::report
