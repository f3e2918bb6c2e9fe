//===- IR.h - The small typed IR that every pipeline stage works on -------===//
//
// The frontend lowers marked C functions into this IR; the analyses annotate
// its variables; the transforms build new IR (forward and reverse sweeps); the
// backend prints it as C.  Expressions are immutable trees shared by pointer.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_IR_H
#define MPIAD_IR_H

#include "clang/Basic/SourceLocation.h"
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mpiad {

enum class Scalar { Void, Int, Float, Double, Other };

/// A C type as far as differentiation cares: element kind, pointer depth,
/// fixed array dimensions, and the spelling used when printing declarations.
struct CType {
  Scalar elem = Scalar::Other;
  int ptrDepth = 0;
  std::vector<std::string> dims; // fixed array dimensions, source text
  bool isConst = false;          // const-qualified pointee / value
  // `double (*u)[NY]` (also written `double u[][NY]` as a parameter): one
  // pointer to rows of fixed dimensions, not an array of pointers.
  bool ptrToArray = false;
  // The element is a struct (or union) with float or double fields, whose
  // fields can carry derivatives (Frontend's field views).
  bool floatingFields = false;
  // Such a struct made only of float (or only of double) fields, nested
  // structs and arrays included, without padding: in memory, an array of
  // that element (MPI may send it as MPI_FLOAT or MPI_DOUBLE).
  Scalar flatElem = Scalar::Other;
  // An unsigned integer (size_t, unsigned, uint8_t): a reversed loop
  // counting down to zero cannot test `i >= 0`.
  bool isUnsigned = false;
  std::string base;              // e.g. "double", "const double", "MPI_Comm"
  std::string declFmt; // full declarator with @N@ for the name, for types
                       // such as function pointers; empty for simple types

  bool isFloatingElem() const {
    return elem == Scalar::Float || elem == Scalar::Double;
  }
  bool isFloatingScalar() const {
    return isFloatingElem() && ptrDepth == 0 && dims.empty();
  }
  bool isIntScalar() const {
    return elem == Scalar::Int && ptrDepth == 0 && dims.empty();
  }
  bool isArrayLike() const { return ptrDepth > 0 || !dims.empty(); }
  /// What a pointer of this type points to, for sizeof: the base type, or
  /// for a pointer to rows (`double (*u)[NY]`) the row, `double[NY]`.
  std::string pointeeName() const {
    std::string n = base.rfind("const ", 0) == 0 ? base.substr(6) : base;
    if (ptrToArray)
      for (const std::string &d : dims)
        n += "[" + d + "]";
    return n;
  }
  /// "double" or "float": the element type without qualifiers.
  std::string elemName() const {
    return elem == Scalar::Float ? "float" : "double";
  }
  std::string mpiType() const {
    return elem == Scalar::Float ? "MPI_FLOAT" : "MPI_DOUBLE";
  }
  /// The datatype constant of this element type in the family of `like`
  /// (an MPI datatype, or an NCCL one such as ncclFloat64).
  std::string datatypeLike(const std::string &like) const {
    if (like.rfind("nccl", 0) == 0)
      return elem == Scalar::Float ? "ncclFloat" : "ncclDouble";
    return mpiType();
  }
};

/// The element type a datatype constant describes: Double for MPI_DOUBLE,
/// ncclDouble and ncclFloat64, Float for MPI_FLOAT, ncclFloat and
/// ncclFloat32, Other for anything else (the only datatypes that carry
/// derivatives).
inline Scalar datatypeElem(const std::string &t) {
  if (t == "MPI_DOUBLE" || t == "ncclDouble" || t == "ncclFloat64")
    return Scalar::Double;
  if (t == "MPI_FLOAT" || t == "ncclFloat" || t == "ncclFloat32")
    return Scalar::Float;
  return Scalar::Other;
}

/// What to write instead of a datatype that cannot carry derivatives.
inline std::string floatingDatatypes(const std::string &t) {
  return t.rfind("nccl", 0) == 0 ? "ncclDouble or ncclFloat"
                                 : "MPI_DOUBLE or MPI_FLOAT";
}

/// A number per variable object, in order of creation in this process, so
/// that sets and maps of variables iterate in the same order on every run
/// (the generated text must not depend on heap addresses).
long long nextVarOrder();

struct Var {
  int id = 0;
  long long order = nextVarOrder();
  std::string name;      // name as printed (unique within the function)
  std::string userName;  // name as the user wrote it
  CType type;
  // Field: a floating field of a struct variable, seen as a variable of its
  // own (see fieldOf).
  enum Kind { Param, Local, Global, Synthetic, Field } kind = Local;
  clang::SourceLocation loc;
  bool declaredInForInit = false; // `for (int i = ...)`: scoped to the loop
  // A variable of a helper inlined into this function (Inline.cpp): its
  // name must not be one a loop of the function declares in its header,
  // which would hide it inside that loop.
  bool inlinedCopy = false;
  bool userInactive = false;      // #pragma mpiad inactive(v)
  // A parameter of a block's outlined function (Outline.cpp) that is an
  // array of the enclosing function (`double x[4][4]` there): its outer
  // extent, exact since the outliner passes that very array; 0 otherwise.
  long long outlinedExtent = 0;
  // replicas(...): a per-replica scalar stored as an array of exactly
  // `replicaCount` elements, one per replica (Replicas.cpp).
  Var *replicaCount = nullptr;
  // A field view (kind Field): the floating field `field` (".x", ".pos.x")
  // of the struct variable `fieldOf`, with fieldOf's shape (a scalar for a
  // struct a, an array for an array or pointer p of structs) and the field's
  // element type.  `a.x` and `p[i].x` are its uses; the analyses see it as a
  // variable of its own (fields never alias each other), and the backend
  // prints it through its parent, which is what is declared, allocated and
  // passed.  The shadow of a view is the same view of the parent's shadow.
  Var *fieldOf = nullptr;
  std::string field;
  // A field that is an array (`double r[3]`): the view has the parent's
  // shape followed by the field's dimensions, and the first
  // fieldParentRank indices of an element are the parent's (`p[i].r[k]`).
  int fieldParentRank = 0;
  // A view through pointer fields (`s->atoms->r`, Frontend's
  // lowerPointerField): `field` is the path after the parent's name
  // ("->atoms->r"), the view has the type of the last field (its own
  // shape, fieldParentRank 0), and its shadow is the same path from the
  // parent's shadow (`s_b->atoms->r`).
  bool throughPointer = false;

  // Filled by the analyses.
  int aliasRoot = -1;       // alias class (pointer locals pointing into arrays)
  bool varied = false;
  bool useful = false;
  bool active = false;
  bool replicated = true;   // meaningful under semantics(global) only
  bool partial = false;     // replicated var whose adjoint is a per-rank partial
  bool reverseRead = false; // value read by the reverse sweep
  bool hoisted = false;     // declared at function top in generated code
  int assignCount = 0;      // static number of assignments
  bool assignedInLoop = false;
  std::string shadow; // name of the adjoint / tangent variable
};

} // namespace mpiad

