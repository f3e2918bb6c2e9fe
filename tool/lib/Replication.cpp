//===- Replication.cpp - Replicated or varying over the communicator ------===//
//
// DESIGN.md section 2.  A value is replicated when it is provably equal on
// every rank: constants, replicated(...) inputs, results of rules marked
// `result ... replicated` (Allreduce), and values computed only from
// replicated values under replicated control.  Everything else varies.
//
// The adjoint of a replicated variable is kept in one of two forms:
//   exact:   every rank holds dJ/dv (all contributions came from replicated
//            code, computed identically everywhere);
//   partial: every rank holds its own share; dJ/dv is the sum over ranks.
// A replicated variable read by rank-varying code (or sent through a
// reduction) gets partial contributions, so it is partial; partial-ness
// flows back through replicated assignments and calls.  Partial adjoints are
// summed over ranks only where an exact value is needed (the adjoint of an
// Allreduce, the gradient of a replicated input), in one fused call.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

#include <algorithm>

namespace mpiad {

void analyzeReplication(Function &f, const Request &req, const Frontend &fe,
                        Diag &diag) {
  (void)diag;
  if (req.perRank || !req.topLevel) {
    // Everything varies: callees are differentiated per rank (they contain
    // no active communication), per_rank semantics treats all as varying.
    for (auto &v : f.vars) {
      v->replicated = false;
      v->partial = false;
    }
    return;
  }
  for (auto &v : f.vars) {
    v->replicated = true;
    v->partial = false;
    if (v->kind == Var::Global)
      v->replicated = false;
  }
  for (Var *p : f.params)
    p->replicated = std::any_of(
        req.ann.replicated.begin(), req.ann.replicated.end(),
        [&](const auto &r) { return r.first == p->userName; });

  struct Flow {
    Effect e;
    std::set<Var *> control;
    bool call;
  };
  std::vector<Flow> flows;
  walk(f.body, [&](Stmt &s, const WalkCtx &ctx) {
    bool isCall = (s.kind == Stmt::ExprStmt || s.kind == Stmt::Assign) &&
                  s.rhs && s.rhs->kind == Expr::Call && fe.callee(s.rhs->text);
    for (Effect &e : effectsOf(s, fe))
      flows.push_back({e, ctx.controlVars, isCall});
  });
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Flow &fl : flows) {
      Var *t = fl.e.target;
      if (!t || !t->replicated)
        continue;
      bool varying = false;
      for (Var *c : fl.control)
        varying |= !c->replicated;
      if (fl.e.commResult)
        varying |= std::string(fl.e.commResult) == "varying";
      else
        for (Var *r : fl.e.reads)
          varying |= !r->replicated;
      if (varying) {
        t->replicated = false;
        changed = true;
      }
    }
  }
  // An output that varies although the function reduces over ranks is
  // usually an input the user forgot to list in replicated(...): say which.
  if (f.retVar && !f.retVar->replicated && f.retVar->useful) {
    bool reduces = false;
    for (const Flow &fl : flows)
      reduces |= fl.e.commResult && std::string(fl.e.commResult) == "replicated";
    std::set<Var *> seen = {f.retVar}, work = {f.retVar};
    while (!work.empty()) {
      Var *v = *work.begin();
      work.erase(work.begin());
      for (const Flow &fl : flows) {
        if (fl.e.target != v)
          continue;
        std::set<Var *> src = fl.control;
        if (!fl.e.commResult)
          src.insert(fl.e.reads.begin(), fl.e.reads.end());
        for (Var *x : src)
          if (!x->replicated && seen.insert(x).second)
            work.insert(x);
      }
    }
    std::string why;
    for (Var *p : f.params)
      if (seen.count(p))
        why += (why.empty() ? "'" : ", '") + p->userName + "'";
    if (reduces && !why.empty())
      diag.warning(req.ann.loc,
                   "the result of '" + f.name + "' varies across ranks "
                   "because it depends on " + why + ", not listed in "
                   "replicated(...); the objective sums it over ranks");
  }

  // Pointer aliases share the replication of their storage.
  for (auto &v : f.vars)
    if (!v->replicated)
      aliasRoot(f, v.get())->replicated = false;
  for (auto &v : f.vars)
    v->replicated = aliasRoot(f, v.get())->replicated;

  // Adjoint forms.
  auto mark = [&](Var *v) {
    if (v && v->active && v->replicated && !v->partial) {
      v->partial = true;
      changed = true;
    }
  };
  changed = true;
  while (changed) {
    changed = false;
    for (const Flow &fl : flows) {
      Var *t = fl.e.target;
      if (!t || !t->active)
        continue;
      if (fl.call) {
        // One call: all replicated arguments share one form.
        bool anyPartial = !t->replicated || t->partial;
        for (Var *d : fl.e.data)
          anyPartial |= d->active && d->replicated && d->partial;
        if (anyPartial) {
          mark(t);
          for (Var *d : fl.e.data)
            mark(d);
        }
        continue;
      }
      if (!t->replicated || t->partial || fl.e.commSend)
        for (Var *d : fl.e.data)
          mark(d);
    }
  }
}

} // namespace mpiad
