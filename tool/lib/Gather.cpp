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

/// A coefficient of a gathered term: literals and stable scalars, none of
/// them a counter, with unary minus and + - * /, so that the compiler
/// computes it once, outside the loop.
bool invariantCoef(const ExprP &e, const std::set<const Var *> &counters) {
  switch (e->kind) {
  case Expr::IntLit:
  case Expr::FloatLit:
    return true;
  case Expr::VarRef:
    return e->var->type.ptrDepth == 0 && e->var->type.dims.empty() &&
           isStable(e->var) && !counters.count(e->var);
  case Expr::Unary:
    return e->text == "-" && invariantCoef(e->ops[0], counters);
  case Expr::Binary:
    return (e->text == "+" || e->text == "-" || e->text == "*" ||
            e->text == "/") &&
           invariantCoef(e->ops[0], counters) &&
           invariantCoef(e->ops[1], counters);
  default:
    return false;
  }
}

/// e as coef * r: r an element of a double adjoint array, coef an
/// invariant coefficient (null for 1).
bool splitCoef(const GatherContext &cx, const ExprP &e,
               const std::set<const Var *> &counters, ExprP &coef,
               ExprP &r) {
  if (e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef &&
      cx.isShadow(e->ops[0]->var) &&
      e->ops[0]->var->type.elem == Scalar::Double) {
    coef = nullptr;
    r = e;
    return true;
  }
  if (e->kind == Expr::Unary && e->text == "-") {
    if (!splitCoef(cx, e->ops[0], counters, coef, r))
      return false;
    coef = mkUnary("-", coef ? coef : mkFloat("1.0"));
    return true;
  }
  if (e->kind == Expr::Binary && e->text == "*")
    for (int side = 0; side < 2; ++side) {
      const ExprP &k = e->ops[side];
      if (invariantCoef(k, counters) &&
          splitCoef(cx, e->ops[1 - side], counters, coef, r)) {
        coef = coef ? mkBinary("*", k, coef) : k;
        return true;
      }
    }
  return false;
}

/// The sum of a target's terms, those that read the same adjoint element
/// folded into one, (k1 + k2) * r, at the place of the first: the 7-point
/// stencil's `un_b[c] + ... + -(6.0 * (nu * un_b[c]))` reads un_b[c] once
/// and multiplies once.  (The hand-written adjoint's `(1 - 6 nu) l[i]`;
/// rounding differs from the unfolded sum by an ulp or so.)  Terms not of
/// the form coef * r stay as they are.
ExprP foldedSum(const GatherContext &cx, const std::vector<ExprP> &es,
                const std::set<const Var *> &counters) {
  struct Group {
    ExprP first, r;
    std::vector<ExprP> coefs;
  };
  std::vector<Group> groups;
  std::map<std::string, size_t> at;
  for (const ExprP &e : es) {
    ExprP coef, r;
    if (!splitCoef(cx, e, counters, coef, r)) {
      groups.push_back({e, nullptr, {}});
      continue;
    }
    std::string key = printExpr(r);
    auto it = at.find(key);
    if (it == at.end()) {
      at[key] = groups.size();
      groups.push_back({e, r, {coef ? coef : mkFloat("1.0")}});
    } else {
      groups[it->second].coefs.push_back(coef ? coef : mkFloat("1.0"));
    }
  }
  ExprP sum;
  for (const Group &g : groups) {
    ExprP e = g.first;
    if (g.coefs.size() > 1) {
      ExprP k;
      for (const ExprP &c : g.coefs)
        k = k ? mkBinary("+", k, c) : c;
      e = mkBinary("*", k, g.r);
    }
    sum = sum ? mkBinary("+", sum, e) : e;
  }
  return sum;
}

CType intCType() {
  CType t;
  t.elem = Scalar::Int;
  t.base = "int";
  return t;
}

