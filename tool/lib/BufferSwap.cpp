//===- BufferSwap.cpp - Copy-back loops that can become pointer swaps -----===//
//
// Time-stepping codes often end each step with a copy-back,
//
//   for (int t = 0; t < T; t++) {
//     unew[0] = ...; unew[n - 1] = ...;
//     for (int i = 1; i < n - 1; i++) unew[i] = f(u[i - 1], u[i], u[i + 1]);
//     for (int i = 0; i < n; i++) u[i] = unew[i];      // the copy-back
//   }
//
// whose adjoint, `unew_b[i] += u_b[i]; u_b[i] = 0;`, is a pass over two
// arrays of its own.  When the old contents of unew are never read again
// (every element of unew is written before the next read, and nothing after
// the time loop reads unew), the copy can be a swap of the pointers u and
// unew, and so can its adjoint: every write of unew zeroes its adjoint in the
// reverse sweep, so unew_b is zero when the adjoint of the copy runs, and
// `unew_b += u_b; u_b = 0` is the swap of unew_b and u_b.
//
// This file finds such loops, and the loop of the same step whose adjoint
// may then overwrite u_b (overwriteLoop below); Reverse.cpp emits the swaps
// and the overwriting gather.  The conditions of the swap,
// all checked here, keep the proof simple:
//  - the time loop is a statement of the function body itself, not
//    checkpointed; the copy loop is a statement of its body, counted from 0
//    to N by 1, with the single statement `a[i] = b[i]`;
//  - a and b are distinct local pointers to the same floating type, each
//    assigned once, by a statement of the function body before the time
//    loop, from malloc/calloc of N elements, and otherwise used only as
//    `a[k]` (not under &) and in free(a): no copy of them and no call sees
//    them, so swapping them changes no other name's meaning;
//  - N is an integer literal or built from variables that never change;
//  - from the copy, around the loop body, the elements b[k] written before
//    the first other use of b cover 0..N-1 (unconditional statements
//    `b[k] = e` and counted loops `b[i] = e` at their top level, e not
//    reading b), and after the time loop b appears only in free(b);
//  - no statement records an old value of b and the copy records none of a
//    (the reverse sweep restores recorded values by pointer).
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "Transform.h"

namespace mpiad {

/// An integer value `sym + c` (sym null for a constant).
bool affine(const ExprP &e, Affine &out) {
  if (!e)
    return false;
  switch (e->kind) {
  case Expr::IntLit: {
    char *end = nullptr;
    long long v = std::strtoll(e->text.c_str(), &end, 0);
    if (end == e->text.c_str())
      return false;
    out = {nullptr, v};
    return true;
  }
  case Expr::VarRef:
    if (!e->var->type.isIntScalar() || !isStable(e->var))
      return false;
    out = {e->var, 0};
    return true;
  case Expr::Binary: {
    if (e->text != "+" && e->text != "-")
      return false;
    Affine a, b;
    if (!affine(e->ops[0], a) || !affine(e->ops[1], b))
      return false;
    if (b.sym && (a.sym || e->text == "-"))
      return false; // two symbols, or a negated one
    out = {a.sym ? a.sym : b.sym, e->text == "+" ? a.c + b.c : a.c - b.c};
    return true;
  }
  default:
    return false;
  }
}

namespace {

/// a <= b for every value of the symbols?
bool provablyLE(const Affine &a, const Affine &b) {
  return a.sym == b.sym && a.c <= b.c;
}

/// Calls fn on every expression of a statement and its nested blocks, with
/// the parent expression (null at the top).
void visitExprs(const Stmt &s,
                const std::function<void(const Expr &, const Expr *)> &fn) {
  std::function<void(const ExprP &, const Expr *)> rec =
      [&](const ExprP &e, const Expr *parent) {
        if (!e)
          return;
        fn(*e, parent);
        for (const ExprP &o : e->ops)
          rec(o, e.get());
      };
  rec(s.lhs, nullptr);
  rec(s.rhs, nullptr);
  rec(s.cond, nullptr);
  for (const ExprP &a : s.comm.args)
    rec(a, nullptr);
  for (const StmtP *p : {&s.init, &s.step})
    if (*p)
      visitExprs(**p, fn);
  for (const Block *b : {&s.body, &s.elseBody})
    for (const StmtP &c : *b)
      visitExprs(*c, fn);
}

bool mentions(const Stmt &s, const Var *v) {
  bool found = false;
  visitExprs(s, [&](const Expr &e, const Expr *) {
    if (e.kind == Expr::VarRef && e.var == v)
      found = true;
    for (const Var *x : e.vars)
      if (x == v && e.text.rfind("sizeof", 0) != 0)
        found = true;
  });
  return found;
}

bool mentions(const ExprP &e, const Var *v) {
  Stmt s;
  s.kind = Stmt::ExprStmt;
  s.rhs = e;
  return mentions(s, v);
}

bool isElementOf(const ExprP &e, const Var *v) {
  return e && e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef &&
         e->ops[0]->var == v;
}

bool isFreeOf(const Stmt &s, const Var *v) { return freedVar(s) == v; }

/// The element count of `p = malloc(N * sizeof(T))` / calloc(N,
/// sizeof(T)) as an expression.
ExprP allocationCountExpr(const Stmt &s, const Var *p) {
  if (s.kind != Stmt::Assign || s.op != "=" || s.lhs->kind != Expr::VarRef ||
      s.lhs->var != p)
    return nullptr;
  ExprP call = allocationCall(s.rhs);
  if (!call)
    return nullptr;
  std::string elem = p->type.elemName();
  auto isSize = [&](const ExprP &e) {
    if (e->kind != Expr::Opaque)
      return false;
    std::string t = e->text;
    return t == "sizeof(" + elem + ")" || t == "sizeof *" + p->userName ||
           t == "sizeof(*" + p->userName + ")";
  };
  if (call->text == "calloc" && call->ops.size() == 2 && isSize(call->ops[1]))
    return call->ops[0];
  if (call->text == "malloc" && call->ops.size() == 1) {
    const ExprP &m = call->ops[0];
    if (m->kind == Expr::Binary && m->text == "*") {
      if (isSize(m->ops[1]))
        return m->ops[0];
      if (isSize(m->ops[0]))
        return m->ops[1];
    }
  }
  return nullptr;
}

/// The same, as an affine value.
bool allocationCount(const Stmt &s, const Var *p, Affine &n) {
  ExprP e = allocationCountExpr(s, p);
  return e && affine(e, n);
}

/// Does s itself (not its nested blocks, which walk visits on their own)
/// use p only as `p[k]`, not under `&`?
bool ownElementUses(const Stmt &s, const Var *p) {
  bool ok = true;
  Stmt own = s;
  own.body.clear();
  own.elseBody.clear();
  visitExprs(own, [&](const Expr &e, const Expr *parent) {
    for (const Var *x : e.vars)
      if (x == p && e.text.rfind("sizeof", 0) != 0)
        ok = false;
    if (e.kind == Expr::VarRef && e.var == p &&
        (!parent || parent->kind != Expr::Index ||
         parent->ops[0].get() != &e))
      ok = false;
    if (e.kind == Expr::AddrOf && isElementOf(e.ops[0], p))
      ok = false;
  });
  return ok;
}

/// `v = p`, or the declaration `T *v = p`?
bool isCopyOf(const Stmt &s, const Var *v, const Var *p) {
  bool names = (s.kind == Stmt::Assign && s.op == "=" &&
                s.lhs->kind == Expr::VarRef && s.lhs->var == v) ||
               (s.kind == Stmt::Decl && s.var == v);
  return names && s.rhs && s.rhs->kind == Expr::VarRef && s.rhs->var == p;
}

/// Only `p[k]` (not under &), one assignment of p (the allocation) and
/// free(p) use p; and communication calls that `commOk` accepts, if given,
/// and copies `v = p` into the given aliases.
bool onlyElementUses(const Function &f, const Var *p,
                     const std::function<bool(const Stmt &)> &commOk = {},
                     const std::set<const Var *> &aliases = {}) {
  bool ok = true;
  int assignments = 0;
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (isFreeOf(s, p))
      return;
    if (s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef &&
        aliases.count(s.lhs->var) && isCopyOf(s, s.lhs->var, p))
      return;
    if (s.kind == Stmt::Decl && aliases.count(s.var) && isCopyOf(s, s.var, p))
      return;
    if (s.kind == Stmt::Comm && commOk && mentions(s, p)) {
      ok &= commOk(s);
      return;
    }
    if (s.kind == Stmt::Decl && s.var == p && s.rhs)
      ok = false;
    if (s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef &&
        s.lhs->var == p) {
      ++assignments; // the allocation, checked by allocationCount
      return;
    }
    ok &= ownElementUses(s, p);
  });
  return ok && assignments == 1;
}

