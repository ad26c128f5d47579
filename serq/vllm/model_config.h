// A model's config.json is read by serq/models/model_config.h, which serq
// physics shares; this header keeps serq vllm's names for it.
#ifndef SERQ_SERQ_VLLM_MODEL_CONFIG_H_
#define SERQ_SERQ_VLLM_MODEL_CONFIG_H_

#include "serq/models/model_config.h"
#include "serq/vllm/json_file.h"

namespace serq::vllm {

using models::KvBytesPerToken;
using models::ModelConfig;
using models::ReadModelConfig;
using models::WeightBytesPerGpu;

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_MODEL_CONFIG_H_
