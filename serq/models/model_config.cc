#include "serq/models/model_config.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace serq::models {
namespace {

constexpr int64_t kMostDimension = 1 << 24;

using google::protobuf::Value;

// What a model type's Hugging Face config class sets for a field its
// config.json leaves out (0: the class has no default, and the model takes
// hidden / heads for head_dim, the heads for num_key_value_heads). vLLM
// reads the class's attributes, so Qwen3-32B's config without head_dim
// would still be 128 wide, not 5120 / 64 = 80. A field present as null is
// not absent: the classes make a null num_key_value_heads the heads, and
// vLLM takes a null head_dim as hidden / heads and skips a null length.
// From transformers' configuration_*.py: Qwen3Config `head_dim: int =
// 128`, `num_key_value_heads = 32`; Qwen3MoeConfig no head_dim and 4 KV
// heads; GptOssConfig 64 and 8; MixtralConfig and MistralConfig 8 KV heads;
// Qwen2Config 32; LlamaConfig none. And max_position_embeddings, which
// vLLM's length and rotary table read: Llama's 2048, Qwen2's and Qwen3's
// 32,768, Mistral's, Mixtral's and gpt-oss's 131,072. And a sliding window
// where the file has no sliding_window key: MistralConfig's 4096 on every
// layer, GptOssConfig's 128; Qwen's classes carry 4096 but off. And how the
// windows fall: Qwen's classes turn them off unless
// use_sliding_window says otherwise, and Qwen2's and Qwen3's window the
// layers from max_window_layers (28) on where no layer_types says which;
// vLLM's gpt-oss windows its even layers whatever layer_types says.
struct ClassDefaults {
  int head_dim = 0;
  int kv_heads = 0;
  int64_t max_positions = 0;
  int window = 0;
  bool window_off = false;         // use_sliding_window's default false
  int64_t first_window_layer = 0;  // max_window_layers' default (0: every layer)
  bool even_layers = false;        // the windowed layers: every other one from the first
};
ClassDefaults DefaultsOfClass(absl::string_view model_type) {
  if (model_type == "qwen3" || model_type == "qwen2") {
    return {model_type == "qwen3" ? 128 : 0, 32, 32768, 0, true, 28};
  }
  if (model_type == "qwen3_moe") return {0, 4, 32768, 0, true};
  if (model_type == "gpt_oss") return {64, 8, 131072, 128, false, 0, true};
  if (model_type == "mistral") return {0, 8, 131072, 4096};
  if (model_type == "mixtral") return {0, 8, 131072};
  if (model_type == "llama") return {0, 0, 2048};
  return {};
}
// A top-level key the file does not have (JsonFile::Find takes a null
// for absent too; here a null is present).
bool Absent(const JsonFile& json, const char* field) { return json.root().fields().count(field) == 0; }
std::string ClassDefault(absl::string_view model_type) {
  return absl::StrCat(model_type, "'s default in transformers' config class");
}

// max_position_embeddings, or its class's default where the file has none
// (`from` then says so); nullopt where neither gives one.
absl::StatusOr<std::optional<int64_t>> MaxPositions(const JsonFile& json, const ModelConfig& m,
                                                     std::string* from) {
  absl::StatusOr<std::optional<int64_t>> v = json.Whole("max_position_embeddings", 1, int64_t{1} << 32);
  if (!v.ok() || v->has_value()) {
    *from = "max_position_embeddings";
    return v;
  }
  const int64_t fixed = DefaultsOfClass(m.model_type).max_positions;
  if (fixed == 0 || !Absent(json, "max_position_embeddings")) return std::optional<int64_t>();
  *from = absl::StrCat("max_position_embeddings: absent, ", ClassDefault(m.model_type));
  return std::optional<int64_t>(fixed);
}

// Layer numbers from a list field (mlp_only_layers), each in [0, layers).
absl::Status LayerList(const JsonFile& json, const char* field, int layers, std::set<int>* out) {
  const Value* list = json.Find(field);
  if (list == nullptr) return absl::OkStatus();
  if (list->kind_case() != Value::kListValue) {
    return json.Error(field, absl::StrCat("expected a list of layers, not ", Describe(*list)));
  }
  for (const auto& v : list->list_value().values()) {
    const double x = v.kind_case() == Value::kNumberValue ? v.number_value() : -1;
    if (!(x >= 0 && x < layers && x == static_cast<int>(x))) {
      return json.Error(field, absl::StrCat("expected layer numbers from 0 to ", layers - 1,
                                            ", not ", Describe(v)));
    }
    out->insert(static_cast<int>(x));
  }
  return absl::OkStatus();
}

// The RoPE parameters (rope_scaling, or rope_parameters in newer configs):
// `scaling` the key, `paths` their sets: none, the one set, or one a layer
// type (transformers' newer form: every value an object, no type of its
// own), `layer_types` their names then, sorted (a map's order is not the
// file's). The rotary table and vLLM's max_model_len read them alike.
struct RopeSets {
  std::string scaling;
  std::vector<std::string> paths;
  std::vector<std::string> layer_types;
};
absl::StatusOr<RopeSets> ReadRopeSets(const JsonFile& json) {
  RopeSets out;
  out.scaling = json.Find("rope_scaling") == nullptr && json.Find("rope_parameters") != nullptr ? "rope_parameters"
                                                                                               : "rope_scaling";
  const Value* rope = json.Find(out.scaling);
  if (rope == nullptr) return out;
  if (rope->kind_case() != Value::kStructValue) {
    return json.Error(out.scaling, absl::StrCat("expected an object, not ", Describe(*rope)));
  }
  if (rope->struct_value().fields_size() > 0 && json.Find(out.scaling + ".rope_type") == nullptr &&
      json.Find(out.scaling + ".type") == nullptr) {
    bool all_objects = true;
    for (const auto& [key, value] : rope->struct_value().fields()) {
      all_objects = all_objects && value.kind_case() == Value::kStructValue;
      out.layer_types.push_back(key);
    }
    if (!all_objects) out.layer_types.clear();
    std::sort(out.layer_types.begin(), out.layer_types.end());
  }
  if (out.layer_types.empty()) {
    out.paths.push_back(out.scaling);
    return out;
  }
  for (const std::string& layer_type : out.layer_types) {
    if (absl::StrContains(layer_type, '.')) {
      return json.Error(out.scaling, absl::StrCat("a layer type named '", layer_type, "': serq reads no '.' in one"));
    }
    out.paths.push_back(absl::StrCat(out.scaling, ".", layer_type));
  }
  return out;
}

// A set's type: rope_type, or type in older configs (su is longrope's old
// name); "" where it gives none.
absl::StatusOr<std::string> RopeType(const JsonFile& json, const std::string& params) {
  if (params.empty()) return std::string();
  for (const char* key : {"rope_type", "type"}) {
    absl::StatusOr<std::optional<std::string>> t = json.Text(absl::StrCat(params, ".", key));
    if (!t.ok()) return t.status();
    if (t->has_value()) return **t == "su" ? std::string("longrope") : **t;
  }
  return std::string();
}

// The original length a set scales: the config's own where it gives one,
// which vLLM copies over the parameters' (patch_rope_parameters), else the
// set's.
absl::StatusOr<std::optional<int64_t>> OriginalPositions(const JsonFile& json, const std::string& params) {
  absl::StatusOr<std::optional<int64_t>> o = json.Whole("original_max_position_embeddings", 1, int64_t{1} << 32);
  if (!o.ok() || o->has_value() || params.empty()) return o;
  return json.Whole(params + ".original_max_position_embeddings", 1, int64_t{1} << 32);
}

// One rotary table's rows as vLLM's get_rope makes them
// (vllm/model_executor/layers/rotary_embedding/), from the RoPE parameters
// at `params` (an object's path; "" for none), by their type (rope_type,
// or type in older configs): the default, llama3 and ntk tables hold
// max_position_embeddings positions; linear and dynamic scaling, that
// times the factor (dynamic by an alpha, the default's); YaRN (and
// DeepSeek's), original_max_position_embeddings times the factor;
// longrope (su in older configs), a long and a short table. The original
// count is the config's own where it gives one, which vLLM copies over the
// parameters' (patch_rope_parameters).
struct RotaryRows {
  int64_t rows = 0;
  std::string from;
};
absl::StatusOr<RotaryRows> TableRows(const JsonFile& json, const std::string& params, int64_t max_position) {
  auto field = [&](const char* name) { return absl::StrCat(params, ".", name); };
  absl::StatusOr<std::string> given = RopeType(json, params);
  if (!given.ok()) return given.status();
  const std::string type = given->empty() ? "default" : *given;
  // The scaling's factor, which the types that scale the table need.
  auto factor = [&]() -> absl::StatusOr<double> {
    absl::StatusOr<std::optional<double>> f = json.Number(field("factor"));
    if (!f.ok()) return f.status();
    if (!f->has_value()) return json.Error(field("factor"), absl::StrCat("missing: RoPE scaling ", type, " needs it"));
    if (!(**f > 0)) return json.Error(field("factor"), absl::StrCat("expected a positive number, not ", **f));
    return **f;
  };
  auto original = [&]() -> absl::StatusOr<int64_t> {
    absl::StatusOr<std::optional<int64_t>> o = OriginalPositions(json, params);
    if (!o.ok()) return o.status();
    if (!o->has_value()) {
      return json.Error(field("original_max_position_embeddings"),
                        absl::StrCat("missing: RoPE scaling ", type, " needs it"));
    }
    return **o;
  };
  const bool dynamic_alpha = type == "dynamic" && !params.empty() && json.Find(field("alpha")) != nullptr;
  RotaryRows t;
  if (!dynamic_alpha && (type == "linear" || type == "dynamic" || type == "yarn" || type == "deepseek_yarn")) {
    absl::StatusOr<double> f = factor();
    if (!f.ok()) return f.status();
    int64_t base = max_position;
    std::string base_from = absl::StrCat("max_position_embeddings ", max_position);
    if (type == "yarn" || type == "deepseek_yarn") {
      absl::StatusOr<int64_t> o = original();
      if (!o.ok()) return o.status();
      base = *o;
      base_from = absl::StrCat("original_max_position_embeddings ", base);
    }
    // torch.arange(base x factor): its rows, ceil'd; a factor past any
    // model's (the table would not fit a GPU) is refused, not cast wrapped.
    const double rows = std::ceil(static_cast<double>(base) * *f);
    if (!(rows <= static_cast<double>(int64_t{1} << 40))) {
      return json.Error(field("factor"), absl::StrCat(*f, " x ", base, " positions: a table of more than 2^40 rows"));
    }
    t.rows = static_cast<int64_t>(rows);
    t.from = absl::StrCat(base_from, " x ", type, " factor ", *f);
  } else if (type == "longrope") {
    absl::StatusOr<int64_t> o = original();
    if (!o.ok()) return o.status();
    t.rows = max_position + *o;
    t.from = absl::StrCat("max_position_embeddings ", max_position, " + original_max_position_embeddings ", *o,
                          ", longrope's two tables");
  } else {
    t.rows = max_position;
    t.from = type == "default" || type == "llama3" || type == "ntk" || dynamic_alpha
                 ? std::string("max_position_embeddings")
                 : absl::StrCat("max_position_embeddings, RoPE scaling ", type, " taken as the default's table");
  }
  return t;
}

// vLLM's derived max_model_len (model_config.h says the rule).
absl::Status DeriveMaxModelLen(const JsonFile& json, ModelConfig* m) {
  auto length = [&](const std::string& key) -> absl::StatusOr<std::optional<int64_t>> {
    return json.Whole(key, 1, int64_t{1} << 32);
  };
  int64_t derived = 0;
  std::string from;
  for (const char* k : {"max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length",
                        "max_seq_length", "seq_len"}) {
    std::string named = k;
    absl::StatusOr<std::optional<int64_t>> v =
        named == "max_position_embeddings" ? MaxPositions(json, *m, &named) : length(k);
    if (!v.ok()) return v.status();
    if (v->has_value() && (derived == 0 || **v < derived)) {
      derived = **v;
      from = named == k ? absl::StrCat(k, " ", derived)
                        : absl::StrCat(k, " ", derived, ", absent: ", ClassDefault(m->model_type));
    }
  }
  absl::StatusOr<std::optional<int64_t>> model_max = length("model_max_length");
  if (!model_max.ok()) return model_max.status();
  if (model_max->has_value()) {
    derived = **model_max;
    from = absl::StrCat("model_max_length ", derived);
  }
  if (derived == 0) {
    derived = 2048;
    from = "2048, vLLM's length for a config with none of max_position_embeddings and its kind";
  }
  absl::StatusOr<RopeSets> sets = ReadRopeSets(json);
  if (!sets.ok()) return sets.status();
  bool longrope = false;
  double factor = 1;
  for (const std::string& at : sets->paths) {
    absl::StatusOr<std::string> type = RopeType(json, at);
    if (!type.ok()) return type.status();
    longrope = longrope || *type == "longrope";
    // Gemma 3's length is already the scaled one (vLLM skips it).
    if (*type == "llama3" || *type == "longrope" || type->empty() || absl::StrContains(m->model_type, "gemma3")) {
      continue;
    }
    absl::StatusOr<std::optional<double>> f = json.Number(at + ".factor");
    if (!f.ok()) return f.status();
    if (f->has_value() && **f > 0) factor = **f;
    if (*type == "yarn" || *type == "deepseek_yarn") {
      absl::StatusOr<std::optional<int64_t>> o = OriginalPositions(json, at);
      if (!o.ok()) return o.status();
      if (o->has_value()) {
        derived = **o;
        from = absl::StrCat("original_max_position_embeddings ", derived);
      }
    }
  }
  if (factor != 1) {
    const double scaled = static_cast<double>(derived) * factor;
    if (!(scaled <= static_cast<double>(int64_t{1} << 40))) {
      return json.Error(sets->scaling, absl::StrCat("a factor of ", factor, " makes a length past 2^40 tokens"));
    }
    derived = static_cast<int64_t>(scaled);
    absl::StrAppend(&from, " x RoPE factor ", factor);
  }
  m->max_model_len = m->max_model_len_limit = derived;
  m->max_model_len_from = m->max_model_len_limit_from = from;
  if (model_max->has_value() && **model_max > derived) {
    m->max_model_len_limit = **model_max;
    m->max_model_len_limit_from = absl::StrCat("model_max_length ", **model_max);
  }
  if (longrope) {
    // vLLM's default under LongRoPE, "to avoid performance degradation for
    // shorter sequences": the config's original length.
    absl::StatusOr<std::optional<int64_t>> o = length("original_max_position_embeddings");
    if (!o.ok()) return o.status();
    if (o->has_value()) {
      m->max_model_len = **o;
      m->max_model_len_from = absl::StrCat("original_max_position_embeddings ", **o, ", longrope's default");
    }
  }
  return absl::OkStatus();
}

// The rotary table of the model (one get_rope call a set of RoPE
// parameters; a config of parameters by layer type, transformers' newer
// form, one table each), its width and dtype. The scaling is rope_scaling,
// or rope_parameters in newer configs.
absl::Status ReadRotaryTable(const JsonFile& json, ModelConfig* m) {
  std::string most_from;
  absl::StatusOr<std::optional<int64_t>> most = MaxPositions(json, *m, &most_from);
  if (!most.ok()) return most.status();
  if (!most->has_value()) return absl::OkStatus();
  const int64_t max_position = **most;
  absl::StatusOr<RopeSets> sets = ReadRopeSets(json);
  if (!sets.ok()) return sets.status();
  if (sets->layer_types.empty()) {
    absl::StatusOr<RotaryRows> t = TableRows(json, sets->paths.empty() ? "" : sets->paths[0], max_position);
    if (!t.ok()) return t.status();
    m->rotary_positions = t->rows;
    m->rotary_from = t->from;
  } else {
    std::vector<std::string> parts;
    for (size_t i = 0; i < sets->paths.size(); ++i) {
      absl::StatusOr<RotaryRows> t = TableRows(json, sets->paths[i], max_position);
      if (!t.ok()) return t.status();
      m->rotary_positions += t->rows;
      if (m->rotary_positions > int64_t{1} << 40) {
        return json.Error(sets->scaling, "its layer types' tables come to more than 2^40 rows");
      }
      parts.push_back(absl::StrCat(sets->layer_types[i], "'s ", t->rows, " (", t->from, ")"));
    }
    m->rotary_from = absl::StrCat("a table a layer type, ", absl::StrJoin(parts, " + "));
  }
  if (most_from != "max_position_embeddings") {
    absl::StrAppend(&m->rotary_from, " (", absl::StripPrefix(most_from, "max_position_embeddings: "), ": ",
                    max_position, ")");
  }
  // The rotated part of a head: latent attention's rotary key, or a share
  // of head_dim (partial_rotary_factor; GPT-NeoX's rotary_pct, and
  // rotary_emb_fraction), the config's or the scaling's.
  std::string partial_at;
  for (const char* name : {"partial_rotary_factor", "rotary_pct", "rotary_emb_fraction"}) {
    if (json.Find(name) != nullptr) {
      partial_at = name;
      break;
    }
  }
  if (partial_at.empty()) partial_at = absl::StrCat(sets->scaling, ".partial_rotary_factor");
  absl::StatusOr<std::optional<double>> partial = json.Number(partial_at);
  if (!partial.ok()) return partial.status();
  const double share = partial->value_or(1.0);
  if (!(share > 0 && share <= 1)) {
    return json.Error(partial_at, absl::StrCat("expected a share in (0, 1], not ", share));
  }
  m->rotary_dim = m->mla() ? m->qk_rope_head_dim : static_cast<int>(m->head_dim * share);
  // The table's dtype: the model's, but gpt-oss's, which vLLM builds in
  // float32 (gpt_oss.py's get_rope(..., dtype=torch.float32)).
  m->rotary_dtype_bytes = m->model_type == "gpt_oss" ? 4 : m->dtype_bytes;
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& KnownDecoderTypes() {
  // Llama's decoder and those that differ from it in what the reader takes
  // from their fields (windows, experts, shared experts, latent attention,
  // q and k norms, RoPE scalings); not state-space or hybrid models (mamba,
  // jamba, qwen3_next), encoders, or gemma's softcapped, scaled variant.
  static const std::vector<std::string>* known = new std::vector<std::string>{
      "cohere", "deepseek_v2", "deepseek_v3", "gpt_oss", "granite", "llama", "mistral",
      "mixtral", "phi3", "phimoe", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe"};
  return *known;
}

absl::StatusOr<ModelConfig> ReadModelConfig(const JsonFile& file, const ReadOptions& options) {
  // A composite (multimodal) config: its language model's fields, over the
  // top level's (as BLIS and vLLM pivot to them).
  JsonFile json = file;
  if (const Value* inner = file.root().fields().count("text_config")
                               ? &file.root().fields().at("text_config")
                               : nullptr;
      inner != nullptr && inner->kind_case() == Value::kStructValue) {
    google::protobuf::Struct merged = file.root();
    for (const auto& [key, value] : inner->struct_value().fields()) {
      (*merged.mutable_fields())[key] = value;
    }
    json = JsonFile::Of(file.file(), std::move(merged));
  }
  const std::string& tool = options.tool;
  ModelConfig m;
  auto whole = [&](const char* field, int* out, bool required) -> absl::Status {
    absl::StatusOr<std::optional<int64_t>> v = json.Whole(field, 1, kMostDimension);
    if (!v.ok()) return v.status();
    if (!v->has_value()) {
      if (required) {
        // Present as null (Python's NaN or Infinity is read as null) is
        // not missing: say what the file holds.
        return json.Error(field, Absent(json, field)
                                     ? "missing: the model's config.json gives it"
                                     : "null (or NaN or Infinity, read as null): expected a whole number");
      }
      return absl::OkStatus();
    }
    *out = static_cast<int>(**v);
    return absl::OkStatus();
  };
  const Value* archs = json.Find("architectures");
  if (archs != nullptr && archs->kind_case() == Value::kListValue &&
      archs->list_value().values_size() > 0 &&
      archs->list_value().values(0).kind_case() == Value::kStringValue) {
    m.architecture = archs->list_value().values(0).string_value();
  }
  absl::StatusOr<std::optional<std::string>> type = json.Text("model_type");
  if (!type.ok()) return type.status();
  if (!type->has_value()) return json.Error("model_type", "missing: the model's config.json gives it");
  m.model_type = **type;
  if (options.known_decoders_only) {
    const std::vector<std::string>& known = KnownDecoderTypes();
    if (!std::binary_search(known.begin(), known.end(), m.model_type)) {
      return json.Error(
          "model_type",
          absl::StrCat("'", m.model_type, "': not a decoder ", tool,
                       " knows (", absl::StrJoin(known, ", "),
                       "); its form is a decoder-only transformer, attention then a dense MLP or experts each "
                       "layer, so a model of those shapes under another name may be given as model_type llama"));
    }
  }
  m.qk_norm = m.model_type == "qwen3" || m.model_type == "qwen3_moe";
  if (json.Find("quantization_config") != nullptr && !options.quantized) {
    return json.Error("quantization_config",
                      absl::StrCat("a quantized model: ", tool, " reads models in bf16 or fp16 only"));
  }
  if (json.Find("kv_lora_rank") != nullptr && !options.latent_attention) {
    return json.Error("kv_lora_rank", absl::StrCat("multi-head latent attention (MLA): ", tool,
                                                   " does not model its KV cache"));
  }
  for (auto [field, out] : {std::pair{"num_hidden_layers", &m.layers},
                            std::pair{"hidden_size", &m.hidden},
                            std::pair{"num_attention_heads", &m.heads},
                            std::pair{"vocab_size", &m.vocab}}) {
    if (absl::Status s = whole(field, out, true); !s.ok()) return s;
  }
  const ClassDefaults class_defaults = DefaultsOfClass(m.model_type);
  const std::string class_default = ClassDefault(m.model_type);
  m.kv_heads = 0;
  if (absl::Status s = whole("num_key_value_heads", &m.kv_heads, false); !s.ok()) return s;
  m.kv_heads_from = "num_key_value_heads";
  const bool kv_by_class = m.kv_heads == 0 && class_defaults.kv_heads > 0 && Absent(json, "num_key_value_heads");
  if (m.kv_heads == 0) {
    m.kv_heads = kv_by_class ? class_defaults.kv_heads : m.heads;
    m.kv_heads_from = kv_by_class ? absl::StrCat("num_key_value_heads: absent, ", class_default)
                      : Absent(json, "num_key_value_heads") ? "num_key_value_heads: absent, the heads"
                                                             : "num_key_value_heads: null, the heads";
  }
  const std::string kv_absent = kv_by_class ? absl::StrCat(" (absent: ", class_default, ")") : "";
  if (m.kv_heads > m.heads) {
    return json.Error("num_key_value_heads", absl::StrCat(m.kv_heads, " KV heads", kv_absent,
                                                          ", more than the ", m.heads, " heads"));
  }
  if (m.heads % m.kv_heads != 0) {
    return json.Error("num_key_value_heads",
                      absl::StrCat(m.kv_heads, " KV heads", kv_absent, " do not divide the ",
                                   m.heads, " heads evenly"));
  }
  if (absl::Status s = whole("head_dim", &m.head_dim, false); !s.ok()) return s;
  m.head_dim_given = m.head_dim > 0;
  if (json.Find("kv_lora_rank") != nullptr) {
    // Latent attention: every field of it, and a head's query-key width is
    // its no-position part and its rotary part.
    if (absl::Status s = whole("kv_lora_rank", &m.kv_lora_rank, true); !s.ok()) return s;
    if (absl::Status s = whole("qk_rope_head_dim", &m.qk_rope_head_dim, true); !s.ok()) return s;
    if (absl::Status s = whole("qk_nope_head_dim", &m.qk_nope_head_dim, true); !s.ok()) return s;
    if (absl::Status s = whole("v_head_dim", &m.v_head_dim, true); !s.ok()) return s;
    if (absl::Status s = whole("q_lora_rank", &m.q_lora_rank, false); !s.ok()) return s;
    m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
    m.head_dim_given = true;
  }
  m.head_dim_from = "head_dim";
  if (!m.head_dim_given) {
    if (class_defaults.head_dim > 0 && Absent(json, "head_dim")) {
      m.head_dim = class_defaults.head_dim;
      m.head_dim_from = absl::StrCat("head_dim: absent, ", class_default);
    } else {
      if (m.hidden % m.heads != 0) {
        return json.Error("head_dim", absl::StrCat("missing, and hidden_size ", m.hidden,
                                                   " is not a multiple of the ", m.heads, " heads"));
      }
      m.head_dim = m.hidden / m.heads;
      m.head_dim_from = Absent(json, "head_dim") ? "head_dim: absent, hidden / heads" : "head_dim: null, hidden / heads";
    }
  }
  absl::StatusOr<std::optional<bool>> tied = json.Bool("tie_word_embeddings");
  if (!tied.ok()) return tied.status();
  m.tied = tied->value_or(false);
  absl::StatusOr<std::optional<std::string>> dtype = json.Text("torch_dtype");
  if (!dtype.ok()) return dtype.status();
  std::string dtype_field = "torch_dtype";
  if (!dtype->has_value()) {
    dtype = json.Text("dtype");
    if (!dtype.ok()) return dtype.status();
    dtype_field = "dtype";
  }
  m.config_dtype = dtype->value_or("float32");
  if (m.config_dtype != "bfloat16" && m.config_dtype != "float16" && m.config_dtype != "float32") {
    return json.Error(dtype_field, absl::StrCat("dtype '", m.config_dtype, "': ", tool,
                                                  " knows bfloat16, float16, float32"));
  }
  // vLLM's dtype "auto" takes the config's, but a float32 model (and a
  // config without a dtype, which reads as float32) it runs in its GPU's
  // preferred dtype, bfloat16 (_resolve_auto_dtype: "downcast for float32
  // models").
  m.dtype = m.config_dtype == "float32" ? "bfloat16" : m.config_dtype;
  m.dtype_from = !dtype->has_value() ? "bfloat16 (the config gives no torch_dtype; vLLM's auto runs it so)"
                 : m.config_dtype == "float32"
                     ? absl::StrCat(dtype_field, " float32, which vLLM's auto runs as bfloat16")
                     : absl::StrCat(dtype_field, " ", m.dtype);
  m.dtype_bytes = 2;
  m.linear_bytes = m.expert_bytes = m.dtype_bytes;
  if (absl::Status s = ReadRotaryTable(json, &m); !s.ok()) return s;
  if (absl::Status s = DeriveMaxModelLen(json, &m); !s.ok()) return s;
  if (json.Find("quantization_config") != nullptr) {
    absl::StatusOr<std::optional<std::string>> method = json.Text("quantization_config.quant_method");
    if (!method.ok()) return method.status();
    if (!method->has_value()) {
      return json.Error("quantization_config.quant_method", "missing: the quantization's method");
    }
    m.quantization = **method;
    if (m.quantization == "fp8") {
      m.linear_bytes = m.expert_bytes = 1;  // DeepSeek-V3: every linear layer's weights in e4m3
    } else if (m.quantization == "mxfp4") {
      // gpt-oss: the experts in MXFP4, 4-bit values with an 8-bit scale a
      // block of 32 (OCP MX spec): 4.25 bits a weight; the rest in the dtype.
      m.expert_bytes = 4.25 / 8;
    } else {
      return json.Error("quantization_config.quant_method",
                        absl::StrCat("'", m.quantization, "': ", tool,
                                     " knows fp8 (every linear layer) and mxfp4 (the experts)"));
    }
  }
  // Sliding windows: the layers layer_types marks, or every layer when a
  // window is given without them (Mistral), unless use_sliding_window says
  // it is off (Qwen's configs carry a window they do not use).
  absl::StatusOr<std::optional<int64_t>> window = json.Whole("sliding_window", 1, int64_t{1} << 40);
  if (!window.ok()) return window.status();
  absl::StatusOr<std::optional<bool>> use_window = json.Bool("use_sliding_window");
  if (!use_window.ok()) return use_window.status();
  m.window_from = "sliding_window";
  if (Absent(json, "sliding_window") && class_defaults.window > 0) {
    *window = class_defaults.window;
    m.window_from = absl::StrCat("sliding_window: absent, ", class_default);
  }
  if (window->has_value() && use_window->value_or(!class_defaults.window_off)) {
    m.sliding_window = static_cast<int>(std::min<int64_t>(**window, kMostDimension));
    m.window_layers = m.layers;
    m.window_layers_from = "every layer";
    const Value* types = json.Find("layer_types");
    if (types == nullptr && class_defaults.first_window_layer > 0) {
      absl::StatusOr<std::optional<int64_t>> from = json.Whole("max_window_layers", 0, kMostDimension);
      if (!from.ok()) return from.status();
      const int64_t first = from->value_or(class_defaults.first_window_layer);
      m.window_layers = static_cast<int>(std::max<int64_t>(0, m.layers - first));
      m.window_layers_from = absl::StrCat("the layers from max_window_layers ", first, " on (layer_types: absent, ",
                                          class_default, ")");
    }
    if (types != nullptr) {
      m.window_layers_from = "layer_types' sliding_attention layers";
      if (types->kind_case() != Value::kListValue || types->list_value().values_size() != m.layers) {
        return json.Error("layer_types", absl::StrCat("expected a list of ", m.layers,
                                                      " layers' attention types"));
      }
      m.window_layers = 0;
      for (const Value& t : types->list_value().values()) {
        if (t.kind_case() != Value::kStringValue ||
            (t.string_value() != "sliding_attention" && t.string_value() != "full_attention")) {
          return json.Error("layer_types", absl::StrCat("expected sliding_attention or "
                                                        "full_attention, not ", Describe(t)));
        }
        m.window_layers += t.string_value() == "sliding_attention";
      }
    }
    if (class_defaults.even_layers) {
      // vLLM's gpt-oss windows the even layers whatever layer_types says
      // (its attention: sliding_window if layer_idx % 2 == 0), as the
      // class's default layer_types also does.
      m.window_layers = (m.layers + 1) / 2;
      m.window_layers_from = "every other layer from the first (vLLM's gpt-oss, whatever layer_types says)";
    }
  }
  // Experts: Qwen's num_experts, Mixtral's and gpt-oss's num_local_experts,
  // DeepSeek's n_routed_experts.
  for (const char* field : {"num_experts", "num_local_experts", "n_routed_experts"}) {
    if (absl::Status s = whole(field, &m.experts, false); !s.ok()) return s;
    if (m.experts == 1) {
      // vLLM builds the experts' layer for one expert too (of
      // moe_intermediate_size, routed): taken for a dense MLP of
      // intermediate_size it would be another model, silently.
      return json.Error(field, "1 expert: serq counts a mixture of experts from 2 (a model of one expert "
                               "is written as a dense one, its MLP intermediate_size)");
    }
    if (m.experts > 0) break;
  }
  if (m.experts == 0) {
    // The fields of experts without their count: a mixture of experts
    // whose count is missing, not a dense model.
    for (const char* field : {"num_experts_per_tok", "experts_per_token", "moe_intermediate_size"}) {
      const Value* v = json.Find(field);
      if (v != nullptr && v->kind_case() == Value::kNumberValue && v->number_value() > 0) {
        return json.Error("num_experts", absl::StrCat("missing, where ", field, " says the model has experts "
                                                      "(num_experts, num_local_experts or n_routed_experts)"));
      }
    }
  }
  if (absl::Status s = whole("intermediate_size", &m.intermediate, !m.moe()); !s.ok()) return s;
  m.moe_layers = 0;
  m.dense_layers = m.layers;
  if (m.moe()) {
    if (json.Find("num_experts_per_tok") == nullptr && json.Find("experts_per_token") != nullptr) {
      if (absl::Status s = whole("experts_per_token", &m.top_k, true); !s.ok()) return s;
    } else if (absl::Status s = whole("num_experts_per_tok", &m.top_k, true); !s.ok()) {
      return s;
    }
    if (m.top_k > m.experts) {
      return json.Error("num_experts_per_tok", absl::StrCat(m.top_k, " experts a token, of ",
                                                            m.experts));
    }
    m.expert_intermediate = m.intermediate;
    if (absl::Status s = whole("moe_intermediate_size", &m.expert_intermediate, m.intermediate == 0);
        !s.ok()) {
      return s;
    }
    // Shared experts: DeepSeek's n_shared_experts of the routed experts'
    // size, Qwen2-MoE's shared_expert_intermediate_size.
    int shared = 0;
    if (absl::Status s = whole("n_shared_experts", &shared, false); !s.ok()) return s;
    m.shared_intermediate = shared * m.expert_intermediate;
    if (absl::Status s = whole("shared_expert_intermediate_size", &m.shared_intermediate, false);
        !s.ok()) {
      return s;
    }
    // Which layers have experts. Qwen's: every decoder_sparse_step-th, but
    // those listed in mlp_only_layers (vLLM's Qwen3MoeDecoderLayer).
    // DeepSeek's: from first_k_dense_replace on, every moe_layer_freq-th.
    int step = 1;
    if (absl::Status s = whole("decoder_sparse_step", &step, false); !s.ok()) return s;
    std::set<int> dense_only;
    if (absl::Status s = LayerList(json, "mlp_only_layers", m.layers, &dense_only); !s.ok()) return s;
    int first_moe = 0, freq = 1;
    absl::StatusOr<std::optional<int64_t>> first = json.Whole("first_k_dense_replace", 0, m.layers);
    if (!first.ok()) return first.status();
    first_moe = static_cast<int>(first->value_or(0));
    if (absl::Status s = whole("moe_layer_freq", &freq, false); !s.ok()) return s;
    m.moe_layers = 0;
    for (int i = 0; i < m.layers; ++i) {
      if (dense_only.count(i) == 0 && (i + 1) % step == 0 && i >= first_moe && i % freq == 0) {
        ++m.moe_layers;
      }
    }
    m.dense_layers = m.layers - m.moe_layers;
    if (m.dense_layers > 0 && m.intermediate == 0) {
      return json.Error("intermediate_size", "missing: the model's dense layers need it");
    }
  }
  return m;
}

double RotaryTableBytes(const ModelConfig& m) {
  return static_cast<double>(m.rotary_positions) * m.rotary_dim * m.rotary_dtype_bytes;
}

bool KnownKvCacheDtype(absl::string_view dtype) {
  return dtype == "auto" || dtype == "bfloat16" || dtype == "float16" || dtype == "fp8" || dtype == "fp8_e4m3" ||
         dtype == "fp8_e5m2";
}

int KvDtypeBytes(absl::string_view kv_cache_dtype, const ModelConfig& m) {
  if (kv_cache_dtype == "bfloat16" || kv_cache_dtype == "float16") return 2;
  return absl::StartsWith(kv_cache_dtype, "fp8") ? 1 : m.dtype_bytes;
}

double KvBytesPerToken(const ModelConfig& m, int tp, int kv_dtype_bytes) {
  if (m.mla()) {
    // One latent and one rotary key a layer, the same on every GPU.
    return static_cast<double>(m.layers) * (m.kv_lora_rank + m.qk_rope_head_dim) * kv_dtype_bytes;
  }
  const int heads = std::max(1, m.kv_heads / tp);
  return 2.0 * m.layers * heads * m.head_dim * kv_dtype_bytes;
}

AttentionParams AttentionParamsPerLayer(const ModelConfig& m) {
  const double h = m.hidden;
  AttentionParams p;
  if (m.mla()) {
    // DeepSeek's MLA (vLLM's DeepseekV2MLAAttention): q from a latent of
    // q_lora_rank (or from the hidden state), the KV's latent and rotary
    // key projected down on every GPU, up per head, the output per head.
    const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (m.q_lora_rank > 0) {
      p.replicated += h * m.q_lora_rank;
      p.split += static_cast<double>(m.q_lora_rank) * m.heads * qk;
    } else {
      p.split += h * m.heads * qk;
    }
    p.replicated += h * (m.kv_lora_rank + m.qk_rope_head_dim);
    p.split += static_cast<double>(m.kv_lora_rank) * m.heads * (m.qk_nope_head_dim + m.v_head_dim);
    p.split += static_cast<double>(m.heads) * m.v_head_dim * h;
    return p;
  }
  const double q = static_cast<double>(m.heads) * m.head_dim,
               kv = static_cast<double>(m.kv_heads) * m.head_dim;
  p.split = h * q + 2 * h * kv + q * h;
  return p;
}

double WeightBytesPerGpu(const ModelConfig& m, int tp, int ep, bool shared_whole) {
  const double h = m.hidden;
  const AttentionParams attention = AttentionParamsPerLayer(m);
  // Split over tp: the attention's projections, a dense MLP and the shared
  // experts (in the linear layers' bytes), the embeddings (in the dtype's).
  double linear_split = m.layers * attention.split;
  linear_split += m.dense_layers * 3.0 * h * m.intermediate;
  const double shared = m.moe_layers * 3.0 * h * m.shared_intermediate;
  linear_split += shared_whole ? shared * tp : shared;
  const double embeddings = (m.tied ? 1 : 2) * static_cast<double>(m.vocab) * h;
  // On every GPU: the norms (two a layer, the final one; Qwen3's q and k
  // norms are head_dim each; MLA's latents' norms), a router a MoE layer,
  // MLA's down projections.
  double each = (2.0 * m.layers + 1) * h;
  if (m.qk_norm) each += 2.0 * m.layers * m.head_dim;
  if (m.mla()) each += static_cast<double>(m.layers) * (m.q_lora_rank + m.kv_lora_rank);
  double experts = 0;
  if (m.moe()) {
    each += m.moe_layers * h * m.experts;
    experts = m.moe_layers * static_cast<double>(m.experts) * 3 * h * m.expert_intermediate;
  }
  const double expert_share = ep > 1 ? experts / ep : experts / tp;
  return linear_split / tp * m.linear_bytes + embeddings / tp * m.dtype_bytes +
         each * m.dtype_bytes + m.layers * attention.replicated * m.linear_bytes +
         expert_share * m.expert_bytes;
}

}  // namespace serq::models
