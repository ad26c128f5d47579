// The figure as SVG 1.1: whole-pixel coordinates, colours and styles as
// attributes (no CSS, no markers, no gradients), so that browsers and
// librsvg draw it alike and the same figure always gives the same bytes.
#ifndef SERQ_VIEW_SVG_H_
#define SERQ_VIEW_SVG_H_

#include <string>

#include "serq-view/layout.h"

namespace serq::view {

std::string RenderSvg(const Figure& figure);

// `text` with &, <, > and " escaped, for XML text and attributes.
std::string XmlEscape(absl::string_view text);

}  // namespace serq::view

#endif  // SERQ_VIEW_SVG_H_