/// A reversed loop body: `A_b[index] += e` accumulations, then
/// `X_b[index] = 0` zeroings, with the adjoint's temporaries and the
/// integer locals of the primal body (`c = i * ys + j`) substituted.
struct ReversedBody {
  struct Acc {
    Var *array;
    ExprP index, e;
  };
  std::vector<Acc> accs;
  std::vector<ExprP> zeros; // `X_b[index]`
  std::set<Var *> bodyInts; // the primal body's integer locals
};

/// The value of an integer constant: a literal, a macro clang evaluated
/// (RADIUS), their negations, sums and differences.
bool constValue(const ExprP &e, long long &v) {
  if (!e)
    return false;
  if (e->kind == Expr::IntLit) {
    char *end = nullptr;
    v = std::strtoll(e->text.c_str(), &end, 0);
    return end != e->text.c_str();
  }
  if (e->kind == Expr::Opaque && e->intConstant && e->hasIntValue) {
    v = e->intValue;
    return true;
  }
  long long a, b;
  if (e->kind == Expr::Unary && e->text == "-" && constValue(e->ops[0], a)) {
    v = -a;
    return true;
  }
  if (e->kind == Expr::Binary && (e->text == "+" || e->text == "-") &&
      constValue(e->ops[0], a) && constValue(e->ops[1], b)) {
    v = e->text == "+" ? a + b : a - b;
    return true;
  }
  return false;
}

/// e with `x + z`, `z + x` and `x - z` folded to x, for the literal 0 `z`
/// that replaced an unrolled counter (the arm of a stencil at its offset
/// 0); the user's own `0 + 2` stays as written.
ExprP foldZero(const ExprP &e, const ExprP &z) {
  if (e->ops.empty())
    return e;
  auto c = std::make_shared<Expr>(*e);
  for (ExprP &o : c->ops)
    o = foldZero(o, z);
  if (c->kind == Expr::Binary && (c->text == "+" || c->text == "-") &&
      c->ops[1] == z)
    return c->ops[0];
  if (c->kind == Expr::Binary && c->text == "+" && c->ops[0] == z)
    return c->ops[1];
  return c;
}

/// A counted loop of a few iterations with constant bounds (a stencil's
/// `for (ii = RADIUS; ii >= 1; ii--)`), as its body once per value of the
/// counter, the counter replaced by the value; false otherwise.
bool unrollConstant(const Stmt &loop, Block &out, std::set<Var *> &counters) {
  long long first, bound;
  if (loop.kind != Stmt::For || !loop.loopVar || !loop.loopStep ||
      !constValue(loop.loopLo, first) || !constValue(loop.loopHi, bound))
    return false;
  long long last = bound;
  if (loop.loopCmp == "<")
    last = bound - 1;
  else if (loop.loopCmp == ">")
    last = bound + 1;
  else if (loop.loopCmp != "<=" && loop.loopCmp != ">=")
    return false;
  long long trips = loop.loopStep > 0 ? last - first + 1 : first - last + 1;
  if (trips > 16)
    return false;
  for (const StmtP &st : loop.body)
    if (st->kind != Stmt::Assign && st->kind != Stmt::Decl)
      return false;
  for (long long k = 0; k < trips; ++k) {
    ExprP v = mkIntText(std::to_string(first + k * loop.loopStep));
    for (const StmtP &st : deepCopy(loop.body)) {
      for (ExprP *e : {&st->lhs, &st->rhs})
        if (*e)
          *e = first + k * loop.loopStep == 0
                   ? foldZero(replaceVar(*e, loop.loopVar, v), v)
                   : replaceVar(*e, loop.loopVar, v);
      out.push_back(st);
    }
  }
  counters.insert(loop.loopVar);
  return true;
}

