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
// The tape holds one instance of the loop at a time (one atom against one
// neighbour box), in cache; so only a loop inside another loop is re-run.
//
// A counted `for` loop is re-run by a copy of its header; the reversed
// loop counts back as usual:
//
//   for (j = 0; j < n; j++)             for (j = 0; j < n; j++)
//     BODY as written                     BODY recorded, without the stores
//                                       for (j = n - 1; j >= 0; j--)
//                                         reverse of BODY
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
// fills, or a private floating scalar given a new value twice (`r2 = 0.0`
// then `r2 = 1.0 / r2`; accumulations do not count): what the recompute
// of single assignments (Recompute.cpp) cannot give back.  Not for loops
// that communicate, call anything but math functions (the file's own
// record in their forward copies; `rand()` would draw again), leave the
// loop (`break`, `return`) or assign pointers; not
// under --verify, whose checks compare with the forward sweep's values;
// not on the CUDA target.  Loops inside the body (unrolled, lowered to
// `while`) are re-run with it, their trip counts recorded like any value.
// Private: set before read on every path, a walk over the statements
// (C89's `int m;` at the top, then `for (m = 0; ...)`, is private).
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

/// Does e call anything but a math function of the rules table?  The
/// file's functions record in their forward copies, and any other call
/// may have effects of its own that a second run would repeat (`rand()`).
bool callsImpure(const ExprP &e, const Frontend &fe) {
  if (!e)
    return false;
  if (e->kind == Expr::Call && !fe.rules()->math(e->text))
    return true;
  for (const ExprP &o : e->ops)
    if (callsImpure(o, fe))
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
    case Stmt::Comm:
    case Stmt::Return:
    case Stmt::Break:
    case Stmt::Continue:
      ok = false;
      return;
    case Stmt::For:
      ok &= !s.checkpoint && !s.parallel && !s.replicaLoop;
      return;
    case Stmt::Assign:
      ok &= !(s.lhs && s.lhs->ptrDepth > 0);
      break;
    default:
      break;
    }
    ok &= !callsImpure(s.lhs, fe) && !callsImpure(s.rhs, fe) &&
          !callsImpure(s.cond, fe);
  });
  return ok;
}

bool mentions(const Stmt *s, Var *v) {
  if (!s)
    return false;
  std::set<Var *> named;
  referenced({std::make_shared<Stmt>(*s)}, named);
  return named.count(v) > 0;
}
bool mentions(const ExprP &e, Var *v) {
  std::set<Var *> named;
  collectVars(e, named);
  return named.count(v) > 0;
}

/// Does s certainly give v a new value (`v = e`, `double v = e`, in every
/// branch; the header of a `for`)?
bool writes(const Stmt *s, Var *v) {
  if (!s)
    return false;
  switch (s->kind) {
  case Stmt::Assign:
    return s->op == "=" && s->lhs && s->lhs->kind == Expr::VarRef &&
           s->lhs->var == v;
  case Stmt::Decl:
    return s->var == v && s->rhs;
  case Stmt::Compound:
    for (const StmtP &x : s->body)
      if (writes(x.get(), v))
        return true;
    return false;
  case Stmt::If: {
    auto all = [&](const Block &b) {
      for (const StmtP &x : b)
        if (writes(x.get(), v))
          return true;
      return false;
    };
    return all(s->body) && all(s->elseBody);
  }
  case Stmt::For:
    return writes(s->init.get(), v);
  case Stmt::DoWhile:
    for (const StmtP &x : s->body)
      if (writes(x.get(), v))
        return true;
    return false;
  default:
    return false;
  }
}

bool exposed(const Block &b, Var *v);

