#include "serq/compare_cli.h"

#include <filesystem>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "ir/cli.h"
#include "ir/flags.h"
#include "ir/output.h"
#include "serq-sim/engine/simulate.h"
#include "serq/measured/compare_command.h"

ABSL_FLAG(std::string, names, "",
          "compare: the observations that hold each metric in serq results, e.g. "
          "'ttft=first,e2e=latency' (default: ttft, tpot, itl, e2e)");
ABSL_FLAG(std::string, svg, "", "compare: also write the CDFs of each metric, both runs, as SVG");
ABSL_FLAG(bool, allow_count_mismatch, false,
          "compare: compare runs whose counts of a metric differ (default: an error)");

namespace serq {

std::vector<FlagUse> CompareFlagUses() {
  return {
      {"names", {"compare"}},
      {"svg", {"compare"}},
      {"allow-count-mismatch", {"compare"}},
  };
}

int CompareMain(const CommandLine& line) {
  if (line.positional.size() != 2) {
    return Usage(absl::StrCat("serq compare: expected MEASURED SIMULATED (two files, or a run folder and a file), got ",
                              line.positional.size()));
  }
  // A run folder in LLMServingSim's layout (serq vllm's) is its requests.
  std::string measured = line.positional[0];
  {
    std::error_code error;
    const std::filesystem::path requests = std::filesystem::path(measured) / "requests.jsonl";
    if (std::filesystem::is_directory(measured, error) && std::filesystem::is_regular_file(requests, error)) {
      measured = requests.string();
    }
  }
  const std::string& simulated = line.positional[1];
  CompareCommandOptions options;
  options.format = absl::GetFlag(FLAGS_format).empty() ? "text" : absl::GetFlag(FLAGS_format);
  if (options.format != "text" && options.format != "csv" && options.format != "json" &&
      options.format != "html") {
    return Usage(absl::StrCat("unknown --format '", options.format,
                              "' (expected text, csv, json or html)"));
  }
  if (absl::Status s = compare::ParseMetricNames(absl::GetFlag(FLAGS_names), &options.names);
      !s.ok()) {
    return Usage(s.message());
  }
  options.svg_path = absl::GetFlag(FLAGS_svg);
  options.compare.allow_count_mismatch = absl::GetFlag(FLAGS_allow_count_mismatch);

  // How the simulated program runs: as `serq run` takes these.
  auto defines = ParseDefines(line.defines);
  if (!defines.ok()) return Usage(defines.status().message());
  DriverOptions& driver = options.driver;
  driver.defines = *defines;
  driver.sim.seed = absl::GetFlag(FLAGS_seed);
  driver.sim.replications = absl::GetFlag(FLAGS_replications);
  driver.sim.horizon = absl::GetFlag(FLAGS_horizon);
  driver.sim.data_dir = absl::GetFlag(FLAGS_data_dir);
  if (!IsProgramPath(simulated)) {
    const bool run_flags = !driver.defines.empty() || driver.sim.seed || driver.sim.replications ||
                           driver.sim.horizon || !driver.sim.data_dir.empty();
    if (run_flags) {
      return Usage(absl::StrCat("-D, --seed, --replications, --horizon and --data-dir apply when "
                                "the simulated run is a program (a .sq file), not '",
                                simulated, "'"));
    }
  }
  if (absl::Status valid = ValidateSimOptions(driver.sim); !valid.ok()) return Usage(valid.message());
  if (absl::Status s = DistinctFiles({{"--svg", options.svg_path}},
                                     {{"the measured run", measured}, {"the simulated run", simulated}});
      !s.ok()) {
    return Usage(s.message());
  }

  CommandResult result = CompareCommand(measured, simulated, options);
  std::cerr << result.err;
  if (absl::Status s = WriteStdout(result.out); !s.ok()) {
    PrintToolError("serq", s.message());
    return kExitUsage;
  }
  return result.exit_code;
}

}  // namespace serq
