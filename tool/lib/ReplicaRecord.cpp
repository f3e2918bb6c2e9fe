//===- ReplicaRecord.cpp - One record per loop over the replicas ----------===//
//
// In a batched adjoint (F_bv, Replicas.cpp) a scalar that one replica's
// model assigns and reads within one loop over the replicas stays a scalar:
// replica r assigns it, then reads it.  When the reverse sweep needs its
// value, the forward sweep records the old one at every iteration and the
// reverse sweep restores it at every reversed iteration:
//
//   for (int r = 0; r < R; r++) {            // forward sweep
//     mpiad_push_f64(mpiad_h1);
//     mpiad_h1 = mpiad_tanh_of[r];
//     out[r] += w_rep[(h * d + k) * R + r] * mpiad_h1;
//   }
//   for (int r = R - 1; r >= 0; r--) {       // reverse sweep
//     w_rep_b[(h * d + k) * R + r] += out_b[r] * mpiad_h1;
//     ...
//     a_b[r] += mpiad_h1_b * (1.0 - mpiad_h1 * mpiad_h1);
//     mpiad_h1 = mpiad_pop_f64();
//   }
//
// The push and the pop go through the tape's top pointer at every replica,
// and the chain of values through the scalar keeps the C compiler from
// vectorising either loop.  Called by Reverse.cpp on each loop over the
// replicas of a marked function, this stage gives such a scalar one element
// per replica in a buffer of R values, kept for the whole call, and records
// the buffer once per loop:
//
//   mpiad_push_f64_array(mpiad_h1_rep, R);
//   for (int r = 0; r < R; r++) {
//     mpiad_h1_rep[r] = mpiad_tanh_of[r];
//     out[r] += w_rep[(h * d + k) * R + r] * mpiad_h1_rep[r];
//   }
//   ...
//   for (int r = R - 1; r >= 0; r--) {
//     w_rep_b[(h * d + k) * R + r] += out_b[r] * mpiad_h1_rep[r];
//     ...
//   }
//   mpiad_pop_f64_array(mpiad_h1_rep, R);
//
// The buffer holds, while the reverse sweep runs this loop's reverse, the
// values of the same execution of the loop: later executions pushed the
// buffer before overwriting it, and their reverses have popped it back.
// The tape holds the same R values per execution as before.
//
// A per-replica value that Replicas.cpp stores as [R] (live across loops)
// and that the loop assigns, `z[r] = e`, recorded per element, is recorded
// the same way with no buffer of its own: `mpiad_push_f64_array(z, R)`
// before the loop, `mpiad_pop_f64_array(z, R)` after the reversed loop
// (each replica's reverse reads only its own z[r], which no other replica's
// iteration touches).
//
// The conditions, on the generated forward and reverse bodies of the loop
// (`for (r = 0; r < R; r++)`, counted up from 0) and on the primal:
//   - the forward body pushes x (or z[r]) at its top level, and the next
//     statement that mentions x (z) is the top-level `x = e` (`z[r] = e`),
//     e without x (z); before the push nothing mentions x (z), after the
//     assignment nothing writes or records it;
//   - the reverse body restores it at its top level, `x = mpiad_pop_f64()`
//     (`z[r] = ...`), writes it nowhere before, and names it nowhere after;
//   - a scalar x is a local double or float, named nowhere else in the
//     function (its value never leaves the loop), and only where a read
//     or the assignment can be rewritten (not through &x, nor in an opaque
//     expression: Transform.cpp substituteVar).
// The dry run of Reverse.cpp that decides the records does not call it (it
// must see the scalar's reads).  Not on the CUDA target.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Transform.h"

namespace mpiad {

namespace {

/// What a top-level `mpiad_push_f64(v);` (or f32) records: a scalar x, or
/// the element z[r] of a per-replica value stored as [R] (Replicas.cpp), r
/// the loop's counter and R its bound; null for anything else.
ExprP recorded(const Stmt &s, const Stmt &loop, std::string &sfx) {
  if (s.kind != Stmt::ExprStmt || !s.rhs || s.rhs->kind != Expr::Call ||
      s.rhs->ops.size() != 1)
    return nullptr;
  if (s.rhs->text == "mpiad_push_f64")
    sfx = "f64";
  else if (s.rhs->text == "mpiad_push_f32")
    sfx = "f32";
  else
    return nullptr;
  const ExprP &v = s.rhs->ops[0];
  if (v->kind == Expr::VarRef)
    return v;
  if (v->kind == Expr::Index && v->ops[0]->kind == Expr::VarRef &&
      v->ops[1]->kind == Expr::VarRef && v->ops[1]->var == loop.loopVar &&
      loop.loopHi->kind == Expr::VarRef &&
      v->ops[0]->var->replicaCount == loop.loopHi->var)
    return v;
  return nullptr;
}

/// Is s `lv = e;` for the recorded lvalue lv (x, or z[r])?
bool assigns(const Stmt &s, const ExprP &lv) {
  if (s.kind != Stmt::Assign || s.op != "=" || !s.lhs ||
      s.lhs->kind != lv->kind)
    return false;
  if (lv->kind == Expr::VarRef)
    return s.lhs->var == lv->var;
  return s.lhs->ops[0]->kind == Expr::VarRef &&
         s.lhs->ops[0]->var == lv->ops[0]->var &&
         s.lhs->ops[1]->kind == Expr::VarRef &&
         s.lhs->ops[1]->var == lv->ops[1]->var;
}

/// Does b write v's storage (assign it or an element, or record it)
/// anywhere?
bool writes(const Block &b, const Var *v) {
  bool found = false;
  walk(b, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Assign && s.lhs && baseVar(s.lhs) == v)
      found = true;
    if (s.kind == Stmt::ExprStmt && s.rhs && s.rhs->kind == Expr::Call &&
        s.rhs->text.rfind("mpiad_push_", 0) == 0)
      for (const ExprP &a : s.rhs->ops)
        if (mentionsVar(a, v))
          found = true;
  });
  return found;
}

