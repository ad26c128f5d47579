// The linker's state, shared by the files that each do one part of linking:
//
//   names.cc    the namespace of params, pools and stages; workload/session pairs
//   params.cc   -D overrides, params (acyclic, constant), constant values, array sizes
//   expr.cc     expressions: what a name is, in which context
//   refs.cc     references to pools and stages: kinds and indices
//   session.cc  statements and session variables
//   keys.cc     evict by and serve by, which read other sessions' variables
//   decls.cc    the rules of declarations and of the run block
//   tables.cc   profile tables: their rules, and their rows read into the IR
//   flows.cc    the rules of runs: modes, growing, and the link rule (docs/language.md §11)
//
// Internal to serq-link; the interface is link.h.
#ifndef SERQ_LANG_LINK_LINKER_H_
#define SERQ_LANG_LINK_LINKER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "lang/link/link.h"

// The optional sub-message `field` of `msg` for changing, or null when it is
// absent: asking for it with mutable_ would create it.
#define IF_PRESENT(msg, field) ((msg)->has_##field() ? (msg)->mutable_##field() : nullptr)

namespace serq {
namespace linker {

// Where a node is: the source location of the nearest node around it that
// has one (IR from serq-parse), and its IR path (IR from a tool has no
// locations, so its errors name the path).
struct Place {
  ir::Location loc;
  std::string path;

  // The field `name` of this node; `own` its location, if it has one.
  Place Field(absl::string_view name, const ir::Location* own = nullptr) const;
  // Element `i` of this repeated field.
  Place Item(int i, const ir::Location* own = nullptr) const;
  // The same node, located at `own` when that is a real location.
  Place At(const ir::Location& own) const;
};

enum class DeclKind { kParam, kPool, kStage, kTable };

struct Decl {
  DeclKind kind;
  int index;  // into Program.param, .pool, .stage or .table
};

// "param", "pool", "stage", "table".
absl::string_view DeclWord(DeclKind kind);

// What an expression may read depends on where it stands.
enum class Context {
  kConstant,  // params, sizes, caps, seqs, tokens, run settings, workload args
  kPsPhi,     // constants and `present`
  kFifoPhi,   // constants
  kStepTau,   // constants and the step variables
  kStepJob,   // the same, for one job (inside sum_prefill and its kin)
  kEvictBy,   // constants, `since`, now/arrival/serial, the lease owner's variables
  kPreemptBy, // the same, in the session of each victim (a job at the stage)
  kServeBy,   // the arriving session's view, without random draws
  kRenewal,   // constants and random draws
  kSession,   // everything a session may read
};

// A session being linked: the names it assigns and the slots handed out so
// far, in order of first appearance.
struct SessionScope {
  int index = 0;
  bool trace = false;  // driven by a trace workload: unknown names are columns
  std::set<std::string> assigned;
  std::map<std::string, uint32_t> slot;
  ir::Session* session = nullptr;

  // True when the session has variable `name`: it assigns it, or it is a
  // trace session, whose columns set any name but a built-in variable's
  // (`tokens` and `seqs`, contextual words, can be columns).
  bool Has(const std::string& name) const;
  // The slot of variable `name`, handing out the next one on first use.
  uint32_t Slot(const std::string& name);
  // "session 'chat'" or "the unnamed session".
  std::string Describe() const;
};

// What the names of an expression may mean, where it stands.
struct Scope {
  Context context = Context::kConstant;
  SessionScope* session = nullptr;  // kSession
  // kEvictBy, kServeBy, kPreemptBy: the sessions whose variables the key reads (those
  // that lease from the pool, or run on the stage), the declaration's name
  // and the verb for messages ("leases from", "runs on").
  std::vector<SessionScope*> sessions;
  std::string owner;
  std::string verb;
  // A stage's rate and lets: the local names (`let`) visible here, in order.
  const std::vector<std::string>* lets = nullptr;
};

// What a reference to a declaration must name.
enum class Want { kStage, kPool, kPoolOrStage };

// "stage", "pool", "pool or stage".
absl::string_view WantWord(Want want);

// Whether it must be one element (an array element or a scalar), or a whole
// array named without index (choose), or either without index (len).
enum class Shape { kElement, kArray, kWhole };

// A run statement, recorded while resolving sessions for the rules checked
// once every reference is known.
struct RunSite {
  ir::Statement* statement;
  Place place;  // the statement
  int session;
};

class Linker {
 public:
  Linker(ir::Program* program, const LinkOptions& options, Diagnostics* diags);
  bool Link();

  // --- names.cc
  void DeclareNames();
  void PairWorkloadsAndSessions();
  const Decl* Find(absl::string_view name) const;
  std::string DescribeDecl(const Decl& d) const;  // "a pool", "an array of 4 pools" …

  // --- params.cc
  void ApplyDefines();
  void LinkParams();
  // Param i's value within its range (`in [low, high]`), or false after
  // reporting why not: the value outside, or an end that has no value.
  bool InRange(int i);
  void SizeArrays();
  // The program's stage and pool elements in all, at most kMaxElements: an
  // error at each declaration that would take the sum past it.
  void BoundElements();
  // The value of a constant expression (resolved without error), or nullopt
  // after reporting why not (unless the reason was reported before).
  std::optional<double> Evaluate(const ir::Expr& e, const Place& where);
  // The same without reporting: the value, or why not; Aborted when the
  // expression reads a param whose value was refused (reported already).
  absl::StatusOr<double> Value(const ir::Expr& e) const;
  // The size of a pool or stage: 0 for a scalar, -1 when its size is bad.
  int64_t Size(const Decl& d) const;

