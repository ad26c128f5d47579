// The drawing as a Graphviz digraph, for users who lay out with their own
// tools: one cluster per session, left to right; stations in the row's
// order (an invisible chain keeps it); each flow a cluster of its own (the
// rail); returns drawn without constraining the ranks; each pool a note
// tied to the stations it spans (solid while held, dashed while leased).
#ifndef SERQ_DIAGRAM_DOT_H_
#define SERQ_DIAGRAM_DOT_H_

#include <string>

#include "diagram/row.h"

namespace serq::view {

std::string RenderDot(const Drawing& drawing, bool with_results);

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_DOT_H_