/// Applies the rewrite to x in one body, whose statement `at` (the push or
/// the pop) goes; false, with the body unchanged, if a use of x cannot be
/// rewritten.
bool rewriteBody(Block &body, size_t at, const Var *x, const ExprP &by) {
  Block rest;
  for (size_t k = 0; k < body.size(); ++k)
    if (k != at)
      rest.push_back(body[k]);
  return substituteVar(rest, x, by, body);
}

} // namespace

void replicaRecord(Function &F, const Stmt &loop, Block &fwd, Block &rev,
                   Block &before, Block &after, std::vector<std::pair<Var *, ExprP>> &buffers,
                   const NewVar &newVar) {
  Var *r = loop.loopVar;
  if (!loop.replicaLoop || !r || loop.loopStep != 1 || loop.loopCmp != "<" ||
      !loop.loopLo || !isZeroLiteral(loop.loopLo) || !loop.loopHi)
    return;
  // Moves the record made by fwd[p] out of the loop, if it qualifies.
  auto hoist = [&](size_t p) {
    std::string sfx;
    ExprP lv = recorded(*fwd[p], loop, sfx);
    if (!lv)
      return false;
    Var *x = lv->kind == Expr::VarRef ? lv->var : lv->ops[0]->var;
    bool scalar = lv->kind == Expr::VarRef;
    if (x->type.elem != (sfx == "f64" ? Scalar::Double : Scalar::Float) ||
        (scalar && ((x->kind != Var::Local && x->kind != Var::Synthetic) ||
                    !x->type.dims.empty() || x->type.ptrDepth != 0)))
      return false;
    // Forward: nothing before the push, the assignment next, no write after.
    for (size_t k = 0; k < p; ++k)
      if (namesVar({fwd[k]}, x))
        return false;
    size_t q = p + 1;
    while (q < fwd.size() && !namesVar({fwd[q]}, x))
      ++q;
    if (q == fwd.size() || !assigns(*fwd[q], lv) ||
        mentionsVar(fwd[q]->rhs, x) ||
        writes(Block(fwd.begin() + q + 1, fwd.end()), x))
      return false;
    // Reverse: one top-level restore, nothing after it, no other write.
    size_t t = rev.size();
    for (size_t k = 0; k < rev.size() && t == rev.size(); ++k)
      if (assigns(*rev[k], lv) && rev[k]->rhs->kind == Expr::Call &&
          rev[k]->rhs->text == "mpiad_pop_" + sfx && rev[k]->rhs->ops.empty())
        t = k;
    if (t == rev.size() || writes(Block(rev.begin(), rev.begin() + t), x) ||
        namesVar(Block(rev.begin() + t + 1, rev.end()), x))
      return false;
    ExprP whole = lv->ops.empty() ? nullptr : lv->ops[0]; // z itself
    if (scalar) {
      // The primal: x lives in this loop only.
      if (namedOutside(F.body, loop, x))
        return false;
      CType bt;
      bt.elem = x->type.elem;
      bt.ptrDepth = 1;
      bt.base = sfx == "f64" ? "double" : "float";
      Var *X = newVar(x->name + "_rep", bt);
      ExprP by = mkIndex(mkVar(X), mkVar(r));
      Block f2 = fwd, r2 = rev;
      if (!rewriteBody(f2, p, x, by) || !rewriteBody(r2, t, x, by))
        return false; // X stays unused, and undeclared
      fwd = f2;
      rev = r2;
      buffers.push_back({X, loop.loopHi});
      whole = mkVar(X);
    } else {
      fwd.erase(fwd.begin() + p);
      rev.erase(rev.begin() + t);
    }
    before.push_back(mkExprStmt(mkCall("mpiad_push_" + sfx + "_array",
                                       {whole, loop.loopHi}, Scalar::Void)));
    after.insert(after.begin(),
                 mkExprStmt(mkCall("mpiad_pop_" + sfx + "_array",
                                   {whole, loop.loopHi}, Scalar::Void)));
    return true;
  };
  for (size_t p = 0; p < fwd.size();)
    if (!hoist(p))
      ++p; // else the push at p is gone: fwd[p] is the next statement
}

} // namespace mpiad