  // --- expr.cc
  // Resolves a required expression, or reports `missing` when it is absent
  // (`e` is null; see IF_PRESENT). Returns true when it resolved without
  // error.
  bool Required(ir::Expr* e, const Place& where, const Scope& scope, absl::string_view missing);
  bool ResolveExpr(ir::Expr* e, const Place& where, const Scope& scope);
  // A key: one expression or a tuple; `missing` when it has none.
  bool ResolveKey(ir::Key* key, const Place& where, const Scope& scope,
                  absl::string_view missing);
  void ResolveValue(ir::Ref* ref, const Place& where, const Scope& scope);
  void ResolveCall(ir::Expr::Call* call, const Place& where, const Scope& scope);

  // --- refs.cc
  // Resolves a reference that must name a pool or a stage; `needs` is the
  // phrase for messages ("a run needs a stage"). Returns the declaration, or
  // nullptr after reporting why not.
  const Decl* ResolveDeclRef(ir::Ref* ref, const Place& where, Want want, Shape shape,
                             absl::string_view needs, const Scope& scope);
  // ResolveDeclRef of a required reference, or reports `missing` at `where`
  // when it is absent (`ref` is null; see IF_PRESENT). `where` is the
  // field's place; the reference's own location refines it.
  const Decl* RequiredDeclRef(ir::Ref* ref, const Place& where, Want want, Shape shape,
                              absl::string_view needs, const Scope& scope,
                              absl::string_view missing);

  // --- session.cc
  void LinkSessions();
  void ResolveBody(google::protobuf::RepeatedPtrField<ir::Statement>* body, const Place& where,
                   const Scope& scope);
  void ResolveStatement(ir::Statement* st, const Place& where, const Scope& scope);
  void ResolveRun(ir::Statement* st, const Place& where, const Scope& scope);
  void ResolveHold(ir::Statement::Hold* hold, const Place& where, const Scope& scope);
  void ResolvePrefix(ir::Statement::Prefix* prefix, const Place& where, const Scope& scope);
  // interp's x then points: an odd count, xs constant and increasing.
  void CheckPoints(const ir::Expr::Call& call, const Place& where);
  // The slot of assigned variable `name`, or nullopt after reporting why
  // the name cannot be assigned.
  std::optional<uint32_t> Assign(const std::string& name, const Place& where,
                                 SessionScope* s);

  // --- keys.cc
  void LinkKeys();
  // A name in evict by or serve by that is none of the fixed ones: a
  // variable of every session the key is evaluated in.
  void ResolveKeyVariable(ir::Ref* ref, const Place& where, const Scope& scope);

  // --- tables.cc
  void CheckTables();
  // A lookup `call` of table `index` (its arity), whose arguments resolve
  // in `scope`.
  void ResolveTableCall(ir::Expr::Call* call, int index, const Place& where, const Scope& scope);

  // --- decls.cc
  void CheckPools();
  // A stage's lets, each resolved in `rate` with the ones before it; their
  // names, in order, for the rate.
  std::vector<std::string> ResolveLets(ir::Stage* s, const Place& here, const Scope& rate);
  void CheckStages();
  void CheckWorkloads();
  void CheckRunSettings();

  // --- flows.cc
  void CheckRuns();

  void Error(const Place& where, std::string message);
  int errors() const { return static_cast<int>(diags_->size()) - errors_before_; }

  ir::Program* program_;
  const LinkOptions& options_;
  Diagnostics* diags_;
  int errors_before_;

  std::map<std::string, Decl> names_;          // params, pools, stages and tables
  std::vector<std::optional<double>> param_value_;
  std::vector<bool> param_bad_;                // reported: no value, say nothing more
  std::vector<int64_t> pool_size_, stage_size_;
  int64_t statements_ = 0;  // the sessions' statements so far (kMaxStatements)
  std::vector<SessionScope> sessions_;
  std::vector<RunSite> runs_;
  // Which sessions lease from each pool and run on each stage (by index).
  std::map<int, std::set<int>> lease_sessions_, run_sessions_;
};

// --- helpers shared by the files above

// "the unnamed workload" / "workload 'chat'".
std::string DescribeWorkload(absl::string_view name);
// "the unnamed session" / "session 'chat'".
std::string DescribeSession(absl::string_view name);
// A number as messages print it: 4, 2.5, 1e+09, inf.
std::string FormatNumber(double v);
// True when `v` is a whole finite number.
bool IsWhole(double v);
// "line 3" or "stage[1]": where a node is, for "first defined at …".
std::string WhereIs(const Place& p);
// True when `name` is a built-in variable's and reserved for it: every one
// but `tokens` and `seqs`, which are contextual words (option words of a
// stage block), and IR 10's step figures, which a program may use as
// names; only a step's tau reads them as its own.
bool IsReservedBuiltin(absl::string_view name);
// True when a resolved expression is constant: numbers, params and math.
bool IsConstantExpr(const ir::Expr& e);
// True when a resolved expression reads built-in variable `b`.
bool ReadsBuiltin(const ir::Expr& e, ir::Ref::Builtin b);

}  // namespace linker
}  // namespace serq

#endif  // SERQ_LANG_LINK_LINKER_H_