/// The canonical `for (int i = lo; i < hi; i++)` (or `<=`) as [first, last].
bool countedRange(const Stmt &s, Affine &first, Affine &last) {
  if (s.kind != Stmt::For || s.loopStep != 1 || !s.loopVar ||
      !s.loopVar->declaredInForInit || s.checkpoint)
    return false;
  if (!affine(s.loopLo, first) || !affine(s.loopHi, last))
    return false;
  if (s.loopCmp == "<")
    last.c -= 1;
  else if (s.loopCmp != "<=")
    return false;
  return true;
}

/// The elements of b one statement writes, if it is a covering write.
bool coveringWrite(const Stmt &s, const Var *b, Affine &lo, Affine &hi) {
  if (s.kind == Stmt::Assign && s.op == "=" && isElementOf(s.lhs, b)) {
    if (mentions(s.rhs, b) || !affine(s.lhs->ops[1], lo))
      return false;
    hi = lo;
    return true;
  }
  if (!countedRange(s, lo, hi) || hasJump(s.body))
    return false;
  int writes = 0;
  for (const StmtP &c : s.body) {
    if (!mentions(*c, b))
      continue;
    if (c->kind != Stmt::Assign || c->op != "=" || !isElementOf(c->lhs, b) ||
        c->lhs->ops[1]->kind != Expr::VarRef ||
        c->lhs->ops[1]->var != s.loopVar)
      return false;
    if (mentions(c->rhs, b))
      return false;
    ++writes;
  }
  return writes == 1;
}

/// Do the intervals cover 0..n-1?  A prefix [0, cur) grows by every interval
/// starting at or before cur; `bounds` holds lower bounds of cur.
bool covers(std::vector<std::pair<Affine, Affine>> iv, const Affine &n) {
  std::vector<Affine> bounds{{nullptr, 0}};
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t k = 0; k < iv.size(); ++k) {
      bool starts = false;
      for (const Affine &c : bounds)
        starts |= provablyLE(iv[k].first, c);
      if (!starts)
        continue;
      bounds.push_back({iv[k].second.sym, iv[k].second.c + 1});
      iv.erase(iv.begin() + k);
      grew = true;
      break;
    }
  }
  for (const Affine &c : bounds)
    if (provablyLE(n, c))
      return true;
  return false;
}

/// Does a statement record old elements of v?  (The allocation records
/// the old pointer value, which the swaps do not change.)
bool recordsElements(const Block &b, const Var *v) {
  bool found = false;
  walk(b, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef &&
        s.lhs->var == v)
      return;
    for (const Var *t : s.tapeSet)
      found |= t == v;
  });
  return found;
}

/// Adjoint memory traffic of the step: after the swap of the adjoints, the
/// adjoint of the loop G that fills src from dst (`src[i] = f(dst[i + c])`)
/// may overwrite dst_b instead of adding to it, and leave src_b unzeroed.
/// dst_b then holds garbage between the swap and G's adjoint, and src_b's
/// elements in G's range hold stale values that stand for zero until the
/// next swap takes them into dst_b, or until the zeroing Reverse.cpp emits
/// after the time loop.  That is exact when
///  - no statement between G and the copy uses dst (their adjoints would
///    add to the garbage before G's adjoint overwrites it);
///  - every statement before G that uses src is a write of src elements
///    outside G's range (their adjoints would read the stale values);
///  - no statement after the copy uses src (same);
///  - G's adjoint is a gather that covers every element of dst_b
///    (Reverse.cpp checks this one: it knows the offsets c).
const Stmt *overwriteLoop(const Stmt &time, size_t k, const Var *dst,
                          const Var *src) {
  for (size_t s = k + 1; s < time.body.size(); ++s)
    if (mentions(*time.body[s], src))
      return nullptr;
  for (size_t g = k; g-- > 0;) {
    const Stmt &G = *time.body[g];
    Affine lo, hi;
    if (G.kind != Stmt::For || !coveringWrite(G, src, lo, hi)) {
      if (mentions(G, dst))
        return nullptr;
      continue;
    }
    for (size_t s = 0; s < g; ++s) {
      const Stmt &w = *time.body[s];
      if (!mentions(w, src))
        continue;
      Affine a, b;
      if (!coveringWrite(w, src, a, b))
        return nullptr;
      Affine bEnd{b.sym, b.c + 1}, hiEnd{hi.sym, hi.c + 1};
      if (!provablyLE(bEnd, lo) && !provablyLE(hiEnd, a))
        return nullptr;
    }
    return &G;
  }
  return nullptr;
}

