//===- RecordRange.cpp - One record for a loop's range of elements ---------===//
//
// A loop that overwrites one element per iteration, whose old value the
// reverse sweep needs, records it element by element:
//
//   for (int j = 1; j <= ny; j++) {         // forward sweep
//     mpiad_push_f64(u[i * ys + j]);
//     u[i * ys + j] = un[i * ys + j];
//   }
//   for (int j = ny; j >= 1; j--) {         // reverse sweep
//     u[i * ys + j] = mpiad_pop_f64();
//     un_b[i * ys + j] += u_b[i * ys + j];
//     u_b[i * ys + j] = 0;
//   }
//
// Each push and pop goes through the tape's top pointer, which the compiler
// must reload after every store, so neither loop vectorizes.  When every
// iteration j records and writes only a[base + j] (base the same in every
// iteration), the values pushed are those of a[base + lo .. base + hi]
// before the loop, and the reverse sweep, which does not read a, may restore
// them all after the reversed loop:
//
//   mpiad_push_f64_array(&u[i * ys + 1], (ny > 0 ? ny : 0));
//   for (...) u[i * ys + j] = un[i * ys + j];
//   for (...) { un_b[i * ys + j] += u_b[i * ys + j]; u_b[i * ys + j] = 0; }
//   mpiad_pop_f64_array(&u[i * ys + 1], (ny > 0 ? ny : 0));
//
// (the copy-back of samples/halo2d over the interior, one row per outer
// iteration).  The conditions, each checked on the generated code of the
// loop's body:
//   - the loop is counted upwards by 1 from lo to hi, both unchanged by it;
//   - the forward body has one push, of a[idx] with idx = base + j + c (j
//     the loop's counter, c a constant, base without j and unchanged by the
//     body; Transform.cpp splitAffine), and no other
//     push or pop; every statement that writes a's storage (its alias class,
//     through any effect) writes exactly a[idx];
//   - the reverse body has the matching pop and no other push or pop, and
//     writes nothing of a's storage.
// If the reverse body reads nothing of a's storage, the range is restored
// after the reversed loop.  If it reads a[idx] only after the pop (the
// touch `in[c] += 0.1 * sin(in[c])`, whose reverse needs cos of the old
// in[c]), and otherwise only elements of later iterations (a[idx + 1],
// which the reversed loop has restored before it reaches j), every read
// sees the value the per-element pops would give: the range is restored
// before the reversed loop.  A read of an earlier iteration's element
// (a[idx - 1], still the new value when the reverse reaches j) keeps the
// records per element.  Otherwise nothing changes.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "Transform.h"

