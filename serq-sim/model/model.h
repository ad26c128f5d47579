// The linked IR compiled once into the simulator's runtime form: pools and
// stages as flat arrays of elements indexed by id, session variables in
// numbered slots, expressions in one flat table (expr.h), and each session
// body as a flat list of instructions with jumps, so that a session can
// stop at any statement that waits and resume there. Nothing here is looked
// up by name while simulating.
#ifndef SERQ_SIM_MODEL_MODEL_H_
#define SERQ_SIM_MODEL_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostics.h"
#include "proto/ir.pb.h"
#include "serq-sim/workload/arrivals.h"
#include "serq-sim/model/expr.h"
#include "serq-sim/flow/flow.h"

namespace serq::sim {

constexpr uint32_t kNoNode = UINT32_MAX;

struct StageDecl {
  std::string name;
  ir::Location loc;  // the declaration, for runtime errors about the stage
  std::string path;  // its IR path, "stage[i]"
  ir::Stage::Kind kind = ir::Stage::DELAY;
  uint32_t base = 0;  // its first element's station id
  uint32_t size = 1;
  bool array = false;
  bool shared = false;       // named in a multi-stage run: its jobs are flows
  bool phi_constant = true;  // phi reads no `present`
  double phi = 0;            // its value when constant
  uint32_t phi_node = kNoNode;  // phi when it reads present; a step stage's tau
  double seqs = 0;    // step: jobs per batch (inf: unbounded)
  double tokens = 0;  // step: tokens per step (inf: unbounded)
  std::vector<uint32_t> serve_by;  // key nodes, evaluated in the arriving session
  bool preempt = false;             // step: `preempt by`
  std::vector<uint32_t> preempt_by; // its key nodes, evaluated in the victim's session
  std::vector<uint32_t> lets;       // the lets' nodes, evaluated in order before the rate
  bool figures = false;             // step: tau reads the jobs' figures (StepVars' IR 10 part)
  double chunk = 0;                 // step: `chunk N` (inf: none)
  bool reserve_prompt = false;      // step: `reserve prompt`
  bool async_scheduling = false;    // step: `async`
  bool recompute_last = false;      // step: `recompute last`
  bool lockstep = false;            // step: `lockstep` (IR 11)
};

struct PoolDecl {
  std::string name;
  uint32_t base = 0;  // its first element's pool id
  uint32_t size = 1;
  bool array = false;
  double cap = 0;
  std::vector<uint32_t> evict_by;  // key nodes; empty: never evict
  double cache = 0;  // `cache B`: the prefix cache's block size; 0: none
  ir::Location cache_loc;
  double block = 0;  // `block G`: holds take whole blocks of G units; 0: none
};

// Where a statement is, for runtime errors: its source location, or its IR
// path when the IR has none.
struct StatementInfo {
  ir::Location loc;
  std::string path;
  std::string what;  // for deadlock reports: "hold", "load", ...
};

enum class Code : uint8_t {
  kSet,      // a: slot, b: value
  kIf,       // a: condition, b: where to go when it is 0
  kJump,     // a: target
  kRepeat,   // a: count, b: counter slot, c: where to go after the loop
  kLoop,     // a: counter slot, b: the body's first instruction
  kEnd,      // end; and the end of the body
  kRun,      // a: run site
  kChoose,   // a: choose site
  kHold,     // a: hold site
  kHoldEnd,  // a: hold site
  kRelease,  // a: element ref
  kLoad,     // a: element ref, b: amount
  kObserve,  // a: observation id, b: value
  kPrefix,   // a: family, b: count (engine_cache.cc)
};

struct Instr {
  Code code;
  uint32_t statement = 0;  // index into Model::statements
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t c = 0;
};

struct RunSite {
  uint32_t stage = 0;          // element ref
  std::vector<uint32_t> also;  // element refs
  uint32_t work = 0;           // node
  uint32_t decl = 0;           // the stage declaration of `stage`
  bool shared = false;
  ir::Statement::Run::Mode mode = ir::Statement::Run::PLAIN;
  int32_t growing = -1;  // element ref of the pool the run grows, or -1
  int32_t observe = -1;  // a decode run's per-token observation id, or -1
};

struct ChooseSite {
  uint32_t slot = 0;
  uint32_t size = 0;  // of the array chosen from
  std::vector<uint32_t> key;
  // IR 11, `every DT` (0: none): the key's state functions read a copy of
  // the stage and pool elements below, refreshed every DT seconds; each
  // choice adds a waiting job to its element of a stage array in the copy.
  double every = 0;
  uint32_t base = 0;        // the chosen array's first element
  bool pool = false;        // the chosen array is a pool array
  std::vector<uint32_t> stations;  // the stage elements the copy holds, ascending
  std::vector<uint32_t> pools;     // the pool elements, ascending
};

struct HoldSite {
  std::vector<std::pair<uint32_t, uint32_t>> pools;   // (element ref, amount node)
  std::vector<std::pair<uint32_t, uint32_t>> leases;  // (element ref, duration node)
};

struct SessionDecl {
  std::string name;
  std::vector<std::string> variables;  // the linker's slots, by name
  uint32_t slots = 0;                  // variables plus one counter per repeat
  uint32_t entry = 0;                  // first instruction in Model::code
  std::vector<int32_t> key_slots;      // key name id -> slot, or -1
  // Slots no statement sets: a trace must provide them as columns.
  std::vector<bool> assigned;
};

struct WorkloadDecl {
  std::string name;
  uint32_t session = 0;
  ArrivalPlan plan;
  ir::Location loc;
  std::string path;
};

struct Model {
  std::string file;  // Program.file
  ExprTable exprs;
  std::vector<std::string> key_names;
  std::vector<StageDecl> stages;
  std::vector<uint32_t> station_decl;  // station id -> stage declaration
  std::vector<PoolDecl> pools;
  std::vector<uint32_t> pool_decl;  // pool id -> pool declaration
  std::vector<SessionDecl> sessions;
  std::vector<WorkloadDecl> workloads;
  std::vector<Instr> code;
  std::vector<StatementInfo> statements;
  std::vector<RunSite> runs;
  std::vector<ChooseSite> chooses;
  std::vector<HoldSite> holds;
  std::vector<std::string> observations;  // sorted; an observe names one by index
  bool has_shared = false;
  flow::Policy share = flow::Policy::kMaxMin;