// Ordered containers of variables iterate in creation order, not in address
// order: std::set<Var *> and std::map<Var *, T> are used throughout.
template <> struct std::less<mpiad::Var *> {
  bool operator()(const mpiad::Var *a, const mpiad::Var *b) const {
    return (a ? a->order : -1) < (b ? b->order : -1);
  }
};
template <> struct std::less<const mpiad::Var *> {
  bool operator()(const mpiad::Var *a, const mpiad::Var *b) const {
    return (a ? a->order : -1) < (b ? b->order : -1);
  }
};

namespace mpiad {

struct Expr;
using ExprP = std::shared_ptr<const Expr>;

struct Expr {
  enum Kind {
    IntLit,   // text
    FloatLit, // text
    VarRef,   // var
    Index,    // ops[0][ops[1]]
    Unary,    // text op, ops[0]
    Binary,   // ops[0] text ops[1]
    Cond,     // ops[0] ? ops[1] : ops[2]
    Call,     // text(ops...)
    Cast,     // (text) ops[0]
    AddrOf,   // &ops[0]
    Opaque    // text printed verbatim; vars lists variables it reads.  With
              // one operand, a member access: ops[0] then text (".f", "->f")
  } kind;
  std::string text;
  Var *var = nullptr;
  std::vector<ExprP> ops;
  std::vector<Var *> vars; // for Opaque
  Scalar type = Scalar::Other; // scalar kind of the value
  int ptrDepth = 0;            // > 0 for pointer values
  // Opaque: an integer constant expression kept as written (a macro such
  // as N, sizeof, an enumerator), whose value never changes.
  bool intConstant = false;
  // Its value, where clang could evaluate it (RADIUS of a stencil).
  bool hasIntValue = false;
  long long intValue = 0;
  // Opaque: an MPI datatype that is not a predefined one (made by
  // MPI_Type_vector, _indexed, _create_subarray, ... or passed in).  Rules
  // that declare `derived DATATYPE` take it; libmpiad checks at run time
  // that its elements are all MPI_DOUBLE or all MPI_FLOAT.
  bool derivedDatatype = false;
  clang::SourceLocation loc;

