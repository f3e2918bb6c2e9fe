//===- Rerun.cpp - Iterations of a loop run again in the reverse sweep ----===//
//
// CoMD's force loop visits every pair of atoms and computes, for each,
// values that only that pair uses:
//
//   while (ij < nJBox) {
//     real_t dr[3]; real_t r2 = 0.0;
//     for (int m = 0; m < 3; m++) { dr[m] = r[iOff][m] - r[jOff][m];
//                                   r2 += dr[m] * dr[m]; }
//     if (r2 <= rCut2) { r2 = 1.0 / r2; real_t r6 = s6 * (r2 * r2 * r2);
//                        U[iOff] += ...; ePot += ...; f[iOff][m] -= ...; }
//     ij++; jOff++;
//   }
//
// Recorded as usual, every pair pushes dr[3], r2 twice, r6 and its
// branches: 72 bytes per pair, 68 MB for 2,048 atoms, and the adjoint took
// 9-13 times the primal.  Here the forward sweep runs the loop as the
// program does, and the reverse of each iteration first runs the iteration
// again, recording, without its stores into anything that outlives the
// iteration (U, f, ePot), then pops what it just pushed:
//
//   forward sweep                     reverse sweep
//   n = 0;                            for (n = pop(); n > 0; n--) {
//   while (ij < nJBox) {                jOff--; ij--;       (the tail)
//     BODY as written                   BODY recorded, stores into U, f,
//     n += 1;                                ePot left out  (the slice)
//   }                                   reverse of BODY
//   push(n);                          }
//
// The tape holds one iteration at a time, in cache.
//
// When it is exact.  The slice must compute what the iteration computed:
// it reads the loop's private variables (which it computes itself), values
// the iteration does not write (positions, sizes, the loop's invariants),
// and the counters the tail updates, which the reverse of the tail has just
// restored.  So the body writes nothing the slice reads, apart from the
// tail's counters and the private variables; the values the slice reads
// from outside are the loop's reverse reads (ToBeRecorded.cpp protects them
// from later writes, as it does for the steps of a checkpointed loop).  A
// variable the core writes that outlives the iteration is only ever a
// store target there (`U[iOff] += e`, `ePot += e`, `f[i][m] -= e`, never
// `*=`, never read): the reverse of the core does not read it either, so
// it does not matter that its value in the reverse sweep is the final one.
// Private: a local (not a parameter, global, field or pointer) that nothing
// outside the loop names and that every iteration sets before reading it
// (declared in the body, or assigned first).
//
// When it is worth it.  A private floating array that the iteration
// fills, or a private floating scalar assigned twice: what the recompute
// of single assignments (Recompute.cpp) cannot give back.  Not for loops
// that communicate, call the file's functions (their forward copies
// record), hold `while` loops or assign pointers; not under --verify,
// whose checks compare with the forward sweep's values; not on the CUDA
// target.
//
//===----------------------------------------------------------------------===//
#include "Rerun.h"
#include "Analysis.h"
#include "Frontend.h"
#include "Transform.h"

#include <functional>