  double horizon = 0;  // inf when `drain`
  // No horizon: every workload ends, and a replication runs until no
  // event is left (Replication.end says when).
  bool drain = false;
  double warmup = 0;
  uint64_t seed = 1;
  uint32_t replications = 1;
  double sample = 0;  // the time series' interval (0: none)
  uint32_t gpus = 0;  // run { gpus N; } (0: not stated)
};

// The most samples a time series may have (horizon / sample).
inline constexpr double kMaxSamples = 1e6;

struct ModelOptions {
  std::vector<std::pair<std::string, double>> defines;  // -D
  std::optional<uint64_t> seed;
  std::optional<uint32_t> replications;
  std::optional<double> horizon;
  std::optional<double> warmup;  // overrides run { warmup }
  std::optional<double> sample;  // overrides run { sample }
  const char* sample_flag = "--sample";  // the flag that set `sample`, for its errors
  std::string data_dir;  // where relative trace paths resolve ("" = the program's directory)
};

// Compiles linked IR. Errors that stop a simulation before it starts (a -D
// that names no param or one that sizes an array, invalid run
// settings, a constant phi <= 0, a trace that cannot be read or lacks a
// column) go to `diags`; returns false then.
bool CompileModel(const ir::Program& program, const ModelOptions& options, Model* model,
                  Diagnostics* diags);

}  // namespace serq::sim

#endif  // SERQ_SIM_MODEL_MODEL_H_
