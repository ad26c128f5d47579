#include "serq/sweep/grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "ir/cli.h"
#include "stats/format.h"

namespace serq {
namespace {

absl::Status Malformed(absl::string_view name, absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("malformed -D '", name, "=", text, "': ", why));
}

bool Number(absl::string_view s, double* x) {
  return absl::SimpleAtod(s, x) && std::isfinite(*x);
}


}  // namespace

double GridValue(double start, double step, int64_t i, double stop) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", start + static_cast<double>(i) * step);
  return std::clamp(std::strtod(buf, nullptr), start, stop);
}

absl::StatusOr<std::vector<double>> ParseAxisValues(absl::string_view name,
                                                    absl::string_view text) {
  std::vector<double> values;
  if (absl::StrContains(text, ':')) {
    std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
    double start, stop, step;
    if (parts.size() != 3 || !Number(parts[0], &start) || !Number(parts[1], &stop) ||
        !Number(parts[2], &step)) {
      return Malformed(name, text, "expected start:stop:step, e.g. -D Rate=10:30:5");
    }
    if (!(step > 0)) return Malformed(name, text, "the step must be > 0");
    if (start > stop) return Malformed(name, text, "the start is above the stop");
    double count = std::floor((stop - start) / step + 1e-9) + 1;
    if (count > kMaxAxisValues) {
      return Malformed(name, text, absl::StrCat("more than ", kMaxAxisValues, " values"));
    }
    for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
      values.push_back(GridValue(start, step, i, stop));
      // A step below what 15 digits tell apart at this size (1e16:...:1)
      // makes a value twice: refused, as a list's value twice is.
      if (i > 0 && values[i] == values[i - 1]) {
        return Malformed(name, text, absl::StrCat("the step ", parts[2], " repeats the value ",
                                                  absl::StrFormat("%.15g", values[i]),
                                                  " (15 significant digits tell no finer steps apart)"));
      }
    }
    return values;
  }
  // A value of a list: a number, or inf as every other command's -D takes
  // it (a pool's unlimited cap; ir/cli.h's rule, so 1e400 is refused). A
  // range's ends stay finite.
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    double x = 0;
    if (const std::string why = DefineValueProblem(part, &x); !why.empty()) {
      // A number past the largest says so; anything else is the list's form.
      return Malformed(name, text,
                       absl::StartsWith(why, "past") ? absl::StrCat("the value ", part, " is ", why)
                                                     : "expected a number, a list (2,4,6) or a range (start:stop:step)");
    }
    for (double seen : values) {
      if (seen == x) return Malformed(name, text, absl::StrCat("the value ", part, " is listed twice"));
    }
    values.push_back(x);
  }
  if (values.size() > kMaxAxisValues) {
    return Malformed(name, text, absl::StrCat("more than ", kMaxAxisValues, " values"));
  }
  return values;
}

absl::StatusOr<std::vector<std::string>> ParseShareList(absl::string_view text) {
  std::vector<std::string> words;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    if (part != "maxmin" && part != "bottleneck") {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown --share '", part, "' (expected maxmin or bottleneck)"));
    }
    for (const std::string& seen : words) {
      if (seen == part) {
        return absl::InvalidArgumentError(absl::StrCat("--share lists '", part, "' twice"));
      }
    }
    words.emplace_back(part);
  }
  return words;
}

uint64_t PointCount(const google::protobuf::RepeatedPtrField<sweep::Axis>& axes) {
  uint64_t n = 1;
  for (const sweep::Axis& a : axes) {
    const uint64_t values = a.word_size() > 0 ? a.word_size() : a.value_size();
    if (__builtin_mul_overflow(n, values, &n)) n = UINT64_MAX;
  }
  return n;
}

std::vector<sweep::Setting> PointSettings(
    const google::protobuf::RepeatedPtrField<sweep::Axis>& axes, uint64_t index) {
  std::vector<sweep::Setting> settings(axes.size());
  for (int i = axes.size() - 1; i >= 0; --i) {
    const sweep::Axis& a = axes[i];
    uint64_t size = a.word_size() > 0 ? a.word_size() : a.value_size();
    uint64_t k = index % size;
    index /= size;
    settings[i].set_name(a.name());
    if (a.word_size() > 0) {
      settings[i].set_word(a.word(k));
    } else {
      settings[i].set_value(a.value(k));
    }
  }
  return settings;
}

std::string SettingText(const sweep::Setting& s) {
  if (s.lacked()) return "-";
  return s.word().empty() ? report::FormatShortest(s.value()) : s.word();
}

namespace {

// The axes program `p` of a plan of several has (not lacked).
google::protobuf::RepeatedPtrField<sweep::Axis> AxesOf(const sweep::Plan& plan, int p) {
  google::protobuf::RepeatedPtrField<sweep::Axis> axes;
  const auto& lacks = plan.programs(p).lacks();
  for (const sweep::Axis& a : plan.axis()) {
    if (std::find(lacks.begin(), lacks.end(), a.name()) == lacks.end()) *axes.Add() = a;
  }
  return axes;
}

}  // namespace

uint64_t PlanPointCount(const sweep::Plan& plan) {
  if (plan.programs_size() == 0) return PointCount(plan.axis());
  uint64_t n = 0;
  for (int p = 0; p < plan.programs_size(); ++p) {
    if (__builtin_add_overflow(n, PointCount(AxesOf(plan, p)), &n)) n = UINT64_MAX;
  }
  return n;
}

PlanPoint PointOfPlan(const sweep::Plan& plan, uint64_t index) {
  PlanPoint point;
  if (plan.programs_size() == 0) {
    point.path = plan.program();
    point.settings = PointSettings(plan.axis(), index);
    return point;
  }
  int p = 0;
  google::protobuf::RepeatedPtrField<sweep::Axis> axes = AxesOf(plan, 0);
  while (index >= PointCount(axes) && p + 1 < plan.programs_size()) {
    index -= PointCount(axes);
    axes = AxesOf(plan, ++p);
  }
  point.program = p;
  point.path = plan.programs(p).path();
  std::vector<sweep::Setting> own = PointSettings(axes, index);
  size_t k = 0;
  for (const sweep::Axis& a : plan.axis()) {
    if (k < own.size() && own[k].name() == a.name()) {
      point.settings.push_back(own[k++]);
    } else {
      sweep::Setting lacked;
      lacked.set_name(a.name());
      lacked.set_lacked(true);
      point.settings.push_back(std::move(lacked));
    }
  }
  return point;
}

std::string PlanPrograms(const sweep::Plan& plan) {
  if (plan.programs_size() == 0) return plan.program();
  std::string out;
  for (int p = 0; p < plan.programs_size(); ++p) {
    absl::StrAppend(&out, p == 0 ? "" : p + 1 == plan.programs_size() ? " and " : ", ",
                    plan.programs(p).path());
  }
  return out;
}

}  // namespace serq
