#include "diagram/test_programs.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ir/diagnostics.h"
#include "lang/link/link.h"
#include "lang/parse/parse.h"

namespace serq::view {

const std::vector<NamedProgram>& TestPrograms() {
  static const auto* programs = new std::vector<NamedProgram>{
      {"before", R"(pool kvP { cap 100; }
pool kvD[2] { cap 100; }
stage P : delay;
stage link[2] : ps(1);
stage D[2] : delay;
workload { arrive batch(2); }
session {
  set j = serial;
  hold kvP (10) { run P (1); } lease kvP (inf);
  hold kvD[j] (10) {
    transfer[j] (1) from kvP to kvD[j] (10);
    observe transferred = now;
    run D[j] (1);
  }
  end;
}
run { horizon 10; }
)"},
      {"egress", R"(pool kvP { cap 100; }
pool kvD[2] { cap 100; }
stage P : delay;
stage egress[1] : ps(1);
stage ingress[2] : ps(1);
stage D[2] : delay;
share maxmin;
workload { arrive batch(2); }
session {
  set j = serial;
  hold kvP (10) { run P (1); } lease kvP (inf);
  hold kvD[j] (10) {
    transfer on egress[0], ingress[j] (1) from kvP to kvD[j] (10);
    observe transferred = now;
    run D[j] (1);
  }
  end;
}
run { horizon 10; }
)"},
      {"three_flows", R"(stage A : ps(1);
stage B : ps(2);
share maxmin;
workload { arrive batch(3); }
session {
  if (serial == 0) {
    run A, B (1);
    observe f1 = now;
  } else if (serial == 1) {
    run A (1);
    observe f2 = now;
  } else {
    run B (1);
    observe f3 = now;
  }
}
run { horizon 10; }
)"},
      {"flow_return", R"(stage D : delay;
stage egress : ps(1);
stage ingress[2] : ps(1);
share bottleneck;
workload { arrive batch(1); }
session {
  run ingress[0] (1);
  run D (1);
  run egress, ingress[1] (1);
}
run { horizon 10; }
)"},
      {"repeats", R"(stage A : delay;
stage B : fifo(2);
stage C : ps(min(present, 4));
stage E : delay;
workload { arrive poisson(1); }
session {
  run A (1);
  repeat (3) {
    run B (1);
    run C (1);
  }
  repeat (2) { run E (1); }
}
run { horizon 10; }
)"},
      {"pools", R"(param Cap = 64;
pool kv[4] { cap Cap; evict by (since); }
pool net { cap 1; }
pool tmp { cap inf; }
stage E : delay;
stage F : delay;
stage G : delay;
workload { arrive batch(1); }
session {
  hold kv[0] (8), net (1) { run E (1); } lease kv[0] (30);
  hold tmp (1) { observe x = now; }
  run F (1);
  release kv[0];
  hold tmp (2) { run G (1); } lease tmp (inf);
}
run { horizon 10; }
)"},
  };
  return *programs;
}

namespace {

// Builds random source text. Only raw mt19937_64 outputs are used (their
// sequence is fixed by the standard), so a seed is one program everywhere.
class Generator {
 public:
  Generator(uint64_t seed, bool disjoint_flows) : rng_(seed), disjoint_(disjoint_flows) {}

  std::string Program() {
    std::string out;
    int stages = disjoint_ ? 2 + Pick(6) : 1 + Pick(6);
    for (int i = 0; i < stages; ++i) {
      std::string name = absl::StrCat("S", i);
      bool array = Pick(3) == 0;
      const char* kinds[] = {"delay", "ps(1)", "fifo(2)", "step(0.01)", "ps(min(present, 8))"};
      absl::StrAppend(&out, "stage ", name, array ? absl::StrCat("[", 1 + Pick(4), "]") : "",
                      " : ", kinds[Pick(5)], ";\n");
      stages_.push_back({name, array});
    }
    if (disjoint_) {
      // Stages [0, singles) are run alone; the rest are cut into flows of
      // two or three, each in a fixed shuffled order.
      singles_ = Pick(stages - 1);
      for (int i = singles_; i < stages;) {
        int n = std::min(stages - i, 2 + Pick(2));
        if (stages - i - n == 1) n += 1;
        std::vector<int> group;
        for (int k = 0; k < n; ++k) group.push_back(i + k);
        for (int k = n - 1; k > 0; --k) std::swap(group[k], group[Pick(k + 1)]);
        groups_.push_back(group);
        i += n;
      }
    }
    int pools = 1 + Pick(3);
    for (int i = 0; i < pools; ++i) {
      absl::StrAppend(&out, "pool Q", i, " { cap ", 10 * (1 + Pick(9)), "; }\n");
      pools_.push_back(absl::StrCat("Q", i));
    }
    if (Pick(2)) absl::StrAppend(&out, "share maxmin;\n");
    int sessions = 1 + Pick(2);
    for (int i = 0; i < sessions; ++i) {
      std::string name = sessions == 1 ? "" : absl::StrCat("w", i, " ");
      absl::StrAppend(&out, "workload ", name, "{ arrive batch(1); }\n");
      absl::StrAppend(&out, "session ", name, "{\n", Block(1 + Pick(6), 0), "}\n");
    }
    absl::StrAppend(&out, "run { horizon 10; }\n");
    return out;
  }

