//===- Activity.cpp - Varied and useful variables -------------------------===//
//
// A variable is active when it depends differentiably on an independent
// (varied) and an output depends on it (useful).  Only active variables get
// adjoints.  Pointer locals that point into an array share its activity.
// The analysis is flow-insensitive: one answer per variable.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

#include <algorithm>

namespace mpiad {

namespace {

bool named(const std::vector<std::pair<std::string, clang::SourceLocation>> &l,
           const std::string &n) {
  return std::any_of(l.begin(), l.end(),
                     [&](const auto &p) { return p.first == n; });
}

void unite(Function &f, Var *a, Var *b) {
  Var *ra = aliasRoot(f, a), *rb = aliasRoot(f, b);
  if (ra != rb)
    rb->aliasRoot = ra->id;
}

/// Calls to functions that are neither defined here nor math rules, with a
/// varied value flowing in: we know no derivative for them.
void checkExternalCalls(const ExprP &e, Function &f, const Frontend &fe,
                        const RuleSet *rules, Diag &diag,
                        bool resultUsed = true) {
  if (!e)
    return;
  for (const ExprP &o : e->ops)
    checkExternalCalls(o, f, fe, rules, diag);
  if (e->kind != Expr::Call || fe.callee(e->text))
    return;
  if (rules && rules->math(e->text))
    return;
  static const std::set<std::string> sizeOnly = {"malloc", "calloc", "free"};
  if (sizeOnly.count(e->text))
    return;
  for (const ExprP &a : e->ops) {
    // A call whose result is discarded (printf("%g", loss)) only reads its
    // by-value arguments: nothing flows back.  Pointers to active data could
    // be written through.
    if (!resultUsed && a->ptrDepth == 0)
      continue;
    std::set<Var *> vs;
    collectVars(a, vs);
    for (Var *v : vs)
      if (aliasRoot(f, v)->varied && v->type.isFloatingElem()) {
        if (e->text.rfind("nccl", 0) == 0) {
          diag.error(e->loc,
                     "'" + e->text + "' has no rule (its buffer depends on '" +
                         v->userName +
                         "'); the NCCL calls with rules in rules/nccl.rules "
                         "are ncclAllReduce, ncclBroadcast, ncclBcast, "
                         "ncclReduce, ncclAllGather, ncclReduceScatter, and "
                         "ncclSend and ncclRecv in groups; for another, "
                         "add a comm rule (docs/rules.md) or use its MPI "
                         "counterpart on the device buffers");
          return;
        }
        diag.error(e->loc, "no derivative known for external function '" +
                               e->text + "' (its argument depends on '" +
                               v->userName +
                               "'); add a math rule to rules/ or define the "
                               "function in this file");
        return;
      }
  }
}

} // namespace

void analyzeActivity(Function &f, const Request &req, const Frontend &fe,
                     Diag &diag) {
  for (auto &v : f.vars)
    v->aliasRoot = v->id;

  struct Flow {
    Effect e;
    Stmt *s;
  };
  std::vector<Flow> flows;
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    for (Effect &e : effectsOf(s, fe)) {
      if (e.pointerCopy && e.target)
        for (Var *d : e.data)
          if (d->type.ptrDepth > 0 || !d->type.dims.empty())
            unite(f, e.target, d);
      flows.push_back({e, &s});
    }
  });

  // Point-to-point messages carry data from one rank's send buffer to
  // another rank's receive buffer, written by a different statement: every
  // receive buffer of the function depends on every send buffer.
  {
    std::set<Var *> sends, recvs;
    walk(f.body, [&](Stmt &s, const WalkCtx &) {
      if (s.kind != Stmt::Comm || !s.comm.rule->pointToPoint)
        return;
      const CommRule &r = *s.comm.rule;
      for (size_t i = 0; i < r.args.size(); ++i)
        if (r.args[i].role == CommArg::Buffer)
          if (Var *b = baseVar(s.comm.args[i])) {
            if (r.args[i].read)
              sends.insert(b);
            if (r.args[i].write)
              recvs.insert(b);
          }
    });
    for (Var *rv : recvs) {
      Effect e;
      e.target = rv;
      e.data = sends;
      e.elementWrite = true;
      flows.push_back({e, nullptr});
    }
  }

  // Seeds.
  for (size_t k = 0; k < f.params.size(); ++k) {
    Var *p = f.params[k];
    if (req.topLevel) {
      p->varied = named(req.ann.wrt, p->userName);
      p->useful = named(req.ann.outputs, p->userName);
    } else {
      bool on = k < req.activeParams.size() && req.activeParams[k];
      p->varied = on;
      p->useful = on && p->type.ptrDepth > 0 && !p->type.isConst;
    }
  }
  if (f.retVar) {
    if (req.topLevel)
      f.retVar->useful = req.ann.outputs.empty()
                             ? f.ret.isFloatingScalar()
                             : named(req.ann.outputs, "return");
    else
      f.retVar->useful = req.activeReturn;
  }
  auto root = [&](Var *v) { return aliasRoot(f, v); };
  for (auto &v : f.vars) {
    Var *r = root(v.get());
    r->varied |= v->varied;
    r->useful |= v->useful;
  }
  // Fixpoints: varied forward, useful backward.
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Flow &fl : flows) {
      Var *t = fl.e.target ? root(fl.e.target) : nullptr;
      bool anyVaried = false;
      for (Var *d : fl.e.data)
        anyVaried |= root(d)->varied && !d->userInactive;
      if (t && anyVaried && !t->varied && !fl.e.target->userInactive) {
        t->varied = changed = true;
      }
      if (t && t->useful && !fl.e.target->userInactive)
        for (Var *d : fl.e.data)
          if (!root(d)->useful) {
            root(d)->useful = changed = true;
          }
    }
  }
  newActivityEpoch(); // the `active` flags change: drop cached answers
  for (auto &v : f.vars) {
    Var *r = root(v.get());
    v->varied = r->varied;
    v->useful = r->useful;
    v->active = v->varied && v->useful && v->type.isFloatingElem() &&
                !v->userInactive;
    if (v->active && (v->type.ptrDepth > 1 ||
                      (v->type.ptrDepth > 0 && !v->type.dims.empty() &&
                       !v->type.ptrToArray))) {
      diag.error(v->loc, "'" + v->userName +
                             "' holds pointers to values that carry "
                             "derivatives (pointer to pointer or array of "
                             "pointers); not supported");
      v->active = false;
    }
  }

  // Errors that activity reveals.
  for (const Flow &fl : flows) {
    if (!fl.s)
      continue; // cross-rank message flows
    bool anyVaried = false;
    for (Var *d : fl.e.data)
      anyVaried |= d->varied && d->type.isFloatingElem();
    if (!fl.e.target && anyVaried && fl.s->kind == Stmt::Assign)
      diag.error(fl.s->loc, "assignment of a value that carries derivatives "
                            "to a struct field or other opaque location is "
                            "not supported");
    if (fl.e.target && fl.e.target->kind == Var::Global && anyVaried)
      diag.error(fl.s->lhs && fl.s->lhs->loc.isValid() ? fl.s->lhs->loc
                                                       : fl.s->loc,
                 "global variable '" + fl.e.target->userName +
                                "' would carry derivatives; pass it as a "
                                "parameter instead");
  }
  // A pointer variable holding the address of a floating scalar (`double *v
  // = &s;`) would be a second name for s that the analyses do not follow
  // (they follow pointers into arrays, not into scalars): refuse.
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    Var *t = s.kind == Stmt::Decl ? s.var
             : s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::VarRef
                 ? s.lhs->var
                 : nullptr;
    if (!t || t->type.ptrDepth == 0 || !s.rhs)
      return;
    const Var *addr = nullptr;
    visitExpr(s.rhs, [&](const Expr &e) {
      if (!addr && e.kind == Expr::AddrOf && e.ops[0]->kind == Expr::VarRef &&
          e.ops[0]->var->type.isFloatingScalar())
        addr = e.ops[0]->var;
    });
    if (addr)
      diag.error(s.loc, "pointer '" + t->userName + "' is set to the address "
                        "of the scalar '" + addr->userName +
                        "'; the analyses do not follow pointers to scalars: "
                        "use '" + addr->userName + "' directly, or make it a "
                        "one-element array (double " + addr->userName +
                        "[1])");
  });
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Assign || s.kind == Stmt::ExprStmt ||
        s.kind == Stmt::Decl) {
      Var *t = s.kind == Stmt::Assign ? baseVar(s.lhs) : s.var;
      if (s.kind == Stmt::ExprStmt)
        checkExternalCalls(s.rhs, f, fe, fe.rules(), diag, false);
      else if (t && t->active)
        checkExternalCalls(s.rhs, f, fe, fe.rules(), diag);
    }
  });
  if (!req.topLevel)
    return;
  for (Var *p : f.params) {
    if (p->active && p->type.ptrDepth > 0 &&
        !named(req.ann.wrt, p->userName) &&
        !named(req.ann.outputs, p->userName) &&
        !named(req.ann.scratch, p->userName))
      diag.error(p->loc, "parameter '" + p->userName +
                             "' carries derivatives but has no shadow; add it "
                             "to wrt(...) or output(...), or to scratch(...) "
                             "if it is a work array whose contents on entry "
                             "and exit do not matter");
  }
  // wrt parameters written by the function must also be outputs.
  for (const Flow &fl : flows) {
    Var *t = fl.e.target;
    if (fl.s && t && t->kind == Var::Param && t->type.ptrDepth > 0 && t->active &&
        fl.e.elementWrite && named(req.ann.wrt, t->userName) &&
        !named(req.ann.outputs, t->userName)) {
      diag.error(fl.s->loc, "wrt parameter '" + t->userName +
                                "' is overwritten here; list it in "
                                "output(...) as well (updated in place)");
      break;
    }
  }
}

} // namespace mpiad
