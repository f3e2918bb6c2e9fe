//===- ToBeRecorded.cpp - Which overwritten values the reverse sweep needs -===//
//
// A variable read by the reverse sweep must hold, at each point of the
// reverse sweep, the value it had at the matching point of the forward
// sweep.  A write S to v breaks that only for reads made by the reverse of
// statements that execute before S (the reverse sweep reaches them after
// undoing S), so S pushes v's old value (popped at S's reverse) exactly when
// such a read exists.  Loops are walked twice, so that a read in one
// iteration protects the value against a write in the next.  Loop counters
// of canonical loops are recomputed by the reversed loop, never recorded.
//
// Pointer values and the data they point to are tracked apart: the reverse
// of a stencil reads only the shadow pointers, so swapping buffers records
// two pointers per step and no data.
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
    v->hoisted = (v->kind == Var::Local || v->kind == Var::Synthetic) &&
                 !v->declaredInForInit;
  }
}

namespace {

class Recorder {
public:
  Recorder(Function &f, const std::map<const Stmt *, ReverseReads> &reads,
           const Frontend &fe)
      : f(f), reads(reads), fe(fe) {}

  void block(const Block &b, ReverseReads &R) {
    for (const StmtP &s : b)
      stmt(*s, R);
  }

private:
  Function &f;
  const std::map<const Stmt *, ReverseReads> &reads;
  const Frontend &fe;

  void leaf(Stmt &s, ReverseReads &R) {
    auto it = reads.find(&s);
    if (it != reads.end()) {
      R.ptr.insert(it->second.ptr.begin(), it->second.ptr.end());
      R.data.insert(it->second.data.begin(), it->second.data.end());
    }
    for (const Effect &e : effectsOf(s, fe)) {
      Var *t = e.target;
      if (!t)
        continue;
      bool pointerWrite = e.pointerCopy ||
                          (!e.elementWrite && t->type.ptrDepth > 0);
      bool needed = pointerWrite ? R.ptr.count(t) > 0
                                 : R.data.count(aliasRoot(f, t)) > 0;
      if (needed)
        s.tapeSet.insert(t);
      // A whole-value write ends the live range: earlier reads are now
      // served by this statement's record (or needed none).
      if (pointerWrite)
        R.ptr.erase(t);
      else if (!e.elementWrite && t->type.dims.empty() &&
               t->type.ptrDepth == 0 && !readsItself(s, t))
        R.data.erase(t);
    }
  }

  bool readsItself(const Stmt &s, Var *t) {
    auto it = reads.find(&s);
    return it != reads.end() && it->second.data.count(t);
  }

  static void join(ReverseReads &into, const ReverseReads &from) {
    into.ptr.insert(from.ptr.begin(), from.ptr.end());
    into.data.insert(from.data.begin(), from.data.end());
  }

  void stmt(Stmt &s, ReverseReads &R) {
    switch (s.kind) {
    case Stmt::Assign:
    case Stmt::ExprStmt:
    case Stmt::Comm:
      leaf(s, R);
      return;
    case Stmt::If: {
      ReverseReads a = R, b = R;
      block(s.body, a);
      block(s.elseBody, b);
      join(a, b);
      R = a;
      return;
    }
    case Stmt::For:
    case Stmt::While:
    case Stmt::DoWhile:
      if (s.kind == Stmt::For && s.init && s.init->kind == Stmt::Assign)
        leaf(*s.init, R);
      // To a fixpoint: the head of the loop sees both the state before the
      // loop and the reads of the previous iteration.
      {
        ReverseReads entry = R, head = R;
        for (int pass = 0; pass < 64; ++pass) {
          ReverseReads r = head;
          block(s.body, r);
          if (s.step && s.loopStep == 0)
            leaf(*s.step, r);
          ReverseReads next = entry;
          join(next, r);
          bool same = next.ptr == head.ptr && next.data == head.data;
          head = next;
          if (same)
            break;
        }
        R = head;
      }
      // A checkpointed loop's reverse re-runs steps: it reads what the
      // body reads, at the loop.
      if (s.checkpoint) {
        auto it = reads.find(&s);
        if (it != reads.end())
          join(R, it->second);
      }
      return;
    case Stmt::Compound:
      block(s.body, R);
      return;
    default:
      return;
    }
  }
};

} // namespace

void decideRecording(Function &f,
                     const std::map<const Stmt *, ReverseReads> &reads,
                     const Frontend &fe, const std::set<Var *> &entryData) {
  walk(f.body, [](Stmt &s, const WalkCtx &) { s.tapeSet.clear(); });
  ReverseReads R;
  R.data = entryData;
  Recorder(f, reads, fe).block(f.body, R);
}

} // namespace mpiad
