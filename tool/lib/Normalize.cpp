//===- Normalize.cpp - Structured control flow the reversal can mirror ----===//
//
// 0. First, posix_memalign, aligned_alloc and memalign called directly
//    become malloc of the same size: the adjoint needs the storage, not its
//    alignment.  (Calls of allocation wrappers, PRK's prk_malloc among
//    them, are their allocation since lowering: Realloc.cpp.)
// 1. `return e` becomes `mpiad_ret = e`; an early return sets a flag that
//    guards the rest of the function (and stops enclosing loops).
// 2. `break` / `continue` set per-loop flags that guard the rest of the body.
// 3. Declarations with initialisers become declaration + assignment, so that
//    every local can be declared at the top of the generated functions.
// 4. `for` loops of the form `for (i = a; i < b; i++)` (also <=, >, >=, --)
//    whose body assigns neither i nor the variables of a and b are marked
//    canonical: their reversal counts back without recording.  Other `for`
//    loops become `while` loops.
// 5. Checks that the adjoint can replay the program's control: the answer of
//    MPI_Test (a rule's `answer`) is never read, and no non-blocking call sits
//    in a checkpointed loop.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Rules.h"
#include "Transform.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace mpiad {

namespace {

struct LoopFlags {
  Var *brk = nullptr, *cnt = nullptr;
};

class Normalizer {
public:
  Normalizer(Function &f, const Frontend &fe, Diag &diag)
      : F(f), fe(fe), diag(diag) {}

  bool run() {
    alignedAllocations(F.body);
    Block body = std::move(F.body);
    F.body = block(body, nullptr, true);
    if (retFlag) {
      Block b;
      b.push_back(mkAssign(mkVar(retFlag), "=", mkInt(0)));
      for (auto &s : F.body)
        b.push_back(s);
      F.body = std::move(b);
    }
    canonicalize(F.body);
    checkAnswers();
    checkNonBlockingInCheckpoint(F.body, false);
    return !failed;
  }

private:
  /// `posix_memalign(&p, a, n);` becomes `p = malloc(n);`, and `ret =
  /// posix_memalign(...)` also `ret = p == NULL;` (nonzero on failure, as
  /// posix_memalign's answer); `p = aligned_alloc(a, n)` becomes `p =
  /// malloc(n)`.  The adjoint needs the storage, not its alignment.
  void alignedAllocations(Block &b) {
    Block out;
    for (StmtP &s : b) {
      alignedAllocations(s->body);
      alignedAllocations(s->elseBody);
      bool code = s->rhs && ((s->kind == Stmt::Decl &&
                              s->var->type.isIntScalar()) ||
                             (s->kind == Stmt::Assign && s->op == "=" &&
                              s->lhs->kind == Expr::VarRef &&
                              s->lhs->var->type.isIntScalar()));
      ExprP n;
      Var *p = (code || s->kind == Stmt::ExprStmt)
                   ? alignedAllocation(s->rhs, n)
                   : nullptr;
      if (!p) {
        bool ptrTarget =
            (s->kind == Stmt::Decl && s->var->type.ptrDepth > 0) ||
            (s->kind == Stmt::Assign && s->op == "=" &&
             s->lhs->kind == Expr::VarRef && s->lhs->ptrDepth > 0);
        if (ptrTarget && s->rhs)
          s->rhs = unaligned(s->rhs);
        out.push_back(s);
        continue;
      }
      StmtP a = mkAssign(mkVar(p), "=", plainAllocation(n));
      a->loc = s->loc;
      if (s->kind == Stmt::Decl) {
        auto d = mkDecl(s->var);
        d->loc = s->loc;
        out.push_back(d);
      }
      out.push_back(a);
      if (code) {
        Var *c = s->kind == Stmt::Decl ? s->var : s->lhs->var;
        StmtP r = mkAssign(mkVar(c), "=",
                           mkBinary("==", mkVar(p), mkOpaque("NULL")));
        r->loc = s->loc;
        out.push_back(r);
      }
    }
    b.swap(out);
  }

