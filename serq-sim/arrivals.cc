#include "serq-sim/arrivals.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace serq::sim {
namespace {

std::string Unquote(absl::string_view field) {
  field = absl::StripAsciiWhitespace(field);
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
    field = field.substr(1, field.size() - 2);
  }
  return std::string(field);
}

class CsvFormat final : public TraceFormat {
 public:
  absl::Status Read(const std::string& path, absl::string_view display,
                    Trace* out) const override {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(absl::StrCat("cannot open trace '", display, "'"));
    }
    out->path = std::string(display);
    std::string line;
    int line_number = 0;
    int time_column = -1;
    size_t fields = 0;
    double previous = 0;
    while (std::getline(in, line)) {
      ++line_number;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (absl::StripAsciiWhitespace(line).empty()) continue;
      std::vector<absl::string_view> parts = absl::StrSplit(line, ',');
      if (time_column < 0) {  // the header
        fields = parts.size();
        for (size_t i = 0; i < parts.size(); ++i) {
          std::string name = Unquote(parts[i]);
          if (name == "time") {
            time_column = i;
          } else {
            out->columns.push_back(name);
          }
        }
        if (time_column < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat(display, ":", line_number, ": the header has no column 'time'"));
        }
        continue;
      }
      if (parts.size() != fields) {
        return absl::InvalidArgumentError(absl::StrCat(display, ":", line_number, ": expected ",
                                                       fields, " fields, found ", parts.size()));
      }
      size_t column = 0;
      for (size_t i = 0; i < parts.size(); ++i) {
        std::string text = Unquote(parts[i]);
        double value;
        if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) {
          std::string name = static_cast<int>(i) == time_column ? "time" : out->columns[column];
          return absl::InvalidArgumentError(absl::StrCat(display, ":", line_number, ": '", text,
                                                         "' in column '", name,
                                                         "' is not a finite number"));
        }
        if (static_cast<int>(i) == time_column) {
          if (value < 0) {
            return absl::InvalidArgumentError(
                absl::StrCat(display, ":", line_number, ": time ", value, " is negative"));
          }
          if (!out->times.empty() && value < previous) {
            return absl::InvalidArgumentError(
                absl::StrCat(display, ":", line_number, ": time ", value,
                             " is before the previous row's ", previous));
          }
          previous = value;
          out->times.push_back(value);
        } else {
          out->values.push_back(value);
          ++column;
        }
      }
    }
    if (time_column < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(display, ": empty trace (expected a header with a column 'time')"));
    }
    return absl::OkStatus();
  }
};

}  // namespace

const TraceFormat& CsvTraceFormat() {
  static const CsvFormat* format = new CsvFormat();
  return *format;
}

bool Arrivals::Start(const std::vector<const ArrivalPlan*>& plans, double horizon,
                     Random* random, GapSource* gaps) {
  horizon_ = horizon;
  random_ = random;
  gaps_ = gaps;
  streams_.assign(plans.size(), Stream());
  for (uint32_t w = 0; w < plans.size(); ++w) {
    Stream& s = streams_[w];
    s.plan = plans[w];
    const ArrivalPlan& p = *s.plan;
    switch (p.process) {
      case ir::Workload::BATCH:
        s.next = std::floor(p.count) >= 1 ? 0 : INFINITY;
        break;
      case ir::Workload::POISSON:
        s.next = random_->Exponential(1 / p.rate);
        break;
      case ir::Workload::PERIODIC:
        s.next = 0;
        break;
      case ir::Workload::RENEWAL:
        if (!gaps_->RenewalGap(w, p.gap, &s.next)) return false;
        break;
      case ir::Workload::TRACE:
        s.next = p.trace->times.empty() ? INFINITY : p.trace->times[0];
        break;
      default:
        s.next = INFINITY;
    }
    if (p.limit == 0 || s.next >= horizon_) s.next = INFINITY;
  }
  return true;
}

bool Arrivals::Next(double* time, uint32_t* workload) const {
  double best = INFINITY;
  uint32_t which = 0;
  // Strictly earlier wins: ties go to the workload declared first.
  for (uint32_t w = 0; w < streams_.size(); ++w) {
    if (streams_[w].next < best) {
      best = streams_[w].next;
      which = w;
    }
  }
  if (best == INFINITY) return false;
  *time = best;
  *workload = which;
  return true;
}

bool Arrivals::Take(uint32_t workload, const double** row) {
  Stream& s = streams_[workload];
  *row = nullptr;
  if (s.plan->process == ir::Workload::TRACE) {
    *row = s.plan->trace->values.data() + s.made * s.plan->trace->columns.size();
  }
  return Advance(workload);
}

bool Arrivals::Advance(uint32_t workload) {
  Stream& s = streams_[workload];
  const ArrivalPlan& p = *s.plan;
  ++s.made;
  if (s.made >= p.limit) {
    s.next = INFINITY;
    return true;
  }
  switch (p.process) {
    case ir::Workload::BATCH:
      if (s.made >= std::floor(p.count)) s.next = INFINITY;
      break;
    case ir::Workload::POISSON:
      s.next += random_->Exponential(1 / p.rate);
      break;
    case ir::Workload::PERIODIC:
      // k * period, not a running sum, so no rounding accumulates.
      s.next = s.made * p.period;
      break;
    case ir::Workload::RENEWAL: {
      double gap;
      if (!gaps_->RenewalGap(workload, p.gap, &gap)) return false;
      s.next += gap;
      break;
    }
    case ir::Workload::TRACE:
      s.next = s.made < p.trace->times.size() ? p.trace->times[s.made] : INFINITY;
      break;
    default:
      s.next = INFINITY;
  }
  if (s.next >= horizon_) s.next = INFINITY;
  return true;
}

}  // namespace serq::sim
