//===- VectorMath.cpp - Math calls of a replica loop, all replicas at once -===//
//
// A batched adjoint (F_bv, Replicas.cpp) evaluates the model of every
// replica in loops over the replicas, with the replica axis innermost:
//
//   for (int r = 0; r < R; r++) {
//     mpiad_push_f64(mpiad_h1);
//     mpiad_h1 = tanh(a[r]);
//     out[r] += w_rep[(h * d + k) * R + r] * mpiad_h1;
//   }
//
// The tanh is a scalar libm call per replica, and the push in the loop keeps
// the C compiler from vectorising anything around it; in the NNPDF-style fits
// of bench/replicas.sh that call is most of the forward sweep.  Called by
// Reverse.cpp on the forward body of each loop over the replicas (and by
// Forward.cpp on the tangent's, F_dv), this stage
// evaluates such a call for all replicas before the loop, with the runtime's
// vector math (runtime/vmath.c: glibc's libmvec, 4 replicas per call with
// AVX2), and reads replica r's value in the loop:
//
//   const double *mpiad_tanh_of = mpiad_vec_tanh(a, R, 0);
//   for (int r = 0; r < R; r++) {
//     mpiad_push_f64(mpiad_h1);
//     mpiad_h1 = mpiad_tanh_of[r];
//     ...
//
// It applies to a statement `x = f(A[r])` or `x = f(A[X + r])` (or the
// declaration `double t = f(...)` of forward mode's CallReuse.cpp) at the
// top level of the loop's body, f one of tanh, exp, log, sin and cos on a
// double, when nothing in the loop's body writes A's storage (its alias
// class) or the variables of X, and the body calls nothing but the math
// functions of the rules table (rules/math.rules) and the tape's pushes:
// then every iteration reads the value that A[X + r] has before the loop.
// Only the forward sweep changes: the derivative is computed from the same value as before (the
// value assigned, CallHoist.cpp, or the argument).  libmvec's results are
// within 4 ulp, like libm's, but not always bitwise equal to libm's, so
// replica r's value may differ from F_b's in the last bits (the contract's
// 1e-13).  At most MPIAD_VEC_SLOTS (8) calls per loop; not on the CUDA target.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Transform.h"

namespace mpiad {

namespace {

const std::set<std::string> &vectorFunctions() {
  static const std::set<std::string> fs = {"tanh", "exp", "log", "sin",
                                           "cos"};
  return fs;
}

const int kSlots = 8; // MPIAD_VEC_SLOTS in runtime/include/mpiad.h

/// What the loop body writes: the alias roots of arrays written through
/// elements, and the scalars assigned.  False when it holds something this
/// stage does not follow: communication, or a call that may write anything
/// (a callee's helper may write a global).
bool bodyWrites(Function &F, Block &body, std::set<Var *> &arrays,
                std::set<Var *> &scalars, const PureCall &pure) {
  bool ok = true;
  auto throughCalls = [&](const ExprP &e) {
    std::function<void(const ExprP &)> rec = [&](const ExprP &x) {
      if (!x)
        return;
      for (const ExprP &o : x->ops)
        rec(o);
      if (x->kind == Expr::Call && !pure(x->text) &&
          x->text.rfind("mpiad_push_", 0) != 0)
        ok = false;
    };
    rec(e);
  };
  walk(body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Comm) {
      ok = false;
      return;
    }
    if (s.kind == Stmt::Decl)
      scalars.insert(s.var);
    if (s.kind == Stmt::Assign) {
      if (s.lhs->kind == Expr::VarRef)
        scalars.insert(s.lhs->var);
      else if (Var *b = baseVar(s.lhs))
        arrays.insert(aliasRoot(F, b));
      else
        ok = false;
    }
    if (s.kind == Stmt::For && s.loopVar)
      scalars.insert(s.loopVar);
    for (const ExprP *e : {&s.lhs, &s.rhs, &s.cond})
      throughCalls(*e);
  });
  return ok;
}

/// idx is `r`, `X + r` or `r + X` with X free of r and of the scalars the
/// body writes: sets X (null for `r`).
bool replicaIndex(const ExprP &idx, const Var *r,
                  const std::set<Var *> &scalars, ExprP &offset) {
  if (idx->kind == Expr::VarRef && idx->var == r) {
    offset = nullptr;
    return true;
  }
  if (idx->kind != Expr::Binary || idx->text != "+")
    return false;
  for (int side = 0; side < 2; ++side) {
    const ExprP &a = idx->ops[side], &b = idx->ops[1 - side];
    if (a->kind != Expr::VarRef || a->var != r)
      continue;
    std::set<Var *> vs;
    collectVars(b, vs);
    if (vs.count(const_cast<Var *>(r)))
      return false;
    for (Var *v : vs)
      if (scalars.count(v))
        return false;
    offset = b;
    return true;
  }
  return false;
}

} // namespace

void vectorMath(Function &F, const Stmt &loop, Block &body, Block &before,
                const NewVar &newVar, const PureCall &pure) {
  const Var *r = loop.loopVar;
  if (!loop.replicaLoop || !r || loop.loopStep != 1 || loop.loopCmp != "<" ||
      !loop.loopLo || loop.loopLo->kind != Expr::IntLit ||
      loop.loopLo->text != "0" || !loop.loopHi)
    return;
  std::set<Var *> arrays, scalars;
  if (!bodyWrites(F, body, arrays, scalars, pure))
    return;
  int slot = 0;
  for (StmtP &s : body) {
    if (slot == kSlots)
      break;
    bool assigns = (s->kind == Stmt::Assign && s->op == "=") ||
                   (s->kind == Stmt::Decl && s->var->type.dims.empty());
    if (!assigns || !s->rhs ||
        s->rhs->kind != Expr::Call || s->rhs->ops.size() != 1 ||
        !vectorFunctions().count(s->rhs->text) ||
        s->rhs->type != Scalar::Double)
      continue;
    const ExprP &arg = s->rhs->ops[0];
    if (arg->kind != Expr::Index || arg->ops[0]->kind != Expr::VarRef)
      continue;
    Var *a = arg->ops[0]->var;
    ExprP offset;
    if (a->type.elem != Scalar::Double || !a->type.isArrayLike() ||
        arrays.count(aliasRoot(F, a)) ||
        !replicaIndex(arg->ops[1], r, scalars, offset))
      continue;
    CType t;
    t.elem = Scalar::Double;
    t.ptrDepth = 1;
    t.isConst = true;
    t.base = "const double";
    Var *v = newVar("mpiad_" + s->rhs->text + "_of", t);
    ExprP from = offset ? mkAddrOf(mkIndex(mkVar(a), offset)) : mkVar(a);
    before.push_back(mkDecl(
        v, mkCall("mpiad_vec_" + s->rhs->text,
                  {from, loop.loopHi, mkInt(slot)}, Scalar::Double, 1)));
    ++slot;
    auto copy = std::make_shared<Stmt>(*s);
    copy->rhs = mkIndex(mkVar(v), mkVar(const_cast<Var *>(r)));
    s = copy;
  }
}

} // namespace mpiad
