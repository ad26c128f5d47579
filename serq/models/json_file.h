// A JSON file (a run folder's meta.json, model.json, llmservingsim-
// config.json; a model's config.json, a GPU's datasheet, coefficients)
// read into a protobuf Struct, with its shape checked first
// (ir/input_shape.h: depth, size, keys twice, UTF-8), and typed look-ups
// whose errors name the file and the field's path:
// `run/meta.json: error: engine_kwargs.max_num_seqs: expected a whole number at least 1, not "x"`.
#ifndef SERQ_SERQ_MODELS_JSON_FILE_H_
#define SERQ_SERQ_MODELS_JSON_FILE_H_

#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"

namespace serq::models {

// An error about `file`, at `path` within it when not empty.
absl::Status FileError(const std::string& file, absl::string_view path, absl::string_view message);

class JsonFile {
 public:
  // Reads and parses `file`, an object at the top; NotFound when it does
  // not exist, InvalidArgument when it is not a JSON object. With
  // `python_floats`, Python's json module's NaN, Infinity and -Infinity
  // (which it writes for a float that is one, and JSON has no such number)
  // are read as null, and counted (python_floats(), first_python_float()):
  // for files a Python program wrote, of which a reader needs only some
  // fields.
  static absl::StatusOr<JsonFile> Read(const std::string& file, bool python_floats = false);
  // From text, for tests.
  static absl::StatusOr<JsonFile> Parse(absl::string_view text, const std::string& file,
                                        bool python_floats = false);
  // An object already read, e.g. a part of another file, as `file`.
  static JsonFile Of(const std::string& file, google::protobuf::Struct root) {
    JsonFile out;
    out.file_ = file;
    out.root_ = std::move(root);
    return out;
  }

  const std::string& file() const { return file_; }
  // How many NaN or Infinity tokens were read as null, and where the first
  // was ("LINE:COLUMN").
  int python_floats() const { return python_floats_; }
  const std::string& first_python_float() const { return first_python_float_; }
  const google::protobuf::Struct& root() const { return root_; }

  // The value at a dotted path of object keys ("engine_kwargs.max_num_seqs"),
  // or null when a key on the way is absent (or a JSON null), or is a tag
  // TagsAsAbsent set aside (which the look-up notes: TagsRead).
  const google::protobuf::Value* Find(absl::string_view path) const;

  // A writer's tag for a value it could not record, a string in angle
  // brackets ("<dict len=80>", "<unreadable: AttributeError>", as
  // LLMServingSim's bench records vLLM's configuration), under each of the
  // top-level `parts`: read as absent from here on, since it says only
  // that the value was not written. A reader that looks one up gets its
  // default, and can say so (TagsRead), instead of refusing the file for a
  // value its writer never gave.
  void TagsAsAbsent(const std::vector<std::string>& parts);
  // The tag set aside at `path` exactly, or nullopt (not a look-up).
  std::optional<std::string> Tag(absl::string_view path) const;
  // Each tagged value a look-up reached, once: "PATH (\"TAG\")".
  const std::vector<std::string>& TagsRead() const { return tags_read_; }
  // Typed: absent (or null) gives nullopt; present and of another type, or
  // out of range, an error naming the path.
  absl::StatusOr<std::optional<double>> Number(absl::string_view path) const;
  // A whole number in [least, most].
  absl::StatusOr<std::optional<int64_t>> Whole(absl::string_view path, int64_t least,
                                               int64_t most) const;
  absl::StatusOr<std::optional<bool>> Bool(absl::string_view path) const;
  absl::StatusOr<std::optional<std::string>> Text(absl::string_view path) const;

  absl::Status Error(absl::string_view path, absl::string_view message) const {
    return FileError(file_, path, message);
  }

 private:
  std::string file_;
  google::protobuf::Struct root_;
  int python_floats_ = 0;
  std::string first_python_float_;
  std::map<std::string, std::string> tags_;      // path -> the writer's tag
  mutable std::vector<std::string> tags_read_;   // looked up, in order
};

// How a JSON value is described in a message: `"x"`, `true`, `an object`.
std::string Describe(const google::protobuf::Value& v);

}  // namespace serq::models

#endif  // SERQ_SERQ_MODELS_JSON_FILE_H_
