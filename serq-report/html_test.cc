// The html page's pictures of an observation of more samples than serq-sim
// keeps: its CDF is drawn from the sketch and its caption says so.
#include "serq-report/html.h"
#include "serq-report/html_tables.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ir/io.h"
#include "stats/summary.h"

namespace serq::report {
namespace {

// One replication of the samples 1..N, N = 1.5 * 2^20 > 2^20, through
// serq-sim's recorder (so a summary, no kept samples), over a horizon of
// N seconds.
results::Results Summarised() {
  constexpr uint64_t n = 1572864;
  ObservationRecorder rec;
  for (uint64_t i = 1; i <= n; ++i) rec.Add(static_cast<double>(i));
  results::Results r;
  r.set_version(kIrVersion);
  r.set_horizon(n);
  r.set_replications(1);
  results::Replication* rep = r.add_replication();
  results::Observation* o = rep->add_observation();
  rec.WriteTo(o);
  o->set_name("x");
  return r;
}

int CountOf(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(Html, ASketchedObservationsCdfIsDrawn) {
  ReportOptions options;
  options.format = "html";
  absl::StatusOr<std::string> page = RenderHtml({Summarised()}, options, {"r"}, nullptr);
  ASSERT_TRUE(page.ok()) << page.status();
  size_t at = page->find("<figure id=\"cdf-0\">");
  ASSERT_NE(at, std::string::npos) << *page;
  std::string figure = page->substr(at, page->find("</figure>", at) - at);
  EXPECT_NE(figure.find("x, every replication's samples, from the quantile sketch (each step "
                        "within 0.1% of the exact value)"),
            std::string::npos)
      << figure;
  EXPECT_NE(figure.find("<polyline points=\""), std::string::npos) << figure;
  EXPECT_NE(figure.find("x (n=1572864, sketch)"), std::string::npos) << figure;
}

TEST(HtmlTables, NumbersReadAsNumbers) {
  // Whole numbers grouped by thousands; others to four significant digits,
  // fixed, trailing zeros dropped; never an exponent.
  EXPECT_EQ(ReadableNumber(0), "0");
  EXPECT_EQ(ReadableNumber(1499), "1,499");
  EXPECT_EQ(ReadableNumber(-1234567), "-1,234,567");
  EXPECT_EQ(ReadableNumber(4.07e-05), "0.0000407");
  EXPECT_EQ(ReadableNumber(0.0551), "0.0551");
  EXPECT_EQ(ReadableNumber(14.2830), "14.28");
  EXPECT_EQ(ReadableNumber(2.5), "2.5");
  EXPECT_EQ(ReadableNumber(22805.6535), "22,805.7");
  EXPECT_EQ(ReadableNumber(1e-12), "0");
  EXPECT_EQ(ReadableNumber(INFINITY), "inf");
}

TEST(HtmlTables, LatenciesInMillisecondsHumanNamesAndSplits) {
  // ttft and tpot are latencies under a second: ms, their figures times
  // 1000 (0.0482 s is 48.2 ms, p99 0.236 ± 0.01 s is 236 ± 10 ms); e2e
  // reaches 7.47 s: a table in s; out is a count: its own units, with
  // its sums.
  std::string csv =
      "observe,n,mean,half_width,interval,std,rate,sum,sum_rate,p99,p99_half_width\n"
      "e2e,1499,1.9157,0.0757,batch_means,1.449,29.98,2871.6,57.4,7.4744,\n"
      "out,1499,242.5,4.2,batch_means,184.7,29.98,363507,7270.1,908.16,\n"
      "tpot,1499,0.0077,0.0002,batch_means,0.001,29.98,11.5,0.23,0.0111,\n"
      "ttft,1490,0.0482,0.0043,batch_means,0.047,29.8,71.8,1.44,0.236,0.01\n";
  std::string html = TablesHtml(csv);
  EXPECT_NE(html.find("<caption>latencies under a second, in milliseconds</caption>"),
            std::string::npos) << html;
  EXPECT_NE(html.find("<th>p99 (ms)</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>ttft</td><td class=\"n\" title=\"1490\">1,490</td>"
                      "<td class=\"n\" title=\"0.0482 s\">48.2</td>"),
            std::string::npos) << html;
  EXPECT_NE(html.find(">236 ± 10</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<caption>latencies, in seconds</caption>"), std::string::npos);
  EXPECT_NE(html.find("<td>e2e</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>sum (/s)</th>"), std::string::npos);
  EXPECT_EQ(html.find("e-0"), std::string::npos) << html;  // no exponent anywhere
  EXPECT_EQ(html.find("half_width"), std::string::npos);   // no csv name

  // A section of 20 columns (an unknown one, a_b_ms: a human name by rule)
  // is split into two tables of 1 + 10, each with the row's name first.
  std::string wide = "thing";
  std::string row = "x";
  for (int i = 0; i < 19; ++i) {
    wide += ",a_b_ms";
    row += absl::StrCat(",", i);
  }
  html = TablesHtml(wide + "\n" + row + "\n");
  EXPECT_EQ(CountOf(html, "<table>"), 2) << html;
  EXPECT_EQ(CountOf(html, "<td>x</td>"), 2) << html;
  EXPECT_EQ(CountOf(html, "<th>a b (ms)</th>"), 19) << html;
  EXPECT_NE(html.find("<caption>(continued)</caption>"), std::string::npos);
}

}  // namespace
}  // namespace serq::report