/// The other pointers of p's alias class: after inlining, a helper's
/// parameter `double *u_2` is assigned `u_2 = u` at each call (or a step
/// declares `const double *pu = u;`).  Swapping p
/// (at the copy, statement k of the time loop) changes no such alias's
/// meaning when the alias is only ever assigned `v = p`, by top-level
/// statements of the function body or of the time loop's body, and every
/// other use of it (`v[k]`, or a communication call that commOk accepts)
/// comes after such an assignment with no copy in between: between an
/// assignment before the time loop and the loop, after an assignment after
/// the loop, or within one step, after the assignment and before the copy
/// (or after an assignment that follows the copy).  Fills `aliases`; false
/// when a member of the class is another kind of name.  (`mentions` sees a
/// declaration's initializer only, so a declaration `T *v = p` counts as
/// the assignment it is.)
bool windowAliases(Function &f, size_t top, const Stmt &time, size_t k,
                   Var *p, const std::function<bool(const Stmt &)> &commOk,
                   std::set<const Var *> &aliases) {
  Var *root = aliasRoot(f, p);
  for (const auto &vp : f.vars) {
    Var *v = vp.get();
    if (v == p || aliasRoot(f, v) != root)
      continue;
    if (v->kind != Var::Local || v->type.ptrDepth != 1 ||
        !v->type.dims.empty() || v->type.elem != p->type.elem)
      return false;
    aliases.insert(v);
  }
  if (aliases.empty())
    return true;
  Stmt header = time;
  header.body.clear();
  // A use of an alias, in a statement that is not its assignment: element
  // accesses only, or an accepted communication call.
  auto useOk = [&](const StmtP &st, const Var *v) {
    bool ok = true;
    walk({st}, [&](Stmt &s, const WalkCtx &) {
      if (s.kind == Stmt::Comm && mentions(s, v)) {
        ok &= commOk && commOk(s);
        return;
      }
      if ((s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef &&
           s.lhs->var == v) ||
          (s.kind == Stmt::Decl && s.var == v)) {
        ok = false;
        return;
      }
      ok &= ownElementUses(s, v);
    });
    return ok;
  };
  for (const Var *v : aliases) {
    if (mentions(header, v))
      return false;
    bool live = false;
    for (size_t i = 0; i < f.body.size(); ++i) {
      const Stmt &st = *f.body[i];
      if (i == top) {
        live = false;
        for (size_t j = 0; j < time.body.size(); ++j) {
          const Stmt &ts = *time.body[j];
          if (j == k)
            live = false;
          if (isCopyOf(ts, v, p))
            live = true;
          else if (mentions(ts, v) &&
                   (!live || j == k || !useOk(time.body[j], v)))
            return false;
        }
        live = false;
        continue;
      }
      if (isCopyOf(st, v, p))
        live = true;
      else if (mentions(st, v) && (!live || !useOk(f.body[i], v)))
        return false;
    }
  }
  return true;
}

/// Is the copy loop `copy` (statement k of the body of `time`, a statement
/// of the function body at index top) a swappable copy-back?
bool swappable(Function &f, size_t top, const Stmt &time, size_t k,
               SwapCopy &out) {
  const Stmt &copy = *time.body[k];
  Stmt header = time; // the time loop's own condition, init and step
  header.body.clear();
  Affine first, last;
  if (!countedRange(copy, first, last) || first.sym || first.c != 0 ||
      copy.body.size() != 1 || !copy.tapeSet.empty())
    return false;
  const Stmt &a = *copy.body[0];
  if (a.kind != Stmt::Assign || a.op != "=" || !a.tapeSet.empty())
    return false;
  const Var *i = copy.loopVar;
  auto indexedByI = [&](const ExprP &e) {
    return e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef &&
           e->ops[1]->kind == Expr::VarRef && e->ops[1]->var == i;
  };
  if (!indexedByI(a.lhs) || !indexedByI(a.rhs))
    return false;
  Var *dst = a.lhs->ops[0]->var, *src = a.rhs->ops[0]->var;
  if (dst == src)
    return false;
  for (Var *p : {dst, src})
    if (p->kind != Var::Local || p->type.ptrDepth != 1 ||
        !p->type.dims.empty() || !p->type.isFloatingElem() ||
        aliasRoot(f, p) != p)
      return false;
  if (dst->type.elem != src->type.elem)
    return false;

  // Each allocated once, before the time loop, with N elements.
  Affine n{nullptr, 0};
  for (Var *p : {dst, src}) {
    bool found = false;
    for (size_t s = 0; s < top && !found; ++s) {
      Affine m;
      if (allocationCount(*f.body[s], p, m)) {
        if (p == src && (m.sym != n.sym || m.c != n.c))
          return false;
        n = m;
        found = true;
      }
    }
    if (!found || !onlyElementUses(f, p))
      return false;
  }
  // The copy covers the whole allocation.
  if (last.sym != n.sym || last.c != n.c - 1)
    return false;

  if (mentions(header, src))
    return false;
  // After the copy, around the loop body: b is written whole before any
  // other use.
  std::vector<std::pair<Affine, Affine>> written;
  bool complete = false;
  for (size_t step = 1; step < time.body.size() && !complete; ++step) {
    const Stmt &s = *time.body[(k + step) % time.body.size()];
    if (!mentions(s, src))
      continue;
    Affine lo, hi;
    if (coveringWrite(s, src, lo, hi)) {
      written.push_back({lo, hi});
      continue;
    }
    complete = covers(written, n);
    if (!complete)
      return false;
  }
  if (!complete && !covers(written, n))
    return false;
  // After the time loop, b is only freed.
  for (size_t s = top + 1; s < f.body.size(); ++s)
    if (mentions(*f.body[s], src) && !isFreeOf(*f.body[s], src))
      return false;
  if (recordsElements(f.body, src))
    return false;
  out.dst = dst;
  out.src = src;
  out.count = n.sym ? plusConst(mkVar(const_cast<Var *>(n.sym)), n.c)
                    : mkInt(n.c);
  out.timeLoop = &time;
  out.overwrite = overwriteLoop(time, k, dst, src);
  return true;
}


