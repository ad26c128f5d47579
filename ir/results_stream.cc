#include "ir/results_stream.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"

namespace serq {
namespace {

constexpr int kReplicationField = results::Results::kReplicationFieldNumber;

// `header` with only the fields numbered below (`before`) or above the
// replications.
results::Results Part(const results::Results& header, bool before) {
  results::Results part = header;
  part.clear_replication();
  const google::protobuf::Reflection* r = part.GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  r->ListFields(part, &fields);
  for (const auto* f : fields) {
    if ((f->number() < kReplicationField) != before) r->ClearField(&part, f);
  }
  return part;
}

// The lines between a pretty JSON object's braces: "" for "{}".
std::string Interior(const std::string& json) {
  size_t open = json.find("{\n");
  size_t close = json.rfind("\n}");
  if (open == std::string::npos || close == std::string::npos || close <= open + 1) return "";
  return json.substr(open + 2, close - open - 2);
}

std::string Indent(const std::string& json, absl::string_view by) {
  std::string out = absl::StrCat(by);
  size_t end = json.size();
  while (end > 0 && json[end - 1] == '\n') --end;
  for (size_t i = 0; i < end; ++i) {
    out.push_back(json[i]);
    if (json[i] == '\n') absl::StrAppend(&out, by);
  }
  return out;
}

}  // namespace

absl::Status ResultsStream::Begin(const results::Results& header) {
  results::Results before = Part(header, true);
  results::Results after = Part(header, false);
  added_ = 0;
  if (format_ == Format::kBinary) {
    tail_ = EncodeMessage(after, Format::kBinary);
    return write_(EncodeMessage(before, Format::kBinary));
  }
  std::string after_json = Interior(EncodeMessage(after, Format::kJson));
  tail_ = after_json.empty() ? "" : absl::StrCat(",\n", after_json);
  return write_("{\n" + Interior(EncodeMessage(before, Format::kJson)));
}

absl::Status ResultsStream::Add(const results::Replication& replication) {
  std::string bytes = EncodeMessage(replication, format_);
  ++added_;
  if (format_ == Format::kBinary) {
    std::string field;
    {
      google::protobuf::io::StringOutputStream stream(&field);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.WriteTag(google::protobuf::internal::WireFormatLite::MakeTag(
          kReplicationField, google::protobuf::internal::WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
      coded.WriteVarint32(static_cast<uint32_t>(bytes.size()));
    }
    field += bytes;
    return write_(field);
  }
  return write_(absl::StrCat(added_ == 1 ? ",\n \"replication\": [\n" : ",\n",
                             Indent(bytes, "  ")));
}

absl::Status ResultsStream::End() {
  if (format_ == Format::kBinary) return write_(tail_);
  return write_(absl::StrCat(added_ > 0 ? "\n ]" : "", tail_, "\n}\n"));
}

}  // namespace serq
