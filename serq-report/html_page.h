// The html page's frame, for every page serq writes (a run's report, a
// sweep's table and charts): the head with the one inline style sheet,
// the title, and a figure with its caption (docs/report.md §HTML).
#ifndef SERQ_REPORT_HTML_PAGE_H_
#define SERQ_REPORT_HTML_PAGE_H_

#include <string>

namespace serq::report {

// `<!DOCTYPE html>` to the `<h1>` of `title`, the style inline.
std::string HtmlPageStart(const std::string& title);
// `</body></html>`.
std::string HtmlPageEnd();
// A `<figure id=ID>` of an inline SVG under its caption.
std::string HtmlFigure(const std::string& caption, const std::string& svg, const std::string& id);

}  // namespace serq::report

#endif  // SERQ_REPORT_HTML_PAGE_H_