namespace mpiad {

namespace {

/// `x += k` / `x -= k` on an integer variable, k an integer literal.
bool isIncrement(const Stmt &s) {
  return s.kind == Stmt::Assign && (s.op == "+=" || s.op == "-=") && s.lhs &&
         s.lhs->kind == Expr::VarRef && s.lhs->var->type.isIntScalar() &&
         s.rhs && s.rhs->kind == Expr::IntLit;
}

bool isTail(const Stmt &s) {
  if (isIncrement(s))
    return true;
  if (s.kind != Stmt::Compound || s.body.empty())
    return false;
  for (const StmtP &x : s.body)
    if (!isIncrement(*x))
      return false;
  return true;
}

bool callsOwnOrUnknown(const ExprP &e, const Frontend &fe) {
  if (!e)
    return false;
  if (e->kind == Expr::Call && fe.callee(e->text))
    return true;
  for (const ExprP &o : e->ops)
    if (callsOwnOrUnknown(o, fe))
      return true;
  return false;
}

/// The base variable an assignment stores into, as its alias root.
Var *storeRoot(Function &F, const Stmt &s) {
  Var *b = s.kind == Stmt::Decl ? s.var : baseVar(s.lhs);
  return b ? aliasRoot(F, b) : nullptr;
}

/// Is the core something the reverse sweep can run again?
bool runnableAgain(const Block &core, const Frontend &fe) {
  bool ok = true;
  walk(core, [&](Stmt &s, const WalkCtx &) {
    switch (s.kind) {
    case Stmt::While:
    case Stmt::DoWhile:
    case Stmt::Comm:
    case Stmt::Return:
    case Stmt::Break:
    case Stmt::Continue:
      ok = false;
      return;
    case Stmt::For:
      ok &= s.loopStep != 0 && !s.checkpoint && !s.parallel &&
            !s.replicaLoop;
      return;
    case Stmt::Assign:
      ok &= !(s.lhs && s.lhs->ptrDepth > 0);
      break;
    default:
      break;
    }
    ok &= !callsOwnOrUnknown(s.lhs, fe) && !callsOwnOrUnknown(s.rhs, fe) &&
          !callsOwnOrUnknown(s.cond, fe);
  });
  return ok;
}

/// Is v set before it is read in every run of `core`: its first statement
/// (in order, at the top level) that names v is `v = e` with no v in e.
bool assignedFirst(const Block &core, Var *v) {
  for (const StmtP &s : core) {
    std::set<Var *> named;
    referenced({s}, named);
    if (!named.count(v))
      continue;
    if (s->kind != Stmt::Assign || s->op != "=" || !s->lhs ||
        s->lhs->kind != Expr::VarRef || s->lhs->var != v)
      return false;
    std::set<Var *> read;
    collectVars(s->rhs, read);
    return !read.count(v);
  }
  return false;
}

/// The statements of the core the slice keeps, before recording: what
/// stores into a private variable, and the control around it.
void sliceReads(Function &F, const Block &b, const std::set<Var *> &priv,
                std::set<Var *> &reads) {
  for (const StmtP &s : b) {
    switch (s->kind) {
    case Stmt::Assign:
    case Stmt::Decl:
      if (priv.count(storeRoot(F, *s))) {
        collectVars(s->rhs, reads);
        if (s->lhs && s->lhs->kind == Expr::Index)
          collectVars(s->lhs, reads);
        if (s->kind == Stmt::Assign && s->op != "=")
          collectVars(s->lhs, reads);
      }
      break;
    case Stmt::If:
    case Stmt::For:
      collectVars(s->cond, reads);
      if (s->init)
        sliceReads(F, {s->init}, priv, reads);
      if (s->step)
        sliceReads(F, {s->step}, priv, reads);
      sliceReads(F, s->body, priv, reads);
      sliceReads(F, s->elseBody, priv, reads);
      break;
    case Stmt::Compound:
      sliceReads(F, s->body, priv, reads);
      break;
    default:
      break;
    }
  }
}

/// What the statements of b read (the targets of their stores apart).
void readsOf(const Block &b, std::set<Var *> &out) {
  for (const StmtP &s : b) {
    collectVars(s->rhs, out);
    collectVars(s->cond, out);
    for (const ExprP &a : s->comm.args)
      collectVars(a, out);
    if (s->lhs && s->lhs->kind == Expr::Index)
      for (size_t k = 1; k < s->lhs->ops.size(); ++k)
        collectVars(s->lhs->ops[k], out);
    if (s->lhs && s->kind == Stmt::Assign && s->op != "=")
      collectVars(s->lhs, out);
    if (s->init)
      readsOf({s->init}, out);
    if (s->step)
      readsOf({s->step}, out);
    readsOf(s->body, out);
    readsOf(s->elseBody, out);
  }
}

/// Drops, from b, the stores into private scalars that nothing reads
/// (`needed` and the slice's other reads), and what is left empty.
bool dropUnread(Block &b, const std::set<Var *> &read,
                const std::set<Var *> &priv) {
  bool changed = false;
  Block out;
  for (const StmtP &s : b) {
    Var *t = s->kind == Stmt::Decl ? s->var
             : s->kind == Stmt::Assign && s->op == "=" && s->lhs &&
                     s->lhs->kind == Expr::VarRef
                 ? s->lhs->var
                 : nullptr;
    if (t && priv.count(t) && t->type.dims.empty() && !read.count(t)) {
      changed = true;
      continue;
    }
    if (s->kind == Stmt::If || s->kind == Stmt::For ||
        s->kind == Stmt::Compound) {
      auto c = std::make_shared<Stmt>(*s);
      changed |= dropUnread(c->body, read, priv);
      changed |= dropUnread(c->elseBody, read, priv);
      if (c->body.empty() && c->elseBody.empty()) {
        changed = true;
        continue;
      }
      out.push_back(c);
      continue;
    }
    out.push_back(s);
  }
  b = out;
  return changed;
}

} // namespace

bool rerunPlan(Function &F, const Stmt &loop, const Frontend &fe,
               RerunPlan &plan) {
  if (loop.kind != Stmt::While || loop.body.size() < 2 ||
      !isTail(*loop.body.back()))
    return false;
  Block core(loop.body.begin(), loop.body.end() - 1);
  if (!runnableAgain(core, fe))
    return false;

  // Private variables.
  std::set<Var *> outside, inCore, declared;
  referencedOutside(F.body, &loop, outside);
  referenced(core, inCore);
  walk(core, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Decl)
      declared.insert(s.var);
  });
  std::map<Var *, int> stores; // assignments per variable in the core
  walk(core, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Assign)
      if (Var *b = baseVar(s.lhs))
        stores[b]++;
  });
  bool worth = false;
  for (Var *v : inCore) {
    if ((v->kind != Var::Local && v->kind != Var::Synthetic) || v->fieldOf ||
        v->throughPointer || v->type.ptrDepth > 0 || aliasRoot(F, v) != v ||
        outside.count(v))
      continue;
    bool scalar = v->type.dims.empty();
    if (!declared.count(v) && !(scalar && assignedFirst(core, v)))
      continue;
    plan.privates.insert(v);
    if (v->type.isFloatingElem() && stores[v] > 0 &&
        (!scalar || stores[v] >= 2))
      worth = true;
  }
  if (!worth)
    return false;

  // What the core writes that outlives the iteration: store targets only.
  bool onlyStored = true;
  walk(core, [&](Stmt &s, const WalkCtx &) {
    for (const Effect &e : effectsOf(s, fe))
      if (e.target) {
        Var *r = aliasRoot(F, e.target);
        if (!plan.privates.count(r))
          plan.written.insert(r);
      }
  });
  walk(core, [&](Stmt &s, const WalkCtx &) {
    std::set<Var *> read;
    collectVars(s.rhs, read);
    collectVars(s.cond, read);
    if (s.lhs && s.lhs->kind == Expr::Index)
      for (size_t k = 1; k < s.lhs->ops.size(); ++k)
        collectVars(s.lhs->ops[k], read);
    if (s.kind == Stmt::Assign && s.op != "=" && s.op != "+=" &&
        s.op != "-=")
      collectVars(s.lhs, read);
    for (Var *v : read)
      if (plan.written.count(aliasRoot(F, v)))
        onlyStored = false;
  });
  if (!onlyStored)
    return false;
  std::set<Var *> reads;
  sliceReads(F, core, plan.privates, reads);
  for (Var *v : reads)
    if (plan.written.count(aliasRoot(F, v)))
      return false;
  plan.core = core;
  plan.tail = {loop.body.back()};
  return true;
}

