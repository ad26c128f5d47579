#include "diagram/dot.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "diagram/stats.h"

namespace serq::view {
namespace {

std::string Quote(absl::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A label of several lines: each line quoted, joined by Graphviz's
// centred line break.
std::string Lines(const std::vector<std::string>& lines) {
  std::string body;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string quoted = Quote(lines[i]);
    absl::StrAppend(&body, i ? "\\n" : "", quoted.substr(1, quoted.size() - 2));
  }
  return absl::StrCat("\"", body, "\"");
}

void RenderRow(const Row& row, int r, const std::string& share, bool with_results,
               std::string* out) {
  auto node = [&](int column) {
    if (column == kStart) return absl::StrCat("r", r, "_start");
    if (column == row.end()) return absl::StrCat("r", r, "_end");
    return absl::StrCat("r", r, "_c", column);
  };
  absl::StrAppend(out, "  subgraph cluster_r", r, " {\n", "    label=", Quote(row.session),
                  ";\n    labeljust=l;\n    color=\"#bbbbbb\";\n");
  absl::StrAppend(out, "    ", node(kStart),
                  " [shape=circle, label=\"\", width=0.15, height=0.15, style=filled, "
                  "fillcolor=\"#222222\"];\n");
  absl::StrAppend(out, "    ", node(row.end()),
                  " [shape=doublecircle, label=\"\", width=0.1, height=0.1, style=filled, "
                  "fillcolor=\"#222222\"];\n");
  for (int c = 0; c < row.end(); ++c) {
    const Station& s = row.stations[c];
    absl::StrAppend(out, "    ", node(c), " [label=", Lines(StationLines(s, with_results)),
                    ", fillcolor=\"", StationFill(s, with_results), "\"];\n");
  }

  // Flows: a cluster each, unless an earlier flow holds one of its
  // stations (clusters cannot share a node) or it is split; those are
  // joined by an undirected dashed link instead, which is not an arrow.
  std::set<int> clustered;
  for (size_t f = 0; f < row.flows.size(); ++f) {
    const Flow& flow = row.flows[f];
    bool free = flow.Contiguous();
    for (int c : flow.columns) free = free && !clustered.count(c);
    if (free) {
      absl::StrAppend(out, "    subgraph cluster_r", r, "_f", f, " {\n      label=",
                      Quote(share.empty() ? "flow" : absl::StrCat("flow ", share)),
                      ";\n      style=\"rounded,bold\";\n      color=\"#2b6cb0\";\n");
      for (int c : flow.columns) {
        absl::StrAppend(out, "      ", node(c), ";\n");
        clustered.insert(c);
      }
      absl::StrAppend(out, "    }\n");
    } else {
      for (size_t k = 1; k < flow.columns.size(); ++k) {
        absl::StrAppend(out, "    ", node(flow.columns[k - 1]), " -> ", node(flow.columns[k]),
                        " [dir=none, style=dashed, color=\"#2b6cb0\", constraint=false];\n");
      }
    }
  }

  // The row's order: an invisible chain, heavy enough to keep it straight.
  std::vector<std::string> chain;
  for (int c = kStart; c <= row.end(); ++c) chain.push_back(node(c));
  absl::StrAppend(out, "    ", absl::StrJoin(chain, " -> "), " [style=invis, weight=100];\n");

  for (const Edge& e : row.edges) {
    std::vector<std::string> attrs;
    if (!e.label.empty()) attrs.push_back(absl::StrCat("label=", Quote(e.label)));
    if (e.to <= e.from) attrs.push_back("constraint=false");  // a return
    absl::StrAppend(out, "    ", node(e.from), " -> ", node(e.to),
                    attrs.empty() ? "" : absl::StrCat(" [", absl::StrJoin(attrs, ", "), "]"),
                    ";\n");
  }

  for (size_t p = 0; p < row.pools.size(); ++p) {
    const PoolSpan& span = row.pools[p];
    std::string name = absl::StrCat("r", r, "_p", p);
    absl::StrAppend(out, "    ", name, " [shape=note, style=filled, fillcolor=\"#fdf3e1\", ",
                    "color=\"#b7791f\", label=", Quote(span.label), "];\n");
    // Stand the note in the column of its first station.
    int first = span.anchor;
    if (!span.held.empty()) first = span.held.front();
    else if (!span.leased.empty()) first = span.leased.front();
    absl::StrAppend(out, "    ", node(kStart), " -> ", name, " [style=invis, minlen=",
                    first - kStart, "];\n");
    for (int c : span.held) {
      absl::StrAppend(out, "    ", name, " -> ", node(c),
                      " [dir=none, color=\"#b7791f\", constraint=false];\n");
    }
    for (int c : span.leased) {
      absl::StrAppend(out, "    ", name, " -> ", node(c),
                      " [dir=none, style=dashed, color=\"#b7791f\", constraint=false];\n");
    }
    if (span.lease_to_end) {
      absl::StrAppend(out, "    ", name, " -> ", node(row.end()),
                      " [dir=none, style=dashed, color=\"#b7791f\", constraint=false];\n");
    }
  }
  absl::StrAppend(out, "  }\n");
}

}  // namespace

std::string RenderDot(const Drawing& drawing, bool with_results) {
  std::string out =
      "digraph serq {\n"
      "  graph [rankdir=LR, fontname=\"DejaVu Sans Mono\", fontsize=11];\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans Mono\", "
      "fontsize=11];\n"
      "  edge [fontname=\"DejaVu Sans Mono\", fontsize=10, color=\"#444444\"];\n";
  for (int r = 0; r < int(drawing.rows.size()); ++r) {
    RenderRow(drawing.rows[r], r, drawing.share, with_results, &out);
  }
  out += "}\n";
  return out;
}

}  // namespace serq::view
