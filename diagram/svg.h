// The figure as SVG 1.1: whole-pixel coordinates, colours and styles as
// attributes (no CSS, no markers, no gradients), so that browsers and
// librsvg draw it alike and the same figure always gives the same bytes.
#ifndef SERQ_DIAGRAM_SVG_H_
#define SERQ_DIAGRAM_SVG_H_

#include <string>

#include "diagram/layout.h"

namespace serq::view {

std::string RenderSvg(const Figure& figure);

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_SVG_H_
