// Simulation results on the drawing: each station's figures, aggregated
// over the array's elements and the replications, and the colour scale.
//
// Aggregation (docs/view.md): every figure is first averaged over the
// replications, per element. Then `present` is summed over the elements
// (the jobs at the whole station, which is what one box stands for), and
// utilisation is given as the mean over the elements and as the maximum,
// the busiest element; the colour follows the maximum, so one saturated
// element of an array shows.
#ifndef SERQ_DIAGRAM_STATS_H_
#define SERQ_DIAGRAM_STATS_H_

#include <string>
#include <vector>

#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "proto/results.pb.h"
#include "diagram/row.h"

namespace serq::view {

// Fills Station::stats for every station of `drawing` and PoolSpan::stats
// (appending the occupancy to its label) for every pool bar of a pool with
// a finite cap. Results that name a stage or pool the program does not
// declare, or an element beyond its array, are
// from another program: an error in `diags` at the path in the results
// (`replication[0].stage[3].name`), and false.
bool AttachResults(const results::Results& results, const ir::Program& program,
                   Drawing* drawing, Diagnostics* diags);

// The fill of a station at utilisation `u` ("#rrggbb"): linear in RGB from
// pale green #d9f0d3 at 0 through yellow #fee08b at 0.5 to orange-red
// #f46d43 at 1, clamped outside [0, 1]. Black text stays readable on all.
std::string UtilisationColour(double u);

// The lines a station's figures add under its name and kind: "present
// 1.25", then "util 0.50" ("util 0.50 max 0.75" for an array of several
// elements, "util n/a" for a delay stage); a step stage has two lines
// instead of util: its batch fill, "tokens fill 0.05" (the fuller budget;
// "tokens fill 0.04 max 0.05" for an array; "fill n/a" without a bounded
// budget), and its time in a step, "busy 1.00"; "no results" when the
// results have none for it.
std::vector<std::string> StatsLines(const Station& station);

// Everything written in a station: its name, its kind, and with results
// its StatsLines. The SVG and the DOT both write these.
std::vector<std::string> StationLines(const Station& station, bool with_results);

// The fill of a station: the colour of its busiest element's utilisation
// when results are shown (a step stage: its fullest element's batch fill;
// grey without one), else plain.
std::string StationFill(const Station& station, bool with_results);

// The fill of a station without a utilisation (a delay stage) when results
// are shown, and of every station when they are not.
inline constexpr char kNoCapacityFill[] = "#e6e6e6";
inline constexpr char kPlainFill[] = "#ffffff";

}  // namespace serq::view

#endif  // SERQ_DIAGRAM_STATS_H_