// --- copies of a region ----------------------------------------------------
//
// A time step that updates the interior of a grid with ghost cells copies
// back only the interior:
//
//   for (k = 1; k <= nz; k++) for (j = 1; j <= ny; j++) for (i = 1; i <= nx; i++)
//     u[k * sp + j * sx + i] = un[k * sp + j * sx + i];
//
// Swapping u and un then exchanging their elements outside the region
// leaves u exactly as the copy does, and un with u's old region, which is
// dead (written before it is read again).  The exchange is a permutation:
// its adjoint is the same exchange of the adjoints, and the swap's adjoint
// is the swap of the adjoints as above (un_b is zero on the region when the
// reverse of the copy runs).  An index is read as a sum of dimensions,
// `stride * value` (the innermost with stride 1), and the region as a box:
// one interval per dimension.  The conditions, besides those of the whole
// copy:
//  - the copy is a perfect nest of up to three counted loops whose body is
//    `a[idx] = b[idx]`, each counter the value of one dimension of idx;
//  - from the copy, around the loop body, the statements that use b are
//    loop nests (or single statements) that write elements of b, at
//    indices read with the same strides after substituting the integer
//    locals of the nest (`c = i * ys + j; un[c] = ...`), and their boxes
//    cover the region before any other use of b;
//  - the buffers may be passed to communication calls that complete before
//    the copy (a non-blocking start completed by a wait or waitall on its
//    request between it and the copy, in the step's top-level statements):
//    the forward sweep then swaps the adjoints too, so that addresses the
//    runtime keeps from the forward sweep are the reverse sweep's;
//  - the copy may record the old values of a (a nonlinear step whose
//    reverse reads them): after the swap b's buffer holds them, and the
//    tape keeps it whole (Reverse.cpp, regionSwappedCopy);
//  - a may have aliases, the parameters of inlined helpers (`f = a` at
//    each call of `start_halo(a, ...)`), used only between such an
//    assignment and the copy (windowAliases); b none;
//  - every variable of the strides, bounds and N is stable and set before
//    the time loop; the run-time condition (regionSwapCondition) checks
//    that the rows are disjoint, increasing and inside [0, N), and the code
//    falls back to the copy otherwise.

/// The same expression: the same tree over the same variables (not only
/// the same text: an inlined helper's `ys` prints as the caller's until
/// Module::nameVariables renames it).
bool sameTree(const ExprP &a, const ExprP &b) {
  if (!a || !b)
    return a == b;
  if (a->kind != b->kind || a->text != b->text || a->var != b->var ||
      a->vars != b->vars || a->ops.size() != b->ops.size())
    return false;
  for (size_t k = 0; k < a->ops.size(); ++k)
    if (!sameTree(a->ops[k], b->ops[k]))
      return false;
  return true;
}

bool sameStrides(const std::vector<ExprP> &a, const std::vector<ExprP> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t d = 1; d < a.size(); ++d)
    if (!sameTree(a[d], b[d]))
      return false;
  return true;
}

bool sameDims(const std::vector<DimVal> &a, const std::vector<DimVal> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t d = 0; d < a.size(); ++d)
    if (a[d].loop != b[d].loop || a[d].off.sym != b[d].off.sym ||
        a[d].off.c != b[d].off.c)
      return false;
  return true;
}

/// Adds sign * x to one dimension: a loop counter, literals, one stable
/// symbol.
bool addTo(DimVal &d, const ExprP &x, int sign,
           const std::set<const Var *> &loops) {
  if (x->kind == Expr::Binary && (x->text == "+" || x->text == "-"))
    return addTo(d, x->ops[0], sign, loops) &&
           addTo(d, x->ops[1], x->text == "-" ? -sign : sign, loops);
  if (x->kind == Expr::VarRef && loops.count(x->var)) {
    if (sign < 0 || d.loop)
      return false;
    d.loop = x->var;
    return true;
  }
  Affine a;
  if (!affine(x, a) || (a.sym && (sign < 0 || d.off.sym)))
    return false;
  if (a.sym)
    d.off.sym = a.sym;
  d.off.c += sign * a.c;
  return true;
}

} // namespace

/// A stride: an integer expression of literals and stable integer
/// variables, none a loop counter, with + - * and at least one variable
/// (`ys`, or `(ny + 2)` from a macro `U(i, j) u[(i) * (ny + 2) + (j)]`).
static bool isStrideExpr(const ExprP &e, const std::set<const Var *> &loops,
                         bool &hasVar) {
  switch (e->kind) {
  case Expr::IntLit:
    return true;
  case Expr::VarRef:
    hasVar = true;
    return e->var->type.isIntScalar() && isStable(e->var) &&
           !loops.count(e->var);
  case Expr::Binary:
    return (e->text == "+" || e->text == "-" || e->text == "*") &&
           isStrideExpr(e->ops[0], loops, hasVar) &&
           isStrideExpr(e->ops[1], loops, hasVar);
  default:
    return false;
  }
}

