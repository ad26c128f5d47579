// Text for SVG and HTML: the one escaping function every picture and page
// of serq writes its text through.
#ifndef SERQ_CHART_XML_H_
#define SERQ_CHART_XML_H_

#include <string>

#include "absl/strings/string_view.h"

namespace serq::view {

// `text` with &, <, > and " escaped, for XML text and attributes.
std::string XmlEscape(absl::string_view text);

}  // namespace serq::view

#endif  // SERQ_CHART_XML_H_
