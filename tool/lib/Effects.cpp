//===- Effects.cpp - What a statement writes, and from what ---------------===//
#include "Analysis.h"

#include <map>

namespace mpiad {

/// Variables whose values flow differentiably into `e` (not indices, not
/// conditions of ?:, not arguments of non-differentiable operations).
static void dataVars(const ExprP &e, std::set<Var *> &out) {
  if (!e)
    return;
  switch (e->kind) {
  case Expr::VarRef:
    out.insert(e->var);
    return;
  case Expr::Index:
    dataVars(e->ops[0], out);
    return;
  case Expr::Cond:
    dataVars(e->ops[1], out);
    dataVars(e->ops[2], out);
    return;
  case Expr::Binary: {
    static const std::set<std::string> noFlow = {"<",  "<=", ">", ">=", "==",
                                                 "!=", "&&", "||", "%"};
    if (noFlow.count(e->text))
      return;
    dataVars(e->ops[0], out);
    dataVars(e->ops[1], out);
    return;
  }
  case Expr::Unary:
    if (e->text == "!")
      return;
    dataVars(e->ops[0], out);
    return;
  case Expr::Opaque:
    return;
  default:
    for (const ExprP &o : e->ops)
      dataVars(o, out);
  }
}

/// Which pointer parameters a callee writes through (directly or through a
/// local pointer copied from the parameter).
const std::vector<bool> &writtenParams(const Function *cf, const Frontend &fe) {
  static std::map<const Function *, std::vector<bool>> cache;
  auto it = cache.find(cf);
  if (it != cache.end())
    return it->second;
  std::vector<bool> result(cf->params.size(), false);
  std::map<const Var *, const Var *> copyOf; // local pointer -> param
  std::set<const Var *> targets;
  walk(cf->body, [&](Stmt &s, const WalkCtx &) {
    for (const Effect &e : effectsOf(s, fe)) {
      if (!e.target)
        continue;
      if (e.pointerCopy)
        for (Var *d : e.data)
          copyOf[e.target] = copyOf.count(d) ? copyOf[d] : d;
      else if (e.elementWrite)
        targets.insert(copyOf.count(e.target) ? copyOf[e.target] : e.target);
    }
  });
  for (size_t k = 0; k < cf->params.size(); ++k)
    result[k] = targets.count(cf->params[k]) > 0;
  return cache[cf] = result;
}

std::vector<Effect> effectsOf(const Stmt &s, const Frontend &fe) {
  std::vector<Effect> out;
  auto callEffects = [&](const ExprP &call, Var *result) {
    // A call to a user function writes through its non-const pointer
    // arguments and its result, from all its arguments.
    Function *cf = fe.callee(call->text);
    Effect base;
    for (const ExprP &a : call->ops) {
      dataVars(a, base.data);
      collectVars(a, base.reads);
    }
    if (result) {
      Effect e = base;
      e.target = result;
      out.push_back(e);
    }
    if (!cf)
      return;
    const std::vector<bool> &written = writtenParams(cf, fe);
    for (size_t i = 0; i < call->ops.size() && i < cf->params.size(); ++i) {
      const CType &pt = cf->params[i]->type;
      if (pt.ptrDepth > 0 && !pt.isConst && written[i]) {
        if (Var *t = baseVar(call->ops[i])) {
          Effect e = base;
          e.target = t;
          e.elementWrite = true;
          out.push_back(e);
        }
      }
    }
  };
  switch (s.kind) {
  case Stmt::Decl:
  case Stmt::Assign: {
    ExprP lhs = s.kind == Stmt::Decl ? mkVar(s.var) : s.lhs;
    ExprP rhs = s.rhs;
    if (!rhs)
      break;
    Var *t = baseVar(lhs);
    if (rhs->kind == Expr::Call && fe.callee(rhs->text)) {
      callEffects(rhs, t);
      if (lhs->kind != Expr::VarRef && !out.empty()) {
        out.front().elementWrite = true;
        out.front().wholeWrite = s.replicaFill;
        collectVars(lhs, out.front().reads);
      }
      break;
    }
    Effect e;
    e.target = t;
    dataVars(rhs, e.data);
    collectVars(rhs, e.reads);
    if (lhs->kind != Expr::VarRef) {
      e.elementWrite = true;
      // `z[r] = e` over all replicas (Stmt::replicaFill) defines all of z.
      e.wholeWrite = s.replicaFill;
      std::set<Var *> idx;
      collectVars(lhs, idx);
      idx.erase(t);
      e.reads.insert(idx.begin(), idx.end());
    }
    if (s.op == "+=" || s.op == "-=" || (s.op != "=" && s.kind == Stmt::Assign)) {
      if (t) {
        e.data.insert(t);
        e.reads.insert(t);
      }
    }
    if (lhs->ptrDepth > 0 && (lhs->kind == Expr::VarRef ||
                              (t && t->type.ptrDepth >= 2))) {
      if (lhs->kind == Expr::VarRef)
        e.pointerCopy = true;
      else
        e.rowPointer = true; // a[i] = &block[i * n]
      if (rhs->kind == Expr::Call || (rhs->kind == Expr::Cast &&
                                      rhs->ops[0]->kind == Expr::Call))
        e.data.clear(); // malloc / calloc: fresh storage
    }
    out.push_back(e);
    break;
  }
  case Stmt::ExprStmt:
    if (s.rhs && s.rhs->kind == Expr::Call)
      callEffects(s.rhs, nullptr);
    break;
  case Stmt::Comm: {
    const CommRule *r = s.comm.rule;
    std::set<Var *> sendData, allReads;
    std::string comm;
    for (size_t i = 0; i < r->args.size(); ++i) {
      const ExprP &a = s.comm.args[i];
      collectVars(a, allReads);
      if (r->args[i].role == CommArg::Comm)
        comm = a->text;
      if (r->args[i].role == CommArg::Buffer && r->args[i].read)
        if (Var *v = baseVar(a))
          sendData.insert(v);
      // MPI_IN_PLACE: the aliased buffer is the input.
      auto ip = r->inPlace.find(r->args[i].name);
      if (ip != r->inPlace.end() && a->kind == Expr::Opaque &&
          a->text == "MPI_IN_PLACE")
        if (Var *v = baseVar(s.comm.args[r->argIndex(ip->second)]))
          sendData.insert(v);
    }
    for (size_t i = 0; i < r->args.size(); ++i) {
      const CommArg &a = r->args[i];
      if (!a.write)
        continue;
      Var *t = baseVar(s.comm.args[i]);
      if (!t)
        continue;
      Effect e;
      e.target = t;
      e.comm = comm;
      // Through a pointer or into an array the call writes elements (a
      // buffer, a status array, MPI_Waitsome's indices), never the pointer.
      e.elementWrite = t->type.ptrDepth > 0 || !t->type.dims.empty();
      // `MPI_Bcast(buf, ...)` on a bare array: the call defines the buffer
      // (taken to be the whole array) anew.
      // Not through a derived datatype, whose layout may skip elements.
      int dt = a.role == CommArg::Buffer ? r->argIndex(a.datatype) : -1;
      bool derived = dt >= 0 && s.comm.args[dt]->derivedDatatype;
      e.wholeWrite = a.role == CommArg::Buffer && e.elementWrite &&
                     s.comm.args[i]->kind == Expr::VarRef && !derived;
      e.reads = allReads;
      if (a.role == CommArg::Buffer) {
        e.data = sendData;
        e.commSend = true;
      }
      auto it = r->resultReplication.find(a.name);
      if (it != r->resultReplication.end())
        e.commResult = it->second == "replicated" ? "replicated" : "varying";
      else if (a.role == CommArg::Status)
        e.commResult = "varying"; // what this rank received, and from whom
      out.push_back(e);
    }
    break;
  }
  default:
    break;
  }
  return out;
}

static void walkBlock(const Block &b,
                      const std::function<void(Stmt &, const WalkCtx &)> &fn,
                      const WalkCtx &ctx) {
  for (const StmtP &s : b) {
    fn(*s, ctx);
    WalkCtx inner = ctx;
    switch (s->kind) {
    case Stmt::If:
      collectVars(s->cond, inner.controlVars);
      walkBlock(s->body, fn, inner);
      walkBlock(s->elseBody, fn, inner);
      break;
    case Stmt::For:
    case Stmt::While:
    case Stmt::DoWhile:
      collectVars(s->cond, inner.controlVars);
      inner.loopDepth++;
      if (s->init)
        fn(*s->init, ctx);
      if (s->step) {
        // `i++, j--`: a block of steps (only before normalization, which
        // turns such a loop into a while loop)
        if (s->step->kind == Stmt::Compound)
          walkBlock(s->step->body, fn, inner);
        else
          fn(*s->step, inner);
      }
      walkBlock(s->body, fn, inner);
      break;
    case Stmt::Compound:
      walkBlock(s->body, fn, ctx);
      break;
    default:
      break;
    }
  }
}

void walk(const Block &b, const std::function<void(Stmt &, const WalkCtx &)> &fn,
          WalkCtx ctx) {
  walkBlock(b, fn, ctx);
}

std::set<Var *> assignedIn(const Block &b, const Frontend &fe) {
  std::set<Var *> out;
  walk(b, [&](Stmt &s, const WalkCtx &) {
    for (const Effect &e : effectsOf(s, fe))
      if (e.target)
        out.insert(e.target);
  });
  return out;
}

Var *aliasRoot(Function &f, Var *v) {
  while (v->aliasRoot >= 0 && f.vars[v->aliasRoot].get() != v)
    v = f.vars[v->aliasRoot].get();
  return v;
}

static bool anyBufferActive(const Stmt &st) {
  for (size_t i = 0; i < st.comm.args.size(); ++i)
    if (st.comm.rule->args[i].role == CommArg::Buffer)
      if (Var *b = baseVar(st.comm.args[i]))
        if (b->active)
          return true;
  return false;
}

bool pointToPointActive(const Block &body) {
  bool on = false;
  walk(body, [&](Stmt &st, const WalkCtx &) {
    if (st.kind == Stmt::Comm && st.comm.rule->pointToPoint)
      on |= anyBufferActive(st);
  });
  return on;
}

/// Nesting of groupstart/groupend calls: nested blocks see the depth of
/// the statement that holds them.
static void groupWalk(const Block &b, int depth, std::set<const Stmt *> &out,
                      std::set<const Stmt *> &inside) {
  for (const StmtP &s : b) {
    if (s->kind == Stmt::Comm) {
      const CommRule &r = *s->comm.rule;
      if (r.groupStart)
        ++depth;
      else if (r.groupEnd)
        depth = depth > 0 ? depth - 1 : 0;
      else if (r.inGroup && depth == 0)
        out.insert(s.get());
      else if (!r.inGroup && depth > 0)
        inside.insert(s.get());
      continue;
    }
    groupWalk(s->body, depth, out, inside);
    groupWalk(s->elseBody, depth, out, inside);
  }
}

std::set<const Stmt *> ungroupedCalls(const Block &body) {
  std::set<const Stmt *> out, inside;
  groupWalk(body, 0, out, inside);
  return out;
}

std::set<const Stmt *> groupedOthers(const Block &body) {
  std::set<const Stmt *> out, inside;
  groupWalk(body, 0, out, inside);
  return inside;
}

std::string ncclGroupingError(const Stmt &s, const Block &body,
                              NcclGroups &groups) {
  const CommRule &r = *s.comm.rule;
  if (!r.inGroup && !r.groupStart && !r.groupEnd) {
    if (!groups.grouped)
      groups.grouped =
          std::make_shared<std::set<const Stmt *>>(groupedOthers(body));
    if (groups.grouped->count(&s))
      return "'" + s.comm.name +
             "' carries derivatives inside a group "
             "(ncclGroupStart()/ncclGroupEnd()): its adjoint and tangent run "
             "kernels between collectives, which the group would defer to its "
             "end; move the call out of the group";
  }
  if (r.inGroup) {
    if (!groups.ungrouped)
      groups.ungrouped =
          std::make_shared<std::set<const Stmt *>>(ungroupedCalls(body));
    if (groups.ungrouped->count(&s))
      return "'" + s.comm.name +
             "' carries derivatives outside a group: its reverse (and its "
             "tangent) completes at the end of the reversed group; put the "
             "call between ncclGroupStart() and ncclGroupEnd()";
  }
  return "";
}

bool startsActive(const Block &body) {
  bool p2p = pointToPointActive(body), on = false;
  walk(body, [&](Stmt &st, const WalkCtx &) {
    if (st.kind == Stmt::Comm && st.comm.rule->starts)
      on |= (st.comm.rule->pointToPoint && p2p) || anyBufferActive(st);
  });
  return on;
}

std::string mainComm(const Function &f) {
  for (const Var *p : f.params)
    if (p->type.base == "MPI_Comm" && p->type.ptrDepth == 0)
      return p->name;
  return "MPI_COMM_WORLD";
}

bool isStable(const Var *v) {
  if (v->kind == Var::Param)
    return v->assignCount == 0;
  if (v->kind == Var::Global)
    return v->assignCount == 0;
  return v->assignCount <= 1 && !v->assignedInLoop;
}

std::string derivedDatatypeError(const CommRule &r, const CommArg &a,
                                 const Expr &arg, const std::string &call) {
  if (!arg.derivedDatatype || r.derived.count(a.name))
    return "";
  return "derived datatype '" + arg.text + "' in " + call +
         " on values that carry derivatives is not supported; copy the "
         "elements into a contiguous buffer and use MPI_DOUBLE (derived "
         "datatypes are taken by the point-to-point calls, MPI_Bcast, "
         "MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v) and "
         "MPI_Alltoall(v))";
}

} // namespace mpiad
