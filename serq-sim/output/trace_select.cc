#include "serq-sim/output/trace_select.h"

#include <cmath>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace serq::sim {

bool TraceSelect::everything() const {
  return std::isinf(from) && std::isinf(to) && steps && sessions && pools && counters;
}

absl::StatusOr<TraceSelect> ParseTraceSelect(absl::string_view window, absl::string_view select) {
  TraceSelect out;
  if (!window.empty()) {
    std::vector<absl::string_view> sides = absl::StrSplit(window, ':');
    auto bad = [&] {
      return absl::InvalidArgumentError(absl::StrCat(
          "--trace-window '", window, "': expected FROM:TO in seconds, 0 <= FROM < TO (a side "
          "may be empty: the run's start or end)"));
    };
    if (sides.size() != 2) return bad();
    if (!sides[0].empty() && !absl::SimpleAtod(sides[0], &out.from)) return bad();
    if (!sides[1].empty() && !absl::SimpleAtod(sides[1], &out.to)) return bad();
    if (sides[0].empty()) out.from = -std::numeric_limits<double>::infinity();
    if (std::isnan(out.from) || std::isnan(out.to) || (!sides[0].empty() && out.from < 0) ||
        !(out.from < out.to) || (!sides[0].empty() && !std::isfinite(out.from))) {
      return bad();
    }
  }
  if (!select.empty()) {
    out.steps = out.sessions = out.pools = out.counters = false;
    for (absl::string_view kind : absl::StrSplit(select, ',')) {
      if (kind == "steps") {
        out.steps = true;
      } else if (kind == "sessions") {
        out.sessions = true;
      } else if (kind == "pools") {
        out.pools = true;
      } else if (kind == "counters") {
        out.counters = true;
      } else {
        return absl::InvalidArgumentError(absl::StrCat(
            "--trace-select: unknown kind '", kind, "' (expected steps, sessions, pools or counters)"));
      }
    }
  }
  return out;
}

void TraceFilter::Flush() {
  // A line of the log: `{"t":…,"event":"…",…}`, or a replication's
  // `{"replication":N}`, which every trace keeps.
  absl::string_view line = line_;
  bool keep = true;
  if (absl::StartsWith(line, "{\"t\":")) {
    absl::string_view rest = line.substr(5);
    size_t comma = rest.find(',');
    double t = 0;
    if (comma != absl::string_view::npos && absl::SimpleAtod(rest.substr(0, comma), &t)) {
      keep = select_.InWindow(t);
      absl::string_view event = rest.substr(comma + 1);
      if (absl::StartsWith(event, "\"event\":\"step\"")) {
        keep = keep && select_.steps;
      } else if (absl::StartsWith(event, "\"event\":\"pool\"")) {
        keep = keep && select_.pools;
      } else {
        keep = keep && select_.sessions;
      }
    }
  }
  if (keep) *out_ << line_ << '\n';
  line_.clear();
}

void TraceFilter::Put(char c) {
  if (c == '\n') return Flush();
  line_ += c;
}

TraceFilter::int_type TraceFilter::overflow(int_type c) {
  if (c != traits_type::eof()) Put(traits_type::to_char_type(c));
  return traits_type::not_eof(c);
}

std::streamsize TraceFilter::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize k = 0; k < n; ++k) Put(s[k]);
  return n;
}

}  // namespace serq::sim
