// The report's first lines after the run line (docs/report.md §The
// headline): the busiest resource, the one nearest its capacity, with its
// figure; then the preemptions and the stalls when there were any. Every
// format for people prints them (text, md, the html page), from the same
// Report the tables print, so they cannot disagree.
#ifndef SERQ_REPORT_HEADLINE_H_
#define SERQ_REPORT_HEADLINE_H_

#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace serq::report {

// How full a resource was, as a fraction of its capacity (docs/report.md
// §The headline): a ps or fifo stage its util, a shared stage (a link) the
// capacity its flows carry, a step stage its batch fill (the fuller of seq
// fill and token fill: its util is only the time in a step), a pool of
// finite cap its mean used over the cap. Delay stages, step stages without
// a bounded budget (or without a step), pools of infinite cap and pools
// that no hold entered and no growth waited for in the window have none.
struct Load {
  enum class Kind { kStage, kLink, kPool };
  Kind kind = Kind::kStage;
  int index = 0;      // into Report.stage, or Report.pool
  double figure = 0;  // the fraction the resources are ranked by
};

// Every resource that has a load, stages then pools, in the report's order.
std::vector<Load> Loads(const Report& report);

// The lines: `busiest: ...` (none when no resource has a load),
// `preemptions: ...` and `stalls: ...` (each only when there were some).
std::vector<std::string> HeadlineLines(const Report& report);

}  // namespace serq::report

#endif  // SERQ_REPORT_HEADLINE_H_