/// Can s read v before giving it a value, on some path?
bool exposed(const Stmt *s, Var *v) {
  if (!s)
    return false;
  switch (s->kind) {
  case Stmt::Assign:
    return writes(s, v) ? mentions(s->rhs, v) : mentions(s, v);
  case Stmt::Decl:
    return mentions(s->rhs, v);
  case Stmt::Compound:
    return exposed(s->body, v);
  case Stmt::If:
    return mentions(s->cond, v) || exposed(s->body, v) ||
           exposed(s->elseBody, v);
  case Stmt::For:
    return exposed(s->init.get(), v) ||
           (!writes(s->init.get(), v) &&
            (mentions(s->cond, v) || exposed(s->body, v) ||
             mentions(s->step.get(), v)));
  case Stmt::While:
    return mentions(s->cond, v) || exposed(s->body, v);
  case Stmt::DoWhile:
    return exposed(s->body, v) ||
           (!writes(s, v) && mentions(s->cond, v));
  default:
    return mentions(s, v);
  }
}
bool exposed(const Block &b, Var *v) {
  for (const StmtP &s : b) {
    if (exposed(s.get(), v))
      return true;
    if (writes(s.get(), v))
      return false;
  }
  return false;
}

/// Is `target` inside a loop of b?
bool inLoop(const Block &b, const Stmt *target, bool looping) {
  for (const StmtP &s : b) {
    if (s.get() == target)
      return looping;
    bool loop = s->kind == Stmt::For || s->kind == Stmt::While ||
                s->kind == Stmt::DoWhile;
    if (inLoop(s->body, target, looping || loop) ||
        inLoop(s->elseBody, target, looping))
      return true;
  }
  return false;
}

/// Is v given a value before it is read, on every path through `core`
/// (C89's `int m;` at the top, then `for (m = 0; ...)` in the body)?
bool assignedFirst(const Block &core, Var *v) { return !exposed(core, v); }

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
    case Stmt::While:
    case Stmt::DoWhile:
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
  bool counted = loop.kind == Stmt::For && loop.loopStep != 0 &&
                 loop.loopVar && !loop.checkpoint && !loop.parallel &&
                 !loop.replicaLoop && !loop.replicaFill;
  bool lowered = loop.kind == Stmt::While && loop.body.size() >= 2 &&
                 isTail(*loop.body.back());
  if (!counted && !lowered)
    return false;
  Block core(loop.body.begin(), loop.body.end() - (lowered ? 1 : 0));
  if (!runnableAgain(core, fe))
    return false;

  // Private variables (the names outside the loop last: that walk is the
  // whole function's).
  std::set<Var *> outside, inCore, declared;
  referenced(core, inCore);
  walk(core, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Decl)
      declared.insert(s.var);
  });
  // Stores per variable in the core, and plain ones (`v = e`, a declared
  // value): an accumulation `z += e` is not one, so the logistic loss's
  // `z = b; for (k...) z += w[k] * x[k];`, whose recompute costs more than
  // its record (Recompute.cpp), is not re-run.
  std::map<Var *, int> stores, plain;
  walk(core, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Assign)
      if (Var *b = baseVar(s.lhs)) {
        stores[b]++;
        plain[b] += s.op == "=";
      }
    if (s.kind == Stmt::Decl && s.rhs)
      plain[s.var]++;
  });
  auto privates = [&](bool checkOutside) {
    bool worth = false;
    plan.privates.clear();
    for (Var *v : inCore) {
      if ((v->kind != Var::Local && v->kind != Var::Synthetic) ||
          v->fieldOf || v->throughPointer || v->type.ptrDepth > 0 ||
          aliasRoot(F, v) != v || (checkOutside && outside.count(v)))
        continue;
      bool scalar = v->type.dims.empty();
      if (!declared.count(v) && !(scalar && assignedFirst(core, v)))
        continue;
      plan.privates.insert(v);
      if (v->type.isFloatingElem() &&
          (scalar ? plain[v] >= 2 : stores[v] > 0))
        worth = true;
    }
    return worth;
  };
  if (!privates(false))
    return false;
  // The innermost such loop only: re-running a loop around it would
  // compute its iterations a third time, to record nothing.
  bool inner = false;
  walk(core, [&](Stmt &s, const WalkCtx &) {
    RerunPlan p;
    inner |= (s.kind == Stmt::For || s.kind == Stmt::While) &&
             rerunPlan(F, s, fe, p);
  });
  // A loop that runs once per call (not inside another loop) would hold
  // all its iterations' records on the tape at once anyway, recorded or
  // re-run: re-running only adds the recompute.
  if (inner || !inLoop(F.body, &loop, false))
    return false;
  referencedOutside(F.body, &loop, outside);
  if (!privates(true))
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
  if (lowered)
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