 private:
  int Pick(int n) { return int(rng_() % uint64_t(n)); }

  std::string StageRef(int i) {
    return stages_[i].array ? absl::StrCat(stages_[i].name, "[0]") : stages_[i].name;
  }

  std::string Block(int statements, int depth) {
    std::string out;
    for (int i = 0; i < statements; ++i) out += Statement(depth);
    return out;
  }

  std::string Statement(int depth) {
    int choice = Pick(depth >= 3 ? 3 : 10);
    switch (choice) {
      case 0:
      case 1:
        if (disjoint_) {
          if (singles_ == 0) return "observe y = now;\n";
          return absl::StrCat("run ", StageRef(Pick(singles_)), " (1);\n");
        }
        return absl::StrCat("run ", StageRef(Pick(int(stages_.size()))), " (1);\n");
      case 2: {  // a flow over 2 or 3 distinct stages, in random order
        if (disjoint_) {
          std::vector<std::string> refs;
          for (int i : groups_[Pick(int(groups_.size()))]) refs.push_back(StageRef(i));
          return absl::StrCat("run ", absl::StrJoin(refs, ", "), " (1);\n");
        }
        std::vector<int> all;
        for (int i = 0; i < int(stages_.size()); ++i) all.push_back(i);
        for (int i = int(all.size()) - 1; i > 0; --i) std::swap(all[i], all[Pick(i + 1)]);
        int n = std::min(int(all.size()), 2 + Pick(2));
        if (n < 2) return "run S0 (1);\n";
        std::vector<std::string> refs;
        for (int i = 0; i < n; ++i) refs.push_back(StageRef(all[i]));
        return absl::StrCat("run ", absl::StrJoin(refs, ", "), " (1);\n");
      }
      case 3:
      case 4:
        return absl::StrCat("if (serial == ", Pick(3), ") {\n", Block(Pick(3), depth + 1),
                            "}", Pick(2) ? absl::StrCat(" else {\n", Block(Pick(3), depth + 1), "}")
                                         : "",
                            "\n");
      case 5:
        return absl::StrCat("repeat (", 1 + Pick(3), ") {\n", Block(Pick(3), depth + 1), "}\n");
      case 6:
      case 7: {
        std::string pool = pools_[Pick(int(pools_.size()))];
        return absl::StrCat("hold ", pool, " (1) {\n", Block(Pick(4), depth + 1), "}",
                            Pick(2) ? absl::StrCat(" lease ", pool, " (", Pick(2) ? "inf" : "5",
                                                   ");")
                                    : "",
                            "\n");
      }
      case 8:
        return absl::StrCat("release ", pools_[Pick(int(pools_.size()))], ";\n");
      default:
        return Pick(4) == 0 ? "end;\n" : "observe x = now;\n";
    }
  }

  struct StageDecl {
    std::string name;
    bool array;
  };
  std::mt19937_64 rng_;
  bool disjoint_;
  int singles_ = 0;
  std::vector<std::vector<int>> groups_;
  std::vector<StageDecl> stages_;
  std::vector<std::string> pools_;
};

}  // namespace

std::string RandomProgram(uint64_t seed, bool disjoint_flows) {
  return Generator(seed, disjoint_flows).Program();
}

ir::Program Parse(absl::string_view source) {
  Diagnostics diags("test.sq", std::string(source));
  ir::Program program;
  EXPECT_TRUE(ParseProgram("test.sq", source, &program, &diags))
      << diags.Render() << "\n" << source;
  return program;
}

Drawing Draw(absl::string_view source) {
  ir::Program program = Parse(source);
  Diagnostics diags("test.sq", std::string(source));
  Drawing drawing;
  EXPECT_TRUE(BuildDrawing(program, &drawing, &diags)) << diags.Render() << "\n" << source;
  return drawing;
}

bool ParseAndLink(absl::string_view source, ir::Program* out) {
  *out = Parse(source);
  Diagnostics diags("test.sq", std::string(source));
  return LinkProgram(out, LinkOptions(), &diags);
}

}  // namespace serq::view
