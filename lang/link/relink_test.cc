// Linking linked IR again gives the same bytes, on every linked program of
// the link golden suite (testdata/link/*.ir.json, serq-link's own output).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/io.h"
#include "lang/link/link.h"

namespace serq {
namespace {

TEST(Relink, EveryLinkedGoldenLinksToItself) {
  std::vector<std::filesystem::path> goldens;
  for (const auto& entry : std::filesystem::directory_iterator("testdata/link")) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 8 && name.substr(name.size() - 8) == ".ir.json") goldens.push_back(entry.path());
  }
  // The seed's four programs, the trace and tokens ones and the deployment.
  ASSERT_GE(goldens.size(), 7u);
  for (const auto& path : goldens) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    Diagnostics diags(path.string());
    ir::Program program;
    ASSERT_TRUE(ReadProgram(text.str(), &program, &diags)) << diags.Render();
    ASSERT_TRUE(program.linked()) << path;
    ASSERT_TRUE(LinkProgram(&program, {}, &diags)) << diags.Render();
    EXPECT_EQ(EncodeMessage(program, Format::kJson), text.str()) << path;
  }
}

}  // namespace
}  // namespace serq
