//===- ToBeRecorded.cpp - Which overwritten values the reverse sweep needs -===//
//
// A variable read by the reverse sweep must hold, at each point of the
// reverse sweep, the value it had at the matching point of the forward
// sweep.  That holds without recording for stable variables (never
// overwritten); for the others the old value is pushed before each
// assignment and popped at its reverse.  Loop counters of canonical loops are
// recomputed by the reversed loop and never recorded.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

namespace mpiad {

void analyzeToBeRecorded(Function &f, const std::set<Var *> &reverseReads,
                         const Frontend &fe) {
  for (auto &v : f.vars) {
    v->assignCount = 0;
    v->assignedInLoop = false;
  }
  std::set<const Stmt *> skip; // headers of canonical loops
  walk(f.body, [&](Stmt &s, const WalkCtx &ctx) {
    if (s.kind == Stmt::For && s.loopStep != 0) {
      skip.insert(s.step.get());
      if (s.loopVar->declaredInForInit)
        skip.insert(s.init.get());
    }
    if (skip.count(&s))
      return;
    for (const Effect &e : effectsOf(s, fe)) {
      if (!e.target)
        continue;
      e.target->assignCount++;
      if (ctx.loopDepth > 0)
        e.target->assignedInLoop = true;
    }
  });
  for (auto &v : f.vars) {
    v->reverseRead = reverseReads.count(v.get()) > 0;
    bool pointerShadow = v->active && v->type.ptrDepth > 0;
    v->taped = (v->reverseRead || pointerShadow) && !isStable(v.get()) &&
               !(v->declaredInForInit && v->assignCount == 0);
    v->hoisted = (v->kind == Var::Local || v->kind == Var::Synthetic) &&
                 !v->declaredInForInit;
  }
}

} // namespace mpiad
