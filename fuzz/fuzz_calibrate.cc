// Fuzz target: the readers of serq physics (a model's config.json, a GPU's
// datasheet: serq/models; BLIS's coefficients: serq/physics/physics.h) and of serq fit-steps
// (step records, CSV or serq's --trace; serq/calibrate/fit_steps.h) on any bytes; a
// config that reads is written out as a step time, records that read are
// fitted and their report rendered. A config that reads is written out as
// serq's program (on an H100, at the TP the config's heads allow) and as
// BLIS's block.
#include <cstdint>
#include <string>

#include "serq/calibrate/fit_steps.h"
#include "serq/models/gpu.h"
#include "serq/models/json_file.h"
#include "serq/models/model_config.h"
#include "serq/physics/physics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace physics = serq::physics;
  namespace fit = serq::fit;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  namespace models = serq::models;
  (void)physics::ReadCoefficients(bytes, "fuzz");
  absl::StatusOr<models::JsonFile> json = models::JsonFile::Parse(bytes, "fuzz");
  if (json.ok()) {
    models::ReadOptions read;
    read.latent_attention = read.quantized = true;
    absl::StatusOr<models::ModelConfig> model = models::ReadModelConfig(*json, read);
    absl::StatusOr<models::Gpu> gpu = models::ReadGpu(*json, "");
    models::Gpu h100;
    h100.name = "H100";
    h100.tflops = 989.5;
    h100.tflops_fp8 = 1979;
    h100.tflops_fp32 = 67;
    h100.bw_tbs = 3.35;
    h100.memory_gib = 80;
    h100.interconnect = "nvlink4";
    if (model.ok() && model->layers <= 1024 && model->hidden <= 65536) {
      physics::ProgramOptions options;
      options.workload.rate = 1;
      options.workload.requests = 1;
      options.deployment.kv_blocks = 1000;
      (void)physics::GenerateProgram(*model, gpu.ok() ? *gpu : h100, options);
      absl::StatusOr<physics::ModelShape> shape = physics::BlisShape(*model, "fuzz");
      if (shape.ok()) {
        (void)physics::PhysicsBlock(*shape, gpu.ok() ? *gpu : h100, physics::BlisDefaults(),
                                    physics::BlockOptions{});
      }
    }
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
