#include "diagram/view.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "diagram/test_programs.h"

namespace serq {
namespace {

TEST(View, SvgAndDot) {
  ir::Program program = view::Parse(view::TestPrograms()[1].source);
  Diagnostics diags;
  ViewOptions options;
  absl::StatusOr<std::string> svg = RenderView(program, options, &diags);
  ASSERT_TRUE(svg.ok()) << svg.status() << diags.Render();
  EXPECT_TRUE(absl::StartsWith(*svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
  EXPECT_TRUE(absl::EndsWith(*svg, "</svg>\n"));
  EXPECT_TRUE(absl::StrContains(*svg, ">egress[1]</text>"));
  options.format = "dot";
  absl::StatusOr<std::string> dot = RenderView(program, options, &diags);
  ASSERT_TRUE(dot.ok());
  EXPECT_TRUE(absl::StartsWith(*dot, "digraph serq {\n"));
  // The flow is a cluster holding egress and ingress, and no edge joins them.
  EXPECT_TRUE(absl::StrContains(*dot, "subgraph cluster_r0_f0 {"));
  EXPECT_FALSE(absl::StrContains(*dot, "r0_c1 -> r0_c2;"));
}

TEST(View, UnknownFormatIsMisuseNotBadInput) {
  ir::Program program = view::Parse(view::TestPrograms()[0].source);
  Diagnostics diags;
  ViewOptions options;
  options.format = "png";
  absl::StatusOr<std::string> out = RenderView(program, options, &diags);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(diags.empty());
}

TEST(View, BadProgramFillsDiagnostics) {
  ir::Program program;
  program.set_version(8);
  program.add_session()->add_body()->mutable_run()->mutable_stage()->set_name("x");
  Diagnostics diags("gen.ir.json");
  absl::StatusOr<std::string> out = RenderView(program, ViewOptions(), &diags);
  EXPECT_FALSE(out.ok());
  EXPECT_EQ(diags.Render(), "gen.ir.json:session[0].body[0].run.stage: error: unknown stage 'x'\n");
}

}  // namespace
}  // namespace serq
