// Fuzz target: the readers of serq physics (a model's config.json, a GPU's
// datasheet, BLIS's coefficients; serq/physics.h) and of serq fit-steps
// (step records, CSV or serq's --trace; serq/fit_steps.h) on any bytes; a
// config that reads is written out as a step time, records that read are
// fitted and their report rendered.
#include <cstdint>
#include <string>

#include "serq/fit_steps.h"
#include "serq/physics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace physics = serq::physics;
  namespace fit = serq::fit;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<physics::ModelShape> model = physics::ReadModelConfig(bytes, "fuzz");
  absl::StatusOr<physics::Gpu> gpu = physics::ReadGpu(bytes, "fuzz", "");
  (void)physics::ReadCoefficients(bytes, "fuzz");
  if (model.ok()) {
    physics::Gpu h100{"H100", 989.5, 1979, 3.35, 80};
    (void)physics::PhysicsBlock(*model, gpu.ok() ? *gpu : h100, physics::BlisDefaults(),
                                physics::BlockOptions{});
  }
  absl::StatusOr<fit::StepRecords> records = fit::ReadStepRecords(bytes, "fuzz", "");
  if (records.ok() && records->rows.size() < 100000) {
    absl::StatusOr<std::vector<fit::StepTerm>> terms = fit::ParseStepTerms(
        records->columns.empty() ? "A=1" : "A=1,B=" + records->columns[0]);
    if (terms.ok()) {
      absl::StatusOr<fit::StepFit> fitted = fit::FitStepTerms(*records, *terms);
      if (fitted.ok()) {
        (void)fit::RenderStepFit(*records, *terms, *fitted, "fuzz");
        (void)fit::StepResidualsCsv(*records, *fitted);
      }
    }
  }
  return 0;
}
