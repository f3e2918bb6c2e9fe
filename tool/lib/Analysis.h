//===- Analysis.h - The analyses of stage 2 and what they share -----------===//
//
// normalize:    early return / break / continue become flags, canonical
//               counted loops are recognised (Normalize.cpp)
// effects:      what each statement writes and from what (Effects.cpp)
// activity:     varied and useful variables (Activity.cpp)
// replication:  replicated or varying over the communicator, and whether a
//               replicated adjoint is exact or a per-rank partial
//               (Replication.cpp)
// to-be-recorded: which overwritten values the reverse sweep needs
//               (ToBeRecorded.cpp)
// buffer swap:  copy-back loops that can become pointer swaps
//               (BufferSwap.cpp)
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_ANALYSIS_H
#define MPIAD_ANALYSIS_H

#include "Frontend.h"
#include "IR.h"
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace mpiad {

/// One write performed by a statement: `target` gets a value computed from
/// `data` (differentiable flow) and `reads` (everything read, indices too).
struct Effect {
  Var *target = nullptr;
  std::set<Var *> data;
  std::set<Var *> reads;
  bool elementWrite = false; // writes part of an array
  bool wholeWrite = false;   // a communication call (re)defines a bare buffer,
                             // or a Stmt::replicaFill store defines all of z
  bool pointerCopy = false;  // target is a pointer into data's storage
  bool rowPointer = false;   // a row of target (`a[i]`, double **a) is set
                             // to point into data's storage
  const char *commResult = nullptr; // "replicated"/"varying" from a rule
  bool commSend = false; // data flows through communication (send buffer)
  std::string comm;      // the communicator of a communication call
};

/// Options of one differentiation request.
struct Request {
  Function *fn = nullptr;
  Annotation ann;
  bool perRank = false;
  std::string outName; // name of the generated function
  // Activity context for callees: which params are varied / useful.
  std::vector<bool> activeParams;
  bool activeReturn = false;
  bool topLevel = true;
  /// Unclassified inputs (in neither replicated(...) nor varying(...)) taken
  /// as replicated; the others are taken as varying.  Module::generate tries
  /// both readings and stops where the generated code depends on them.
  std::set<std::string> assumeReplicated;
  // Callees: pointer params whose data the caller's reverse sweep reads
  // after the reverse helper returns, so the helper must restore what it
  // overwrites there.
  std::vector<bool> restoreParams;
  // Callees: sameAs[k] = j when the call passes the same pointer as
  // arguments j < k (param k is then read as param j), else -1.
  std::vector<int> sameAs;
};

class Frontend;
class RuleSet;

/// Every effect of one statement (not descending into nested blocks).
std::vector<Effect> effectsOf(const Stmt &s, const Frontend &fe);

/// Per parameter of a same-file callee: does it write through that pointer
/// (directly, through a local pointer copied from it, or in a nested call)?
const std::vector<bool> &writtenParams(const Function *cf, const Frontend &fe);

/// Calls fn on every statement, with the enclosing control conditions'
/// variables and the loop depth.
struct WalkCtx {
  std::set<Var *> controlVars;
  int loopDepth = 0;
};
void walk(const Block &b, const std::function<void(Stmt &, const WalkCtx &)> &fn,
          WalkCtx ctx = {});

/// A counted loop whose body records one element a[base + j] per iteration
/// before overwriting it (RecordRange.cpp): given the generated forward and
/// reverse bodies, moves the records out of the loop, one array push before
/// it (into `before`) and one pop before the reversed loop (into
/// `revBefore`, when the reversed body reads the restored elements) or
/// after it (into `after`).  False, with nothing changed, when that is not
/// exact.
bool recordRange(Function &F, const Frontend &fe, const Stmt &loop,
                 Block &fwd, Block &rev, Block &before, Block &revBefore,
                 Block &after);

/// A function that makes a new synthetic variable of the generated code.
using NewVar = std::function<Var *(const std::string &, const CType &)>;
/// Is a call of this function free of effects the program sees (a math
/// function of the rules table, `M.rules_.math`)?
using PureCall = std::function<bool(const std::string &)>;

/// In the forward body of a loop over the replicas (`for (r = 0; r < R;
/// r++)` of a batched function), replaces each `x = f(A[X + r])` (f one of
/// tanh, exp, log, sin, cos; nothing in the body writes A or X) by a read of
/// `mpiad_vec_f(&A[X], R, slot)`'s result, that call going into `before`
/// (VectorMath.cpp).
void vectorMath(Function &F, const Stmt &loop, Block &body, Block &before,
                const NewVar &newVar, const PureCall &pure);

/// What the deferred seed needs of the reverse-mode generator.
struct DeferredSeedContext {
  NewVar newVar;
  PureCall pure; // the math functions B may call
  std::function<bool(const Var *)> isShadow; // an adjoint variable
  /// The elements of an adjoint array, or null when unknown.
  std::function<ExprP(const Var *)> length;
  /// The zeroed allocation of `len` elements for `acc`, the accumulator of
  /// the adjoint array `target`.
  std::function<ExprP(const ExprP &len, Var *acc, Var *target)> zeroed;
  /// `for (k = 0; k < count; k++) body(k)`.
  std::function<StmtP(const ExprP &count,
                      const std::function<StmtP(const ExprP &)> &body)>
      elementwise;
};
/// A counted loop of the function's body whose reverse is linear in one
/// adjoint it only reads, the seed (a sum's: `local += ...`), given its
/// generated forward and reversed loops: the loop `fused` runs each
/// iteration's reverse right after it, for a seed of 1, into accumulators
/// declared in `before`, and `scale` (in place of the reversed loop) adds
/// the seed times them to the adjoints (DeferredSeed.cpp).  False, with
/// nothing changed, when that is not exact.
bool deferredSeed(Function &F, const Stmt &loop, const StmtP &fwdLoop,
                  const StmtP &revLoop, const DeferredSeedContext &cx,
                  StmtP &fused, Block &before, Block &scale);

/// In the generated forward and reverse bodies of a loop over the replicas,
/// gives each scalar that the loop records at every replica (pushed before
/// `x = e`, popped at the end of the reversed iteration, named nowhere else
/// in the function) a buffer of R elements, `x_rep[r]`, recorded once per
/// loop: the push of the buffer goes into `before`, its pop into `after`
/// (the reversed loop's), the buffer and its length R into `buffers`, for
/// the generated function to allocate (ReplicaRecord.cpp).
void replicaRecord(Function &F, const Stmt &loop, Block &fwd, Block &rev,
                   Block &before, Block &after, std::vector<std::pair<Var *, ExprP>> &buffers,
                   const NewVar &newVar);

/// What the gather form needs of the reverse-mode generator.
struct GatherContext {
  NewVar newVar;                                // a synthetic variable
  std::function<bool(const Var *)> isShadow;    // an adjoint variable
  std::function<bool(const Var *)> isGenerated; // made by the generator
  /// An integer the reverse sweep computes again from stable values and
  /// loop counters.
  std::function<bool(const ExprP &)> recomputable;
  std::function<Var *(Var *)> shadow; // the adjoint of a variable
  /// Statements to run after each reversed time loop: the zeroing of the
  /// adjoints that an overwriting gather left stale.
  std::map<const Stmt *, Block> *zeroAfter = nullptr;
};
struct SwapCopy;
/// Floating data accessed through a struct's pointer field (`s.p[i]`) is a
/// constant to mpiad; where the field may point into `activeArray` (when
/// not empty), or belongs to one of the differentiated structs `inputs`
/// (`s->atoms->r` with s in wrt), each such access is a located error
/// (Activity.cpp).  False if any was.
bool refusePointerFieldData(Function &F, const std::string &activeArray,
                            Diag &diag,
                            const std::set<const Var *> &inputs = {});
/// Where an assignment's value, a floating pointer, points into memory
/// whose origin the function cannot see: "the pointer field 's.p'" or
/// "the external function 'get_buf'"; empty otherwise (Activity.cpp).
std::string unknownOrigin(const ExprP &rhs, const Frontend &fe);
/// The reversed body of a counted loop over i in [L, H] (Gather.cpp): when
/// it scatters into one adjoint array at constant offsets, the gather that
/// replaces the reversed loop, into `out`; false, with nothing changed,
/// otherwise.  `sw` is the swapped copy-back of the same step whose
/// adjoint the gather may overwrite (BufferSwap.cpp), or null.
bool gatherForm(const GatherContext &cx, Var *i, const ExprP &L,
                const ExprP &H, const Block &body, const Stmt &primal,
                Block &out, const SwapCopy *sw);
/// An index of a loop nest read as a polynomial (IndexPoly.cpp): the sum
/// over the nest's levels m (outermost first) of stride[m] * (counter_m +
/// offset[m]), plus a rest that holds no counter.  The innermost stride is
/// 1 (stride[D - 1] is null); every other stride is an integer expression
/// of variables that never change, with a highest-degree product of
/// variables of its own (`ys`, `width + 4`, `nx * ny + ...`) that gives the
/// offset its meaning.  `key` is equal for indices with the same strides
/// and rest, which differ only in their offsets.
struct NestIndex {
  std::vector<ExprP> stride;
  std::vector<long long> offset;
  std::string key;
};
/// idx as a NestIndex over `counters` (outermost first): integer literals
/// and evaluated constants, counters and stable integer variables, +, -
/// and *; false when it is anything else or has another shape.
bool nestIndex(const ExprP &idx, const std::vector<const Var *> &counters,
               NestIndex &out);
/// One loop of a perfect nest: its counter runs up from lo to hi.
struct NestLevel {
  Var *v;
  ExprP lo, hi;
};
/// The reversed body of the innermost loop of a perfect nest of counted
/// loops (outermost first) over a box (Gather.cpp): when every term of its
/// scatter into one adjoint array can be gathered, the gather over the
/// whole nest, run where a run-time check holds and `fallback` (the
/// reversed nest as it was) otherwise, into `out`; false, with nothing
/// changed, otherwise.  `primal` is the innermost loop.  `sw` is the
/// region swap of the same step whose adjoint the gather may overwrite on
/// the region (BufferSwap.cpp, regionOverwriteLoop), or null.
bool nestGatherForm(const GatherContext &cx,
                    const std::vector<NestLevel> &nest, const Block &body,
                    const Stmt &primal, const StmtP &fallback, Block &out,
                    const SwapCopy *sw);

/// Variables assigned anywhere in a block (targets of effects).
std::set<Var *> assignedIn(const Block &b, const Frontend &fe);

/// `p = realloc(q, n)` as malloc, an element copy and free, with the size
/// of each realloc'd pointer's block tracked (Realloc.cpp); false after a
/// located error.
bool lowerReallocs(Function &f, Diag &diag,
                   const std::function<const Function *(const std::string &)>
                       &callee);
/// Inlines every same-file callee of `f` that communicates (Inline.cpp), so
/// that the communication is analysed in the caller's context.
/// Inlines same-file helpers that communicate (Inline.cpp); with
/// `pointerCalls`, also every helper called with a pointer argument (the
/// replicas transformation must see every access to an array).
void inlineCommunicatingCallees(Function &f, Frontend &fe, Diag &diag,
                                bool pointerCalls = false);
/// Inlines only the same-file callees that are passed a struct whose
/// float/double fields may carry derivatives, that use a float/double
/// global, or that pass or return a row-pointer array (forward mode,
/// Inline.cpp).
void inlineStructCallees(Function &f, Frontend &fe, Diag &diag);
/// The name of a float/double global that `cf` reads or writes (directly),
/// or "".  Calls of such functions are inlined (Inline.cpp).
std::string floatingGlobalOf(const Function &cf);
/// replicas(...): turns F into its batched primal over R replicas and
/// adjusts the annotation to match (Replicas.cpp).  False after an error.
bool batchReplicas(Function &F, Annotation &ann, Frontend &fe, Diag &diag);
/// `if (R < 1) return;`, first in a batched function: every loop over the
/// replicas then runs at least once (Stmt::replicaLoop), as the analyses
/// assume.
StmtP noReplicasReturn(const Function &F);
/// The header comment of a batched function: `kind` is "adjoint (reverse
/// mode)" or "tangent (forward mode)", `user` the pragma as written.
std::string batchedComment(const Function &F, const Annotation &ann,
                           const Annotation &user, const std::string &kind,
                           const std::string &name);

bool normalize(Function &f, const Frontend &fe, Diag &diag);
/// Calls whose derivative is a function of their value (tanh, exp, sqrt,
/// cbrt: read from the rules) get a local of their own, marked resultRead,
/// where that frees their argument from the tape (CallHoist.cpp).
void hoistResultCalls(Function &F, const RuleSet &rules);
/// `t = x * (1 + 1e-3 * rand())`: a call whose value differs from call to
/// call (rand, drand48, clock, MPI_Wtime, ...) inside an assigned value or a
/// condition gets a local assigned just before the statement, so that the
/// reverse sweep and the tangent, which evaluate the statement's
/// expressions again, read the value the program drew instead of drawing
/// again (CallHoist.cpp).
void hoistStatefulCalls(Function &F);
/// Is `s` a counted loop `for (i = lo; i < hi; i++)` (or <=, or counting
/// down with > / >=) whose body changes neither i nor the variables of lo and
/// hi?  Then fills its loopVar, loopLo, loopHi, loopCmp and loopStep.  The
/// normalizer marks the loops of the functions it transforms; length
/// inference also asks it about the loops of callees, which are not
/// normalized.
bool markCanonicalLoop(Stmt &s, const Frontend &fe);

/// The length of the array a pointer parameter points to, from every access
/// in F and in the same-file callees it is passed to (Length.cpp): each
/// access's largest index over the counted loops around it, plus one.  Null
/// when there is no access, or when one access cannot be bounded: then
/// `why` is that access and `where` (when given) its location.  Never a
/// guess: a length that is too short overflows the generated buffers.
ExprP inferLength(Function &F, Var *p, std::string &why, const Frontend &fe,
                  clang::SourceLocation *where = nullptr);
void analyzeActivity(Function &f, const Request &req, const Frontend &fe,
                     Diag &diag);
/// Flow-sensitive replication.  Each definition of a scalar is a version;
/// versions that reach a common use form a web, which has one replication
/// and one adjoint form (exact or per-rank partial).  Arrays and pointers
/// have one web per variable.
struct ReplicationResult {
  std::map<std::pair<const Stmt *, const Var *>, int> defWeb; // v defined at s
  std::map<std::pair<const Stmt *, const Var *>, int> useWeb; // v read at s
  std::vector<char> replicated, partial;                      // per web
  bool known(const Stmt *s, const Var *v, bool def) const {
    return (def ? defWeb : useWeb).count({s, v}) > 0;
  }
  int web(const Stmt *s, const Var *v, bool def) const {
    return (def ? defWeb : useWeb).at({s, v});
  }
};
std::shared_ptr<ReplicationResult>
analyzeReplication(Function &f, const Request &req, const Frontend &fe,
                   Diag &diag);
/// What the reverse of one statement reads: pointer values (by variable)
/// and data (by alias class root).
struct ReverseReads {
  std::set<Var *> ptr, data;
  // Alias roots whose value right after the statement (not before it) its
  // reverse reads: the target of a `resultRead` assignment.
  std::set<Var *> post;
};
/// Marks `reverseRead` from the variables a dry-run reverse sweep reads,
/// counts assignments (for isStable), and decides `hoisted`.
void analyzeToBeRecorded(Function &f, const std::set<Var *> &reverseReads,
                         const Frontend &fe);
/// Flow-sensitive to-be-recorded: a statement records the old value of a
/// target only when the reverse of an earlier statement (in forward order,
/// loops included) reads it.  `entryData` (alias roots) is read after the
/// whole reverse sweep: the caller's reverse needs it as it was on entry.
/// Fills Stmt::tapeSet.
void decideRecording(Function &f,
                     const std::map<const Stmt *, ReverseReads> &reads,
                     const Frontend &fe, const std::set<Var *> &entryData = {});
/// A variable whose value at any point is the value the reverse sweep would
/// see at the same point without recording.
bool isStable(const Var *v);

/// The communicator replication is relative to: the first MPI_Comm
/// parameter, else MPI_COMM_WORLD.
std::string mainComm(const Function &f);

/// Does any message of a point-to-point call of the body carry derivatives?
/// Then every point-to-point call is reversed, so that peers match.
bool pointToPointActive(const Block &body);
/// Is any non-blocking start of the body reversed?  Then every completion
/// (MPI_Wait, ...) is, so that each request's outcome is recorded.
bool startsActive(const Block &body);
/// The calls of rules marked `ingroup` (ncclSend, ncclRecv) that are not
/// between a `groupstart` and a `groupend` call (ncclGroupStart/End).
std::set<const Stmt *> ungroupedCalls(const Block &body);
/// The other communication calls between a `groupstart` and a `groupend`
/// call (a collective in an NCCL group).
std::set<const Stmt *> groupedOthers(const Block &body);
/// The two sets above for one function, computed on first use.
struct NcclGroups {
  std::shared_ptr<std::set<const Stmt *>> ungrouped, grouped;
};
/// For a communication call with derivatives: the located error's text when
/// it is a collective inside an NCCL group or a send/receive outside one,
/// else "" (reverse and forward mode ask alike).
std::string ncclGroupingError(const Stmt &s, const Block &body,
                              NcclGroups &groups);
/// For the datatype argument `arg` (rule argument `a`) of a communication
/// call with derivatives: the located error's text when it is a derived
/// datatype that the rule does not take (`derived` in rules/), else "".
std::string derivedDatatypeError(const CommRule &r, const CommArg &a,
                                 const Expr &arg, const std::string &call);

/// An integer value `sym + c` (sym null for a constant), sym a stable
/// integer variable (BufferSwap.cpp).
struct Affine {
  const Var *sym = nullptr;
  long long c = 0;
};
/// e as an Affine: literals, one stable integer variable, + and -.
bool affine(const ExprP &e, Affine &out);
/// One dimension of an index: `loop + off`, or the fixed `off` when loop
/// is null.
struct DimVal {
  const Var *loop = nullptr;
  Affine off;
};
/// idx (times sign) as the sum over dimensions d of strides[d] * dims[d]
/// (strides[0] is null, the stride 1; each dimension a counter of `loops`
/// plus an offset).  With `grow`, a stride (an expression of stable integer
/// variables and literals, `ys` or a macro's `(ny + 2)`) that multiplies a
/// loop counter becomes a new stride; strides compare as trees over the
/// same variables.  `c - sx` adds -1 to the dimension of sx.
bool decompose(const ExprP &idx, int sign, std::vector<ExprP> &strides,
               bool grow, const std::set<const Var *> &loops,
               std::vector<DimVal> &dims);
/// One dimension of the region a partial copy-back copies: indices lo..hi
/// (inclusive), `stride` elements apart (null: 1, the innermost).
struct SwapDim {
  ExprP stride, lo, hi;
  ExprP span; // hi - lo
};
/// The run-time condition that the rows of a box of indices (innermost
/// dimension first) are disjoint and in increasing order: each dimension
/// non-empty, each stride at least the extent of what one step of the
/// dimension below spans; null when it always holds.  Where it holds, the
/// box's index is one to one.
ExprP rowsDisjoint(const std::vector<SwapDim> &r);
/// A copy-back loop `for (i = 0; i < N; i++) dst[i] = src[i];` over two
/// private buffers, where the old contents of src are dead: the copy and its
/// adjoint can be swaps of pointers (BufferSwap.cpp).  A copy of a region
/// only (the interior of a grid with ghost cells, a nest of up to three
/// loops) is a swap too, followed by an exchange of the elements outside
/// the region, when the region's rows are disjoint and in increasing order
/// inside the buffers (regionSwapCondition, checked at run time).
struct SwapCopy {
  Var *dst = nullptr, *src = nullptr;
  ExprP count; // N, the elements of both buffers
  /// The loop (or, for a region, the loop nest) of the same step whose
  /// adjoint may overwrite dst's adjoint (on the region) and leave src's
  /// adjoint unzeroed (BufferSwap.cpp: overwriteLoop,
  /// regionOverwriteLoop), or null.
  const Stmt *overwrite = nullptr;
  const Stmt *timeLoop = nullptr;
  /// The copied region, innermost dimension first; empty for the whole
  /// buffers.
  std::vector<SwapDim> region;
  /// The reverse sweep reads the old contents of dst's region (the copy
  /// records them): after the swap, src's buffer holds them, and the tape
  /// keeps that buffer whole (mpiad_push_buffer) and gives src another.
  bool recordsDst = false;
  /// The reverse sweep, from the reverse of this copy on, reads the data
  /// of neither buffer (both local): the adjoint of the copy exchanges
  /// only the adjoints' elements outside the region, not the buffers'
  /// (Reverse.cpp, set from the dry run's reads).
  bool reverseReadsNeither = false;
};
/// The run-time condition under which a region swap is exact: every
/// dimension is non-empty, and the region's rows are disjoint, in
/// increasing order and inside [0, N).
ExprP regionSwapCondition(const SwapCopy &sc);
/// The region's rows, `row(start, width)` for each, in increasing order
/// (or decreasing with `backwards`).
Block regionRows(const SwapCopy &sc, const NewVar &newVar, bool backwards,
                 const std::function<Block(const ExprP &, const ExprP &)> &row);
/// b[e] = 0 at every e of the region (requires regionSwapCondition).
Block zeroRegion(const SwapCopy &sc, const NewVar &newVar, Var *b);
/// Exchanges a[e] and b[e], for each pair (a, b), at every e in [0, N)
/// outside the region (requires regionSwapCondition); with copyInto, also
/// copies the first pair's new b[e] into copyInto[e].
Block exchangeOutsideRegion(const SwapCopy &sc, const NewVar &newVar,
                            const std::vector<std::pair<Var *, Var *>> &pairs,
                            Var *copyInto = nullptr);
/// Is a + k provably equal to b (integer values built from literals and
/// variables that never change)?
bool provablyEqualPlus(const ExprP &a, long long k, const ExprP &b);
/// The swappable copy loops of f, after decideRecording.
std::map<const Stmt *, SwapCopy> findSwapCopies(Function &f);

/// The union-find root of a pointer alias class.
Var *aliasRoot(Function &f, Var *v);

/// Recomputation instead of recording (Recompute.cpp): which values the
/// reverse sweep can compute again from variables that still hold, when the
/// reverse of a statement runs, the values they had when it ran forward.
class FinalValues {
public:
  FinalValues(Function &f, const Frontend &fe);
  /// Is v (a scalar, or an array's pointer and data) written by no
  /// statement at or after the start of the outermost loop around s (s
  /// itself when no loop is around it)?  Then the reverse of s sees v as s
  /// saw it.  False for statements in checkpointed or parallel loops.
  bool unchangedFrom(const Stmt *s, Var *v) const;
  /// Is e cheap to compute again at the reverse of s: at most a few
  /// arithmetic operations, no call, on literals, integers that intOk
  /// accepts, and floating scalars and array elements unchanged from s
  /// (with indices that intOk accepts)?
  bool cheapAgain(const Stmt *s, const ExprP &e,
                  const std::function<bool(const ExprP &)> &intOk) const;

private:
  Function &f;
  std::map<const Stmt *, int> start;  // where "unchanged from s" begins
  std::map<const Var *, int> lastWrite; // by alias root
  bool cheap(const Stmt *s, const ExprP &e,
             const std::function<bool(const ExprP &)> &intOk,
             int &budget) const;
};

} // namespace mpiad

#endif
