//===- ToBeRecorded.cpp - Which overwritten values the reverse sweep needs -===//
//
// A variable read by the reverse sweep must hold, at each point of the
// reverse sweep, the value it had at the matching point of the forward
// sweep.  A write S to v breaks that only for reads made by the reverse of
// statements that execute before S (the reverse sweep reaches them after
// undoing S), so S pushes v's old value (popped at S's reverse) exactly when
// such a read exists.  A read in one iteration of a loop protects the value
// against a write in the next: the state at the head of a loop is the state
// before it plus everything its body adds.  Loop counters of canonical loops
// are recomputed by the reversed loop, never recorded, and the body's reads
// of the counter do not reach outside the loop.
//
// The state is a pair of sets, and each statement maps it to
// (R \ kill) ∪ gen (reads add, whole-value writes remove).  The fixpoint at a
// loop's head is therefore R ∪ gen(body), reached after one pass; the gen of
// each loop is computed once, bottom-up, and the recording walk visits each
// statement once.  (Walking each body to a fixpoint inside each pass over
// its parent took 2^depth walks.)
//
// Pointer values and the data they point to are tracked apart: the reverse
// of a stencil reads only the shadow pointers, so swapping buffers records
// two pointers per step and no data.
//
// An array is one value, so a store into one element ends no live range,
// with one exception: the loop over replicas of a batched function
// (Replicas.cpp) that assigns `z[r] = ...` for every r of a per-replica
// scalar stored as [R] replaces all of z, like a whole-value write.  Its
// elements are recorded at that store when needed, and the stores into z
// after it (`z[r] += ...` in the loops that follow) need no record for the
// reads before it.
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

  /// What a statement does to the state: R -> (R \ kill) ∪ gen.
  struct Summary {
    ReverseReads gen, kill;
  };
  /// gen of each loop's body and step: the head of the loop is R ∪ gen.
  std::map<const Stmt *, ReverseReads> loopGens;

  /// Whether an effect ends the live range of its target (see leaf), and in
  /// which set.
  bool pointerWrite(const Effect &e) const {
    Var *t = e.target;
    return e.pointerCopy || (!e.elementWrite && t->type.ptrDepth > 0);
  }
  bool killsData(const Stmt &s, const Effect &e) {
    Var *t = e.target;
    return !e.elementWrite && t->type.dims.empty() && t->type.ptrDepth == 0 &&
           !readsItself(s, t);
  }

  static void insert(std::set<Var *> &into, const std::set<Var *> &from) {
    into.insert(from.begin(), from.end());
  }
  static void remove(std::set<Var *> &from, const std::set<Var *> &what) {
    for (Var *v : what)
      from.erase(v);
  }

  /// a, then b.
  static void then(Summary &a, const Summary &b) {
    remove(a.gen.ptr, b.kill.ptr);
    remove(a.gen.data, b.kill.data);
    insert(a.gen.ptr, b.gen.ptr);
    insert(a.gen.data, b.gen.data);
    insert(a.kill.ptr, b.kill.ptr);
    insert(a.kill.data, b.kill.data);
  }

  Summary leafSummary(Stmt &s) {
    Summary S;
    auto it = reads.find(&s);
    if (it != reads.end())
      S.gen = it->second;
    for (const Effect &e : effectsOf(s, fe)) {
      if (!e.target)
        continue;
      if (pointerWrite(e))
        S.kill.ptr.insert(e.target);
      else if (killsData(s, e))
        S.kill.data.insert(e.target);
    }
    remove(S.gen.ptr, S.kill.ptr);
    remove(S.gen.data, S.kill.data);
    // The value after the statement, read by its own reverse: live from
    // here on, whatever the statement killed.
    if (it != reads.end())
      insert(S.gen.data, it->second.post);
    return S;
  }

  Summary blockSummary(const Block &b) {
    Summary S;
    for (const StmtP &s : b)
      then(S, stmtSummary(*s));
    return S;
  }

  Summary stmtSummary(Stmt &s) {
    switch (s.kind) {
    case Stmt::Assign:
    case Stmt::ExprStmt:
    case Stmt::Comm:
      return leafSummary(s);
    case Stmt::If: {
      // (R \ ka ∪ ga) ∪ (R \ kb ∪ gb) = R \ (ka ∩ kb) ∪ ga ∪ gb
      Summary a = blockSummary(s.body), b = blockSummary(s.elseBody), S;
      S.gen = a.gen;
      insert(S.gen.ptr, b.gen.ptr);
      insert(S.gen.data, b.gen.data);
      for (Var *v : a.kill.ptr)
        if (b.kill.ptr.count(v))
          S.kill.ptr.insert(v);
      for (Var *v : a.kill.data)
        if (b.kill.data.count(v))
          S.kill.data.insert(v);
      return S;
    }
    case Stmt::For:
    case Stmt::While:
    case Stmt::DoWhile: {
      Summary S;
      if (s.kind == Stmt::For && s.init && s.init->kind == Stmt::Assign)
        S = leafSummary(*s.init);
      Summary loop;
      loop.gen = loopGen(s);
      then(S, loop);
      for (Var *z : replicaFill(s)) {
        S.gen.data.erase(aliasRoot(f, z));
        S.kill.data.insert(aliasRoot(f, z));
      }
      if (s.checkpoint || s.rerun) {
        auto it = reads.find(&s);
        if (it != reads.end()) {
          Summary c;
          c.gen = it->second;
          then(S, c);
        }
      }
      return S;
    }
    case Stmt::Compound:
      return blockSummary(s.body);
    default:
      return Summary();
    }
  }

  /// The per-replica arrays a loop over replicas fills whole: `for (r = 0;
  /// r < R; r++) { ... z[r] = e; ... }` with z stored as [R], the store
  /// unconditional, and its reverse not reading z.
  std::set<Var *> replicaFill(const Stmt &s) {
    std::set<Var *> out;
    if (s.kind != Stmt::For || s.loopStep != 1 || !s.loopVar ||
        s.loopCmp != "<" || !s.loopLo || !isZeroLiteral(s.loopLo) ||
        !s.loopHi || s.loopHi->kind != Expr::VarRef)
      return out;
    // Does the reverse of a statement in `b` from `from` on read z?  (Reads
    // before the store are served by its record; one after it would read
    // the new values, which later stores must then protect.)
    std::function<bool(const Block &, size_t, Var *)> readLater =
        [&](const Block &b, size_t from, Var *z) {
          for (size_t k = from; k < b.size(); ++k) {
            bool found = false;
            walk({b[k]}, [&](Stmt &x, const WalkCtx &) {
              auto it = reads.find(&x);
              if (it != reads.end() &&
                  (it->second.data.count(z) || it->second.post.count(z)))
                found = true;
            });
            if (found)
              return true;
          }
          return false;
        };
    for (size_t k = 0; k < s.body.size(); ++k) {
      const StmtP &t = s.body[k];
      if (t->kind != Stmt::Assign || t->op != "=" ||
          t->lhs->kind != Expr::Index || t->lhs->ops[0]->kind != Expr::VarRef ||
          t->lhs->ops[1]->kind != Expr::VarRef ||
          t->lhs->ops[1]->var != s.loopVar)
        continue;
      Var *z = t->lhs->ops[0]->var;
      if (z->replicaCount && z->replicaCount == s.loopHi->var &&
          !readsItself(*t, z) && !readsResult(*t, z) &&
          !readLater(s.body, k + 1, z))
        out.insert(z);
    }
    return out;
  }

  /// The gen of a loop's body (and non-canonical step), computed once.  The
  /// counter of a canonical loop is not part of it: the reversed loop sets
  /// the counter before each reversed iteration, so the body's reads of it
  /// are served there and need nothing recorded outside the loop.  (A
  /// counter declared at function scope, `int i, j;` reused by a loop nest,
  /// used to be pushed at every entry of every inner loop.)
  const ReverseReads &loopGen(Stmt &s) {
    auto it = loopGens.find(&s);
    if (it != loopGens.end())
      return it->second;
    Summary body = blockSummary(s.body);
    if (s.step && s.loopStep == 0)
      then(body, leafSummary(*s.step));
    if (s.kind == Stmt::For && s.loopStep != 0 && s.loopVar)
      body.gen.data.erase(s.loopVar);
    return loopGens[&s] = body.gen;
  }

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
      bool ptrWrite = pointerWrite(e);
      bool needed = ptrWrite ? R.ptr.count(t) > 0
                             : R.data.count(aliasRoot(f, t)) > 0;
      if (needed)
        s.tapeSet.insert(t);
      // A whole-value write ends the live range: earlier reads are now
      // served by this statement's record (or needed none).
      if (ptrWrite)
        R.ptr.erase(t);
      else if (killsData(s, e))
        R.data.erase(t);
    }
    // A resultRead assignment's reverse reads the value it assigned: later
    // writes must record it.
    if (it != reads.end())
      R.data.insert(it->second.post.begin(), it->second.post.end());
  }

  bool readsItself(const Stmt &s, Var *t) {
    auto it = reads.find(&s);
    return it != reads.end() && it->second.data.count(t);
  }
  /// Does the statement's reverse read the value it assigned to t?
  bool readsResult(const Stmt &s, Var *t) {
    auto it = reads.find(&s);
    return it != reads.end() && it->second.post.count(t);
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
      // The head of the loop sees both the state before the loop and the
      // reads of the previous iteration: the fixpoint R ∪ gen(body).  One
      // walk from there decides the records of the body (the state only
      // grows towards the fixpoint, so earlier passes would add nothing).
      {
        join(R, loopGen(s));
        ReverseReads r = R;
        block(s.body, r);
        if (s.step && s.loopStep == 0)
          leaf(*s.step, r);
      }
      for (Var *z : replicaFill(s))
        R.data.erase(aliasRoot(f, z));
      // A checkpointed loop's reverse re-runs steps, a re-run loop's
      // (Rerun.cpp) its iterations: it reads what they read, at the loop.
      if (s.checkpoint || s.rerun) {
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