bool parseReversed(const GatherContext &cx, const Stmt &primal,
                   const Block &body0, ReversedBody &rb) {
  // Inner loops of constant trip count are unrolled first; their counters
  // may then appear nowhere else.
  Block body;
  std::set<Var *> counters;
  for (const StmtP &st : body0)
    if (!unrollConstant(*st, body, counters))
      body.push_back(st);
  if (!counters.empty()) {
    bool stray = false;
    for (const StmtP &st : body)
      for (const ExprP &e : {st->lhs, st->rhs})
        if (e) {
          std::set<Var *> vs;
          collectVars(e, vs);
          for (Var *c : counters)
            stray |= vs.count(c) > 0;
        }
    if (stray)
      return false;
  }
  std::map<Var *, ExprP> temps;
  for (const StmtP &st : primal.body)
    if (st->kind == Stmt::Decl && st->var->type.isIntScalar() &&
        !st->var->type.ptrDepth)
      rb.bodyInts.insert(st->var);
  auto subst = [&](ExprP e) {
    for (auto &t : temps)
      e = replaceVar(e, t.first, t.second);
    return e;
  };
  for (const StmtP &st : body) {
    bool zeroSeen = !rb.zeros.empty();
    if (st->kind == Stmt::Decl && st->rhs && cx.isGenerated(st->var) &&
        !zeroSeen) {
      temps[st->var] = subst(st->rhs);
      continue;
    }
    // An integer of the body that the reverse computes again (never a
    // pop: substituting that would move the tape's reads).
    if (st->kind == Stmt::Assign && st->op == "=" &&
        st->lhs->kind == Expr::VarRef && rb.bodyInts.count(st->lhs->var) &&
        cx.recomputable(st->rhs) && rb.accs.empty() && !zeroSeen) {
      temps[st->lhs->var] = subst(st->rhs);
      continue;
    }
    if (st->kind != Stmt::Assign || st->lhs->kind != Expr::Index ||
        st->lhs->ops[0]->kind != Expr::VarRef ||
        !cx.isShadow(st->lhs->ops[0]->var))
      return false;
    Var *a = st->lhs->ops[0]->var;
    ExprP idx = subst(st->lhs->ops[1]);
    if (st->op == "=" && isZeroLiteral(st->rhs)) {
      rb.zeros.push_back(mkIndex(mkVar(a), idx));
      continue;
    }
    if (st->op != "+=" || zeroSeen)
      return false;
    rb.accs.push_back({a, idx, subst(st->rhs)});
  }
  return true;
}

