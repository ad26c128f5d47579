// The html page's pictures of an observation of more samples than serq-sim
// keeps: its CDF is drawn from the sketch and its caption says so.
#include "serq-report/html.h"

#include <string>

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

}  // namespace
}  // namespace serq::report