  /// MPI_Test's flag (a rule's `answer`) says whether a request completed.
  /// The reverse sweep replays what did complete, but a program whose
  /// control depends on the answer would take a different path on another
  /// run: every read of the answer is an error.
  void checkAnswers() {
    std::map<Var *, const Stmt *> answers;
    walk(F.body, [&](Stmt &s, const WalkCtx &) {
      if (s.kind != Stmt::Comm)
        return;
      for (const std::string &a : s.comm.rule->answers)
        if (Var *v = baseVar(s.comm.args[s.comm.rule->argIndex(a)]))
          answers.emplace(v, &s);
    });
    if (answers.empty())
      return;
    std::set<Var *> reported;
    std::function<void(const ExprP &)> visit = [&](const ExprP &e) {
      if (!e)
        return;
      std::vector<Var *> vs;
      if (e->kind == Expr::VarRef)
        vs.push_back(e->var);
      if (e->kind == Expr::Opaque)
        vs = e->vars;
      for (Var *v : vs) {
        auto it = answers.find(v);
        if (it == answers.end() || reported.count(v))
          continue;
        reported.insert(v);
        failed = true;
        diag.error(e->loc.isValid() ? e->loc : it->second->loc,
                   "the program reads '" + v->userName + "', the answer of " +
                       it->second->comm.name +
                       ": the adjoint replays which requests completed, not "
                       "control that depends on it; complete the requests "
                       "with MPI_Wait/MPI_Waitall instead");
        diag.note(it->second->loc, "'" + v->userName + "' is written here");
      }
      for (const ExprP &o : e->ops)
        visit(o);
    };
    walk(F.body, [&](Stmt &s, const WalkCtx &) {
      if (s.lhs && s.lhs->kind != Expr::VarRef)
        visit(s.lhs);
      visit(s.rhs);
      visit(s.cond);
      if (s.kind != Stmt::Comm)
        return;
      const CommRule &r = *s.comm.rule;
      for (size_t i = 0; i < r.args.size(); ++i)
        if (std::find(r.answers.begin(), r.answers.end(), r.args[i].name) ==
            r.answers.end())
          visit(s.comm.args[i]);
    });
  }

  /// A snapshot of a checkpointed loop cannot hold an outstanding request.
  void checkNonBlockingInCheckpoint(const Block &b, bool inside) {
    for (const StmtP &s : b) {
      if (inside && s->kind == Stmt::Comm &&
          (s->comm.rule->starts || s->comm.rule->completes)) {
        failed = true;
        diag.error(s->loc, s->comm.name +
                               " in a checkpointed loop: a snapshot cannot "
                               "hold an outstanding request (use blocking "
                               "calls in the loop, or drop the checkpoint "
                               "pragma)");
      }
      bool in = inside || (s->kind == Stmt::For && s->checkpoint);
      checkNonBlockingInCheckpoint(s->body, in);
      checkNonBlockingInCheckpoint(s->elseBody, in);
    }
  }

  Function &F;
  const Frontend &fe;
  Diag &diag;
  Var *retFlag = nullptr;
  int flagCount = 0;
  bool failed = false;

  Var *newFlag(const std::string &what) {
    CType t;
    t.elem = Scalar::Int;
    t.base = "int";
    return F.newVar("mpiad_" + what + std::to_string(++flagCount), t,
                    Var::Synthetic);
  }

  ExprP noneOf(const std::set<Var *> &flags) {
    ExprP c;
    for (Var *f : flags) {
      ExprP n = mkUnary("!", mkVar(f));
      c = c ? mkBinary("&&", c, n) : n;
    }
    return c;
  }

  /// Normalises a block; `flags` receives the flags whose setting must skip
  /// the remaining statements of enclosing blocks.
  Block block(const Block &in, LoopFlags *loop, bool tail,
              std::set<Var *> *flagsOut = nullptr) {
    Block out;
    for (size_t k = 0; k < in.size(); ++k) {
      bool last = k + 1 == in.size();
      std::set<Var *> flags;
      stmt(in[k], loop, tail && last, out, flags);
      if (flagsOut)
        flagsOut->insert(flags.begin(), flags.end());
      if (!flags.empty() && !last) {
        Block rest(in.begin() + k + 1, in.end());
        std::set<Var *> restFlags;
        Block restOut = block(rest, loop, tail, &restFlags);
        if (flagsOut)
          flagsOut->insert(restFlags.begin(), restFlags.end());
        if (!restOut.empty())
          out.push_back(mkIf(noneOf(flags), std::move(restOut)));
        return out;
      }
    }
    return out;
  }