/// Every expression of the accumulations reads nothing they write, no
/// temporary or body integer left unsubstituted, and adjoints only where
/// `adjointRead` allows.
bool readsAllowed(const GatherContext &cx, const ReversedBody &rb,
                  const std::set<Var *> &written,
                  const std::function<bool(const ExprP &)> &adjointRead,
                  const std::vector<const ExprP *> &exprs,
                  const std::set<Var *> &counters = {}) {
  bool ok = true;
  std::function<void(const ExprP &)> check = [&](const ExprP &e) {
    if (e->kind == Expr::VarRef && written.count(e->var))
      ok = false;
    if (e->kind == Expr::VarRef && cx.isGenerated(e->var) &&
        !cx.isShadow(e->var) && !counters.count(e->var))
      ok = false; // a temporary not folded in
    if (e->kind == Expr::VarRef && rb.bodyInts.count(e->var))
      ok = false; // an integer of the body not substituted
    if (e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef &&
        cx.isShadow(e->ops[0]->var) && !adjointRead(e))
      ok = false;
    for (const ExprP &o : e->ops)
      check(o);
  };
  for (const ExprP *e : exprs)
    check(*e);
  return ok;
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
  ReversedBody rb;
  if (!parseReversed(cx, primal, body, rb))
    return false;
  struct Acc {
    Var *array;
    ExprP index, e;
    ExprP base;
    std::string key;
    long long c;
    bool split;
  };
  std::vector<Acc> accs;
  for (const ReversedBody::Acc &a : rb.accs) {
    Acc acc{a.array, a.index, a.e, nullptr, "", 0, false};
    acc.split = splitAffine(a.index, i, acc.base, acc.key, acc.c);
    accs.push_back(acc);
  }
  std::vector<ExprP> zeros = rb.zeros; // `X[base + i]` of `X[...] = 0`
  std::vector<std::string> zeroKeys;
  for (const ExprP &z : zeros) {
    ExprP b;
    std::string k;
    long long c;
    if (!splitAffine(z->ops[1], i, b, k, c) || c != 0)
      return false;
    zeroKeys.push_back(k);
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
  auto atBase = [&](const ExprP &e) {
    ExprP b;
    std::string k;
    long long c;
    return splitAffine(e->ops[1], i, b, k, c) && c == 0 && k == key;
  };
  std::vector<const ExprP *> exprs;
  for (const Term &t : terms)
    exprs.push_back(&t.e);
  for (const Acc &a : others) {
    exprs.push_back(&a.e);
    exprs.push_back(&a.index);
  }
  if (!readsAllowed(cx, rb, written, atBase, exprs))
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
  bool overwrite = sw && sw->region.empty() && !base &&
                   target == cx.shadow(sw->dst) &&
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
    std::vector<ExprP> sumTerms;
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
        sumTerms.push_back(e);
    }
    ExprP sum = guarded ? nullptr : foldedSum(cx, sumTerms, {j});
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

namespace {

/// for (int v = from; v <= to; v += 1) body
StmtP upLoop(Var *v, const ExprP &from, const ExprP &to, Block body) {
  auto r = std::make_shared<Stmt>();
  r->kind = Stmt::For;
  r->init = mkDecl(v, from);
  r->cond = mkBinary("<=", mkVar(v), to);
  r->step = mkAssign(mkVar(v), "+=", mkInt(1));
  r->body = std::move(body);
  return r;
}

/// A nest of upLoops over `vars` (outermost first) around `body`.
StmtP nestOver(const std::vector<NestLevel> &nest, Block body) {
  StmtP s;
  for (size_t m = nest.size(); m-- > 0;) {
    s = upLoop(nest[m].v, nest[m].lo, nest[m].hi, std::move(body));
    body = {s};
  }
  return s;
}

} // namespace

namespace {

/// The conjuncts of an `&&` chain, in order.
void conjuncts(const ExprP &e, std::vector<ExprP> &out) {
  if (e->kind == Expr::Binary && e->text == "&&") {
    conjuncts(e->ops[0], out);
    conjuncts(e->ops[1], out);
  } else {
    out.push_back(e);
  }
}

/// a && b, without b's conjuncts that a already has.
ExprP conjoin(const ExprP &a, const ExprP &b) {
  std::vector<ExprP> have, add;
  conjuncts(a, have);
  conjuncts(b, add);
  std::set<std::string> seen;
  for (const ExprP &x : have)
    seen.insert(printExpr(x));
  ExprP r = a;
  for (const ExprP &x : add)
    if (seen.insert(printExpr(x)).second)
      r = mkBinary("&&", r, x);
  return r;
}

} // namespace

/// The reverse of a perfect nest of counted loops whose innermost body is
/// stencil-like, `A[sum of stride_m * v_m] = f(B[... (v_m + o_m) ...])`:
/// its reverse scatters into B's adjoint at offsets o (a vector, one
/// entry per loop) in every dimension.  gatherForm gathers the innermost
/// dimension only, and leaves the terms at other rows (`c - ys`, `c + sp`)
/// to a scatter loop of their own.  Here every term is gathered:
///
///   B_b[idx(t)] += sum over o of E_o(t - o)   (t - o inside the box)
///
/// over the box of targets t dilated by the offsets.  Target rows with
/// every term inside the box (the interior rows) take gatherForm's shape
/// (head and tail iterations peeled and guarded, the middle unguarded);
/// the other rows run term by term, each term over the targets it
/// reaches.  Accumulations into other adjoints run first, in a nest of
/// their own over the primal iterations; the read
/// adjoints of a slice of the outermost loop are zeroed once the last
/// target slice that reads them is done.  That keeps the reverse's meaning
/// only when no element is read or zeroed for two iterations, so the gather runs under a run-time check that the
/// zeroed indices' rows are disjoint (rowsDisjoint), and the reversed nest
/// as it was otherwise (`fallback`).  The sums change order, not terms:
/// each (iteration, term) pair of the scatter is one (target, term) pair
/// of the gather.  After a region swap of the same step (`sw`), the
/// target's region holds zero or stale values: the term at the
/// iteration's own element goes first with `=`, the read adjoints are not
/// zeroed, and their region is zeroed once after the time loop, under the
/// region swap's run-time condition too.
bool nestGatherForm(const GatherContext &cx,
                    const std::vector<NestLevel> &levels, const Block &body,
                    const Stmt &primal, const StmtP &fallback, Block &out,
                    const SwapCopy *sw) {
  const size_t D = levels.size();
  if (D < 2)
    return false;
  ReversedBody rb;
  if (!parseReversed(cx, primal, body, rb) || rb.accs.empty())
    return false;
  // The gather's loops declare their counters; a counter of the function
  // (`int i, j;` at its top) gets a loop variable of its own instead.
  std::vector<NestLevel> nest = levels;
  for (NestLevel &l : nest) {
    if (l.v->declaredInForInit)
      continue;
    Var *t = cx.newVar(l.v->name, intCType());
    t->declaredInForInit = true;
    auto rename = [&](ExprP &e) { e = replaceVar(e, l.v, mkVar(t)); };
    for (ReversedBody::Acc &a : rb.accs) {
      rename(a.index);
      rename(a.e);
    }
    for (ExprP &z : rb.zeros)
      rename(z);
    l.v = t;
  }
  // A box: no bound mentions a counter of the nest.
  for (const NestLevel &l : levels)
    for (const NestLevel &q : levels)
      if (mentionsVar(l.lo, q.v) || mentionsVar(l.hi, q.v))
        return false;
  // Each index as strides times (counter + offset), one counter of the
  // nest per dimension, the innermost counter at stride 1, plus a rest
  // (nestIndex: `(j - jstart + 2) * (width + 4)` has the stride `width +
  // 4`, the offset 2 and the rest `-jstart * width - 4 * jstart`).
  std::vector<const Var *> counters;
  for (const NestLevel &l : nest)
    counters.push_back(l.v);
  auto dec = [&](const ExprP &idx, NestIndex &d) {
    return nestIndex(idx, counters, d);
  };
  // Terms of one target share the array, the strides and the rest.
  // (The array by its creation order too: an inlined helper's array may
  // share a caller's name until Module::nameVariables.)
  auto keyOf = [&](Var *a, const NestIndex &d) {
    return a->name + "#" + std::to_string(a->order) + "|" + d.key;
  };
  struct Term {
    std::vector<long long> o; // per level, outermost first
    ExprP index, e;
  };
  std::map<std::string, std::vector<Term>> groups;
  std::map<std::string, Var *> groupArray;
  for (const ReversedBody::Acc &a : rb.accs) {
    NestIndex d;
    if (!dec(a.index, d))
      continue;
    std::string k = keyOf(a.array, d);
    groups[k].push_back({d.offset, a.index, a.e});
    groupArray[k] = a.array;
  }
  // The target: the group with the most terms, some two terms on
  // different rows (otherwise the reversed nest carries no dependence from
  // row to row, and the gather of the inner loop, if any, is enough).
  std::string key;
  for (auto &[k, ts] : groups) {
    bool offRow = false;
    for (const Term &t : ts)
      for (size_t m = 0; m + 1 < D; ++m)
        offRow |= t.o[m] != ts[0].o[m];
    if (offRow && (key.empty() || ts.size() > groups[key].size()))
      key = k;
  }
  if (key.empty())
    return false;
  Var *target = groupArray[key];
  std::vector<Term> terms = groups[key];
  // Offsets are relative: a macro's halo (`(i) - istart + RADIUS`) puts
  // every term off zero.  Without a term at zero, the offsets are counted
  // from the term in the middle, if there is one, whose index then names
  // the target as written (`in_b[i - istart + 2 + ...]`).
  auto isAt = [&](const Term &t, const std::vector<long long> &o) {
    return t.o == o;
  };
  if (std::none_of(terms.begin(), terms.end(), [&](const Term &t) {
        return isAt(t, std::vector<long long>(D, 0));
      })) {
    std::vector<long long> mid(D);
    for (size_t m = 0; m < D; ++m) {
      long long lo = terms[0].o[m], hi = terms[0].o[m];
      for (const Term &t : terms) {
        lo = std::min(lo, t.o[m]);
        hi = std::max(hi, t.o[m]);
      }
      mid[m] = lo + (hi - lo) / 2;
    }
    if (std::any_of(terms.begin(), terms.end(),
                    [&](const Term &t) { return isAt(t, mid); }))
      for (Term &t : terms)
        for (size_t m = 0; m < D; ++m)
          t.o[m] -= mid[m];
  }
  // Every other accumulation runs before the gather, in a nest of its own.
  std::vector<ReversedBody::Acc> others;
  std::set<Var *> written{target};
  for (const ReversedBody::Acc &a : rb.accs) {
    NestIndex d;
    if (dec(a.index, d) && a.array == target && keyOf(a.array, d) == key)
      continue;
    others.push_back(a);
    written.insert(a.array);
  }
  // The zeroed adjoints: not accumulated into, each index one to one over
  // the box (checked at run time), and E reads adjoints only there.
  ExprP check;
  std::set<std::string> zeroed;
  std::set<Var *> zeroArrays;
  for (const ExprP &z : rb.zeros) {
    if (written.count(z->ops[0]->var) ||
        !zeroArrays.insert(z->ops[0]->var).second)
      return false;
    NestIndex d;
    if (!dec(z->ops[1], d))
      return false;
    std::vector<SwapDim> box;
    for (size_t m = D; m-- > 0;)
      box.push_back({d.stride[m], nest[m].lo, nest[m].hi,
                     mkBinary("-", nest[m].hi, nest[m].lo)});
    if (ExprP c = rowsDisjoint(box))
      check = check ? mkBinary("&&", check, c) : c;
    zeroed.insert(printExpr(z));
  }
  // (An adjoint that the body neither accumulates into nor zeroes, as the
  // seed of `out += ...`, is the same for every iteration: any element.)
  auto atZero = [&](const ExprP &e) {
    Var *a = e->ops[0]->var;
    return zeroed.count(printExpr(e)) > 0 ||
           (!written.count(a) && !zeroArrays.count(a));
  };
  std::vector<const ExprP *> exprs;
  for (const Term &t : terms)
    exprs.push_back(&t.e);
  for (const ReversedBody::Acc &a : others) {
    exprs.push_back(&a.e);
    exprs.push_back(&a.index);
  }
  std::set<Var *> loopVars;
  for (const NestLevel &l : nest)
    loopVars.insert(l.v);
  if (!readsAllowed(cx, rb, written, atZero, exprs, loopVars))
    return false;

  // After the region swap of the same step (BufferSwap.cpp,
  // regionOverwriteLoop), the target's region holds zero or stale values
  // that stand for zero, and the region is what the primal nest writes:
  // the elements of the only zeroed adjoint, the copy's source's.  The
  // term at the iteration's own element (its index names the element the
  // nest writes, offsets and all) reaches exactly the region, so it goes
  // first with `=`; the read adjoints are then left stale, not zeroed.
  long long z0 = -1;
  if (sw && !sw->region.empty() && target == cx.shadow(sw->dst) &&
      rb.zeros.size() == 1 &&
      rb.zeros[0]->ops[0]->var == cx.shadow(sw->src)) {
    NestIndex zd;
    bool ok = dec(rb.zeros[0]->ops[1], zd);
    for (const ReversedBody::Acc &a : others)
      ok &= a.array != target;
    for (size_t t = 0; ok && t < terms.size() && z0 < 0; ++t) {
      NestIndex td;
      if (std::all_of(terms[t].o.begin(), terms[t].o.end(),
                      [](long long x) { return !x; }) &&
          dec(terms[t].index, td) && td.key == zd.key &&
          td.offset == zd.offset)
        z0 = (long long)t;
    }
  }
  const bool overwrite = z0 >= 0;
  // The terms in the order a target receives them: with `overwrite`, the
  // term at the iteration's own element first.
  std::vector<size_t> order;
  if (overwrite)
    order.push_back((size_t)z0);
  for (size_t t = 0; t < terms.size(); ++t)
    if ((long long)t != z0)
      order.push_back(t);
  auto opOf = [&](size_t t) { return (long long)t == z0 ? "=" : "+="; };

  std::vector<long long> omin(D), omax(D);
  for (size_t m = 0; m < D; ++m) {
    omin[m] = omax[m] = terms[0].o[m];
    for (const Term &t : terms) {
      omin[m] = std::min(omin[m], t.o[m]);
      omax[m] = std::max(omax[m], t.o[m]);
    }
  }
  // E_o and the target's element at t: the counters shifted by -o (the
  // primal iteration t - o), and the index of the term at o = 0.
  auto shifted = [&](ExprP e, const std::vector<long long> &o) {
    for (size_t m = 0; m < D; ++m)
      if (o[m])
        e = replaceVar(e, nest[m].v, plusConst(mkVar(nest[m].v), -o[m]));
    return e;
  };
  ExprP tIndex;
  for (const Term &t : terms)
    if (std::all_of(t.o.begin(), t.o.end(), [](long long x) { return !x; }))
      tIndex = t.index;
  if (!tIndex)
    tIndex = shifted(terms[0].index, terms[0].o);
  ExprP tj = mkIndex(mkVar(target), tIndex);
  auto inBox = [&](const Term &t, size_t from, size_t to) {
    ExprP c;
    for (size_t m = from; m < to; ++m) {
      ExprP p = plusConst(mkVar(nest[m].v), -t.o[m]);
      ExprP r = mkBinary("&&", mkBinary(">=", p, nest[m].lo),
                         mkBinary("<=", p, nest[m].hi));
      c = c ? mkBinary("&&", c, r) : r;
    }
    return c;
  };
  auto guardedRow = [&](const ExprP &from, const ExprP &to, size_t from_m) {
    Block b;
    for (size_t k : order) {
      const Term &t = terms[k];
      b.push_back(mkIf(inBox(t, from_m, D), {mkAssign(tj, opOf(k), shifted(t.e, t.o))}));
    }
    return upLoop(nest[D - 1].v, from, to, b);
  };
  auto minE = [](const ExprP &a, const ExprP &b) {
    return mkCond(mkBinary("<", a, b), a, b);
  };
  auto maxE = [](const ExprP &a, const ExprP &b) {
    return mkCond(mkBinary(">", a, b), a, b);
  };
  const NestLevel &in = nest[D - 1];
  // Interior rows: gatherForm's three loops.
  Block interior;
  if (omax[D - 1] > omin[D - 1])
    interior.push_back(guardedRow(plusConst(in.lo, omin[D - 1]),
                                  minE(plusConst(in.lo, omax[D - 1] - 1),
                                       plusConst(in.hi, omax[D - 1])),
                                  D - 1));
  std::vector<ExprP> sumTerms;
  for (const Term &t : terms)
    sumTerms.push_back(shifted(t.e, t.o));
  std::set<const Var *> counterSet(counters.begin(), counters.end());
  ExprP sum = foldedSum(cx, sumTerms, counterSet);
  interior.push_back(upLoop(in.v, plusConst(in.lo, omax[D - 1]),
                            plusConst(in.hi, omin[D - 1]),
                            {mkAssign(tj, overwrite ? "=" : "+=", sum)}));
  if (omax[D - 1] > omin[D - 1])
    interior.push_back(guardedRow(maxE(plusConst(in.lo, omax[D - 1]),
                                       plusConst(in.hi, omin[D - 1] + 1)),
                                  plusConst(in.hi, omax[D - 1]), D - 1));
  ExprP rowInside;
  for (size_t m = 0; m + 1 < D; ++m) {
    ExprP r = mkBinary("&&", mkBinary(">=", mkVar(nest[m].v), plusConst(nest[m].lo, omax[m])),
                       mkBinary("<=", mkVar(nest[m].v), plusConst(nest[m].hi, omin[m])));
    rowInside = rowInside ? mkBinary("&&", rowInside, r) : r;
  }
  // Boundary rows (some term's row outside the box): term by term, each
  // over the targets its row reaches, `t - o` inside the box, with its
  // condition on the outer counters tested once per row.  Each target
  // receives its terms in the same order as in a guarded loop over the
  // row, and every loop is a plain counted one that compilers vectorize.
  Block edge;
  for (size_t k : order) {
    const Term &t = terms[k];
    edge.push_back(mkIf(inBox(t, 0, D - 1),
                        {upLoop(in.v, plusConst(in.lo, t.o[D - 1]),
                                plusConst(in.hi, t.o[D - 1]),
                                {mkAssign(tj, opOf(k), shifted(t.e, t.o))})}));
  }
  StmtP row = mkIf(rowInside, interior, edge);
  Block gather{row};
  for (size_t m = D - 1; m-- > 0;) {
    if (m == 0 && !rb.zeros.empty() && !overwrite) {
      // Source slice v0 is read by the target slices up to v0 + omax[0]:
      // after target slice t, slice t - omax[0] is read no more, and is
      // zeroed while it is still in the cache.
      ExprP at = plusConst(mkVar(nest[0].v), -omax[0]);
      Block zb;
      for (const ExprP &z : rb.zeros)
        zb.push_back(mkAssign(replaceVar(z, nest[0].v, at), "=", mkInt(0)));
      std::vector<NestLevel> inner(nest.begin() + 1, nest.end());
      gather.push_back(mkComment("the read adjoints of slice " + printExpr(at) +
                                 " are read no more: zero them"));
      gather.push_back(mkIf(mkBinary("&&", mkBinary(">=", at, nest[0].lo),
                                     mkBinary("<=", at, nest[0].hi)),
                            {nestOver(inner, zb)}));
    }
    gather = {upLoop(nest[m].v, plusConst(nest[m].lo, omin[m]),
                     plusConst(nest[m].hi, omax[m]), gather)};
  }

  std::string names;
  for (const NestLevel &l : nest)
    names += (names.empty() ? "" : ", ") + l.v->name;
  Block fast;
  fast.push_back(mkComment("reverse of the stencil nest over " + names +
                           ", as a gather over the whole nest (" +
                           target->name + " at every offset)"));
  if (!others.empty()) {
    Block b;
    for (const ReversedBody::Acc &a : others)
      b.push_back(mkAssign(mkIndex(mkVar(a.array), a.index), "+=", a.e));
    fast.push_back(mkComment("the other accumulations first"));
    fast.push_back(nestOver(nest, b));
  }
  append(fast, gather);
  if (overwrite) {
    Var *a = cx.shadow(sw->dst), *b = cx.shadow(sw->src);
    if (ExprP c = regionSwapCondition(*sw))
      check = check ? conjoin(check, c) : c;
    fast.insert(fast.begin() + 1,
                mkComment(a->name + " holds zero or stale values on the "
                          "region since the swap back: each element there "
                          "takes its first term with =, and " + b->name +
                          " is left as it is there (zero for the adjoint; "
                          "the next swap back takes it, or it is zeroed "
                          "after the loop)"));
    Block &after = (*cx.zeroAfter)[sw->timeLoop];
    Block z{mkComment("the adjoint of the region of " + sw->src->name +
                      " is zero: clear what the gathers left")};
    append(z, zeroRegion(*sw, cx.newVar, b));
    if (check)
      after.push_back(mkIf(check, z, {}));
    else
      append(after, z);
  }
  if (!check) {
    append(out, fast);
    return true;
  }
  out.push_back(mkComment("the gather needs each iteration's adjoints apart "
                          "from the others' (rows disjoint); else the "
                          "reversed nest"));
  out.push_back(mkIf(check, fast, {fallback}));
  return true;
}

} // namespace mpiad
