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
  // A step stage: its utilisation is the time in a step, which reads 1 at
  // a small part of its budgets, so the fill it is drawn by is the batch
  // fill instead: the mean batch over a budget (jobs / seqs, tokens /
  // tokens), the fuller of the two, per element (each a ratio of sums over
  // the replications); absent when both budgets are unbounded or no step
  // started.
  bool step = false;
  bool has_fill = false;
  double fill_mean = 0;  // mean over the elements that have one
  double fill_max = 0;   // the fullest element's
  std::string fill_budget;  // "seqs" or "tokens": the budget of fill_max
};

// What a simulation measured of a pool (stats.h fills it): occupancy, the
// units used over the cap, per element averaged over the replications (mean)
// and the maximum over them (peak); over an array, the fullest element's.
struct PoolSpanStats {
  double mean = 0;  // time-average used / cap of the fullest element
  double peak = 0;  // max used / cap, the maximum over the elements
  // A flag or a counter (pool_kind.h): its use is not load and is not
  // coloured as such.
  bool flag = false;
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
  int pool = -1;              // index into Program.pool
  std::string label;          // "kvD[2] cap 100", ", lease inf" when leased
  std::vector<int> held;      // columns, ascending
  std::vector<int> leased;    // columns, ascending, none of them in `held`
  bool lease_to_end = false;  // the lease outlives the session's path
  int anchor = kStart;        // an empty hold is drawn right after this column
  // With results: the pool's occupancy (none: no results for it, or an
  // infinite cap); the label then ends with it.
  std::optional<PoolSpanStats> stats;
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