  bool isFloating() const {
    return ptrDepth == 0 && (type == Scalar::Float || type == Scalar::Double);
  }

  /// carriesDerivative's answer for this tree, valid while `epoch` is the
  /// current activityEpoch() (activity does not change in between).  Reverse
  /// and forward mode ask it at every level of a tree: without the cache a
  /// sum of n terms costs n^2.  A copy starts empty (its fields may change).
  struct ActivityCache {
    unsigned epoch = 0;
    bool value = false;
    ActivityCache() = default;
    ActivityCache(const ActivityCache &) {}
    ActivityCache &operator=(const ActivityCache &) {
      epoch = 0;
      return *this;
    }
  };
  mutable ActivityCache activity;
};

/// Bumped whenever variables' `active` flags may change (analyzeActivity):
/// invalidates every Expr::activity cache.
unsigned activityEpoch();
void newActivityEpoch();

ExprP mkInt(long long v);
ExprP mkIntText(const std::string &t);
ExprP mkFloat(const std::string &t);
ExprP mkVar(Var *v);
ExprP mkIndex(ExprP base, ExprP idx);
ExprP mkUnary(const std::string &op, ExprP a);
ExprP mkBinary(const std::string &op, ExprP a, ExprP b);
ExprP mkCond(ExprP c, ExprP a, ExprP b);
ExprP mkCall(const std::string &fn, std::vector<ExprP> args,
             Scalar type = Scalar::Double, int ptrDepth = 0);
ExprP mkCast(const std::string &ty, ExprP a, Scalar type, int ptrDepth = 0);
ExprP mkAddrOf(ExprP a);
ExprP mkOpaque(const std::string &text, std::vector<Var *> vars = {},
               Scalar type = Scalar::Other);

/// Every variable an expression reads (including index expressions).
void collectVars(const ExprP &e, std::set<Var *> &out);
/// Calls fn on e and on every operand below it, parents first.
void visitExpr(const ExprP &e, const std::function<void(const Expr &)> &fn);
/// The variable an lvalue / buffer expression is rooted at (a[i], *p, &a[k],
/// p + k), or null.
Var *baseVar(const ExprP &e);
/// Replace variables using `map` (used to substitute rule parameters).
ExprP substitute(const ExprP &e, const std::map<std::string, ExprP> &map);
/// e with the variables in `to` replaced, also those an opaque node
/// names (its `vars`); e itself when `to` is empty.
ExprP renameVars(const ExprP &e, const std::map<Var *, Var *> &to);
bool isZeroLiteral(const ExprP &e);
bool isOneLiteral(const ExprP &e);

struct Stmt;
using StmtP = std::shared_ptr<Stmt>;
using Block = std::vector<StmtP>;

/// A communication call, lowered: the rule it matched and its arguments.
struct CommRule;
struct CommCall {
  const CommRule *rule = nullptr;
  std::string name;
  std::vector<ExprP> args;
};

struct Stmt {
  enum Kind {
    Decl,     // var (+ init)
    Assign,   // lhs op rhs; op in = += -= *= /=
    ExprStmt, // expr (calls, opaque)
    If,       // cond, body, elseBody
    For,      // init, cond, step, body  (canonical loops keep this form)
    While,    // cond, body
    DoWhile,  // body, cond
    Break,
    Continue,
    Return, // rhs (optional)
    Compound, // body (a nested { } block)
    Comm,     // comm
    Comment   // text, printed as /* text */
  } kind;
  clang::SourceLocation loc;
  Var *var = nullptr;
  ExprP lhs, rhs, cond;
  std::string op;
  Block body, elseBody;
  StmtP init, step;
  CommCall comm;
  std::string text;
  // To-be-recorded: the targets whose old value this statement pushes.
  std::set<Var *> tapeSet;
  // For loops, filled by the normalizer: the canonical shape.
  Var *loopVar = nullptr;
  ExprP loopLo, loopHi; // first value and bound expression
  std::string loopCmp;  // "<", "<=", ">", ">="
  int loopStep = 0;     // +1 or -1, 0 = not canonical
  // `#pragma mpiad checkpoint(snapshots=K)` on this for loop.
  bool checkpoint = false;
  std::string snapshots; // K as written, empty for the default
  clang::SourceLocation checkpointLoc;
  // `#pragma mpiad parallel` / `#pragma omp parallel for` on this for loop:
  // independent iterations (a kernel on the CUDA target).
  bool parallel = false;
  // `z[r] = e` stored unconditionally in a loop over all replicas r of a
  // per-replica scalar z stored as [R] (Replicas.cpp): the loop defines
  // every element, so the analyses treat the store as a new value of z.
  bool replicaFill = false;
  // A `while` loop whose iterations the reverse sweep runs again
  // (Rerun.cpp): like a checkpointed loop, its reverse reads what the
  // re-run reads (ToBeRecorded.cpp).
  bool rerun = false;
  // A loop over the replicas, `for (r = 0; r < R; r++)`: the batched
  // function returns at once when R < 1, so it runs at least once.
  bool replicaLoop = false;
  // `t = tanh(a)` marked by CallHoist.cpp: the reverse computes the call's
  // derivative from the value it assigned (`1.0 - t * t`), read before the
  // statement's record is popped, instead of calling tanh again.
  bool resultRead = false;
};

StmtP mkAssign(ExprP lhs, const std::string &op, ExprP rhs);
StmtP mkExprStmt(ExprP e);
StmtP mkIf(ExprP cond, Block then, Block els = {});
StmtP mkComment(const std::string &text);
StmtP mkDecl(Var *v, ExprP init = nullptr);
StmtP mkCompound(Block b);
/// for (v = from; v CMP to; v++) body, or v-- when down; v is declared in
/// the loop's header.
StmtP mkCountedLoop(Var *v, const ExprP &from, const ExprP &to, bool down,
                    const std::string &cmp, Block body);

/// What the pragma asked for on one function.
/// A clause entry that names data reached from a struct parameter through
/// its fields: `wrt(s->atoms->r)`, `output(s->ePotential)`.  The root's
/// name is also in the clause's list (the parameter gets its shadow); the
/// paths say which of its fields the clause means.
struct ClausePath {
  std::string root; // "s"
  std::string path; // "->atoms->r", as written after the root
  clang::SourceLocation loc;
  bool wrt = false; // in wrt(...); otherwise in output(...)
  // wrt(s->atoms->r[LEN]): the number of elements of the data, for the
  // generated F_s_shadow_new (StructShadow.cpp); empty if not written.
  std::string len;
  std::vector<std::pair<std::string, clang::SourceLocation>> lenNames;
};

struct Annotation {
  clang::SourceLocation loc; // of the pragma
  bool reverse = true;
  std::vector<std::pair<std::string, clang::SourceLocation>> wrt, outputs,
      replicated, varying;
  std::vector<ClausePath> paths;
  std::map<std::string, std::string> replicatedLen; // explicit w[LEN]
  /// The names LEN reads, with their locations (each must be a parameter).
  std::map<std::string,
           std::vector<std::pair<std::string, clang::SourceLocation>>>
      replicatedLenNames;
  // scratch(p[LEN], ...): work arrays whose contents on entry and exit do
  // not matter; the adjoint allocates their shadows itself.
  std::vector<std::pair<std::string, clang::SourceLocation>> scratch;
  std::map<std::string, std::string> scratchLen;
  std::map<std::string,
           std::vector<std::pair<std::string, clang::SourceLocation>>>
      scratchLenNames;
  // replicas(a[LEN], ...): inputs that differ per independent replica; the
  // tool also generates F_bv / F_dv over R replicas (Replicas.cpp).
  std::vector<std::pair<std::string, clang::SourceLocation>> replicas;
  std::map<std::string, std::string> replicasLen;
  std::map<std::string,
           std::vector<std::pair<std::string, clang::SourceLocation>>>
      replicasLenNames;
  // Set on the annotation of the batched run (Replicas.cpp): the per-replica
  // transformation is applied after inlining, and the generated function is
  // a static core that the public F_bv wraps.
  bool batched = false;
  std::set<std::string> replicaScalars; // scalars made arrays of R (set there)
  std::string name;
  bool perRank = false;
};

struct Function {
  std::string name;
  /// Is this the function a differentiated block became (Outline.cpp)?
  bool outlinedBlock() const { return name.rfind("mpiad_block_L", 0) == 0; }
  CType ret; // return type
  std::vector<Var *> params;
  std::vector<std::unique_ptr<Var>> vars; // owns every variable
  Block body;
  clang::SourceLocation loc;
  clang::SourceLocation endLoc; // location right after the closing brace
  bool isVariadic = false;
  /// Where a realloc was lowered (Realloc.cpp), or invalid.
  clang::SourceLocation reallocAt;
  Var *retVar = nullptr; // synthetic variable holding the return value

