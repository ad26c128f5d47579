#include "serq-report/html_page.h"

#include "absl/strings/str_cat.h"
#include "chart/xml.h"

namespace serq::report {
namespace {

constexpr char kStyle[] = R"(
body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; color: #222; margin: 24px auto;
       max-width: 1320px; padding: 0 16px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
p.headline { font-weight: bold; margin: 4px 0; }
table { border-collapse: collapse; font-size: 13px; margin: 0; }
caption { caption-side: top; text-align: left; font-size: 13px; color: #555; padding: 4px 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; }
th { background: #f2f2f2; text-align: left; vertical-align: bottom; font-weight: 600;
     max-width: 9em; }
td { white-space: nowrap; font-family: DejaVu Sans Mono, Menlo, Consolas, monospace; }
td.n { text-align: right; }
div.table { margin: 10px 0; overflow-x: auto; }
figure { margin: 12px 0; overflow-x: auto; }
figcaption { font-size: 13px; color: #555; margin-bottom: 4px; }
pre { font-size: 12px; background: #f7f7f7; padding: 8px; overflow-x: auto; }
)";

}  // namespace

std::string HtmlPageStart(const std::string& title) {
  return absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
      view::XmlEscape(title), "</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n<h1>",
      view::XmlEscape(title), "</h1>\n");
}

std::string HtmlPageEnd() { return "</body>\n</html>\n"; }

std::string HtmlFigure(const std::string& caption, const std::string& svg, const std::string& id) {
  return absl::StrCat("<figure id=\"", id, "\"><figcaption>", view::XmlEscape(caption),
                      "</figcaption>\n", svg, "</figure>\n");
}

}  // namespace serq::report