  void stmt(const StmtP &s, LoopFlags *loop, bool tail, Block &out,
            std::set<Var *> &flags) {
    switch (s->kind) {
    case Stmt::Return: {
      if (s->rhs) {
        auto a = mkAssign(mkVar(F.retVar), "=", s->rhs);
        a->loc = s->loc;
        out.push_back(a);
      }
      if (!tail) {
        if (!retFlag)
          retFlag = newFlag("returned");
        out.push_back(mkAssign(mkVar(retFlag), "=", mkInt(1)));
        flags.insert(retFlag);
      }
      return;
    }
    case Stmt::Break:
    case Stmt::Continue: {
      if (!loop) {
        diag.error(s->loc, "break/continue outside a loop");
        failed = true;
        return;
      }
      Var *&f = s->kind == Stmt::Break ? loop->brk : loop->cnt;
      if (!f)
        f = newFlag(s->kind == Stmt::Break ? "break" : "continue");
      out.push_back(mkAssign(mkVar(f), "=", mkInt(1)));
      flags.insert(f);
      return;
    }
    case Stmt::Decl: {
      // A pointer to rows (`double (*a)[N] = malloc(...)`) is a pointer:
      // split too; a fixed array keeps its initialiser list.
      if (s->rhs && (s->var->type.dims.empty() || s->var->type.ptrToArray)) {
        out.push_back(mkDecl(s->var));
        auto a = mkAssign(mkVar(s->var), "=", s->rhs);
        a->loc = s->loc;
        out.push_back(a);
      } else {
        out.push_back(s);
      }
      return;
    }
    case Stmt::If: {
      auto n = std::make_shared<Stmt>(*s);
      n->body = block(s->body, loop, tail, &flags);
      n->elseBody = block(s->elseBody, loop, tail, &flags);
      out.push_back(n);
      return;
    }
    case Stmt::Compound: {
      for (auto &c : block(s->body, loop, tail, &flags))
        out.push_back(c);
      return;
    }
    case Stmt::For:
    case Stmt::While:
    case Stmt::DoWhile: {
      LoopFlags lf;
      std::set<Var *> bodyFlags;
      Block body = block(s->body, &lf, false, &bodyFlags);
      bodyFlags.erase(lf.brk);
      bodyFlags.erase(lf.cnt);
      bodyFlags.erase(nullptr);
      flags.insert(bodyFlags.begin(), bodyFlags.end()); // early return
      std::set<Var *> stop = bodyFlags;
      if (lf.brk)
        stop.insert(lf.brk);
      auto n = std::make_shared<Stmt>(*s);
      n->body = std::move(body);
      if (lf.cnt)
        n->body.insert(n->body.begin(), mkAssign(mkVar(lf.cnt), "=", mkInt(0)));
      if (!stop.empty()) {
        if (lf.brk)
          out.push_back(mkAssign(mkVar(lf.brk), "=", mkInt(0)));
        ExprP guard = noneOf(stop);
        n->cond = n->cond ? mkBinary("&&", guard, n->cond) : guard;
      }
      if (s->checkpoint && (!stop.empty() || lf.cnt)) {
        diag.error(s->loc, "a checkpointed loop cannot contain break, "
                           "continue or return: the schedule runs its steps "
                           "in an order of its own");
        n->checkpoint = false; // reported once
        out.push_back(n);
        return;
      }
      if (s->kind == Stmt::For && (!stop.empty() || lf.cnt)) {
        // for -> { init; while (cond) { body; if (!stop) step; } }
        Block w;
        if (s->init) {
          if (s->init->kind == Stmt::Decl)
            s->init->var->declaredInForInit = false;
          std::set<Var *> dummy;
          stmt(s->init, nullptr, false, w, dummy);
        }
        auto wl = std::make_shared<Stmt>(*n);
        wl->kind = Stmt::While;
        wl->init = nullptr;
        wl->step = nullptr;
        if (!wl->cond)
          wl->cond = mkInt(1);
        if (s->step) {
          if (stop.empty())
            wl->body.push_back(s->step);
          else
            wl->body.push_back(mkIf(noneOf(stop), {s->step}));
        }
        w.push_back(wl);
        for (auto &x : w)
          out.push_back(x);
        return;
      }
      out.push_back(n);
      return;
    }
    default:
      out.push_back(s);
      return;
    }
  }