namespace mpiad {

namespace {

/// The name of a push or pop call of the tape ("mpiad_push_f64", ...), or
/// "" for anything else.
std::string tapeCall(const ExprP &e) {
  if (!e || e->kind != Expr::Call)
    return "";
  if (e->text.rfind("mpiad_push", 0) == 0 || e->text.rfind("mpiad_pop", 0) == 0)
    return e->text;
  return "";
}

/// Every push or pop call in b (statements nested in b included).
int countTapeCalls(const Block &b) {
  int n = 0;
  walk(b, [&](Stmt &s, const WalkCtx &) {
    std::function<void(const ExprP &)> look = [&](const ExprP &e) {
      if (!e)
        return;
      if (!tapeCall(e).empty())
        ++n;
      for (const ExprP &o : e->ops)
        look(o);
    };
    look(s.lhs);
    look(s.rhs);
    look(s.cond);
  });
  return n;
}

} // namespace

bool recordRange(Function &F, const Frontend &fe, const Stmt &loop,
                 Block &fwd, Block &rev, Block &before, Block &revBefore,
                 Block &after) {
  Var *j = loop.loopVar;
  if (loop.kind != Stmt::For || loop.loopStep != 1 || !j ||
      !loop.loopLo || !loop.loopHi ||
      (loop.loopCmp != "<" && loop.loopCmp != "<="))
    return false;
  // The one push of the forward body, directly in it.
  StmtP push;
  for (const StmtP &s : fwd)
    if (s->kind == Stmt::ExprStmt && !tapeCall(s->rhs).empty()) {
      if (push)
        return false;
      push = s;
    }
  if (!push || countTapeCalls(fwd) != 1)
    return false;
  const std::string &fn = push->rhs->text;
  std::string suffix;
  if (fn == "mpiad_push_f64")
    suffix = "f64";
  else if (fn == "mpiad_push_f32")
    suffix = "f32";
  else
    return false;
  ExprP elem = push->rhs->ops.empty() ? nullptr : push->rhs->ops[0];
  if (!elem || elem->kind != Expr::Index ||
      elem->ops[0]->kind != Expr::VarRef)
    return false;
  Var *a = elem->ops[0]->var;
  ExprP base;
  std::string key;
  long long off = 0;
  if (!splitAffine(elem->ops[1], j, base, key, off))
    return false;
  std::string elemText = printExpr(elem);
  Var *root = aliasRoot(F, a);

  // The body writes a's storage only at a[idx], and changes neither the
  // base, nor the bounds, nor the counter.
  std::set<Var *> fixed;
  if (base)
    collectVars(base, fixed);
  collectVars(loop.loopLo, fixed);
  collectVars(loop.loopHi, fixed);
  fixed.insert(j);
  bool ok = true;
  walk(fwd, [&](Stmt &s, const WalkCtx &) {
    for (const Effect &e : effectsOf(s, fe)) {
      if (!e.target)
        continue;
      if (fixed.count(e.target))
        ok = false;
      if (aliasRoot(F, e.target) == root &&
          !(s.kind == Stmt::Assign && s.lhs && printExpr(s.lhs) == elemText))
        ok = false;
    }
  });
  if (!ok)
    return false;

  // The reverse body: the matching pop, no other tape call, and no read of
  // a's storage.
  StmtP pop;
  for (const StmtP &s : rev)
    if (s->kind == Stmt::Assign && s->op == "=" && s->rhs &&
        tapeCall(s->rhs) == "mpiad_pop_" + suffix && s->lhs &&
        printExpr(s->lhs) == elemText) {
      if (pop)
        return false;
      pop = s;
    }
  if (!pop || countTapeCalls(rev) != 1)
    return false;
  Block rest;
  for (const StmtP &s : rev)
    if (s != pop)
      rest.push_back(s);
  // Reads of a's storage: none, or only of elements that the per-element
  // pops would have restored by then (a[idx] after the pop, elements of
  // later iterations anywhere), in plain assignments and declarations:
  // then the whole range is restored before the reversed loop instead of
  // after it.
  bool early = false;
  std::set<Var *> reads;
  referenced(rest, reads);
  for (Var *v : reads)
    early |= aliasRoot(F, v) == root;
  if (early) {
    bool popSeen = false;
    std::function<void(const ExprP &)> look = [&](const ExprP &e) {
      if (!e)
        return;
      // a[base + j + c]: the element of iteration j + (c - off), which
      // the per-element pops have restored when the reversed loop (down
      // from hi) reaches j if c > off, or from j's own pop on if c == off.
      if (e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef &&
          e->ops[0]->var == a) {
        ExprP b2;
        std::string key2;
        long long c2 = 0;
        if (!splitAffine(e->ops[1], j, b2, key2, c2) || key2 != key ||
            c2 < off || (c2 == off && !popSeen))
          ok = false;
        look(e->ops[1]);
        return;
      }
      if (e->kind == Expr::VarRef && aliasRoot(F, e->var) == root)
        ok = false;
      if (e->kind == Expr::Opaque)
        for (Var *v : e->vars)
          ok &= aliasRoot(F, v) != root;
      for (const ExprP &o : e->ops)
        look(o);
    };
    for (const StmtP &s : rev) {
      if (s == pop) {
        popSeen = true;
        continue;
      }
      if ((s->kind != Stmt::Assign && s->kind != Stmt::Decl) ||
          !s->body.empty() || !s->elseBody.empty())
        return false;
      for (const Effect &e : effectsOf(*s, fe))
        ok &= !e.target || aliasRoot(F, e.target) != root;
      if (s->kind == Stmt::Assign && s->lhs->kind == Expr::Index)
        look(s->lhs->ops[1]); // the element written is a shadow's
      else if (s->kind == Stmt::Assign)
        look(s->lhs);
      look(s->rhs);
    }
    if (!ok)
      return false;
  }

  // count = hi - lo (+ 1 for <=), at least 0.
  long long extra = loop.loopCmp == "<=" ? 1 : 0;
  ExprP count = loop.loopLo->kind == Expr::IntLit
                    ? plusConst(loop.loopHi,
                                extra - std::stoll(loop.loopLo->text, nullptr, 0))
                    : plusConst(mkBinary("-", loop.loopHi, loop.loopLo), extra);
  ExprP n = mkCond(mkBinary(">", count, mkInt(0)), count, mkInt(0));
  // The first element: idx at j = lo.
  ExprP lo = plusConst(loop.loopLo, off);
  ExprP first = base ? mkBinary("+", base, lo) : lo;
  ExprP at = mkAddrOf(mkIndex(mkVar(a), first));
  before.push_back(mkExprStmt(
      mkCall("mpiad_push_" + suffix + "_array", {at, n}, Scalar::Void)));
  (early ? revBefore : after)
      .push_back(mkExprStmt(
          mkCall("mpiad_pop_" + suffix + "_array", {at, n}, Scalar::Void)));
  Block f;
  for (const StmtP &s : fwd)
    if (s != push)
      f.push_back(s);
  fwd = f;
  rev = rest;
  return true;
}

} // namespace mpiad
