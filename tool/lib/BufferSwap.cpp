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

namespace {

/// An integer value `sym + c` (sym null for a constant).
struct Affine {
  const Var *sym = nullptr;
  long long c = 0;
};

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

bool isFreeOf(const Stmt &s, const Var *v) {
  return s.kind == Stmt::ExprStmt && s.rhs->kind == Expr::Call &&
         s.rhs->text == "free" && s.rhs->ops.size() == 1 &&
         s.rhs->ops[0]->kind == Expr::VarRef && s.rhs->ops[0]->var == v;
}

bool hasJump(const Block &b) {
  bool found = false;
  walk(b, [&](Stmt &s, const WalkCtx &) {
    found |= s.kind == Stmt::Break || s.kind == Stmt::Continue ||
             s.kind == Stmt::Return;
  });
  return found;
}

/// The number of elements of `p = malloc(N * sizeof(T))` / calloc(N,
/// sizeof(T)), as an affine value.
bool allocationCount(const Stmt &s, const Var *p, Affine &n) {
  if (s.kind != Stmt::Assign || s.op != "=" || s.lhs->kind != Expr::VarRef ||
      s.lhs->var != p)
    return false;
  ExprP call = allocationCall(s.rhs);
  if (!call)
    return false;
  std::string elem = p->type.elemName();
  auto isSize = [&](const ExprP &e) {
    if (e->kind != Expr::Opaque)
      return false;
    std::string t = e->text;
    return t == "sizeof(" + elem + ")" || t == "sizeof *" + p->userName ||
           t == "sizeof(*" + p->userName + ")";
  };
  if (call->text == "calloc" && call->ops.size() == 2 && isSize(call->ops[1]))
    return affine(call->ops[0], n);
  if (call->text == "malloc" && call->ops.size() == 1) {
    const ExprP &m = call->ops[0];
    if (m->kind != Expr::Binary || m->text != "*")
      return false;
    if (isSize(m->ops[1]))
      return affine(m->ops[0], n);
    if (isSize(m->ops[0]))
      return affine(m->ops[1], n);
  }
  return false;
}

/// Only `p[k]` (not under &), one assignment of p (the allocation) and
/// free(p) use p.
bool onlyElementUses(const Function &f, const Var *p) {
  bool ok = true;
  int assignments = 0;
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (isFreeOf(s, p))
      return;
    if (s.kind == Stmt::Decl && s.var == p && s.rhs)
      ok = false;
    if (s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef &&
        s.lhs->var == p) {
      ++assignments; // the allocation, checked by allocationCount
      return;
    }
    // Nested blocks are visited by walk itself: look at this statement's
    // own expressions only.
    Stmt own = s;
    own.body.clear();
    own.elseBody.clear();
    visitExprs(own, [&](const Expr &e, const Expr *parent) {
      for (const Var *x : e.vars)
        if (x == p && e.text.rfind("sizeof", 0) != 0)
          ok = false;
      if (e.kind != Expr::VarRef || e.var != p)
        return;
      if (!parent || parent->kind != Expr::Index || parent->ops[0].get() != &e)
        ok = false;
    });
    // &p[k]
    visitExprs(own, [&](const Expr &e, const Expr *) {
      if (e.kind == Expr::AddrOf && isElementOf(e.ops[0], p))
        ok = false;
    });
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
      if (swappable(f, top, time, k, sc))
        out[time.body[k].get()] = sc;
    }
  }
  return out;
}

} // namespace mpiad