namespace {

Block sliceOf(Function &F, const Block &recorded, const RerunPlan &plan,
              const Frontend &fe) {
  Block out;
  for (const StmtP &s : recorded) {
    switch (s->kind) {
    case Stmt::ExprStmt: {
      if (s->rhs && s->rhs->kind == Expr::Call &&
          s->rhs->text.rfind("mpiad_push", 0) == 0) {
        out.push_back(s);
        break;
      }
      bool own = false;
      for (const Effect &e : effectsOf(*s, fe))
        own |= e.target && plan.privates.count(aliasRoot(F, e.target));
      if (own)
        out.push_back(s);
      break;
    }
    case Stmt::Assign: {
      Var *r = storeRoot(F, *s);
      if (!r || !plan.written.count(r))
        out.push_back(s);
      break;
    }
    case Stmt::Decl:
      if (!(s->var->hoisted && !s->rhs))
        out.push_back(s);
      break;
    case Stmt::If: {
      auto c = std::make_shared<Stmt>(*s);
      c->body = sliceOf(F, s->body, plan, fe);
      c->elseBody = sliceOf(F, s->elseBody, plan, fe);
      if (!c->body.empty() || !c->elseBody.empty())
        out.push_back(c);
      break;
    }
    case Stmt::For:
    case Stmt::While:
    case Stmt::DoWhile:
    case Stmt::Compound: {
      auto c = std::make_shared<Stmt>(*s);
      c->body = sliceOf(F, s->body, plan, fe);
      if (!c->body.empty())
        out.push_back(c);
      break;
    }
    case Stmt::Comment:
      break;
    default:
      out.push_back(s);
    }
  }
  return out;
}

} // namespace

Block rerunSlice(Function &F, const Block &recorded, const RerunPlan &plan,
                 const Frontend &fe, const std::set<Var *> &needed) {
  Block slice = sliceOf(F, recorded, plan, fe);
  for (bool changed = true; changed;) {
    std::set<Var *> read = needed;
    readsOf(slice, read);
    changed = dropUnread(slice, read, plan.privates);
  }
  return slice;
}

} // namespace mpiad
