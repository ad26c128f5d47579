// A search's html page (`serq search --format=html`): the question and the
// answer, the table of the points tried (each value, its verdict and
// replications, the condition's figures with their 95% intervals, its
// steady state, and why it did not pass), and a chart a figure of the
// condition against the param, every point with its interval, the points
// that did not pass ringed in red and the condition's bounds on that figure
// drawn as labelled lines. Self-contained, as the run's and the sweep's
// pages are (docs/cli.md §search).
#ifndef SERQ_SERQ_SWEEP_SEARCH_HTML_H_
#define SERQ_SERQ_SWEEP_SEARCH_HTML_H_

#include <optional>
#include <string>

#include "serq/sweep/search.h"

namespace serq {

// The page's table as csv: a header and a row a point tried, in the order
// tried, each figure and its ± rounded as the text table rounds them.
std::string SearchCsv(const SearchSpec& spec, const SearchOutcome& outcome);

// The chart of figure `m` (an index of spec.condition.metrics) against the
// param, as an SVG document; `log_y` as serq sweep's --log-y.
std::string SearchChart(const SearchSpec& spec, const SearchOutcome& outcome, size_t m,
                        std::optional<bool> log_y);

std::string RenderSearchHtml(const SearchSpec& spec, const SearchOutcome& outcome,
                             std::optional<bool> log_y = std::nullopt);

}  // namespace serq

#endif  // SERQ_SERQ_SWEEP_SEARCH_HTML_H_