/// idx as the sum over dimensions d of strides[d] * dims[d] (strides[0] is
/// null, the stride 1; the others compared as trees, sameTree).  With
/// `grow`, a stride expression that multiplies a loop counter becomes a new
/// stride.
bool decompose(const ExprP &idx, int sign, std::vector<ExprP> &strides,
               bool grow, const std::set<const Var *> &loops,
               std::vector<DimVal> &dims) {
  auto dimOf = [&](const ExprP &e) -> int {
    for (size_t d = 1; d < strides.size(); ++d)
      if (sameTree(strides[d], e))
        return (int)d;
    return -1;
  };
  if (dims.empty())
    dims.resize(1);
  // A stride on its own (`c - ys`, `c + (ny + 2)`): one step in its
  // dimension, before a sum is split into its terms.
  if (idx->kind != Expr::IntLit && dimOf(idx) > 0) {
    if (dims.size() < strides.size())
      dims.resize(strides.size());
    dims[dimOf(idx)].off.c += sign;
    return true;
  }
  if (idx->kind == Expr::Binary && (idx->text == "+" || idx->text == "-"))
    return decompose(idx->ops[0], sign, strides, grow, loops, dims) &&
           decompose(idx->ops[1], idx->text == "-" ? -sign : sign, strides,
                     grow, loops, dims);
  // The dimension of `st * x`, st a stride (learnt with `grow` when x is
  // a counter), or -1.
  auto dimFor = [&](const ExprP &st, const ExprP &x) -> int {
    bool hasVar = false;
    if (!isStrideExpr(st, loops, hasVar) || !hasVar)
      return -1;
    int d = dimOf(st);
    if (d < 0 && grow && x->kind == Expr::VarRef && loops.count(x->var)) {
      strides.push_back(st);
      d = (int)strides.size() - 1;
    }
    if (d > 0 && dims.size() < strides.size())
      dims.resize(strides.size());
    return d;
  };
  if (idx->kind == Expr::Binary && idx->text == "*") {
    // A product with one factor that holds a loop counter: the other
    // factors, multiplied in their order, are the stride (`(k) * (nx + 2)
    // * (ny + 2)`, a macro's plane stride).
    std::vector<ExprP> factors;
    std::function<void(const ExprP &)> flat = [&](const ExprP &e) {
      if (e->kind == Expr::Binary && e->text == "*") {
        flat(e->ops[0]);
        flat(e->ops[1]);
      } else {
        factors.push_back(e);
      }
    };
    flat(idx);
    int counterAt = -1, counters = 0;
    for (size_t k = 0; k < factors.size(); ++k) {
      std::set<Var *> vs;
      collectVars(factors[k], vs);
      if (std::any_of(vs.begin(), vs.end(),
                      [&](Var *v) { return loops.count(v) > 0; })) {
        counterAt = (int)k;
        ++counters;
      }
    }
    if (factors.size() > 2 && counters == 1) {
      ExprP st;
      for (size_t k = 0; k < factors.size(); ++k)
        if ((int)k != counterAt)
          st = st ? mkBinary("*", st, factors[k]) : factors[k];
      const ExprP &x = factors[counterAt];
      int d = dimFor(st, x);
      return d > 0 && addTo(dims[d], x, sign, loops);
    }
    for (int side = 0; side < 2; ++side) {
      const ExprP &x = idx->ops[1 - side];
      int d = dimFor(idx->ops[side], x);
      if (d > 0)
        return addTo(dims[d], x, sign, loops);
    }
    return false;
  }
  return addTo(dims[0], idx, sign, loops);
}

namespace {

/// A box: per dimension, an inclusive interval.
struct Box {
  std::vector<Affine> lo, hi;
};

using Ranges = std::map<const Var *, std::pair<Affine, Affine>>;

bool addAffine(const Affine &a, const Affine &b, Affine &out) {
  if (a.sym && b.sym)
    return false;
  out = {a.sym ? a.sym : b.sym, a.c + b.c};
  return true;
}

/// The box of a decomposed index, the loop counters over their ranges.
bool boxOf(const std::vector<DimVal> &dims, size_t ndims, const Ranges &ranges,
           Box &out) {
  if (dims.size() > ndims)
    return false;
  out.lo.assign(ndims, Affine{});
  out.hi.assign(ndims, Affine{});
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!dims[d].loop) {
      out.lo[d] = out.hi[d] = dims[d].off;
      continue;
    }
    auto r = ranges.find(dims[d].loop);
    if (r == ranges.end() ||
        !addAffine(r->second.first, dims[d].off, out.lo[d]) ||
        !addAffine(r->second.second, dims[d].off, out.hi[d]))
      return false;
  }
  return true;
}

/// Do the boxes cover the target in dimensions 0..d?  In dimension d a
/// prefix [lo, cur) grows by a group of boxes that all start at or before
/// cur and together cover the lower dimensions: up to the smallest end
/// among them.  `bounds` holds lower bounds of cur; an empty box or a
/// group that ends before cur only adds a bound that is already passed.
bool coversBox(const std::vector<Box> &boxes, const Box &target, int d) {
  if (d < 0)
    return true;
  std::vector<Affine> bounds{target.lo[d]};
  auto reached = [&](const Affine &a) {
    for (const Affine &b : bounds)
      if (provablyLE(a, b))
        return true;
    return false;
  };
  Affine end{target.hi[d].sym, target.hi[d].c + 1};
  bool grew = true;
  while (!reached(end) && grew) {
    grew = false;
    for (const Box &c : boxes) {
      if (!reached(c.lo[d]))
        continue;
      Affine next{c.hi[d].sym, c.hi[d].c + 1};
      if (reached(next))
        continue;
      std::vector<Box> group;
      for (const Box &g : boxes)
        if (reached(g.lo[d]) && provablyLE(c.hi[d], g.hi[d]))
          group.push_back(g);
      if (coversBox(group, target, d - 1)) {
        bounds.push_back(next);
        grew = true;
        break;
      }
    }
  }
  return reached(end);
}

ExprP substVars(const ExprP &e, const std::map<const Var *, ExprP> &env) {
  if (e->kind == Expr::VarRef) {
    auto it = env.find(e->var);
    return it == env.end() ? e : it->second;
  }
  if (e->ops.empty())
    return e;
  auto c = std::make_shared<Expr>(*e);
  for (ExprP &o : c->ops)
    o = substVars(o, env);
  return c;
}

/// The boxes of b's elements that a statement writes: a single `b[idx] =
/// e` or a nest of counted loops whose only uses of b are such writes at
/// the top of their bodies (e not reading b).  Integer locals assigned in
/// the bodies are substituted into the indices.
bool writeBoxes(const Stmt &s, const Var *b,
                const std::vector<ExprP> &strides, Ranges ranges,
                std::map<const Var *, ExprP> &env, std::vector<Box> &out) {
  if (s.kind == Stmt::Assign && s.op == "=" && isElementOf(s.lhs, b)) {
    if (mentions(s.rhs, b))
      return false;
    std::set<const Var *> loops;
    for (auto &r : ranges)
      loops.insert(r.first);
    std::vector<ExprP> st = strides;
    std::vector<DimVal> dims;
    Box box;
    if (!decompose(substVars(s.lhs->ops[1], env), 1, st, false, loops, dims) ||
        !boxOf(dims, strides.size(), ranges, box))
      return false;
    out.push_back(box);
    return true;
  }
  Affine lo, hi;
  if (!countedRange(s, lo, hi) || hasJump(s.body) || !s.tapeSet.empty())
    return false;
  ranges[s.loopVar] = {lo, hi};
  std::map<const Var *, ExprP> inner = env;
  for (const StmtP &c : s.body) {
    if (mentions(*c, b)) {
      if (!writeBoxes(*c, b, strides, ranges, inner, out))
        return false;
      continue;
    }
    if (c->kind == Stmt::Decl && !c->rhs)
      continue;
    if (c->kind == Stmt::Assign && c->op == "=" &&
        c->lhs->kind == Expr::VarRef && c->lhs->var->type.isIntScalar() &&
        c->lhs->var->kind == Var::Local) {
      inner[c->lhs->var] = substVars(c->rhs, inner);
      continue;
    }
    // Anything else forgets the integers it mentions.
    for (auto it = inner.begin(); it != inner.end();)
      it = mentions(*c, it->first) ? inner.erase(it) : std::next(it);
  }
  return true;
}

