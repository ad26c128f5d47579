// The station row of each session: what the drawing says, before any
// geometry. Built from the IR once; the SVG layout and the DOT writer both
// render it, so the two formats cannot disagree on what a program does.
//
// Columns: station i stands in column i of its row. Edges use two more:
// kStart (-1), the session's start marker, and stations.size(), its end.
#ifndef SERQ_DIAGRAM_ROW_H_
#define SERQ_DIAGRAM_ROW_H_

#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "proto/ir.pb.h"

namespace serq::view {

inline constexpr int kStart = -1;

// What a simulation measured at a station (stats.h fills it).
struct StationStats {
  double present = 0;      // mean jobs present, summed over the array's elements
  double util_mean = 0;    // utilisation, mean over the elements
  double util_max = 0;     // utilisation of the busiest element
  bool has_util = true;    // false for delay stages, which have no capacity
  int elements = 1;        // elements the results have figures for
};

struct Station {
  int stage = 0;     // index into Program.stage
  std::string name;  // "D[2]" for an array of two, "P" for a scalar
  std::string kind;  // "delay", "ps(1)", "fifo(BwD)", "step"
  bool array = false;
  std::optional<StationStats> stats;
};

// One arrow of the session's path: from the station the session leaves
// (the last of a flow's) to the one it comes to next (the first of a
// flow's). `label` is "if", "else", "else if" or "repeat" (or several,
// joined by "/"), empty for plain succession.
struct Edge {
  int from = kStart;
  int to = 0;
  std::string label;
};

// A multi-stage run: its stations in the run's order. They stand side by
// side unless an earlier flow already placed one of them (Contiguous()).
struct Flow {
  std::vector<int> columns;
  bool Contiguous() const;
};

// One pool of one hold statement: the stations the session visits while it
// holds the pool, and those it visits while its lease lives on after the
// block (until `release` of the pool, or to the end of the session).
struct PoolSpan {
  std::string label;          // "kvD[2] cap 100", ", lease inf" when leased
  std::vector<int> held;      // columns, ascending
  std::vector<int> leased;    // columns, ascending, none of them in `held`
  bool lease_to_end = false;  // the lease outlives the session's path
  int anchor = kStart;        // an empty hold is drawn right after this column
};

struct Row {
  std::string session;  // "session" or "session NAME"
  std::vector<Station> stations;
  std::vector<Edge> edges;  // sorted by (from, to)
  std::vector<Flow> flows;  // in order of first appearance
  std::vector<PoolSpan> pools;  // in order of the hold statements
  int end() const { return int(stations.size()); }
};

struct Drawing {
  std::string share;  // "maxmin", "bottleneck" or empty
  std::vector<Row> rows;  // one per session, in declaration order
};

// Builds the rows of every session. Errors (a reference to nothing, an
// array size that is not a number) go to `diags`; returns false then.
bool BuildDrawing(const ir::Program& program, Drawing* out, Diagnostics* diags);

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_ROW_H_