  /// Marks canonical for loops; lowers the others to while loops.
  void canonicalize(Block &b) {
    for (size_t k = 0; k < b.size(); ++k) {
      StmtP s = b[k];
      canonicalize(s->body);
      canonicalize(s->elseBody);
      if (s->kind != Stmt::For)
        continue;
      if (markCanonicalLoop(*s, fe)) {
        if (s->checkpoint && !s->loopVar->declaredInForInit)
          diag.error(s->init->kind == Stmt::Assign &&
                             s->init->lhs->loc.isValid()
                         ? s->init->lhs->loc
                         : s->loc,
                     "the counter of a checkpointed loop must be declared "
                     "in the loop: for (int " +
                         s->loopVar->userName + " = ...; ...)");
        continue;
      }
      if (s->checkpoint) {
        diag.error(s->loc, "a checkpointed loop must count with a step of 1: "
                           "for (int i = a; i < b; i++), the body changing "
                           "neither i, a nor b");
        continue;
      }
      // Not canonical: { init; while (cond) { body; step; } }
      Block w;
      if (s->init) {
        if (s->init->kind == Stmt::Decl && s->init->rhs) {
          s->init->var->declaredInForInit = false;
          w.push_back(mkDecl(s->init->var));
          w.push_back(mkAssign(mkVar(s->init->var), "=", s->init->rhs));
        } else {
          w.push_back(s->init);
        }
      }
      auto wl = std::make_shared<Stmt>(*s);
      wl->kind = Stmt::While;
      wl->init = wl->step = nullptr;
      if (!wl->cond)
        wl->cond = mkInt(1);
      if (s->step)
        wl->body.push_back(s->step);
      w.push_back(wl);
      b[k] = mkCompound(std::move(w));
    }
  }
};

} // namespace

bool markCanonicalLoop(Stmt &s, const Frontend &fe) {
  if (!s.init || !s.cond || !s.step)
    return false;
  Var *i = nullptr;
  ExprP lo;
  if (s.init->kind == Stmt::Decl && s.init->rhs) {
    i = s.init->var;
    lo = s.init->rhs;
  } else if (s.init->kind == Stmt::Assign && s.init->op == "=" &&
             s.init->lhs->kind == Expr::VarRef) {
    i = s.init->lhs->var;
    lo = s.init->rhs;
  }
  if (!i || !i->type.isIntScalar())
    return false;
  if (s.cond->kind != Expr::Binary || s.cond->ops[0]->kind != Expr::VarRef ||
      s.cond->ops[0]->var != i)
    return false;
  std::string cmp = s.cond->text;
  if (cmp != "<" && cmp != "<=" && cmp != ">" && cmp != ">=")
    return false;
  // Bounds of integer type only: the reversed loop starts from them
  // (`for (j = hi - 1; ...)`) and lengths are inferred from them, which a
  // floating bound (j < 2.5) or a pointer (j < NULL) would get wrong.
  auto integral = [](const ExprP &e) {
    return e && e->ptrDepth == 0 && e->type == Scalar::Int;
  };
  if (!integral(lo) || !integral(s.cond->ops[1]))
    return false;
  const Stmt &st = *s.step;
  if (st.kind != Stmt::Assign || st.lhs->kind != Expr::VarRef ||
      st.lhs->var != i || !isOneLiteral(st.rhs) ||
      (st.op != "+=" && st.op != "-="))
    return false;
  int step = st.op == "+=" ? 1 : -1;
  if ((step == 1) != (cmp == "<" || cmp == "<="))
    return false;
  std::set<Var *> assigned = assignedIn(s.body, fe);
  std::set<Var *> used;
  collectVars(lo, used);
  collectVars(s.cond->ops[1], used);
  used.insert(i);
  for (Var *v : used)
    if (assigned.count(v))
      return false;
  s.loopVar = i;
  s.loopLo = lo;
  s.loopHi = s.cond->ops[1];
  s.loopCmp = cmp;
  s.loopStep = step;
  return true;
}

bool normalize(Function &f, const Frontend &fe, Diag &diag) {
  return Normalizer(f, fe, diag).run();
}

} // namespace mpiad