/// Is v set by a top-level statement of f before statement `top` (or a
/// parameter or global that nothing assigns)?
bool setBefore(const Function &f, size_t top, const Var *v) {
  if (v->kind != Var::Local)
    return isStable(v);
  for (size_t s = 0; s < top; ++s) {
    const Stmt &st = *f.body[s];
    if ((st.kind == Stmt::Assign && st.lhs->kind == Expr::VarRef &&
         st.lhs->var == v) ||
        (st.kind == Stmt::Decl && st.var == v && st.rhs))
      return isStable(v);
  }
  return false;
}

/// An integer expression of literals, casts and stable variables, each set
/// before statement `top`.
bool stableCount(const Function &f, size_t top, const ExprP &e) {
  switch (e->kind) {
  case Expr::IntLit:
    return true;
  case Expr::VarRef:
    return e->var->type.isIntScalar() && setBefore(f, top, e->var);
  case Expr::Cast:
    return stableCount(f, top, e->ops[0]);
  case Expr::Binary:
    return (e->text == "+" || e->text == "-" || e->text == "*") &&
           stableCount(f, top, e->ops[0]) && stableCount(f, top, e->ops[1]);
  default:
    return false;
  }
}


/// The local array of requests a name stands for: the array itself, or a
/// pointer only ever assigned that array whole (an inlined helper's
/// `MPI_Request *reqs` parameter); else null.
const Var *requestArray(const Function &f, const Var *v) {
  if (!v->type.dims.empty())
    return v->kind == Var::Local ? v : nullptr;
  if (v->kind != Var::Local || v->type.ptrDepth != 1)
    return nullptr;
  const Var *array = nullptr;
  bool ok = true;
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    bool assigns = (s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef &&
                    s.lhs->var == v) ||
                   (s.kind == Stmt::Decl && s.var == v && s.rhs);
    if (!assigns)
      return;
    const ExprP &r = s.rhs;
    if (s.op != "=" && s.kind == Stmt::Assign)
      ok = false;
    else if (!r || r->kind != Expr::VarRef || r->var->type.dims.empty() ||
             r->var->kind != Var::Local || (array && array != r->var))
      ok = false;
    else
      array = r->var;
  });
  return ok ? array : nullptr;
}

/// A communication call on a swapped buffer: blocking, or a non-blocking
/// start among the top-level statements of the time loop before the copy
/// (statement k), completed before the copy by `MPI_Wait(&r)` /
/// `MPI_Wait(&rs[K])` or `MPI_Waitall(N, rs, ...)` with K < N literals (rs
/// the same array of requests, possibly through pointers that inlined
/// helpers' parameters are assigned).
bool commCompletes(const Function &f, const Stmt &s, const Stmt &time,
                   size_t k) {
  const CommRule &r = *s.comm.rule;
  int req = r.argIndex("request");
  if (!r.starts)
    return req < 0;
  size_t at = k;
  for (size_t j = 0; j < k; ++j)
    if (time.body[j].get() == &s)
      at = j;
  if (at == k || req < 0)
    return false;
  const ExprP &ra = s.comm.args[req];
  if (ra->kind != Expr::AddrOf)
    return false;
  const ExprP &target = ra->ops[0];
  std::string text = printExpr(ra);
  for (size_t m = at + 1; m < k; ++m) {
    const Stmt &w = *time.body[m];
    if (w.kind != Stmt::Comm)
      continue;
    const std::vector<ExprP> &a = w.comm.args;
    if (w.comm.name == "MPI_Wait" && !a.empty() && printExpr(a[0]) == text)
      return true;
    if (w.comm.name == "MPI_Waitall" && a.size() >= 2 &&
        a[0]->kind == Expr::IntLit && target->kind == Expr::Index &&
        target->ops[1]->kind == Expr::IntLit &&
        target->ops[0]->kind == Expr::VarRef && a[1]->kind == Expr::VarRef &&
        (a[1]->var == target->ops[0]->var ||
         (requestArray(f, a[1]->var) &&
          requestArray(f, a[1]->var) == requestArray(f, target->ops[0]->var))) &&
        std::stoll(target->ops[1]->text) < std::stoll(a[0]->text))
      return true;
  }
  return false;
}

/// The region's counterpart of overwriteLoop: the loop nest G of the same
/// step whose adjoint may overwrite dst's adjoint on the region and leave
/// src's adjoint there stale (standing for zero), or null.  After the swap
/// back of the adjoints, dst_b's region holds src_b's old region: zero, or
/// the stale values a later step's gather left.  A gather that gives every
/// element of the region its first term with `=` (Gather.cpp,
/// nestGatherForm: the term of G's own iteration) makes both exact when
///  - G is the only statement of the step that uses src, before the copy,
///    and writes every element of the region and no other (one box, equal
///    to the region), so that the elements the gather leaves stale are
///    the region's, which the next swap back takes into dst_b;
///  - no statement between G and the copy uses dst or an alias of it
///    (their adjoints would add into dst_b before the gather overwrites
///    it), and none after the copy uses src;
///  - the copy records nothing (a kept buffer changes hands on the tape).
/// The zeroing of src_b's region after the time loop (Reverse.cpp,
/// zeroAfter) clears what the last gather left.
const Stmt *regionOverwriteLoop(const Stmt &time, size_t k, const Var *dst,
                                const Var *src,
                                const std::set<const Var *> &dstAliases,
                                const std::vector<ExprP> &strides,
                                const Box &region) {
  for (size_t s = k + 1; s < time.body.size(); ++s)
    if (mentions(*time.body[s], src))
      return nullptr;
  const Stmt *G = nullptr;
  size_t g = 0;
  for (size_t s = 0; s < k; ++s)
    if (mentions(*time.body[s], src)) {
      if (G)
        return nullptr;
      G = time.body[s].get();
      g = s;
    }
  if (!G || G->kind != Stmt::For)
    return nullptr;
  for (size_t s = g + 1; s < k; ++s) {
    if (mentions(*time.body[s], dst))
      return nullptr;
    for (const Var *a : dstAliases)
      if (mentions(*time.body[s], a))
        return nullptr;
  }
  std::map<const Var *, ExprP> env;
  std::vector<Box> boxes;
  if (!writeBoxes(*G, src, strides, {}, env, boxes) || boxes.size() != 1)
    return nullptr;
  const Box &w = boxes[0];
  if (w.lo.size() != region.lo.size())
    return nullptr;
  auto same = [](const Affine &a, const Affine &b) {
    return a.sym == b.sym && a.c == b.c;
  };
  for (size_t d = 0; d < w.lo.size(); ++d)
    if (!same(w.lo[d], region.lo[d]) || !same(w.hi[d], region.hi[d]))
      return nullptr;
  return G;
}