  /// The view of field `field` of `parent` (made on first use): its type
  /// is `elem`'s element with the parent's pointer depth and dimensions.
  Var *fieldView(Var *parent, const std::string &field, const CType &elem) {
    auto key = std::make_pair(parent, field);
    auto it = fieldViews.find(key);
    if (it != fieldViews.end())
      return it->second;
    CType t = parent->type;
    if (!elem.dims.empty()) {
      if (t.ptrDepth == 1 && t.dims.empty())
        t.ptrToArray = true; // p[i].r[k]: a pointer to rows of r's size
      t.dims.insert(t.dims.end(), elem.dims.begin(), elem.dims.end());
    }
    t.elem = elem.elem;
    t.base = (parent->type.isConst ? "const " : "") + elem.elemName();
    t.isConst = parent->type.isConst;
    t.floatingFields = false;
    t.flatElem = Scalar::Other;
    t.declFmt.clear();
    Var *v = newVar(parent->name + field, t, Var::Field);
    v->userName = parent->userName + field;
    v->fieldOf = parent;
    v->field = field;
    v->fieldParentRank =
        parent->type.ptrDepth + (int)parent->type.dims.size();
    v->loc = parent->loc;
    v->userInactive = parent->userInactive;
    fieldViews[key] = v;
    return v;
  }
  std::map<std::pair<Var *, std::string>, Var *> fieldViews;

