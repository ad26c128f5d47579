// serq vllm's JSON files are read by serq/models/json_file.h, which serq
// physics shares; this header keeps serq vllm's names for it.
#ifndef SERQ_SERQ_VLLM_JSON_FILE_H_
#define SERQ_SERQ_VLLM_JSON_FILE_H_

#include "serq/models/json_file.h"

namespace serq::vllm {

using models::Describe;
using models::FileError;
using models::JsonFile;

}  // namespace serq::vllm

#endif  // SERQ_SERQ_VLLM_JSON_FILE_H_