/// Is the copy nest `copy` (statement k of the body of `time`, a statement
/// of the function body at index top) a swappable copy of a region?
bool regionSwappable(Function &f, size_t top, const Stmt &time, size_t k,
                     SwapCopy &out) {
  const Stmt *cur = time.body[k].get();
  Ranges ranges;
  std::set<const Var *> loops;
  std::vector<const Var *> order; // counters, outermost first
  while (cur->kind == Stmt::For) {
    Affine lo, hi;
    if (!countedRange(*cur, lo, hi) || cur->body.size() != 1 ||
        !cur->tapeSet.empty() || order.size() == 3)
      return false;
    ranges[cur->loopVar] = {lo, hi};
    loops.insert(cur->loopVar);
    order.push_back(cur->loopVar);
    cur = cur->body[0].get();
  }
  const Stmt &a = *cur;
  if (order.empty() || a.kind != Stmt::Assign || a.op != "=" ||
      a.lhs->kind != Expr::Index || a.rhs->kind != Expr::Index ||
      a.lhs->ops[0]->kind != Expr::VarRef ||
      a.rhs->ops[0]->kind != Expr::VarRef)
    return false;
  Var *dst = a.lhs->ops[0]->var, *src = a.rhs->ops[0]->var;
  if (dst == src)
    return false;
  bool recordsDst = false;
  for (const Var *t : a.tapeSet) {
    if (t != dst)
      return false;
    recordsDst = true;
  }
  std::vector<ExprP> strides{nullptr}, again{nullptr};
  std::vector<DimVal> dims, rdims;
  if (!decompose(a.lhs->ops[1], 1, strides, true, loops, dims) ||
      !decompose(a.rhs->ops[1], 1, again, true, loops, rdims) ||
      !sameStrides(strides, again) || !sameDims(dims, rdims))
    return false;
  // Each counter is the value of one dimension; the outer loops have the
  // larger strides (the run-time check assumes that order).
  std::set<const Var *> seen;
  for (const DimVal &d : dims)
    if (!d.loop || !seen.insert(d.loop).second)
      return false;
  if (seen.size() != order.size() || dims.size() != order.size())
    return false;
  if (dims[0].loop != order.back())
    return false;
  // Dimension d >= 1 is the loop d levels out of the innermost.
  std::vector<ExprP> sorted{nullptr};
  std::vector<DimVal> sortedDims{dims[0]};
  for (size_t level = 1; level < order.size(); ++level)
    for (size_t d = 1; d < dims.size(); ++d)
      if (dims[d].loop == order[order.size() - 1 - level]) {
        sorted.push_back(strides[d]);
        sortedDims.push_back(dims[d]);
      }
  strides = sorted;
  dims = sortedDims;
  Box region;
  if (!boxOf(dims, dims.size(), ranges, region))
    return false;

  for (Var *p : {dst, src})
    if (p->kind != Var::Local || p->type.ptrDepth != 1 ||
        !p->type.dims.empty() || !p->type.isFloatingElem())
      return false;
  if (dst->type.elem != src->type.elem)
    return false;
  auto completes = [&](const Stmt &s) { return commCompletes(f, s, time, k); };
  // dst may have aliases that helpers' inlined parameters give it; src
  // none (its writes must all be seen below).
  std::set<const Var *> dstAliases, srcAliases;
  if (!windowAliases(f, top, time, k, dst, completes, dstAliases) ||
      !windowAliases(f, top, time, k, src, completes, srcAliases) ||
      !srcAliases.empty() || aliasRoot(f, dst) == aliasRoot(f, src))
    return false;
  // Each allocated once, before the time loop, with the same count.
  ExprP n;
  for (Var *p : {dst, src}) {
    ExprP m;
    for (size_t s = 0; s < top && !m; ++s)
      m = allocationCountExpr(*f.body[s], p);
    if (!m || !stableCount(f, top, m) || (n && printExpr(n) != printExpr(m)))
      return false;
    n = m;
    if (!onlyElementUses(f, p, completes, dstAliases))
      return false;
  }
  for (size_t d = 1; d < strides.size(); ++d) {
    std::set<Var *> vs;
    collectVars(strides[d], vs);
    for (Var *v : vs)
      if (!setBefore(f, top, v))
        return false;
  }
  for (size_t d = 0; d < dims.size(); ++d)
    for (const Affine *x : {&region.lo[d], &region.hi[d]})
      if (x->sym && !setBefore(f, top, x->sym))
        return false;

  Stmt header = time;
  header.body.clear();
  if (mentions(header, src))
    return false;
  // After the copy, around the loop body: src's region is written before
  // any other use of src.
  std::vector<Box> written;
  bool complete = false;
  for (size_t step = 1; step < time.body.size() && !complete; ++step) {
    const Stmt &s = *time.body[(k + step) % time.body.size()];
    if (!mentions(s, src))
      continue;
    std::map<const Var *, ExprP> env;
    if (!writeBoxes(s, src, strides, {}, env, written))
      return false;
    complete = coversBox(written, region, (int)dims.size() - 1);
  }
  if (!complete)
    return false;
  for (size_t s = top + 1; s < f.body.size(); ++s)
    if (mentions(*f.body[s], src) && !isFreeOf(*f.body[s], src))
      return false;
  if (recordsElements(f.body, src))
    return false;

  auto expr = [](const Affine &x) {
    return x.sym ? plusConst(mkVar(const_cast<Var *>(x.sym)), x.c)
                 : mkInt(x.c);
  };
  out.dst = dst;
  out.src = src;
  out.count = n;
  out.timeLoop = &time;
  out.recordsDst = recordsDst;
  if (!recordsDst)
    out.overwrite = regionOverwriteLoop(time, k, dst, src, dstAliases,
                                        strides, region);
  for (size_t d = 0; d < dims.size(); ++d) {
    const Affine &lo = region.lo[d], &hi = region.hi[d];
    ExprP span = hi.sym == lo.sym ? mkInt(hi.c - lo.c)
                 : !lo.sym        ? expr({hi.sym, hi.c - lo.c})
                                  : mkBinary("-", expr(hi), expr(lo));
    out.region.push_back({d ? strides[d] : nullptr,
                          expr(lo), expr(hi), span});
  }
  return true;
}

} // namespace