  /// The view through pointer fields `path` ("->atoms->r") of `parent`,
  /// of type `t` (the last field's type), made on first use.
  Var *pointerFieldView(Var *parent, const std::string &path,
                        const CType &t) {
    auto key = std::make_pair(parent, path);
    auto it = fieldViews.find(key);
    if (it != fieldViews.end())
      return it->second;
    Var *v = newVar(parent->name + path, t, Var::Field);
    v->userName = parent->userName + path;
    v->fieldOf = parent;
    v->field = path;
    v->throughPointer = true;
    v->loc = parent->loc;
    v->userInactive = parent->userInactive;
    fieldViews[key] = v;
    return v;
  }

  /// The view `view` (of some struct variable) made on `parent` instead:
  /// the shadow's view, or the caller's view of an inlined helper's.
  Var *sameView(const Var *view, Var *parent) {
    if (view->throughPointer)
      return pointerFieldView(parent, view->field, view->type);
    CType ft;
    ft.elem = view->type.elem;
    size_t skip = view->fieldOf->type.dims.size();
    if (skip < view->type.dims.size())
      ft.dims.assign(view->type.dims.begin() + (long)skip,
                     view->type.dims.end());
    return fieldView(parent, view->field, ft);
  }

  /// Forgets the variables made after the first n (a dry run's).
  void dropVarsFrom(size_t n) {
    for (auto it = fieldViews.begin(); it != fieldViews.end();)
      if ((size_t)it->second->id >= n)
        it = fieldViews.erase(it);
      else
        ++it;
    while (vars.size() > n)
      vars.pop_back();
  }

  Var *newVar(const std::string &name, const CType &t, Var::Kind k) {
    auto v = std::make_unique<Var>();
    v->id = (int)vars.size();
    v->name = v->userName = name;
    v->type = t;
    v->kind = k;
    vars.push_back(std::move(v));
    return vars.back().get();
  }
};

} // namespace mpiad

#endif
