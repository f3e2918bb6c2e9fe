//===- Gather.cpp - The reverse of a stencil loop as a gather -------------===//
//
// The reverse of a loop `A[base + i] = f(B[base + i + c], ...)` over a few
// constant offsets c scatters into B's adjoint, with a dependence from one
// iteration to the next that keeps compilers from vectorizing it.
// Reverse.cpp calls gatherForm on each reversed counted loop; when the
// reversed body has that shape, the loop is emitted as a gather instead
// (the comment of gatherForm below gives the conditions).
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "Transform.h"

namespace mpiad {

namespace {

ExprP replaceVar(const ExprP &e, const Var *v, const ExprP &with) {
  if (e->kind == Expr::VarRef && e->var == v)
    return with;
  if (e->ops.empty())
    return e;
  auto c = std::make_shared<Expr>(*e);
  for (ExprP &o : c->ops)
    o = replaceVar(o, v, with);
  return c;
}

CType intCType() {
  CType t;
  t.elem = Scalar::Int;
  t.base = "int";
  return t;
}

} // namespace

/// The reverse of a stencil-like loop scatters: `A_b[base + i + c] +=
/// E(i)` for a few constant offsets c, E reading adjoints only at
/// [base + i].  Such a loop has a dependence from one iteration to the
/// next through A_b, so compilers do not vectorize it.  Written as a
/// gather instead, `A_b[base + j] += sum over c of E(j - c)`, the main
/// loop is independent per j; boundary iterations, where some terms fall
/// outside [L, H], are peeled.  The zeroing of the read adjoints follows
/// in the same loops, right after their last use.  base is the same for
/// every term: the inner loop of a 2-D or 3-D stencil, `base = i * ys`.
/// The body may also accumulate into other adjoints (`kappa_b[k] += ...`,
/// or A_b at another base, the rows `c - ys` and `c + ys`): those
/// statements run first, in a loop of their own over the primal
/// iterations, and must read nothing that the loop accumulates into.  Integer locals of the primal
/// body that the reverse computes first (`c = i * ys + j;`) and the
/// adjoint's temporaries are substituted.
bool gatherForm(const GatherContext &cx, Var *i, const ExprP &L,
                const ExprP &H, const Block &body, const Stmt &primal,
                Block &out, const SwapCopy *sw) {
  struct Term {
    long long c;
    ExprP e;
  };
  std::map<Var *, ExprP> temps;
  std::set<Var *> bodyInts; // integer locals of the primal body
  for (const StmtP &st : primal.body)
    if (st->kind == Stmt::Decl && st->var->type.isIntScalar() &&
        !st->var->type.ptrDepth)
      bodyInts.insert(st->var);
  auto subst = [&](ExprP e) {
    for (auto &t : temps)
      e = replaceVar(e, t.first, t.second);
    return e;
  };
  struct Acc {
    Var *array;
    ExprP index, e;
    ExprP base;
    std::string key;
    long long c;
    bool split;
  };
  std::vector<Acc> accs;
  std::vector<ExprP> zeros; // substituted `X[base + i]` of `X[...] = 0`
  std::vector<std::string> zeroKeys;
  bool zeroSeen = false;
  for (const StmtP &st : body) {
    if (st->kind == Stmt::Decl && st->rhs && cx.isGenerated(st->var) &&
        !zeroSeen) {
      temps[st->var] = subst(st->rhs);
      continue;
    }
    // An integer of the body that the reverse computes again (never a
    // pop: substituting that would move the tape's reads).
    if (st->kind == Stmt::Assign && st->op == "=" &&
        st->lhs->kind == Expr::VarRef && bodyInts.count(st->lhs->var) &&
        cx.recomputable(st->rhs) && accs.empty() && !zeroSeen) {
      temps[st->lhs->var] = subst(st->rhs);
      continue;
    }
    if (st->kind != Stmt::Assign || st->lhs->kind != Expr::Index ||
        st->lhs->ops[0]->kind != Expr::VarRef ||
        !cx.isShadow(st->lhs->ops[0]->var))
      return false;
    Var *a = st->lhs->ops[0]->var;
    ExprP idx = subst(st->lhs->ops[1]);
    Acc acc{a, idx, nullptr, nullptr, "", 0, false};
    acc.split = splitAffine(idx, i, acc.base, acc.key, acc.c);
    if (st->op == "=" && isZeroLiteral(st->rhs)) {
      if (!acc.split || acc.c != 0)
        return false;
      zeroSeen = true;
      zeros.push_back(mkIndex(mkVar(a), idx));
      zeroKeys.push_back(acc.key);
      continue;
    }
    if (st->op != "+=" || zeroSeen)
      return false;
    acc.e = subst(st->rhs);
    accs.push_back(acc);
  }
  // The target: the adjoint and base with the most offsets, one of them
  // shifted (the dependence from one iteration to the next); no other
  // adjoint may have two offsets at one base.
  std::map<std::pair<Var *, std::string>, std::set<long long>> groups;
  for (const Acc &a : accs)
    if (a.split)
      groups[{a.array, a.key}].insert(a.c);
  Var *target = nullptr;
  std::string key;
  size_t most = 0;
  for (auto &[g, cs] : groups) {
    bool shifted = cs.size() > 1 || *cs.begin() != 0;
    if (!shifted)
      continue;
    if (cs.size() > 1 && most > 1)
      return false;
    if (cs.size() > most) {
      most = cs.size();
      target = g.first;
      key = g.second;
    }
  }
  if (!target)
    return false;
  ExprP base;
  for (const Acc &a : accs)
    if (a.array == target && a.split && a.key == key)
      base = a.base;
  std::vector<Term> terms;
  std::vector<Acc> others;
  std::set<Var *> written{target};
  for (const Acc &a : accs) {
    if (a.array == target && a.split && a.key == key)
      terms.push_back({a.c, a.e});
    else {
      others.push_back(a);
      written.insert(a.array);
    }
  }
  for (size_t k = 0; k < zeros.size(); ++k)
    if (zeros[k]->ops[0]->var == target || written.count(zeros[k]->ops[0]->var) ||
        zeroKeys[k] != key)
      return false;
  // E (and the others' indices) may read adjoints only at [base + i],
  // and nothing the loop accumulates into.
  bool ok = true;
  std::function<void(const ExprP &)> check = [&](const ExprP &e) {
    if (e->kind == Expr::VarRef && written.count(e->var))
      ok = false;
    if (e->kind == Expr::VarRef && cx.isGenerated(e->var) &&
        !cx.isShadow(e->var))
      ok = false; // a temporary not folded in
    if (e->kind == Expr::VarRef && bodyInts.count(e->var))
      ok = false; // an integer of the body not substituted
    if (e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef &&
        cx.isShadow(e->ops[0]->var)) {
      ExprP b;
      std::string k;
      long long c;
      if (!splitAffine(e->ops[1], i, b, k, c) || c != 0 || k != key)
        ok = false;
    }
    for (const ExprP &o : e->ops)
      check(o);
  };
  for (const Term &t : terms)
    check(t.e);
  for (const Acc &a : others) {
    check(a.e);
    for (const ExprP &o : a.index->ops)
      check(o);
    if (a.index->kind == Expr::VarRef)
      check(a.index);
  }
  if (!ok)
    return false;
  long long cmin = terms[0].c, cmax = terms[0].c;
  for (const Term &t : terms) {
    cmin = std::min(cmin, t.c);
    cmax = std::max(cmax, t.c);
  }
  auto at = [&](const ExprP &j) { // the target's element for j
    return base ? mkBinary("+", base, j) : j;
  };
  // After a swapped copy-back, the target holds garbage and the gather
  // overwrites it: exact when the gather covers all of it, 0..N-1, and
  // the only adjoint zeroed is the copy's source's, which is left stale
  // (BufferSwap.cpp, overwriteLoop).
  bool overwrite = sw && !base && target == cx.shadow(sw->dst) &&
                   !zeros.empty() && provablyEqualPlus(L, cmin, mkInt(0)) &&
                   provablyEqualPlus(H, cmax + 1, sw->count);
  for (const Acc &a : others)
    overwrite &= a.array != target;
  if (overwrite)
    for (const ExprP &z : zeros)
      overwrite &= z->ops[0]->var == cx.shadow(sw->src);
  CType it = intCType();
  // An element of a read adjoint is last read at j = i + cmax: it is zeroed
  // there, right after its last use, in the main and tail loops.
  auto loop = [&](const ExprP &from, const ExprP &to, bool guarded,
                  bool zero) {
    Var *j = cx.newVar("mpiad_j", it);
    j->declaredInForInit = true;
    ExprP sum;
    Block guardedBody;
    auto inRange = [&](const ExprP &p) {
      return mkBinary("&&", mkBinary(">=", p, L), mkBinary("<=", p, H));
    };
    ExprP tj = mkIndex(mkVar(target), at(mkVar(j)));
    for (const Term &t : terms) {
      ExprP p = plusConst(mkVar(j), -t.c); // the primal iteration i = j - c
      ExprP e = replaceVar(t.e, i, p);
      if (guarded)
        guardedBody.push_back(
            mkIf(inRange(p), {mkAssign(tj, "+=", e)}));
      else
        sum = sum ? mkBinary("+", sum, e) : e;
    }
    auto r = std::make_shared<Stmt>();
    r->kind = Stmt::For;
    r->init = mkDecl(j, from);
    r->cond = mkBinary("<=", mkVar(j), to);
    r->step = mkAssign(mkVar(j), "+=", mkInt(1));
    r->body = guarded ? guardedBody
                      : Block{mkAssign(tj, overwrite ? "=" : "+=", sum)};
    if (guarded && overwrite)
      r->body.insert(r->body.begin(), mkAssign(tj, "=", mkInt(0)));
    if (zero && !overwrite)
      for (const ExprP &z : zeros)
        r->body.push_back(
            mkAssign(replaceVar(z, i, plusConst(mkVar(j), -cmax)), "=", mkInt(0)));
    return r;
  };
  auto minE = [](const ExprP &a, const ExprP &b) {
    return mkCond(mkBinary("<", a, b), a, b);
  };
  auto maxE = [](const ExprP &a, const ExprP &b) {
    return mkCond(mkBinary(">", a, b), a, b);
  };
  out.push_back(mkComment("reverse of the stencil loop over " + i->name +
                          ", as a gather (boundary iterations peeled)"));
  if (overwrite) {
    Var *a = cx.shadow(sw->dst), *b = cx.shadow(sw->src);
    out.push_back(mkComment(
        a->name + " holds the old " + b->name +
        " since the swap: the gather overwrites all of it, and " + b->name +
        "[" + printExpr(L) + ".." + printExpr(H) +
        "] is left as it is (zero for the adjoint; the swap takes it, or "
        "it is zeroed after the loop)"));
    Var *j = cx.newVar("mpiad_j", intCType());
    j->declaredInForInit = true;
    auto z = std::make_shared<Stmt>();
    z->kind = Stmt::For;
    z->init = mkDecl(j, L);
    z->cond = mkBinary("<=", mkVar(j), H);
    z->step = mkAssign(mkVar(j), "+=", mkInt(1));
    z->body = {mkAssign(mkIndex(mkVar(b), mkVar(j)), "=", mkInt(0))};
    Block &after = (*cx.zeroAfter)[sw->timeLoop];
    after.push_back(mkComment("the adjoint of " + sw->src->name + "[" +
                              printExpr(L) + ".." + printExpr(H) +
                              "] is zero: clear what the gathers left"));
    after.push_back(z);
  }

  // The other accumulations first, in a loop of their own over the
  // primal iterations (they read the adjoints before the gathers zero
  // them), so that the gather loops write one array and vectorize.
  if (!others.empty()) {
    Var *p = cx.newVar("mpiad_p", it);
    p->declaredInForInit = true;
    auto r = std::make_shared<Stmt>();
    r->kind = Stmt::For;
    r->init = mkDecl(p, L);
    r->cond = mkBinary("<=", mkVar(p), H);
    r->step = mkAssign(mkVar(p), "+=", mkInt(1));
    for (const Acc &a : others)
      r->body.push_back(mkAssign(
          replaceVar(mkIndex(mkVar(a.array), a.index), i, mkVar(p)), "+=",
          replaceVar(a.e, i, mkVar(p))));
    out.push_back(r);
  }
  if (cmax > cmin)
    out.push_back(loop(plusConst(L, cmin), minE(plusConst(L, cmax - 1), plusConst(H, cmax)),
                       true, false));
  out.push_back(loop(plusConst(L, cmax), plusConst(H, cmin), false, true));
  if (cmax > cmin)
    out.push_back(loop(maxE(plusConst(L, cmax), plusConst(H, cmin + 1)), plusConst(H, cmax),
                       true, true));
  return true;
}

} // namespace mpiad