bool provablyEqualPlus(const ExprP &a, long long k, const ExprP &b) {
  Affine x, y;
  return affine(a, x) && affine(b, y) && x.sym == y.sym && x.c + k == y.c;
}

std::map<const Stmt *, SwapCopy> findSwapCopies(Function &f) {
  std::map<const Stmt *, SwapCopy> out;
  for (size_t top = 0; top < f.body.size(); ++top) {
    const Stmt &time = *f.body[top];
    if (time.kind != Stmt::For || time.checkpoint)
      continue;
    for (size_t k = 0; k < time.body.size(); ++k) {
      SwapCopy sc;
      if (swappable(f, top, time, k, sc) ||
          regionSwappable(f, top, time, k, sc = SwapCopy()))
        out[time.body[k].get()] = sc;
    }
  }
  return out;
}

// --- the code of a region swap ---------------------------------------------

namespace {

ExprP asLong(const ExprP &e) { return mkCast("long long", e, Scalar::Int); }

CType integerType(const char *base) {
  CType t;
  t.elem = Scalar::Int;
  t.base = base;
  return t;
}

/// The number of elements of a row: hi0 - lo0 + 1.
ExprP rowWidth(const SwapCopy &sc) { return plusConst(sc.region[0].span, 1); }

/// a OP b, or null when both are integer literals and it holds.
ExprP unlessTrue(const std::string &op, const ExprP &a, const ExprP &b) {
  if (a->kind == Expr::IntLit && b->kind == Expr::IntLit) {
    long long x = std::stoll(a->text), y = std::stoll(b->text);
    if ((op == "<=" && x <= y) || (op == ">=" && x >= y))
      return nullptr;
  }
  return mkBinary(op, a, b);
}

} // namespace

ExprP rowsDisjoint(const std::vector<SwapDim> &r) {
  ExprP c;
  auto both = [&](const ExprP &x) {
    if (x)
      c = c ? mkBinary("&&", c, x) : x;
  };
  for (const SwapDim &d : r)
    both(unlessTrue("<=", d.lo, d.hi));
  // Rows (and planes) disjoint and in order: each stride at least the
  // extent of what one step of the dimension below spans.
  ExprP extent = plusConst(r[0].span, 1);
  for (size_t d = 1; d < r.size(); ++d) {
    both(mkBinary(">=", r[d].stride, extent));
    extent = mkBinary("+", mul(r[d].span, r[d].stride), extent);
  }
  return c;
}

ExprP regionSwapCondition(const SwapCopy &sc) {
  const std::vector<SwapDim> &r = sc.region;
  ExprP c = rowsDisjoint(r);
  auto both = [&](const ExprP &x) {
    if (x)
      c = c ? mkBinary("&&", c, x) : x;
  };
  ExprP first = r[0].lo, last = r[0].hi;
  for (size_t d = 1; d < r.size(); ++d) {
    first = mkBinary("+", mul(r[d].lo, r[d].stride), first);
    last = mkBinary("+", mul(r[d].hi, r[d].stride), last);
  }
  both(unlessTrue(">=", first, mkInt(0)));
  both(mkBinary("<", asLong(last), asLong(sc.count)));
  return c;
}

Block regionRows(const SwapCopy &sc, const NewVar &newVar, bool backwards,
                 const std::function<Block(const ExprP &, const ExprP &)> &row) {
  const std::vector<SwapDim> &r = sc.region;
  std::vector<Var *> vars(r.size(), nullptr);
  ExprP start = r[0].lo;
  for (size_t d = 1; d < r.size(); ++d) {
    vars[d] = newVar("mpiad_r", integerType("int"));
    start = mkBinary("+", mul(mkVar(vars[d]), r[d].stride), start);
  }
  Block body = row(start, rowWidth(sc));
  for (size_t d = 1; d < r.size(); ++d) {
    StmtP loop =
        backwards ? mkCountedLoop(vars[d], r[d].hi, r[d].lo, true, ">=", body)
                  : mkCountedLoop(vars[d], r[d].lo, r[d].hi, false, "<=", body);
    body = {loop};
  }
  return body;
}

Block exchangeOutsideRegion(const SwapCopy &sc, const NewVar &newVar,
                            const std::vector<std::pair<Var *, Var *>> &pairs,
                            Var *copyInto) {
  Var *at = newVar("mpiad_at", integerType("long long"));
  auto exchange = [&](const ExprP &to) {
    Var *e = newVar("mpiad_e", integerType("long long"));
    Block body;
    for (const auto &[a, b] : pairs) {
      CType t;
      t.elem = a->type.elem;
      t.base = a->type.elemName();
      Var *tmp = newVar("mpiad_t", t);
      body.push_back(mkDecl(tmp, mkIndex(mkVar(a), mkVar(e))));
      body.push_back(mkAssign(mkIndex(mkVar(a), mkVar(e)), "=",
                              mkIndex(mkVar(b), mkVar(e))));
      body.push_back(mkAssign(mkIndex(mkVar(b), mkVar(e)), "=", mkVar(tmp)));
      if (copyInto && a == pairs[0].first)
        body.push_back(
            mkAssign(mkIndex(mkVar(copyInto), mkVar(e)), "=", mkVar(tmp)));
    }
    return mkCountedLoop(e, mkVar(at), to, false, "<", body);
  };
  Block out{mkDecl(at, mkInt(0))};
  append(out, regionRows(sc, newVar, false,
                         [&](const ExprP &start, const ExprP &w) -> Block {
                           return {exchange(start),
                                   mkAssign(mkVar(at), "=",
                                            mkBinary("+", start, w))};
                         }));
  out.push_back(exchange(asLong(sc.count)));
  return {mkCompound(out)};
}

Block zeroRegion(const SwapCopy &sc, const NewVar &newVar, Var *b) {
  return regionRows(sc, newVar, false,
                    [&](const ExprP &start, const ExprP &w) -> Block {
                      Var *e = newVar("mpiad_e", integerType("long long"));
                      return {mkCountedLoop(
                          e, start, mkBinary("+", start, w), false, "<",
                          {mkAssign(mkIndex(mkVar(b), mkVar(e)), "=",
                                    mkInt(0))})};
                    });
}

} // namespace mpiad
