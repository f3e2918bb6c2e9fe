//===- Reverse.cpp - Reverse mode on the IR -------------------------------===//
//
// Every statement is visited once and yields a pair: its forward-sweep code
// (the primal plus what must be recorded) and its reverse-sweep code (the
// adjoint).  A block's reverse is its statements' reverses in reverse order.
// Communication calls take their adjoint actions from the rule table.
//
//===----------------------------------------------------------------------===//
#include "Reverse.h"
#include "Signature.h"
#include "StructShadow.h"
#include "Cuda.h"
#include "Backend.h"
#include "Emit.h"
#include "Checkpoint.h"
#include "Rerun.h"
#include "Transform.h"
#include "Verify.h"

#include "clang/Basic/SourceManager.h"
#include <algorithm>
#include <functional>
#include <cstring>
#include <sstream>

namespace mpiad {

namespace {

using Pair = std::pair<Block, Block>;






class ReverseGen {
public:
  ReverseGen(Module &M, Function &F, const Request &R, bool dry,
             std::shared_ptr<ReplicationResult> repl)
      : M(M), F(F), R(R), dry(dry), diag(M.diag_), repl(std::move(repl)) {
    taken = M.globalNames();
    for (auto &v : F.vars)
      taken.insert(v->name);
    // Communicators created here, and those whose release is deferred.
    // A handle made from itself (`MPI_Type_create_resized(t, 0, ext, &t)`)
    // replaces the one it was made from, which the program no longer frees:
    // only the last is released.
    std::map<Var *, const Stmt *> lastCreate;
    auto visit = [&](auto onComm, auto onAssign) {
      walk(F.body, [&](Stmt &st, const WalkCtx &) {
        if (st.kind == Stmt::Comm)
          onComm(st);
        else
          onAssign(st);
      });
    };
    visit([&](Stmt &st) {
      const CommRule &r = *st.comm.rule;
      if (!r.creates.empty())
        if (Var *c = baseVar(st.comm.args[r.argIndex(r.creates)])) {
          createdComms.insert(c);
          for (size_t i = 0; i < st.comm.args.size(); ++i)
            if ((int)i != r.argIndex(r.creates) &&
                st.comm.args[i]->kind == Expr::VarRef &&
                st.comm.args[i]->var == c && lastCreate.count(c))
              replacedCreates.insert(lastCreate[c]);
          lastCreate[c] = &st;
        }
      if (!r.releases.empty())
        if (Var *c = baseVar(st.comm.args[r.argIndex(r.releases)])) {
          // A copy of a handle created here (`t = mkcol(n)` inlined: the
          // helper's local made it) releases the one it copies.
          auto o = handleOrigin.find(c);
          if (o != handleOrigin.end())
            releasedCopies.insert(c), c = o->second;
          if (createdComms.count(c)) {
            deferredRelease[c] = st.comm.name;
            // MPI_Comm_free(&c), but ncclCommDestroy(c): as written.
            releaseByValue[c] =
                st.comm.args[r.argIndex(r.releases)]->kind != Expr::AddrOf;
          }
        }
    }, [&](Stmt &st) {
      // Handle copies, in program order: `t = t_2`.
      if (st.kind == Stmt::Assign && st.op == "=" && st.lhs &&
          st.lhs->kind == Expr::VarRef && st.rhs &&
          st.rhs->kind == Expr::VarRef && st.lhs->var != st.rhs->var) {
        Var *from = st.rhs->var;
        auto o = handleOrigin.find(from);
        if (o != handleOrigin.end())
          from = o->second;
        if (createdComms.count(from))
          handleOrigin[st.lhs->var] = from;
      }
    });
  }

  Module &M;
  Function &F;
  const Request &R;
  bool dry;
  Diag &diag;
  std::shared_ptr<ReplicationResult> repl;
  const Stmt *curStmt = nullptr; // the leaf statement being reversed

  /// Replication and adjoint form of v as defined (def) or read (use) at s.
  bool replAt(const Stmt *s, const Var *v, bool def) const {
    if (repl && s && repl->known(s, v, def))
      return repl->replicated[repl->web(s, v, def)];
    return v->replicated;
  }
  bool partialAt(const Stmt *s, const Var *v, bool def) const {
    if (repl && s && repl->known(s, v, def))
      return repl->partial[repl->web(s, v, def)];
    return v->partial;
  }
  std::map<Var *, Var *> shadows;
  std::set<Var *> generated;  // shadows, temporaries, counters
  std::vector<Var *> counters; // loop counters and bound holders (hoisted)
  Var *rootVar = nullptr;
  int tmpCount = 0;
  bool failed = false;
  /// Callee specialisations the generated code calls (final run only).
  std::vector<std::string> usedCallees;
  /// Buffers of R values for scalars of loops over the replicas, each
  /// recorded once per loop (ReplicaRecord.cpp; final run of a marked
  /// function only): the generated function allocates them on entry and
  /// frees them on exit.
  std::vector<std::pair<Var *, ExprP>> replicaBuffers;
  /// The length of the array p points to, from every access in F and in
  /// the callees it is passed to (inferLength); null if unknown.
  ExprP arrayLength(Var *p) {
    std::string why;
    return inferLength(F, p, why, M.fe_);
  }

  void error(clang::SourceLocation loc, const std::string &m) {
    if (!dry)
      diag.error(loc, m);
    failed = true;
  }

  std::set<std::string> taken; // names in scope in the generated function
  std::string unique(const std::string &want) {
    std::string n = want;
    for (int i = 2; taken.count(n); ++i)
      n = want + std::to_string(i);
    taken.insert(n);
    return n;
  }

  Var *newSynth(const std::string &name, const CType &t) {
    Var *v = F.newVar(unique(name), t, Var::Synthetic);
    generated.insert(v);
    return v;
  }
  static CType doubleType() {
    CType t;
    t.elem = Scalar::Double;
    t.base = "double";
    return t;
  }
  static CType intType(const char *base = "long long") {
    CType t;
    t.elem = Scalar::Int;
    t.base = base;
    return t;
  }

  /// The adjoint variable of an active variable.
  Var *shadow(Var *v) {
    auto it = shadows.find(v);
    if (it != shadows.end())
      return it->second;
    if (v->fieldOf) { // p[i].x -> p_b[i].x
      Var *s = F.sameView(v, shadow(v->fieldOf));
      shadows[v] = s;
      return s;
    }
    if (v->kind == Var::Global) { // a file-scope shadow, one per module
      Var *s = M.globalShadowVar(F, v, "_b", !dry);
      generated.insert(s);
      shadows[v] = s;
      return s;
    }
    CType t = v->type;
    if (t.base.rfind("const ", 0) == 0)
      t.base = t.base.substr(6);
    t.isConst = false;
    std::string name = v->name + "_b";
    if (v->kind == Var::Param && v->type.ptrDepth == 0 &&
        !v->type.floatingFields) {
      name = v->name + "_b_acc"; // accumulates into the caller's *v_b
      t.elem = Scalar::Double;   // scalar adjoints are double (the contract)
      t.base = "double";
    }
    else if (v->kind == Var::Param && v->type.ptrDepth == 0 &&
             v->type.dims.empty())
      name = v->name + "_b_acc"; // a struct by value: added into *v_b
    else if (v->kind == Var::Param && v->replicated && v->partial)
      name = v->name + "_b_part"; // this rank's share of the gradient
    Var *s = newSynth(name, t);
    shadows[v] = s;
    return s;
  }

  bool activeVar(const Var *v) const { return v && v->active; }

  /// Does e carry derivatives?
  bool activeIn(const ExprP &e) const { return carriesDerivative(e); }

  /// Replaces the variable an lvalue / buffer is rooted at by its shadow.
  ExprP sh(const ExprP &e) {
    return rebase(e, [&](Var *v) { return shadow(v); });
  }

  ExprP root() {
    if (!rootVar)
      rootVar = newSynth("mpiad_root", doubleType());
    return mkVar(rootVar);
  }

  /// Is fn a math function with a derivative rule (pure, as far as the
  /// generated code is concerned)?
  std::function<bool(const std::string &)> mathCall() const {
    return [this](const std::string &fn) { return M.rules_.math(fn) != nullptr; };
  }
  /// A temporary for the value of a math call (CallReuse.cpp).
  Var *callTemp(Scalar type) {
    CType t = doubleType();
    if (type == Scalar::Float) {
      t.elem = Scalar::Float;
      t.base = "float";
    }
    return newSynth("mpiad_t" + std::to_string(++tmpCount), t);
  }

  ExprP spill(const ExprP &seed, Block &out) {
    if (isSimple(seed))
      return seed;
    Var *t = newSynth("mpiad_t" + std::to_string(++tmpCount), doubleType());
    out.push_back(mkDecl(t, seed));
    return mkVar(t);
  }

  Var *curLhs = nullptr; // target of the statement being reversed
  // The resultRead assignments whose reverse reads the value they assigned.
  std::set<const Stmt *> resultReads;

  void contribute(const ExprP &lv, Var *target, ExprP seed, Block &out) {
    // An exact replicated adjoint flowing into a partial one: count it once.
    if (curLhs && replAt(curStmt, curLhs, true) &&
        !partialAt(curStmt, curLhs, true) && replAt(curStmt, target, false) &&
        partialAt(curStmt, target, false))
      seed = mul(root(), seed);
    auto s = mkAssign(sh(lv), "+=", seed);
    out.push_back(s);
  }

  void propagate(const ExprP &e, ExprP seed, Block &out) {
    if (!activeIn(e))
      return;
    switch (e->kind) {
    case Expr::VarRef:
      contribute(e, e->var, seed, out);
      return;
    case Expr::Index:
      contribute(e, baseVar(e), seed, out);
      return;
    case Expr::Unary:
      propagate(e->ops[0], neg(seed), out);
      return;
    case Expr::Cast:
      propagate(e->ops[0], seed, out);
      return;
    case Expr::Binary: {
      const ExprP &a = e->ops[0], &b = e->ops[1];
      bool aa = activeIn(a), ba = activeIn(b);
      if (aa && ba)
        seed = spill(seed, out);
      const std::string &op = e->text;
      if (op == "+") {
        propagate(a, seed, out);
        propagate(b, seed, out);
      } else if (op == "-") {
        propagate(a, seed, out);
        propagate(b, neg(seed), out);
      } else if (op == "*") {
        if (aa)
          propagate(a, mul(seed, b), out);
        if (ba)
          propagate(b, mul(a, seed), out);
      } else if (op == "/") {
        if (aa)
          propagate(a, mkBinary("/", seed, b), out);
        if (ba)
          propagate(b, neg(mkBinary("/", mul(seed, a), mkBinary("*", b, b))),
                    out);
      } else {
        error(e->loc, "operator '" + op + "' cannot be differentiated");
      }
      return;
    }
    case Expr::Cond: {
      seed = spill(seed, out);
      Block t, f;
      propagate(e->ops[1], seed, t);
      propagate(e->ops[2], seed, f);
      out.push_back(mkIf(e->ops[0], t, f));
      return;
    }
    case Expr::Call: {
      const MathRule *r = M.rules_.math(e->text);
      if (!r) {
        error(e->loc, "no derivative known for '" + e->text + "'");
        return;
      }
      if (r->params.size() != e->ops.size()) {
        error(e->loc, "'" + e->text + "' called with " +
                          std::to_string(e->ops.size()) +
                          " arguments; its rule (" + r->where + ") has " +
                          std::to_string(r->params.size()));
        return;
      }
      std::map<std::string, ExprP> sub;
      int nActive = 0;
      for (size_t k = 0; k < r->params.size(); ++k) {
        sub[r->params[k]] = e->ops[k];
        if (activeIn(e->ops[k]) && r->derivs[k])
          ++nActive;
      }
      if (nActive > 1)
        seed = spill(seed, out);
      for (size_t k = 0; k < r->params.size(); ++k)
        if (r->derivs[k] && activeIn(e->ops[k]))
          propagate(e->ops[k], mul(seed, substitute(r->derivs[k], sub)), out);
      return;
    }
    default:
      return;
    }
  }

  // --- recording -------------------------------------------------------

  static const char *suffix(const ExprP &lv) {
    if (lv->ptrDepth > 0)
      return "ptr";
    if (lv->type == Scalar::Double)
      return "f64";
    if (lv->type == Scalar::Float)
      return "f32";
    return "i64";
  }
  static bool opaqueHandle(const ExprP &lv) {
    return lv->ptrDepth == 0 && lv->type == Scalar::Other;
  }
  StmtP push(const ExprP &lv) {
    if (opaqueHandle(lv)) // MPI_Comm and the like: raw bytes
      return mkExprStmt(mkCall("mpiad_push_bytes",
                               {mkAddrOf(lv),
                                mkOpaque("sizeof(" + printExpr(lv) + ")")},
                               Scalar::Void));
    return mkExprStmt(mkCall(std::string("mpiad_push_") + suffix(lv), {lv},
                             Scalar::Void));
  }
  StmtP pop(const ExprP &lv) {
    if (opaqueHandle(lv))
      return mkExprStmt(mkCall("mpiad_pop_bytes",
                               {mkAddrOf(lv),
                                mkOpaque("sizeof(" + printExpr(lv) + ")")},
                               Scalar::Void));
    return mkAssign(lv, "=", mkCall(std::string("mpiad_pop_") + suffix(lv), {},
                                    lv->type, lv->ptrDepth));
  }

  bool stableExpr(const ExprP &e) {
    std::set<Var *> vs;
    collectVars(e, vs);
    for (Var *v : vs)
      if (!isStable(v))
        return false;
    return true;
  }

  // --- statements -------------------------------------------------------

  /// The pair of each statement of the function body, kept by the final
  /// run for fuseLastLoop.
  bool keepTopLevel = false;
  std::vector<Pair> topLevel;

  Pair block(const Block &b) {
    Pair out;
    std::vector<Block> revs;
    // Integers declared here and computed from loop counters (`int c = i *
    // ys + j;`): the reverse of the block computes them again first instead
    // of recording them at every iteration.
    Block again = recomputed(b);
    for (const StmtP &s : again)
      s->tapeSet.clear();
    Block redo;
    if (&b == parallelBody)
      redo = privateRecompute(b);
    std::set<Var *> outerAgain = againBefore;
    std::map<Var *, size_t> lastAssign;
    std::set<Var *> restoredFirst;
    if (&b != &F.body)
      restoredLocals(b, restoredFirst, lastAssign);
    for (size_t k = 0; k < b.size(); ++k) {
      const StmtP &s = b[k];
      std::set<Var *> saved = againBefore;
      for (Var *v : restoredFirst)
        if (lastAssign[v] < k)
          againBefore.insert(v);
      Pair p = stmt(s);
      againBefore = saved;
      for (const StmtP &a : again)
        if (a == s && a->kind == Stmt::Assign &&
            a->lhs->var->type.isFloatingScalar() &&
            a->lhs->var->assignCount == 1)
          againBefore.insert(a->lhs->var);
      if (keepTopLevel && &b == &F.body)
        topLevel.push_back(p);
      append(out.first, p.first);
      revs.push_back(std::move(p.second));
    }
    againBefore = outerAgain;
    append(out.second, redo);
    // Only what the reverse of the block reads is computed again (a local
    // read by a call whose value is now recorded, CallHoist.cpp, is not).
    std::set<Var *> used;
    referenced(redo, used);
    for (const Block &r : revs)
      referenced(r, used);
    std::vector<bool> keep(again.size(), false);
    for (size_t k = again.size(); k-- > 0;)
      if (used.count(again[k]->lhs->var)) {
        keep[k] = true;
        collectVars(again[k]->rhs, used);
      }
    for (size_t k = 0; k < again.size(); ++k)
      if (keep[k])
        out.second.push_back(mkAssign(again[k]->lhs, "=", again[k]->rhs));
    for (auto it = revs.rbegin(); it != revs.rend(); ++it)
      for (const StmtP &r : *it)
        if (!repeatsZeroing(out.second, r))
          out.second.push_back(r);
    return out;
  }

  /// The assignments of block b that the reverse of b recomputes: the one
  /// assignment of an integer declared in b, from constants, variables the
  /// reverse sweep sees unchanged, and counters of enclosing counted loops;
  /// and the one assignment of a floating variable declared in b, from a few
  /// operations on such integers and on values nothing changes afterwards
  /// (Recompute.cpp), instead of a push and a pop per iteration.
  std::unique_ptr<FinalValues> finalValues;
  Block recomputed(const Block &b) {
    Block out;
    std::set<Var *> declared, again;
    // Integers of this block recomputed before (`int c = i * ys + j;`
    // then `double d = u[c] - v[c];`) count as recomputable too.
    std::function<bool(const ExprP &)> intOk = [&](const ExprP &e) {
      if (e->kind == Expr::VarRef && again.count(e->var))
        return true;
      if (e->kind == Expr::Binary || e->kind == Expr::Cast ||
          e->kind == Expr::Cond) {
        for (const ExprP &o : e->ops)
          if (!intOk(o))
            return false;
        return true;
      }
      return recomputable(e);
    };
    for (size_t k = 0; k < b.size(); ++k) {
      const StmtP &s = b[k];
      if (s->kind == Stmt::Decl && !s->rhs) {
        declared.insert(s->var);
        continue;
      }
      if (s->kind != Stmt::Assign || s->op != "=" || !s->lhs ||
          s->lhs->kind != Expr::VarRef)
        continue;
      Var *v = s->lhs->var;
      if (!declared.count(v) || v->assignCount != 1)
        continue;
      bool ok = false;
      if (v->type.isIntScalar())
        ok = !v->active && intOk(s->rhs);
      else if (v->type.isFloatingScalar() && &b != &F.body) {
        // (In the function body itself a value assigned once needs no
        // record, and sweep fusion rebuilds that block's reverse.)
        if (!finalValues)
          finalValues = std::make_unique<FinalValues>(F, M.fe_);
        ok = finalValues->cheapAgain(s.get(), s->rhs, intOk);
      }
      if (ok) {
        out.push_back(s);
        again.insert(v);
      }
    }
    return out;
  }

  /// Variables that hold, when the reverse of the statement being
  /// differentiated runs, the values they had when it ran forward, though
  /// they are not stable: floating locals recomputed at the top of the
  /// reverse of an enclosing block and assigned before the statement, and
  /// locals that the tape restores (restoredLocals) and that nothing assigns
  /// from the statement on.  A branch on them is taken again in the reverse
  /// sweep instead of being recorded.
  std::set<Var *> againBefore;

  /// The locals declared in block b (not the function body) whose first
  /// assignment in b is a statement of b itself that records them (the old
  /// value is pushed and restored after its reverse), and the index of the
  /// last statement of b that assigns each.  Such a local v holds, at the
  /// top of each reverse of b, its final value of that pass through b: the
  /// reverse of the following pass restored it, and at the end of the
  /// forward sweep it holds the last pass's.  So from after its last
  /// assignment on, v holds what the forward pass saw (the logistic loss's
  /// `m`, recorded anyway, decides its branch again: no flag).
  void restoredLocals(const Block &b, std::set<Var *> &out,
                      std::map<Var *, size_t> &last) {
    std::set<Var *> declared, assigned;
    for (size_t k = 0; k < b.size(); ++k) {
      const StmtP &s = b[k];
      if (s->kind == Stmt::Decl && !s->rhs) {
        declared.insert(s->var);
        continue;
      }
      if (s->kind == Stmt::Assign && s->op == "=" && s->lhs &&
          s->lhs->kind == Expr::VarRef && declared.count(s->lhs->var) &&
          !assigned.count(s->lhs->var) && s->tapeSet.count(s->lhs->var))
        out.insert(s->lhs->var);
      for (Var *v : assignedIn(Block{s}, M.fe_)) {
        assigned.insert(v);
        last[v] = k;
      }
    }
  }

  /// On the CUDA target the body of a parallel loop is a kernel, which
  /// records nothing.  The reverse iteration first runs again the body's
  /// statements that assign only its own variables (those declared in the
  /// body), so that they hold their final values; a variable assigned once
  /// needs no recording then.  Valid when what runs again reads no other
  /// value the loop writes.  Returns the statements to run again (empty when
  /// not valid: the recording then left is reported by forStmt).
  const Block *parallelBody = nullptr;
  Block privateRecompute(const Block &b) {
    std::set<Var *> priv;
    declaredIn(b, priv);
    walk(b, [&](Stmt &st, const WalkCtx &) {
      if (st.kind == Stmt::For && st.loopVar && st.loopVar->declaredInForInit)
        priv.insert(st.loopVar);
    });
    bool ok = true;
    std::function<Block(const Block &)> keep = [&](const Block &blk) {
      Block out;
      for (const StmtP &st : blk) {
        if (st->kind == Stmt::Assign && st->lhs->kind == Expr::VarRef &&
            priv.count(st->lhs->var)) {
          out.push_back(mkAssign(st->lhs, st->op, st->rhs));
        } else if (st->kind == Stmt::For || st->kind == Stmt::If) {
          Block body = keep(st->body), els = keep(st->elseBody);
          if (body.empty() && els.empty())
            continue;
          if (st->kind == Stmt::For && !priv.count(st->loopVar)) {
            ok = false;
            continue;
          }
          auto n = std::make_shared<Stmt>(*st);
          n->tapeSet.clear();
          n->body = body;
          n->elseBody = els;
          if (n->init)
            n->init = std::make_shared<Stmt>(*n->init), n->init->tapeSet.clear();
          out.push_back(n);
        } else if (st->kind == Stmt::While || st->kind == Stmt::DoWhile) {
          for (Var *v : assignedIn(st->body, M.fe_))
            ok &= !priv.count(v);
        }
      }
      return out;
    };
    Block redo = keep(b);
    std::set<Var *> written, reads;
    for (Var *w : assignedIn(b, M.fe_))
      written.insert(aliasRoot(F, w));
    referenced(redo, reads);
    for (Var *r : reads)
      ok &= priv.count(r) || !written.count(aliasRoot(F, r));
    if (!ok)
      return {};
    walk(b, [&](Stmt &st, const WalkCtx &) {
      for (auto it = st.tapeSet.begin(); it != st.tapeSet.end();)
        if (priv.count(*it) && (*it)->assignCount == 1)
          it = st.tapeSet.erase(it);
        else
          ++it;
    });
    for (Var *v : priv)
      if (v->assignCount == 1 || v->declaredInForInit)
        kernelStable.insert(v);
    return redo;
  }
  /// Variables of a kernel's body that hold, in the reverse iteration, the
  /// value the forward iteration saw (see privateRecompute): branches on
  /// them are taken again instead of being recorded.
  std::set<Var *> kernelStable;
  bool stableInKernel(const ExprP &e) {
    std::set<Var *> vs;
    collectVars(e, vs);
    for (Var *v : vs)
      if (!isStable(v) && !kernelStable.count(v))
        return false;
    return true;
  }

  std::set<Var *> countedLoopVars;
  bool countedLoopVarsKnown = false;
  bool recomputable(const ExprP &e) {
    if (!countedLoopVarsKnown) {
      walk(F.body, [&](Stmt &st, const WalkCtx &) {
        if (st.kind == Stmt::For && st.loopStep != 0 && st.loopVar &&
            st.loopVar->declaredInForInit)
          countedLoopVars.insert(st.loopVar);
      });
      countedLoopVarsKnown = true;
    }
    switch (e->kind) {
    case Expr::IntLit:
      return true;
    case Expr::VarRef:
      return e->var->type.isIntScalar() &&
             (isStable(e->var) || countedLoopVars.count(e->var));
    case Expr::Unary:
    case Expr::Binary:
    case Expr::Cond:
    case Expr::Cast:
      for (const ExprP &o : e->ops)
        if (!recomputable(o))
          return false;
      return e->kind != Expr::Unary || (e->text != "++" && e->text != "--");
    default:
      return false;
    }
  }

  /// `x_b = 0;` right after `x_b = 0;` (the adjoint of a call that wrote x,
  /// then of the initialisation it overwrote) says nothing new.
  static bool repeatsZeroing(const Block &b, const StmtP &s) {
    if (b.empty() || s->kind != Stmt::Assign || s->op != "=" ||
        !isZeroLiteral(s->rhs))
      return false;
    const StmtP &p = b.back();
    return p->kind == Stmt::Assign && p->op == "=" && isZeroLiteral(p->rhs) &&
           printExpr(p->lhs) == printExpr(s->lhs);
  }

  /// Dry run: what the reverse of each leaf statement reads.
  std::map<const Stmt *, ReverseReads> *recordReads = nullptr;

  void classify(const ExprP &e, ReverseReads &r) {
    if (!e)
      return;
    if (e->kind == Expr::VarRef) {
      Var *v = e->var;
      Var *primal = nullptr;
      for (auto &kv : shadows)
        if (kv.second == v)
          primal = kv.first;
      if (primal) { // a shadow: only its pointer value matters
        if (primal->type.ptrDepth > 0)
          r.ptr.insert(primal);
        return;
      }
      if (generated.count(v))
        return;
      if (v->type.ptrDepth > 0)
        r.ptr.insert(v);
      r.data.insert(aliasRoot(F, v));
      return;
    }
    if (e->kind == Expr::Index) {
      classify(e->ops[0], r);
      classify(e->ops[1], r);
      return;
    }
    for (Var *v : e->vars)
      if (!generated.count(v))
        r.data.insert(aliasRoot(F, v));
    auto rc = revCalls.find(e.get());
    if (rc != revCalls.end()) {
      // A reverse helper: pointer arguments whose data it does not read
      // contribute only their pointer value.
      for (size_t k = 0; k < e->ops.size(); ++k) {
        const ExprP &a = e->ops[k];
        if (k < rc->second.size() && !rc->second[k] && a->ptrDepth > 0 &&
            a->kind == Expr::VarRef) {
          if (!generated.count(a->var))
            r.ptr.insert(a->var);
          continue;
        }
        classify(a, r);
      }
      return;
    }
    for (const ExprP &o : e->ops)
      classify(o, r);
  }
  /// Reverse-helper calls and, per argument, whether its data is read.
  std::map<const Expr *, std::vector<bool>> revCalls;
  void classify(const Block &b, ReverseReads &r) {
    for (const StmtP &s : b) {
      if (s->kind == Stmt::Assign) {
        // The target of an adjoint statement is written, not read, unless
        // it is an element (its index is read).
        if (s->lhs->kind == Expr::Index) {
          classify(s->lhs->ops[0], r);
          classify(s->lhs->ops[1], r);
        }
        if (s->op != "=")
          classify(s->lhs, r);
      }
      if (s->kind == Stmt::Decl && s->rhs)
        classify(s->rhs, r);
      if (s->kind != Stmt::Decl)
        classify(s->rhs, r);
      classify(s->cond, r);
      for (const ExprP &a : s->comm.args)
        classify(a, r);
      if (s->init)
        classify(Block{s->init}, r);
      if (s->step)
        classify(Block{s->step}, r);
      classify(s->body, r);
      classify(s->elseBody, r);
    }
  }

  Pair stmt(const StmtP &s) {
    if (s->kind == Stmt::Assign || s->kind == Stmt::ExprStmt ||
        s->kind == Stmt::Comm)
      curStmt = s.get();
    Pair p = stmtImpl(s);
    if (M.verify && !dry && !failed &&
        (s->kind == Stmt::Assign || s->kind == Stmt::ExprStmt ||
         s->kind == Stmt::Comm))
      verifyReads(*s, p);
    if (recordReads && (s->kind == Stmt::Assign || s->kind == Stmt::ExprStmt ||
                        s->kind == Stmt::Comm)) {
      ReverseReads r;
      classify(p.second, r);
      // Releasing the communicator this call creates reads the new handle,
      // not the one it overwrote.
      if (s->kind == Stmt::Comm && !s->comm.rule->creates.empty())
        if (Var *c = baseVar(
                s->comm.args[s->comm.rule->argIndex(s->comm.rule->creates)]))
          r.data.erase(aliasRoot(F, c));
      // `t = tanh(a)`: the reverse reads t as assigned (CallHoist.cpp).
      if (resultReads.count(s.get())) {
        Var *root = aliasRoot(F, baseVar(s->lhs));
        r.data.erase(root);
        r.post.insert(root);
      }
      (*recordReads)[s.get()] = r;
    }
    return p;
  }

  /// --verify: the statement's adjoint checks the values it reads against
  /// the forward sweep's (Verify.cpp).  A call of a same-file function is
  /// checked inside its helpers.
  void verifyReads(const Stmt &s, Pair &p) {
    if (s.rhs && s.rhs->kind == Expr::Call && M.fe_.callee(s.rhs->text))
      return;
    VerifySite site;
    site.where = diag.where(s.loc);
    site.counters.assign(enclosingCounters.begin(), enclosingCounters.end());
    // The counters are the reversed loops' own: reported, not checked.
    site.skip.insert(enclosingCounters.begin(), enclosingCounters.end());
    if (resultReads.count(&s))
      site.skip.insert(baseVar(s.lhs));
    addReadChecks(p.first, p.second, site, [&](Var *v) {
      if (!v || generated.count(v))
        return false;
      for (auto &kv : shadows)
        if (kv.second == v)
          return false;
      return true;
    });
  }

  Pair stmtImpl(const StmtP &s) {
    switch (s->kind) {
    case Stmt::Decl:
      if (s->var->hoisted && !s->rhs)
        return {}; // declared at the top of the generated function
      if (s->rhs) {
        // A fixed array with an initialiser list: declared at the top, so
        // (re)initialise it here from a compound literal.
        if (s->rhs->kind != Expr::Opaque || s->rhs->text.empty() ||
            s->rhs->text[0] != '{') {
          error(s->loc, "unsupported initialiser of array '" +
                            s->var->userName + "'");
          return {};
        }
        return {{arrayInitCopy(*s)}, {}};
      }
      return {{s}, {}};
    case Stmt::Assign:
      return assign(s);
    case Stmt::ExprStmt:
      return exprStmt(s);
    case Stmt::If:
      return ifStmt(s);
    case Stmt::For:
      return forStmt(s);
    case Stmt::While:
    case Stmt::DoWhile:
      return whileStmt(s);
    case Stmt::Compound: {
      Pair p = block(s->body);
      return {{mkCompound(p.first)}, p.second.empty() ? Block{} : Block{mkCompound(p.second)}};
    }
    case Stmt::Comm:
      return comm(s);
    case Stmt::Comment:
      return {{s}, {}};
    default:
      error(s->loc, "internal: unexpected statement after normalization");
      return {};
    }
  }


  bool isAlloc(const ExprP &e, ExprP &call) {
    call = allocationCall(e);
    return call != nullptr;
  }

  /// Alias classes (their roots) whose memory the primal frees, and those
  /// of row-pointer arrays whose rows it frees (`free(a[i])`).
  std::set<Var *> freedInPrimal;
  std::set<Var *> freedRows;

  Pair assign(const StmtP &s) {
    Block fwd, rev;
    Var *t = baseVar(s->lhs);
    ExprP call;
    // y = f(...) with f defined in this file.
    if (s->rhs->kind == Expr::Call && M.fe_.callee(s->rhs->text)) {
      // A pointer that gets a shadow: only allocations give it storage
      // (allocation wrappers became malloc/calloc in normalize).
      if (s->lhs->ptrDepth > 0 && s->lhs->kind == Expr::VarRef && t &&
          t->active) {
        const std::string &fn = s->rhs->text;
        std::string m = "pointer '" + t->userName + "' carries derivatives";
        m += " but is assigned the pointer that '" + fn + "' returns, which";
        m += " has no shadow; allocate it here with malloc/calloc, or make '";
        m += fn + "' only return malloc(...) or calloc(...) of its scalar";
        m += " parameters";
        error(s->loc, m);
        return {};
      }
      return userCall(s, s->rhs, s->lhs);
    }
    // Pointer assignments: the shadow pointer follows the primal pointer.
    // A row of a row-pointer array (`a[i] = malloc(...)`, `a[i] = a[0] +
    // i * ny`) is one too: the shadow's row follows it (`a_b[i] = ...`).
    bool rowStore = s->lhs->ptrDepth > 0 && s->lhs->kind == Expr::Index &&
                    t && t->type.ptrDepth >= 2;
    if (rowStore && t->active && t->kind == Var::Param) {
      error(s->loc, "row of parameter '" + t->userName +
                        "' is reassigned; its shadow's rows are the caller's "
                        "and cannot follow: assign the elements instead (" +
                        t->userName + "[i][j] = ...), or build the rows in a "
                        "local row-pointer array");
      return {};
    }
    if (s->lhs->ptrDepth > 0 && (s->lhs->kind == Expr::VarRef || rowStore)) {
      ExprP shl = t->active ? sh(s->lhs) : nullptr;
      if (s->tapeSet.count(t)) {
        fwd.push_back(push(s->lhs));
        if (t->active)
          fwd.push_back(push(shl));
      }
      fwd.push_back(s);
      Block revFree;
      if (t->active) {
        if (isNullPointer(s->rhs)) {
          fwd.push_back(mkAssign(shl, "=", mkOpaque("NULL")));
        } else if (isAlloc(s->rhs, call)) {
          ExprP n = call->text == "malloc"
                        ? mkCall("calloc", {mkInt(1), call->ops[0]},
                                 Scalar::Void, 1)
                        : mkCall("calloc", call->ops, Scalar::Void, 1);
          fwd.push_back(mkAssign(shl, "=", n));
          revFree.push_back(mkExprStmt(mkCall("free", {shl}, Scalar::Void)));
        } else {
          std::set<Var *> src;
          collectVars(s->rhs, src);
          bool ok = false;
          for (Var *v : src)
            ok |= v->active && (v->type.ptrDepth || !v->type.dims.empty());
          if (!ok) {
            std::string origin = unknownOrigin(s->rhs, M.fe_);
            error(s->loc,
                  "pointer '" + t->userName +
                      "' carries derivatives but is assigned from storage "
                      "without a shadow" +
                      (origin.empty()
                           ? std::string()
                           : " (" + origin +
                                 ", whose data mpiad does not follow: pass "
                                 "the array itself as a parameter and use "
                                 "it there)"));
          } else {
            fwd.push_back(mkAssign(shl, "=", sh(s->rhs)));
          }
        }
      }
      // Freed through this pointer or a copy of it (`free2d(a)` inlined
      // frees its parameter, a copy of the caller's `a`).
      Var *root = aliasRoot(F, t);
      bool freed = rowStore ? freedRows.count(root) : freedInPrimal.count(root);
      if (isAlloc(s->rhs, call) && freed && deferFree(t)) {
        if (t->active) { // restored with its shadow
          revFree.insert(revFree.begin(),
                         mkExprStmt(mkCall("free", {s->lhs}, Scalar::Void)));
        } else {
          // Nothing else restores this pointer: the block itself goes on
          // the tape, to be freed when the reverse sweep gets here.
          fwd.push_back(push(s->lhs));
          revFree.insert(revFree.begin(),
                         mkExprStmt(mkCall(
                             "free", {mkCall("mpiad_pop_ptr", {}, Scalar::Void, 1)},
                             Scalar::Void)));
        }
      }
      append(rev, revFree);
      if (s->tapeSet.count(t)) {
        if (t->active)
          rev.push_back(pop(shl));
        rev.push_back(pop(s->lhs));
      }
      return {fwd, rev};
    }
    // `k++` on an integer: the reverse computes the old value (`k--`)
    // instead of recording it.
    if (StmtP inv = t && s->tapeSet.count(t) ? inverseIncrement(*s) : nullptr)
      return {{s}, {inv}};
    if (t && s->tapeSet.count(t))
      fwd.push_back(push(s->lhs));
    fwd.push_back(s);
    // `t = tanh(a)` marked by CallHoist.cpp: the derivative reads the value
    // assigned (t), so the old value is popped after the contributions.
    bool result = t && t->active && s->resultRead && s->op == "=" &&
                  s->lhs->isFloating() && s->rhs->kind == Expr::Call &&
                  M.rules_.math(s->rhs->text) && !readsTarget(s->rhs, t);
    if (t && s->tapeSet.count(t) && !result)
      rev.push_back(pop(s->lhs));
    if (t && t->active && s->lhs->isFloating()) {
      curLhs = t;
      ExprP lb = sh(s->lhs);
      // The adjoint of the new value, which the right side's contributions
      // are computed from.  When the right side reads the target (`v = v *
      // q`, `v += v / q`, `u[i] -= u[i] * x[i]`, or through a pointer into
      // the same array), those contributions update the target's adjoint
      // while it is still being read, so the old adjoint is taken into a
      // temporary first.  (`*=` and `/=` arrive here as `v = v * e`.)
      ExprP seed = lb;
      if (activeIn(s->rhs) && readsTarget(s->rhs, t)) {
        Var *tmp =
            newSynth("mpiad_t" + std::to_string(++tmpCount), doubleType());
        rev.push_back(mkDecl(tmp, lb));
        seed = mkVar(tmp);
      }
      Block contrib; // the right side's contributions
      if (s->op == "=") {
        if (!activeIn(s->rhs)) {
          rev.push_back(mkAssign(lb, "=", mkInt(0)));
        } else if (seed != lb) {
          rev.push_back(mkAssign(lb, "=", mkInt(0)));
          propagate(s->rhs, seed, contrib);
        } else {
          propagate(s->rhs, lb, contrib);
          contrib.push_back(mkAssign(lb, "=", mkInt(0)));
        }
      } else if (s->op == "+=") {
        propagate(s->rhs, seed, contrib);
      } else if (s->op == "-=") {
        propagate(s->rhs, neg(seed), contrib);
      }
      if (result) {
        std::string call = printExpr(s->rhs);
        for (StmtP &c : contrib)
          if (c->kind == Stmt::Assign || c->kind == Stmt::Decl)
            c = replaceCalls(c, call, s->lhs);
        resultReads.insert(s.get());
      }
      reuseCalls(contrib, mathCall(), [&](Scalar type) { return callTemp(type); });
      append(rev, contrib);
      if (result && s->tapeSet.count(t))
        rev.push_back(pop(s->lhs));
      curLhs = nullptr;
    }
    return {fwd, rev};
  }

  /// Does e read t, or an array that t points into (or that points into
  /// t's array)?
  bool readsTarget(const ExprP &e, Var *t) {
    std::set<Var *> used;
    collectVars(e, used);
    Var *root = aliasRoot(F, t);
    for (Var *v : used)
      if (v == t || aliasRoot(F, v) == root)
        return true;
    return false;
  }

  /// Is the free of p's memory deferred to the reverse sweep: does its
  /// alias class carry derivatives, or is it read by the reverse sweep?
  /// One answer per class, so that the free (through any pointer of the
  /// class) and the allocations (through any other) agree.
  std::map<Var *, bool> deferred;
  bool deferFree(Var *p) {
    Var *root = aliasRoot(F, p);
    auto it = deferred.find(root);
    if (it != deferred.end())
      return it->second;
    bool d = false;
    for (auto &v : F.vars)
      if (aliasRoot(F, v.get()) == root)
        d |= v->active || v->reverseRead;
    return deferred[root] = d;
  }

  Pair exprStmt(const StmtP &s) {
    const ExprP &e = s->rhs;
    if (e->kind == Expr::Call && M.fe_.callee(e->text))
      return userCall(s, e, nullptr);
    if (e->kind == Expr::Call && e->text == "free" && e->ops.size() == 1) {
      Var *p = baseVar(e->ops[0]);
      if (p && deferFree(p)) {
        Block fwd{mkComment("free(" + printExpr(e->ops[0]) +
                            ") happens in the reverse sweep")};
        // A pointer copied only to be freed (the parameter of an inlined
        // `free2d(a)`) is read nowhere now.
        if (onlyFreed(p)) {
          fwd.push_back(mkExprStmt(mkOpaque("(void)" + p->name)));
          if (p->active)
            fwd.push_back(mkExprStmt(mkOpaque("(void)" + shadow(p)->name)));
        }
        return {fwd, {}};
      }
    }
    return {{s}, {}};
  }

  /// Is p read nowhere in F but as the argument of free() (and as the
  /// target of its assignments)?
  bool onlyFreed(Var *p) {
    bool read = false;
    std::function<void(const ExprP &)> look = [&](const ExprP &x) {
      if (!x || read)
        return;
      if (x->kind == Expr::Call && x->text == "free" && x->ops.size() == 1 &&
          baseVar(x->ops[0]) == p) {
        for (ExprP b = x->ops[0]; b->kind == Expr::Index; b = b->ops[0])
          look(b->ops[1]); // free(a[i]): i is read
        return;
      }
      if (x->kind == Expr::VarRef && x->var == p)
        read = true;
      for (const ExprP &o : x->ops)
        look(o);
    };
    walk(F.body, [&](Stmt &st, const WalkCtx &) {
      if (!(st.kind == Stmt::Assign && st.lhs->kind == Expr::VarRef))
        look(st.lhs); // `p = ...` is no read of p
      look(st.rhs);
      look(st.cond);
      for (const ExprP &a : st.comm.args)
        look(a);
    });
    return !read;
  }

  /// The restore and same-pointer parts of a call's pattern.  A callee
  /// that writes through a pointer argument whose old data the reverse of
  /// an earlier statement reads (the call's tapeSet) restores it in its
  /// reverse helper.  Arguments that are the same pointer expression are
  /// one array inside the helper; other arguments into one array, one of
  /// them written by the callee, may overlap in ways the helper cannot
  /// follow: an error.
  bool callPattern(const StmtP &s, const ExprP &call, Function *cf,
                   Module::CallPattern &pat) {
    const std::vector<bool> &written = writtenParams(cf, M.fe_);
    size_t n = std::min(call->ops.size(), cf->params.size());
    pat.restore.assign(n, false);
    pat.sameAs.assign(n, -1);
    for (size_t k = 0; k < n; ++k) {
      const ExprP &a = call->ops[k];
      const CType &pt = cf->params[k]->type;
      Var *b = a->ptrDepth > 0 ? baseVar(a) : nullptr;
      if (!b || pt.ptrDepth == 0)
        continue;
      if (written[k] && !pt.isConst && s->tapeSet.count(b))
        pat.restore[k] = true;
      for (size_t j = 0; j < k; ++j) {
        const ExprP &o = call->ops[j];
        const CType &ot = cf->params[j]->type;
        Var *ob = o->ptrDepth > 0 ? baseVar(o) : nullptr;
        if (!ob || ot.ptrDepth == 0 || aliasRoot(F, ob) != aliasRoot(F, b))
          continue;
        if (printExpr(o) == printExpr(a) && ot.elem == pt.elem &&
            ot.ptrDepth == pt.ptrDepth && pat.sameAs[j] < 0) {
          pat.sameAs[k] = (int)j;
          break;
        }
        if (written[j] || written[k]) {
          const std::string &fn = call->text;
          error(call->loc,
                "arguments " + std::to_string(j + 1) + " ('" + printExpr(o) +
                    "') and " + std::to_string(k + 1) + " ('" + printExpr(a) +
                    "') of '" + fn + "' point into the same array and '" + fn +
                    "' writes through one of them; its adjoint can follow "
                    "only arguments that are the same pointer: pass the same "
                    "pointer, or copy one of them into a separate array "
                    "before the call");
          return false;
        }
      }
    }
    return true;
  }

  Pair userCall(const StmtP &s, const ExprP &call, const ExprP &lhs) {
    Function *cf = M.fe_.callee(call->text);
    std::vector<bool> mask;
    bool any = false;
    for (size_t k = 0; k < call->ops.size(); ++k) {
      const ExprP &a = call->ops[k];
      bool on = false;
      if (k < cf->params.size() && cf->params[k]->type.isFloatingElem()) {
        if (a->ptrDepth > 0)
          on = activeVar(baseVar(a));
        else if (a->kind == Expr::VarRef)
          on = activeVar(a->var);
      }
      mask.push_back(on);
      any |= on;
    }
    Var *t = lhs ? baseVar(lhs) : nullptr;
    bool activeRet = t && t->active && lhs->isFloating();
    Module::CallPattern pat;
    pat.active = mask;
    pat.activeReturn = activeRet;
    if (!callPattern(s, call, cf, pat)) {
      failed = true;
      return {};
    }
    bool restore = false;
    for (bool b : pat.restore)
      restore |= b;
    bool recorded = t && s->tapeSet.count(t);
    Block fwd, rev, restoreArgs;
    recordArguments(s, call, fwd, restoreArgs);
    if (!any && !activeRet && !restore) {
      // The primal callee records nothing.
      if (recorded)
        fwd.push_back(push(lhs));
      fwd.push_back(s);
      if (recorded)
        rev.push_back(pop(lhs));
      if (t && t->active)
        rev.push_back(mkAssign(sh(lhs), "=", mkInt(0)));
      append(rev, restoreArgs);
      return {fwd, rev};
    }
    const Module::CalleeNames *names = M.callee(call->text, pat, call->loc);
    if (!names) {
      failed = true;
      return {};
    }
    if (!dry)
      usedCallees.push_back(names->key);
    std::vector<ExprP> fargs;
    for (size_t k = 0; k < call->ops.size(); ++k) {
      fargs.push_back(call->ops[k]);
      if (k < names->fwdShadows.size() && names->fwdShadows[k])
        fargs.push_back(sh(call->ops[k]));
    }
    ExprP fcall = mkCall(names->fwd, fargs, call->type, call->ptrDepth);
    if (recorded) {
      // The tape is LIFO: the callee's forward pushes its records first,
      // the old value of the target is pushed at the store, after them.
      // The reverse pops it first (the callee's reverse then sees the
      // arguments' values at the call, the target's included) and the
      // callee's reverse finds its records on top of the tape.
      Var *res = newSynth("mpiad_r", cf->ret);
      fwd.push_back(mkDecl(res, fcall));
      fwd.push_back(push(lhs));
      fwd.push_back(mkAssign(lhs, s->op, mkVar(res)));
      rev.push_back(pop(lhs));
    } else if (lhs) {
      fwd.push_back(mkAssign(lhs, s->op, fcall));
    } else {
      fwd.push_back(mkExprStmt(fcall));
    }
    std::vector<ExprP> args;
    std::vector<bool> dataRead;
    Block argAdjoints; // adjoints received through temporaries, added after
    for (size_t k = 0; k < call->ops.size(); ++k) {
      args.push_back(call->ops[k]);
      dataRead.push_back(k >= names->readsData.size() || names->readsData[k]);
      if (!mask[k])
        continue;
      const ExprP &a = call->ops[k];
      const CType &pt = cf->params[k]->type;
      // (The argument expression carries the converted type; its
      // variable's own type is what the shadow has.)
      Var *av = baseVar(a);
      if (a->ptrDepth == 0 && av && av->type.elem != pt.elem) {
        // A float variable passed to a double parameter (or the reverse):
        // the helper adds into a pointer to the parameter's type, so the
        // adjoint goes through a temporary of that type (&v_b would be a
        // float * read and written as a double *).
        CType tt;
        tt.elem = pt.elem;
        tt.base = pt.elemName();
        Var *tmp = newSynth("mpiad_t" + std::to_string(++tmpCount), tt);
        rev.push_back(mkDecl(tmp, mkInt(0)));
        args.push_back(mkAddrOf(mkVar(tmp)));
        argAdjoints.push_back(mkAssign(sh(a), "+=", mkVar(tmp)));
      } else {
        args.push_back(a->ptrDepth > 0 ? sh(a) : mkAddrOf(sh(a)));
      }
      dataRead.push_back(true);
    }
    // `v = f(v, ...)`: the call adds to v's adjoint, so the seed is taken
    // and v's adjoint cleared first.
    bool lhsIsArg = false;
    for (size_t k = 0; k < call->ops.size(); ++k)
      lhsIsArg |= mask[k] && baseVar(call->ops[k]) == t;
    bool seedFirst = activeRet && s->op == "=" && lhsIsArg;
    if (seedFirst) {
      Var *seed = newSynth("mpiad_t" + std::to_string(++tmpCount), doubleType());
      rev.push_back(mkDecl(seed, sh(lhs)));
      rev.push_back(mkAssign(sh(lhs), "=", mkInt(0)));
      args.push_back(mkVar(seed));
    } else if (activeRet) {
      args.push_back(sh(lhs));
    }
    ExprP revCall = mkCall(names->rev, args, Scalar::Void);
    revCalls[revCall.get()] = dataRead;
    rev.push_back(mkExprStmt(revCall));
    if (activeRet && s->op == "=" && !seedFirst)
      rev.push_back(mkAssign(sh(lhs), "=", mkInt(0)));
    append(rev, argAdjoints);
    append(rev, restoreArgs);
    return {fwd, rev};
  }

  /// What a call to a same-file function writes through its pointer
  /// arguments, where the reverse sweep reads the old contents: recorded
  /// whole before the call, and restored after the callee's reverse (the
  /// tape is LIFO: the callee's records lie above).  Only a scalar passed
  /// by address and a fixed one-dimensional array have a known extent here.
  /// (Recording them may repeat what the callee records and restores.)
  void recordArguments(const StmtP &s, const ExprP &call, Block &save,
                       Block &restore) {
    std::set<Var *> done;
    for (const ExprP &a : call->ops) {
      Var *b = a->ptrDepth > 0 ? baseVar(a) : nullptr;
      if (!b || !s->tapeSet.count(b) || !done.insert(b).second)
        continue;
      if (b->type.ptrDepth == 0 && b->type.dims.empty()) {
        save.push_back(push(mkVar(b)));
        restore.insert(restore.begin(), pop(mkVar(b)));
      } else if (b->type.ptrDepth == 0 && b->type.dims.size() == 1 &&
                 b->type.isFloatingElem()) {
        std::string sfx = b->type.elem == Scalar::Float ? "f32" : "f64";
        ExprP n = mkOpaque(b->type.dims[0]);
        save.push_back(mkExprStmt(mkCall("mpiad_push_" + sfx + "_array",
                                         {mkVar(b), n}, Scalar::Void)));
        restore.insert(restore.begin(),
                       mkExprStmt(mkCall("mpiad_pop_" + sfx + "_array",
                                         {mkVar(b), n}, Scalar::Void)));
      } else if (b->type.ptrDepth == 0 && b->type.dims.size() == 1 &&
                 b->type.elem == Scalar::Int) {
        ExprP n = mkOpaque(b->type.dims[0]);
        save.push_back(elementwise(
            n, [&](const ExprP &k) { return push(mkIndex(mkVar(b), k)); }));
        // Popped last element first: k counts up, the element down.
        restore.insert(
            restore.begin(), elementwise(n, [&](const ExprP &k) {
              return pop(mkIndex(mkVar(b),
                                 mkBinary("-", mkBinary("-", n, mkInt(1)), k)));
            }));
      }
      // Otherwise (a buffer behind a pointer) the extent is unknown here;
      // the callee's reverse restores the elements it records itself.
      // docs/c-subset.md lists the remaining gap.
    }
  }

  /// The counters of the counted loops around the statement being
  /// reversed (not a kernel's): the reversed loop sets its counter to each
  /// iteration's value again, and a counted loop's body never assigns it.
  std::set<Var *> enclosingCounters;
  /// e's variables are the same in the reverse of the statement: stable,
  /// computed again before it, or counters of the loops around it.
  bool sameInReverse(const ExprP &e) {
    std::set<Var *> vs;
    collectVars(e, vs);
    for (Var *v : vs)
      if (!isStable(v) && !againBefore.count(v) &&
          !enclosingCounters.count(v))
        return false;
    return true;
  }

  Pair ifStmt(const StmtP &s) {
    Pair a = block(s->body), b = block(s->elseBody);
    Block fwd, rev;
    if (a.second.empty() && b.second.empty())
      return {{mkIf(s->cond, a.first, b.first)}, {}};
    // A branch on values the reverse sees unchanged, also on the counters
    // of the loops around it (`if (j == 1)`, `if (first + j - 1 ==
    // TPOINTS)` with the counter a variable of the function), is taken
    // again, not recorded.
    if (sameInReverse(s->cond) ||
        (!kernelStable.empty() && stableInKernel(s->cond))) {
      fwd.push_back(mkIf(s->cond, a.first, b.first));
      rev.push_back(mkIf(s->cond, a.second, b.second));
      return {fwd, rev};
    }
    a.first.push_back(push(mkInt(1)));
    b.first.push_back(push(mkInt(0)));
    fwd.push_back(mkIf(s->cond, a.first, b.first));
    rev.push_back(mkIf(mkCall("mpiad_pop_i64", {}, Scalar::Int), a.second,
                       b.second));
    return {fwd, rev};
  }

  /// Copy-back loops emitted as pointer swaps (BufferSwap.cpp).
  std::map<const Stmt *, SwapCopy> swaps;

  /// Statements to run after the reversed loop (by loop): the zeroing of
  /// adjoints that an overwriting gather left stale.
  std::map<const Stmt *, Block> zeroAfter;
  /// The counted loops whose reverse may be part of a nest gather
  /// (nestGatherForm, Gather.cpp): the levels from the loop down to the
  /// innermost, the innermost loop and its reversed body, the loop's
  /// reverse and the plain reversed nest (the gather's fallback).
  struct NestRecord {
    std::vector<NestLevel> levels;
    Block innerBody;
    const Stmt *innerPrimal = nullptr;
    Block rev;
    StmtP plain;
  };
  std::map<const Stmt *, NestRecord> nests;

  /// The swapped copy-back whose step may overwrite in the adjoint of loop
  /// g (BufferSwap.cpp), or null.
  const SwapCopy *overwriteOf(const Stmt *g) const {
    for (const auto &kv : swaps)
      if (kv.second.overwrite == g && kv.second.dst->active &&
          kv.second.src->active)
        return &kv.second;
    return nullptr;
  }

  /// `{ T *mpiad_swap = a; a = b; b = mpiad_swap; }`
  StmtP swapStmt(Var *a, Var *b) {
    return swapPointers(a, b, newSynth("mpiad_swap", a->type));
  }

  /// The copy-back `a[i] = b[i]` for every element, whose old contents of b
  /// are dead: the forward sweep swaps a and b, the reverse sweep swaps them
  /// back and swaps their adjoints (b_b is zero there, so `b_b += a_b; a_b =
  /// 0` is the swap).
  Pair swappedCopy(const SwapCopy &sc) {
    Var *a = sc.dst, *b = sc.src;
    std::string what = a->name + "[i] = " + b->name + "[i] for every i";
    Block fwd{mkComment("copy-back " + what + ": the old contents of " +
                        b->name + " are not read again, so swap the buffers"),
              swapStmt(a, b)};
    // An overwriting gather of this step (gatherForm, generated before)
    // leaves stale values in b_b that stand for zero.
    std::string zero = zeroAfter.count(sc.timeLoop)
                           ? " is zero here, or stale where it stands for zero"
                           : " is zero here";
    Block rev{mkComment("adjoint of the copy-back " + what + " (" +
                        shadow(b)->name + zero + "): swap back"),
              swapStmt(a, b), swapStmt(shadow(a), shadow(b))};
    return {fwd, rev};
  }

  /// The copy of a region (BufferSwap.cpp): when the run-time condition
  /// holds, the forward sweep swaps a and b (and their adjoints, so that
  /// every address the runtime keeps from the forward sweep is the reverse
  /// sweep's) and exchanges their elements outside the region; the reverse
  /// sweep exchanges them back, with the adjoints, and swaps back.
  /// Otherwise both sweeps copy, as generated for any loop.
  ///
  /// When the reverse reads a's old region, b's buffer holds it after the
  /// swap, and b's region is dead from there: the tape keeps b's buffer
  /// whole (mpiad_push_buffer) and gives b another, into which the exchange
  /// also copies b's elements outside the region (the only ones of b still
  /// live).  The reverse sweep first takes the kept buffer back into b.  The
  /// pointers are then those of the forward sweep at every point of the
  /// reverse sweep, and the trajectory of a costs no copy.  (On the CUDA
  /// target the buffers are device memory: the region is pushed row by row
  /// before the swap and popped after the swap back.)
  const Stmt *copying = nullptr; // the copy generated as a loop
  Pair regionSwappedCopy(const StmtP &s, const SwapCopy &sc) {
    copying = s.get();
    Pair copy = forStmt(s);
    copying = nullptr;
    Var *a = sc.dst, *b = sc.src, *ab = shadow(a), *bb = shadow(b);
    NewVar nv = [&](const std::string &n, const CType &t) {
      return newSynth(n, t);
    };
    bool f32 = a->type.elem == Scalar::Float;
    auto rows = [&](bool pop) {
      return regionRows(sc, nv, pop, [&](const ExprP &start, const ExprP &w) {
        std::string fn = std::string(pop ? "mpiad_pop_" : "mpiad_push_") +
                         (f32 ? "f32" : "f64") + "_array";
        return Block{mkExprStmt(mkCall(
            fn, {mkAddrOf(mkIndex(mkVar(a), start)), w}, Scalar::Void))};
      });
    };
    std::string what = "copy-back of the region of " + a->name + " from " +
                       b->name;
    Block fwd{mkComment(what + ": the old contents of " + b->name +
                        " there are not read again, so swap the buffers "
                        "and exchange the elements outside the region")};
    bool keep = sc.recordsDst && !M.cuda;
    if (sc.recordsDst && !keep)
      append(fwd, rows(false));
    fwd.push_back(swapStmt(a, b));
    fwd.push_back(swapStmt(ab, bb));
    Var *fresh = nullptr;
    ExprP bytes;
    // `(double *)mpiad_push_buffer(b, bytes)` or `..._pop_buffer(b, bytes)`
    auto bufferCall = [&](const std::string &fn) {
      return mkCast(printType(b->type),
                    mkCall(fn, {mkVar(b), bytes}, Scalar::Void, 1),
                    b->type.elem, 1);
    };
    if (keep) {
      fresh = newSynth("mpiad_fresh", b->type);
      const ExprP &n = sc.count; // often (size_t)x * (size_t)y already
      bool sized = n->kind == Expr::Binary && n->text == "*" &&
                   n->ops[0]->kind == Expr::Cast && n->ops[0]->text == "size_t";
      bytes = mkBinary("*", sized ? n : mkCast("size_t", n, Scalar::Int),
                       mkOpaque("sizeof(" + b->type.elemName() + ")"));
      fwd.push_back(mkComment(
          "the old region of " + a->name + ", now in " + b->name +
          ", is kept on the tape as it is: " + b->name +
          " takes another buffer, with its elements outside the region"));
      fwd.push_back(mkDecl(fresh, bufferCall("mpiad_push_buffer")));
    }
    append(fwd, exchangeOutsideRegion(sc, nv, {{a, b}}, fresh));
    if (keep)
      fwd.push_back(mkAssign(mkVar(b), "=", mkVar(fresh)));
    Block rev{mkComment(
        "adjoint of the " + what + " (" + bb->name +
        (zeroAfter.count(sc.timeLoop)
             ? " is zero on the region, or stale where it stands for zero"
             : " is zero on the region") +
        "): exchange back" +
        (sc.reverseReadsNeither ? " the adjoints (the rest of the reverse "
                                  "sweep reads neither buffer)"
                                : "") +
        ", swap back")};
    if (keep) {
      rev.push_back(mkComment(b->name + " takes back its buffer that the "
                              "tape kept, with the old region of " +
                              a->name));
      rev.push_back(mkAssign(mkVar(b), "=", bufferCall("mpiad_pop_buffer")));
    }
    // The buffers' elements outside the region go back only where the rest
    // of the reverse sweep reads them.
    if (sc.reverseReadsNeither)
      append(rev, exchangeOutsideRegion(sc, nv, {{ab, bb}}));
    else
      append(rev, exchangeOutsideRegion(sc, nv, {{a, b}, {ab, bb}}));
    rev.push_back(swapStmt(a, b));
    rev.push_back(swapStmt(ab, bb));
    if (sc.recordsDst && !keep)
      append(rev, rows(true));
    ExprP ok = regionSwapCondition(sc);
    return {{mkIf(ok, fwd, copy.first)}, {mkIf(ok, rev, copy.second)}};
  }

  Pair forStmt(const StmtP &s) {
    if (s->checkpoint && M.cuda) {
      error(s->checkpointLoc.isValid() ? s->checkpointLoc : s->loc,
            "'#pragma mpiad checkpoint' is not supported on the CUDA target "
            "yet: its snapshots are host copies");
      return {};
    }
    if (s->checkpoint)
      return checkpointedFor(s);
    auto sw = swaps.find(s.get());
    if (sw != swaps.end() && sw->second.dst->active &&
        sw->second.src->active && s.get() != copying) {
      if (!sw->second.region.empty())
        return regionSwappedCopy(s, sw->second);
      return swappedCopy(sw->second);
    }
    bool kernel = M.cuda && s->parallel;
    if (kernel)
      parallelBody = &s->body;
    bool counted = !kernel && s->loopStep != 0 && s->loopVar &&
                   enclosingCounters.insert(s->loopVar).second;
    Pair body = block(s->body);
    if (counted)
      enclosingCounters.erase(s->loopVar);
    if (kernel) {
      parallelBody = nullptr;
      kernelStable.clear();
      // What the kernel's reverse would still have to record.
      bool recorded = false;
      walk(s->body, [&](Stmt &st, const WalkCtx &) {
        if (st.tapeSet.empty() || recorded)
          return;
        recorded = true;
        error(st.loc, "on the CUDA target the reverse sweep of a parallel "
                      "loop cannot record values, and it needs the value of '" +
                          (*st.tapeSet.begin())->userName +
                          "' that this statement overwrites; compute it into "
                          "a new variable declared in the loop body");
      });
    }
    // Iterations run again in the reverse sweep instead of recorded
    // (Rerun.cpp): the forward sweep runs the body as written.
    Block slice;
    RerunPlan plan;
    bool rerun = !kernel && !M.cuda && !M.verify && !body.second.empty() &&
                 rerunPlan(F, *s, M.fe_, plan);
    if (rerun) {
      slice = rerunBody(s, plan, body);
      body.first = primalCopy(s->body, nullptr);
    }
    // One record for the loop's range instead of one per iteration
    // (RecordRange.cpp); on the host only (the CUDA target's tape records
    // device values one by one).
    Block rangeBefore, rangeRestore, rangeAfter;
    if (!M.cuda && !body.second.empty() && stableExpr(s->loopLo) &&
        stableExpr(s->loopHi))
      recordRange(F, M.fe_, *s, body.first, body.second, rangeBefore,
                  rangeRestore, rangeAfter);
    // The math calls of a loop over the replicas, for all replicas at
    // once before it (VectorMath.cpp).
    Block vecBefore;
    if (!M.cuda && s->replicaLoop)
      vectorMath(F, *s, body.first, vecBefore,
                 [&](const std::string &n, const CType &t) {
                   return newSynth(n, t);
                 },
                 mathCall());
    // The scalars it records at every replica, recorded once for all
    // replicas (ReplicaRecord.cpp).  Not in the dry run, which must see
    // the scalars' reads to decide the records.
    Block recBefore, recAfter;
    if (!M.cuda && !dry && R.topLevel && s->replicaLoop)
      replicaRecord(F, *s, body.first, body.second, recBefore, recAfter,
                    replicaBuffers, [&](const std::string &n, const CType &t) {
                      return newSynth(n, t);
                    });
    auto loop = std::make_shared<Stmt>(*s);
    loop->body = body.first;
    Block fwd, rev;
    Var *i = s->loopVar;
    if (body.second.empty()) {
      // Nothing to reverse but, possibly, the range's record: a loop whose
      // statements have no adjoint (`v[i] += 1.0`) still overwrites what
      // the reverse of earlier statements reads.
      append(fwd, rangeBefore);
      append(fwd, vecBefore);
      append(fwd, recBefore);
      fwd.push_back(loop);
      append(rev, rangeRestore);
      append(rev, rangeAfter);
      append(rev, recAfter);
      return {fwd, rev};
    }
    // Loop header assignment `i = lo` (when i is declared outside).
    bool initTaped = s->init->kind == Stmt::Assign && s->init->tapeSet.count(i);
    if (initTaped)
      fwd.push_back(push(mkVar(i)));
    append(fwd, rangeBefore);
    append(fwd, vecBefore);
    append(fwd, recBefore);
    fwd.push_back(loop);
    ExprP lo = s->loopLo, hi = s->loopHi;
    if (!stableExpr(lo) || !stableExpr(hi)) {
      // The bounds' variables change later: record their values.
      fwd.push_back(push(lo));
      fwd.push_back(push(hi));
      Var *h = newSynth("mpiad_hi", intType());
      Var *l = newSynth("mpiad_lo", intType());
      rev.push_back(mkDecl(h, mkCall("mpiad_pop_i64", {}, Scalar::Int)));
      rev.push_back(mkDecl(l, mkCall("mpiad_pop_i64", {}, Scalar::Int)));
      lo = mkVar(l);
      hi = mkVar(h);
    }
    auto r = std::make_shared<Stmt>();
    r->kind = Stmt::For;
    r->loc = s->loc;
    ExprP first, bound;
    std::string cmp, op;
    if (s->loopStep > 0) { // i = lo; i < hi; i++   ->  i = hi - 1; i >= lo; i--
      first = s->loopCmp == "<" ? plus(hi, -1) : hi;
      cmp = ">=";
      op = "-=";
    } else { // i = lo; i > hi; i--   ->  i = hi + 1; i <= lo; i++
      first = s->loopCmp == ">" ? plus(hi, 1) : hi;
      cmp = "<=";
      op = "+=";
    }
    r->init = i->declaredInForInit ? mkDecl(i, first)
                                   : mkAssign(mkVar(i), "=", first);
    r->cond = mkBinary(cmp, mkVar(i), lo);
    // An unsigned counter counting down to zero never goes below it:
    // `(T)(i + 1) > lo` ends where i wraps round (`i >= 0` never would).
    bool wraps = i->type.isUnsigned && s->loopStep > 0;
    if (wraps)
      r->cond = mkBinary(
          ">",
          mkCast(i->type.base, mkBinary("+", mkVar(i), mkInt(1)), Scalar::Int),
          lo);
    r->step = mkAssign(mkVar(i), op, mkInt(1));
    r->body = body.second;
    // The reversed loop is parallel too (any order of independent
    // iterations), and counted: from `first` to `lo`.
    r->parallel = s->parallel;
    r->loopVar = i;
    r->loopLo = first;
    r->loopHi = lo;
    r->loopCmp = cmp;
    r->loopStep = s->loopStep > 0 ? -1 : 1;
    if (!slice.empty()) {
      // The iterations again, recording, counted as the program counts.
      auto again = std::make_shared<Stmt>();
      again->kind = Stmt::For;
      again->loc = s->loc;
      again->init = i->declaredInForInit ? mkDecl(i, lo)
                                         : mkAssign(mkVar(i), "=", lo);
      again->cond = mkBinary(s->loopCmp, mkVar(i), hi);
      again->step = mkAssign(mkVar(i), s->loopStep > 0 ? "+=" : "-=", mkInt(1));
      again->body = slice;
      rev.push_back(mkComment("the iterations again, recording"));
      rev.push_back(again);
    }
    // A loop of a perfect nest that may be gathered as a whole: counted
    // up, fixed bounds, nothing recorded around it.  Its counter may be a
    // variable of the function (PRK's `int i, j;`): the gather counts with
    // loop variables of its own, and a read of the counter after the
    // reversed loop would need its value from before the loop, which the
    // tape restores (initTaped), not the reversed loop's last one.
    bool nestable = !kernel && !wraps && !rerun && s->loopStep > 0 &&
                    rev.empty() &&
                    rangeBefore.empty() && rangeRestore.empty() &&
                    rangeAfter.empty() && recAfter.empty() && !initTaped &&
                    !zeroAfter.count(s.get());
    const NestRecord *child = nullptr;
    if (nestable && s->body.size() == 1 && s->body[0]->kind == Stmt::For) {
      auto c = nests.find(s->body[0].get());
      if (c != nests.end() && c->second.rev.size() == body.second.size() &&
          std::equal(body.second.begin(), body.second.end(),
                     c->second.rev.begin()))
        child = &c->second;
    }
    NestRecord rec;
    rec.levels = {{i, lo, first}};
    rec.plain = r;
    if (child) {
      auto plain = std::make_shared<Stmt>(*r);
      plain->body = {child->plain};
      rec.plain = plain;
      rec.levels.insert(rec.levels.end(), child->levels.begin(),
                        child->levels.end());
      rec.innerBody = child->innerBody;
      rec.innerPrimal = child->innerPrimal;
    } else {
      rec.innerBody = body.second;
      rec.innerPrimal = s.get();
    }
    append(rev, rangeRestore);
    Block gather;
    if (!kernel && !wraps && !rerun && !M.verify && s->loopStep > 0 &&
        i->declaredInForInit &&
        gatherForm(gatherContext(), i, lo, first, body.second, *s, gather,
                   overwriteOf(s.get())))
      append(rev, gather);
    // (The CUDA target keeps the zeroing gather: an overwriting one needs
    // a zeroing of the region on the host after the time loop.)
    else if (child && !rerun && !M.verify &&
             nestGatherForm(gatherContext(), rec.levels,
                                     rec.innerBody, *rec.innerPrimal,
                                     rec.plain, gather,
                                     M.cuda ? nullptr : overwriteOf(s.get())))
      append(rev, gather);
    else
      rev.push_back(r);
    append(rev, rangeAfter);
    append(rev, recAfter);
    // Adjoints a gather of the body left stale (they stand for zero).
    auto stale = zeroAfter.find(s.get());
    if (stale != zeroAfter.end())
      append(rev, stale->second);
    if (initTaped)
      rev.push_back(pop(mkVar(i)));
    if (nestable) {
      rec.rev = rev;
      nests[s.get()] = rec;
    }
    return {fwd, rev};
  }

  /// A loop under `#pragma mpiad checkpoint`: the runtime's schedule
  /// decides which steps are re-run, snapshotted, recorded and reversed
  /// (Checkpoint.cpp).
  Pair checkpointedFor(const StmtP &s) {
    Pair body = block(s->body);
    if (body.second.empty()) { // nothing to reverse: the loop runs as is
      auto loop = std::make_shared<Stmt>(*s);
      loop->body = body.first;
      return {{loop}, {}};
    }
    CheckpointState state;
    if (!checkpointState(F, *s, M.fe_, dry ? nullptr : &diag, state, &R.ann)) {
      failed = true;
      return {};
    }
    // Every rank must follow the same schedule when the steps communicate.
    bool communicates = false;
    walk(s->body, [&](Stmt &st, const WalkCtx &) {
      communicates |= st.kind == Stmt::Comm;
    });
    if (communicates && !R.perRank) {
      std::set<Var *> lo, hi;
      collectVars(s->loopLo, lo);
      collectVars(s->loopHi, hi);
      for (Var *v : lo)
        if (!replAt(s->init.get(), v, false))
          return notReplicated(s, v);
      for (Var *v : hi)
        if (!replAt(s.get(), v, false))
          return notReplicated(s, v);
      for (Var *p : F.params) // snapshots=K with K a parameter
        if (p->userName == s->snapshots &&
            !named(R.ann.replicated, p->userName))
          return notReplicated(s, p);
    }
    // Shadow pointers are snapshotted with the pointers they follow.
    std::vector<std::pair<ExprP, ExprP>> withShadows;
    for (const auto &p : state.parts) {
      withShadows.push_back(p);
      const ExprP &a = p.first;
      if (a->kind == Expr::AddrOf && a->ops[0]->kind == Expr::VarRef &&
          a->ops[0]->ptrDepth > 0 && shadows.count(a->ops[0]->var)) {
        Var *sv = shadows[a->ops[0]->var];
        withShadows.push_back(
            {mkAddrOf(mkVar(sv)),
             mkOpaque("sizeof(" + sv->name + ")", {}, Scalar::Int)});
      }
    }
    state.parts = withShadows;
    CType ckType;
    ckType.base = "mpiad_ckpt";
    ckType.ptrDepth = 1;
    CheckpointParts parts;
    parts.ck = newSynth("mpiad_ck", ckType);
    parts.action = newSynth("mpiad_act", intType("int"));
    parts.action->declaredInForInit = true;
    parts.recorded = body.first;
    parts.reversed = body.second;
    parts.shadowCopy = [&](const StmtP &st) -> StmtP {
      if (st->kind != Stmt::Assign || st->op != "=" ||
          st->lhs->kind != Expr::VarRef || st->lhs->ptrDepth == 0 ||
          !st->lhs->var->active)
        return nullptr;
      return mkAssign(mkVar(shadow(st->lhs->var)), "=", sh(st->rhs));
    };
    Pair code = checkpointDriver(*s, state, parts);
    if (recordReads) {
      // What the reverse sweep reads at the loop: the re-run steps read
      // what the body reads, and the bounds.
      ReverseReads r;
      classify(code.second, r);
      (*recordReads)[s.get()] = r;
    }
    return code;
  }
  Pair notReplicated(const StmtP &s, Var *v) {
    error(s->loc, "the steps of this checkpointed loop communicate, so every "
                  "rank must follow the same schedule; '" +
                      v->userName + "' in its bounds or snapshots is not "
                                    "replicated (list it in replicated(...))");
    return {};
  }

  static ExprP plus(const ExprP &e, long long k) { return plusConst(e, k); }

  /// What the gather form (Gather.cpp) needs of the generator.
  GatherContext gatherContext() {
    GatherContext cx;
    cx.newVar = [this](const std::string &n, const CType &t) {
      return newSynth(n, t);
    };
    cx.isShadow = [this](const Var *v) { return isShadowVar(v); };
    cx.isGenerated = [this](const Var *v) {
      return generated.count(const_cast<Var *>(v)) > 0;
    };
    cx.recomputable = [this](const ExprP &e) { return recomputable(e); };
    cx.shadow = [this](Var *v) { return shadow(v); };
    cx.zeroAfter = &zeroAfter;
    return cx;
  }

  bool isShadowVar(const Var *v) const {
    for (auto &kv : shadows)
      if (kv.second == v)
        return true;
    return false;
  }
  /// A shadow of this function's own (not a parameter's, not a global's).
  bool isLocalShadow(const Var *v) const {
    return isShadowVar(v) && v->kind != Var::Param && v->kind != Var::Global;
  }

  Pair whileStmt(const StmtP &s) {
    RerunPlan plan;
    if (!M.cuda && !M.verify && rerunPlan(F, *s, M.fe_, plan))
      return rerunWhile(s, plan);
    Pair body = block(s->body);
    auto loop = std::make_shared<Stmt>(*s);
    loop->body = body.first;
    if (body.second.empty())
      return {{loop}, {}};
    Var *n = newSynth("mpiad_iter", intType());
    counters.push_back(n);
    Block fwd, rev;
    fwd.push_back(mkAssign(mkVar(n), "=", mkInt(0)));
    loop->body.push_back(mkAssign(mkVar(n), "+=", mkInt(1)));
    fwd.push_back(loop);
    fwd.push_back(push(mkVar(n)));
    auto r = std::make_shared<Stmt>();
    r->kind = Stmt::For;
    r->init = pop(mkVar(n));
    r->cond = mkBinary(">", mkVar(n), mkInt(0));
    r->step = mkAssign(mkVar(n), "-=", mkInt(1));
    r->body = body.second;
    rev.push_back(r);
    return {fwd, rev};
  }

  /// The recorded iteration (core.first) that the reverse sweep runs again,
  /// without what outlives it; what it reads from outside is the loop's
  /// reverse read (ToBeRecorded.cpp).
  Block rerunBody(const StmtP &s, const RerunPlan &plan, const Pair &core) {
    s->rerun = true;
    std::set<Var *> needed;
    referenced(core.second, needed);
    Block slice = rerunSlice(F, core.first, plan, M.fe_, needed);
    if (recordReads) {
      ReverseReads r;
      classify(slice, r);
      for (Var *p : plan.privates) {
        r.data.erase(p);
        r.ptr.erase(p);
      }
      (*recordReads)[s.get()] = r;
    }
    return slice;
  }

  /// A loop whose iterations the reverse sweep runs again (Rerun.cpp): the
  /// forward sweep runs it as written; its reverse rewinds the counters
  /// (the reverse of the tail, once per iteration), runs the iterations
  /// again, recording, without their stores into what outlives them, then
  /// reverses them as usual.  (One iteration re-run and reversed at a time
  /// would switch the tape between pushing and popping at every iteration,
  /// an out-of-line call each time: 20 times the primal on CoMD.)
  Pair rerunWhile(const StmtP &s, const RerunPlan &plan) {
    Pair core = block(plan.core), tail = block(plan.tail);
    auto loop = std::make_shared<Stmt>(*s);
    if (core.second.empty() && tail.second.empty()) {
      loop->body = core.first;
      append(loop->body, tail.first);
      return {{loop}, {}};
    }
    Block slice = rerunBody(s, plan, core);
    loop->body = primalCopy(plan.core, nullptr);
    append(loop->body, tail.first);
    // Counter updates that record (none that Rerun.cpp accepts, in
    // practice) cannot be rewound: each iteration is re-run in its reverse.
    bool tailRecords = false;
    walk(tail.first, [&](Stmt &st, const WalkCtx &) {
      tailRecords |= st.kind != Stmt::Assign && st.kind != Stmt::Compound;
    });
    Var *n = newSynth("mpiad_iter", intType());
    counters.push_back(n);
    loop->body.push_back(mkAssign(mkVar(n), "+=", mkInt(1)));
    Block fwd = {mkAssign(mkVar(n), "=", mkInt(0)), loop, push(mkVar(n))};
    Block rev = {pop(mkVar(n))};
    auto again = [&](Block body) {
      Var *k = newSynth("mpiad_k", intType("long long"));
      return mkCountedLoop(k, mkInt(0), mkVar(n), false, "<", body);
    };
    if (!slice.empty() && tailRecords) {
      slice.insert(slice.begin(), mkComment("the iteration again, recording"));
      slice.insert(slice.begin(), tail.second.begin(), tail.second.end());
      tail.second = slice;
    } else if (!slice.empty()) {
      if (!tail.second.empty()) {
        rev.push_back(mkComment("the counters back to the loop's start"));
        rev.push_back(again(tail.second));
      }
      rev.push_back(mkComment("the iterations again, recording"));
      // The counters the reverse restores advance again; the others
      // (`ij`, read by the loop's condition only) are left alone.
      std::set<Var *> rewound;
      walk(tail.second, [&](Stmt &st, const WalkCtx &) {
        if (st.kind == Stmt::Assign)
          if (Var *v = baseVar(st.lhs))
            rewound.insert(v);
      });
      Block body = slice;
      walk(tail.first, [&](Stmt &st, const WalkCtx &) {
        if (st.kind == Stmt::Assign && rewound.count(baseVar(st.lhs)))
          body.push_back(std::make_shared<Stmt>(st));
      });
      rev.push_back(again(body));
    }
    auto r = std::make_shared<Stmt>();
    r->kind = Stmt::For;
    r->cond = mkBinary(">", mkVar(n), mkInt(0));
    r->step = mkAssign(mkVar(n), "-=", mkInt(1));
    r->body = tail.second;
    append(r->body, core.second);
    rev.push_back(r);
    return {fwd, rev};
  }

  // --- communication ----------------------------------------------------

  /// for (k = 0; k < count; k++) body(k)   (or body(0) when count is 1)
  StmtP elementwise(const ExprP &count,
                    const std::function<StmtP(const ExprP &)> &body) {
    if (count->kind == Expr::IntLit && count->text == "1")
      return body(mkInt(0));
    CType it = intType("int");
    Var *k = newSynth("mpiad_k", it);
    k->declaredInForInit = true;
    auto r = std::make_shared<Stmt>();
    r->kind = Stmt::For;
    r->init = mkDecl(k, mkInt(0));
    r->cond = mkBinary("<", mkVar(k), count);
    r->step = mkAssign(mkVar(k), "+=", mkInt(1));
    r->body = {body(mkVar(k))};
    return r;
  }

  bool isInPlace(const ExprP &e) const {
    return e->kind == Expr::Opaque && e->text == "MPI_IN_PLACE";
  }
  /// A null pointer passed as a buffer (MPI_Reduce's receive buffer on a
  /// rank other than the root, as MPI allows): NULL, 0, (void *)0.
  static bool isNullBuffer(const ExprP &e) {
    if (e->kind == Expr::Cast)
      return isNullBuffer(e->ops[0]);
    return (e->kind == Expr::Opaque && e->text == "NULL") ||
           (e->kind == Expr::IntLit && e->text == "0");
  }

  /// Does any point-to-point message of this function carry derivatives?
  /// Then every point-to-point call is reversed, so that peers match.
  int p2pActive = -1, startActive = -1;
  NcclGroups groups; // NCCL calls in and out of groups
  bool pointToPointActive() {
    if (p2pActive < 0)
      p2pActive = mpiad::pointToPointActive(F.body);
    return p2pActive;
  }
  /// Is any non-blocking start reversed?  Then every completion is.
  bool startsActive() {
    if (startActive < 0)
      startActive = mpiad::startsActive(F.body);
    return startActive;
  }

  /// Communicators created in this function whose release the primal
  /// performs: the release moves to the reverse of the creation.
  std::map<Var *, std::string> deferredRelease;
  std::map<Var *, bool> releaseByValue; // the release takes c, not &c

  bool guardsHold(const CommRule &r, const std::vector<ExprP> &args,
                  const std::vector<Guard> &gs) {
    for (const Guard &g : gs) {
      const ExprP &a = args[r.argIndex(g.arg)];
      if (!guardHolds(g, *a, printExpr(a)))
        return false;
    }
    return true;
  }

  /// The adjoint of a buffer argument as passed to a runtime helper.
  ExprP adjArg(const ExprP &buf) {
    if (isInPlace(buf))
      return buf;
    Var *b = baseVar(buf);
    if (!b || !b->active)
      return mkOpaque("NULL");
    return sh(buf);
  }

  /// 1 when the buffer's adjoint is a per-rank share, 0 when exact.
  bool partialAdj(const ExprP &buf) {
    if (R.perRank)
      return true;
    Var *b = baseVar(buf);
    return !(b && replAt(curStmt, b, true) && !partialAt(curStmt, b, true));
  }

  ExprP ruleArg(const CommRule &r, const std::vector<ExprP> &args,
                const std::string &a) {
    auto inner = [&](const char *w) {
      return a.substr(strlen(w), a.size() - strlen(w) - 1);
    };
    if (a.rfind("adj(", 0) == 0)
      return adjArg(args[r.argIndex(inner("adj("))]);
    if (a.rfind("partial(", 0) == 0)
      return mkInt(partialAdj(args[r.argIndex(inner("partial("))]) ? 1 : 0);
    int i = r.argIndex(a);
    if (i >= 0)
      return args[i];
    return mkOpaque(a);
  }

  Pair comm(const StmtP &s) {
    const CommRule &r = *s->comm.rule;
    const auto &args = s->comm.args;
    auto arg = [&](const std::string &n) {
      int i = r.argIndex(n);
      return i >= 0 ? args[i] : mkOpaque(n); // constants in the rule
    };
    Block fwd, rev;
    // The communicator as printed (a renamed variable under its generated
    // name: an inlined helper's local `comm` is not the caller's).
    std::string commText;
    ExprP commArg;
    for (size_t i = 0; i < r.args.size(); ++i)
      if (r.args[i].role == CommArg::Comm) {
        commArg = args[i];
        commText = printExpr(args[i]);
      }
    // Deferred release of a communicator created here.
    if (!r.releases.empty()) {
      Var *c = baseVar(arg(r.releases));
      if (c && handleOrigin.count(c) && releasedCopies.count(c))
        c = handleOrigin[c];
      if (c && deferredRelease.count(c)) {
        return {{mkComment(s->comm.name + "(" + printExpr(arg(r.releases)) +
                           ") happens in the reverse sweep")},
                {}};
      }
      // A handle the function did not make (the caller's, a global's):
      // the reverse of the code before the release still uses it, so it is
      // released once the reverse sweep is over.
      if (c && !M.cuda) {
        lateReleases.push_back(s);
        return {{mkComment(s->comm.name + "(" + printExpr(arg(r.releases)) +
                           ") happens at the end of the reverse sweep")},
                {}};
      }
      return {{s}, {}};
    }
    // Which buffers carry derivatives?
    bool anyActive = false;
    for (size_t i = 0; i < r.args.size(); ++i) {
      if (r.args[i].role != CommArg::Buffer)
        continue;
      Var *b = baseVar(args[i]);
      if (b && b->active)
        anyActive = true;
    }
    if (r.pointToPoint && pointToPointActive()) {
      anyActive = true;
      // Adjoint messages carry tags above every user tag, but a wildcard-tag
      // receive could match one if its peer starts the reverse sweep early:
      // separate the sweeps.
      for (const char *t : {"tag", "recvtag"}) {
        int ti = r.argIndex(t);
        if (ti >= 0 && args[ti]->text == "MPI_ANY_TAG" &&
            r.args[ti].role == CommArg::Other && r.argIndex("source") >= 0)
          sweepBarrier = commText;
      }
    }
    if (r.completes && startsActive())
      anyActive = true;
    if (anyActive) {
      for (size_t i = 0; i < r.args.size(); ++i) {
        const CommArg &a = r.args[i];
        if (a.role == CommArg::Op) {
          const auto &ok = r.allowedOps.at(a.name);
          if (std::find(ok.begin(), ok.end(), args[i]->text) == ok.end()) {
            std::string j;
            for (auto &o : ok)
              j += (j.empty() ? "" : ", ") + o;
            error(args[i]->loc, "reduction operator '" + args[i]->text +
                                    "' of " + s->comm.name +
                                    " is not supported for values that carry "
                                    "derivatives (supported: " + j + ")");
          }
        }
        if (a.role == CommArg::Buffer && !baseVar(args[i]) &&
            !isInPlace(args[i]) && !(a.write && isNullBuffer(args[i])))
          error(args[i]->loc, "buffer argument '" + printExpr(args[i]) +
                                  "' of " + s->comm.name +
                                  " must be a variable, an array or &element");
        if (a.role == CommArg::Buffer)
          if (Var *b = baseVar(args[i]))
            if (b->active && b->type.isFloatingElem()) {
              std::string t = arg(a.datatype)->text;
              std::string want = b->type.datatypeLike(t);
              if (datatypeElem(t) != Scalar::Other &&
                  datatypeElem(t) != b->type.elem)
                error(args[i]->loc, "buffer '" + b->userName + "' holds " +
                                        b->type.elemName() + " but " +
                                        s->comm.name + " is told " + t +
                                        "; use " + want);
            }
        if (a.role == CommArg::Datatype) {
          const std::string &t = args[i]->text;
          // MPI ignores the count and type of an MPI_IN_PLACE buffer.
          bool onlyInPlace = true;
          for (size_t j = 0; j < r.args.size(); ++j)
            if (r.args[j].role == CommArg::Buffer &&
                r.args[j].datatype == a.name && !isInPlace(args[j]))
              onlyInPlace = false;
          if (onlyInPlace)
            continue;
          std::string why = derivedDatatypeError(r, a, *args[i], s->comm.name);
          if (!why.empty())
            error(args[i]->loc, why);
          else if (!args[i]->derivedDatatype &&
                   datatypeElem(t) == Scalar::Other)
            error(args[i]->loc, "datatype '" + t + "' of " + s->comm.name +
                                    " cannot carry derivatives; use " +
                                    floatingDatatypes(t));
        }
      }
    }
    // A collective with derivatives must not be in an NCCL group, a
    // point-to-point call of a group (ncclSend) must be in one.
    if (anyActive) {
      std::string why = ncclGroupingError(*s, F.body, groups);
      if (!why.empty())
        error(s->loc, why);
    }
    // Record what the call overwrites, if the reverse sweep needs it.  The
    // tape is LIFO: these pushes come before the records of the rule's
    // `forward` call, so their pops come after the rule's adjoint (which
    // reads shadows and the call's other arguments, never the old contents
    // of what the call writes).  Several recorded arguments are popped in
    // the reverse order of their pushes.
    Block restore;
    for (size_t i = 0; i < r.args.size(); ++i) {
      const CommArg &a = r.args[i];
      if (!a.write)
        continue;
      Var *b = baseVar(args[i]);
      if (!b || !s->tapeSet.count(b))
        continue;
      // Integer outputs and statuses: element by element (push() saves a
      // status's raw bytes).
      bool value = a.role == CommArg::IntOut || a.role == CommArg::Status;
      if (value && !a.count.empty()) {
        ExprP n = arg(a.count);
        fwd.push_back(elementwise(n, [&](const ExprP &k) {
          return push(bufferElement(args[i], k));
        }));
        // Popped last element first: k counts up, the element down.
        restore.insert(
            restore.begin(), elementwise(n, [&](const ExprP &k) {
              return pop(bufferElement(args[i],
                                 mkBinary("-", mkBinary("-", n, mkInt(1)), k)));
            }));
        continue;
      }
      if (value) {
        fwd.push_back(push(bufferElement(args[i], mkInt(0))));
        restore.insert(restore.begin(), pop(bufferElement(args[i], mkInt(0))));
        continue;
      }
      // As many elements as the call writes: the rule's extent where it
      // differs from the count (recvcount * size for MPI_Allgather).
      ExprP count = arg(a.count);
      if (a.extent) {
        std::map<std::string, ExprP> sub;
        for (size_t j = 0; j < r.args.size(); ++j)
          sub[r.args[j].name] = args[j];
        count = substitute(a.extent, sub);
      }
      int dt = r.argIndex(a.datatype);
      // The buffer's numbers: its own elements, or those of an array of
      // structs of only double (float) values, cast to them (Frontend).
      Scalar elem = b->type.isFloatingElem()          ? b->type.elem
                    : args[i]->kind == Expr::Cast ? b->type.flatElem
                                                  : Scalar::Other;
      if (dt >= 0 && args[dt]->derivedDatatype && elem != Scalar::Other &&
          count->ptrDepth == 0) {
        // Through the datatype's layout: the elements of the items the call
        // writes (the extent counts items too).
        fwd.push_back(mkExprStmt(mkCall(
            "mpiad_push_layout", {args[i], count, args[dt]}, Scalar::Void)));
        restore.insert(restore.begin(),
                       mkExprStmt(mkCall("mpiad_pop_layout",
                                         {args[i], count, args[dt]},
                                         Scalar::Void)));
      } else if (count->ptrDepth > 0) {
        error(args[i]->loc, "cannot record buffer '" + b->userName +
                                "' overwritten by " + s->comm.name +
                                " (per-rank counts); it is read by the reverse "
                                "sweep: copy it first");
      } else if (count->kind == Expr::IntLit && count->text == "1") {
        fwd.push_back(push(bufferElement(args[i], mkInt(0))));
        restore.insert(restore.begin(), pop(bufferElement(args[i], mkInt(0))));
      } else if (elem != Scalar::Other) {
        std::string sfx = elem == Scalar::Float ? "f32" : "f64";
        fwd.push_back(mkExprStmt(mkCall("mpiad_push_" + sfx + "_array",
                                        {args[i], count}, Scalar::Void)));
        restore.insert(restore.begin(),
                       mkExprStmt(mkCall("mpiad_pop_" + sfx + "_array",
                                         {args[i], count}, Scalar::Void)));
      } else {
        error(args[i]->loc, "cannot record integer buffer '" + b->userName +
                                "' overwritten by " + s->comm.name +
                                "; it is read by the reverse sweep");
      }
    }
    // The forward sweep: the primal call, or the rule's recording variant.
    bool replaced = false;
    if (anyActive)
      for (const CommStep &st : r.forward)
        if (guardsHold(r, args, st.guards))
          for (const CommAction &a : st.actions) {
            std::vector<ExprP> cargs;
            for (const std::string &x : a.args)
              cargs.push_back(ruleArg(r, args, x));
            fwd.push_back(mkExprStmt(mkCall(a.op, cargs, Scalar::Int)));
            replaced = true;
          }
    if (!replaced)
      fwd.push_back(s);
    // The communicator created here is released at this statement's
    // reverse, before its previous value is restored.
    if (!r.creates.empty())
      if (Var *c = baseVar(arg(r.creates)))
        if (deferredRelease.count(c) && !replacedCreates.count(s.get()))
          rev.insert(rev.begin(),
                     mkExprStmt(mkCall(deferredRelease[c],
                                       {releaseByValue[c] ? mkVar(c)
                                                          : mkAddrOf(mkVar(c))},
                                       Scalar::Int)));
    if (!anyActive) {
      append(rev, restore);
      return {fwd, rev};
    }
    const std::vector<CommStep> &steps = R.perRank ? r.perRank : r.global;
    for (const CommStep &st : steps) {
      if (!guardsHold(r, args, st.guards))
        continue;
      for (const CommAction &act : st.actions) {
        if (!act.builtin) {
          std::vector<ExprP> cargs;
          for (const std::string &x : act.args)
            cargs.push_back(ruleArg(r, args, x));
          rev.push_back(mkExprStmt(mkCall(act.op, cargs, Scalar::Int)));
          continue;
        }
        std::vector<ExprP> bufs;
        bool allActive = true;
        for (const std::string &n : act.args) {
          bufs.push_back(arg(n));
          Var *b = baseVar(arg(n));
          allActive &= b && b->active;
        }
        if (!allActive)
          continue;
        ExprP count = arg(r.args[r.argIndex(act.args[0])].count);
        if (act.op == "allreduce" || act.op == "allreduce_if_partial") {
          Var *b = baseVar(bufs[0]);
          if (act.op == "allreduce_if_partial" && !partialAdj(bufs[0]))
            continue;
          rev.push_back(mkExprStmt(mkCall(
              "MPI_Allreduce",
              {mkOpaque("MPI_IN_PLACE"), sh(bufs[0]), count,
               mkOpaque(b->type.mpiType()), mkOpaque("MPI_SUM"), commArg},
              Scalar::Int)));
        } else if (act.op == "accumulate") {
          ExprP d = bufs[0], src = bufs[1];
          rev.push_back(elementwise(count, [&](const ExprP &k) {
            return mkAssign(sh(bufferElement(d, k)), "+=", sh(bufferElement(src, k)));
          }));
        } else if (act.op == "zero") {
          ExprP b = bufs[0];
          rev.push_back(elementwise(count, [&](const ExprP &k) {
            return mkAssign(sh(bufferElement(b, k)), "=", mkInt(0));
          }));
        }
      }
    }
    append(rev, restore);
    return {fwd, rev};
  }
  std::set<Var *> createdComms;
  /// Releases of handles made elsewhere, run after the reverse sweep.
  Block lateReleases;
  /// Copies of created handles (`t = t_2`), each to the handle it copies,
  /// and those of them that the primal releases.
  std::map<Var *, Var *> handleOrigin;
  std::set<Var *> releasedCopies;
  std::set<const Stmt *> replacedCreates; // their handle is made anew from it
  std::string sweepBarrier; // communicator to synchronise between sweeps

  /// Loops of F's body whose reverse runs inside them for a seed of 1,
  /// scaled in the reverse sweep (DeferredSeed.cpp).  `zeroed` allocates
  /// an accumulator of an adjoint array.
  void deferSeeds(Pair &sweeps,
                  const std::function<ExprP(const ExprP &, Var *, Var *)> &zeroed) {
    if (topLevel.size() != F.body.size() || M.cuda)
      return;
    DeferredSeedContext cx;
    cx.newVar = [&](const std::string &n, const CType &t) {
      return newSynth(n, t);
    };
    cx.isShadow = [&](const Var *v) { return isShadowVar(v); };
    cx.pure = mathCall();
    cx.length = [&](const Var *v) -> ExprP {
      for (auto &[p, sh] : shadows) {
        if (sh != v)
          continue;
        // replicated(w[LEN]) as written, else inferred from the accesses
        auto it = R.ann.replicatedLen.find(p->userName);
        if (p->kind == Var::Param && it != R.ann.replicatedLen.end())
          return mkOpaque("(" + it->second + ")", {}, Scalar::Int);
        return arrayLength(p);
      }
      return nullptr;
    };
    cx.zeroed = zeroed;
    cx.elementwise = [&](const ExprP &n,
                         const std::function<StmtP(const ExprP &)> &body) {
      return elementwise(n, body);
    };
    for (size_t k = 0; k < F.body.size(); ++k) {
      const StmtP &s = F.body[k];
      if (s->kind != Stmt::For || s->loopStep <= 0 ||
          topLevel[k].first.size() != 1 || topLevel[k].second.size() != 1)
        continue;
      auto f = std::find(sweeps.first.begin(), sweeps.first.end(),
                         topLevel[k].first[0]);
      auto r = std::find(sweeps.second.begin(), sweeps.second.end(),
                         topLevel[k].second[0]);
      StmtP fused;
      Block before, scale;
      if (f == sweeps.first.end() || r == sweeps.second.end() ||
          !deferredSeed(F, *s, topLevel[k].first[0], topLevel[k].second[0],
                        cx, fused, before, scale))
        continue;
      r = sweeps.second.erase(r);
      sweeps.second.insert(r, scale.begin(), scale.end());
      *f = fused;
      sweeps.first.insert(f, before.begin(), before.end());
    }
  }

  /// Sweep fusion.  When the code after the function's last active loop L
  /// has an adjoint that reads no forward values (the seed flowing back
  /// through sums and reductions), and L records nothing and its reverse
  /// is iteration by iteration (adjoint arrays written and read only at
  /// [i]), the adjoint of that code can run first, and L's reverse can run
  /// inside L, each iteration right after its forward half: one pass over
  /// the data instead of two.  Replaces `sweeps` and empties `seed`.
  bool fuseLastLoop(Pair &sweeps, Block &seed) {
    if (topLevel.size() != F.body.size())
      return false;
    int L = -1;
    for (int k = (int)F.body.size() - 1; k >= 0 && L < 0; --k)
      if (F.body[k]->kind == Stmt::For && !topLevel[k].second.empty())
        L = k;
    if (L < 0)
      return false;
    const Stmt &loop = *F.body[L];
    if (loop.loopStep <= 0 || !loop.loopVar->declaredInForInit ||
        loop.checkpoint || topLevel[L].first.size() != 1 ||
        topLevel[L].second.size() != 1 ||
        topLevel[L].second[0]->kind != Stmt::For)
      return false;
    // Nothing recorded in the loop or after it, no communication in it.
    bool recorded = false;
    for (size_t k = L; k < F.body.size(); ++k) {
      Block one{F.body[k]};
      walk(one, [&](Stmt &st, const WalkCtx &) {
        recorded |= !st.tapeSet.empty() ||
                    ((int)k == L && st.kind == Stmt::Comm);
      });
    }
    if (recorded)
      return false;
    // Nor does the code after L push anything else (the branch taken, an
    // early return's flag): its adjoint, run first, would pop what the
    // forward half has not pushed yet.
    auto usesTape = [](const Block &b) {
      bool tape = false;
      walk(b, [&](Stmt &st, const WalkCtx &) {
        auto isTapeCall = [&](const Expr &e) {
          tape |= e.kind == Expr::Call && (e.text.rfind("mpiad_push", 0) == 0 ||
                                           e.text.rfind("mpiad_pop", 0) == 0);
        };
        for (const ExprP &e : {st.lhs, st.rhs, st.cond})
          visitExpr(e, isTapeCall);
        for (const ExprP &a : st.comm.args)
          visitExpr(a, isTapeCall);
      });
      return tape;
    };
    for (size_t k = L + 1; k < F.body.size(); ++k)
      if (usesTape(topLevel[k].first) || usesTape(topLevel[k].second))
        return false;
    // The adjoint of the code after L reads no forward values.
    Block revTail;
    for (size_t k = F.body.size(); k-- > (size_t)L + 1;)
      for (const StmtP &r : topLevel[k].second)
        if (!repeatsZeroing(revTail, r))
          revTail.push_back(r);
    ReverseReads tailReads;
    classify(revTail, tailReads);
    if (!tailReads.data.empty() || !tailReads.ptr.empty())
      return false;
    // L's reverse, iteration by iteration.
    Var *i = loop.loopVar;
    const Stmt &rloop = *topLevel[L].second[0];
    std::set<Var *> shadowVars;
    for (auto &kv : shadows)
      shadowVars.insert(kv.second);
    bool ok = true;
    std::function<void(const ExprP &)> scan = [&](const ExprP &e) {
      if (!e)
        return;
      if (e->kind == Expr::Index && baseVar(e) && shadowVars.count(baseVar(e)) &&
          !(e->ops[0]->kind == Expr::VarRef && e->ops[1]->kind == Expr::VarRef &&
            e->ops[1]->var == i))
        ok = false;
      for (const ExprP &o : e->ops)
        scan(o);
    };
    for (const StmtP &r : rloop.body) {
      if (r->kind != Stmt::Assign || r->lhs->kind != Expr::Index ||
          !shadowVars.count(baseVar(r->lhs)))
        return false;
      scan(r->lhs);
      scan(r->rhs);
    }
    if (!ok)
      return false;
    for (const ExprP &e : {loop.loopLo, loop.loopHi})
      if (!stableExpr(e))
        return false;

    auto fused = std::make_shared<Stmt>(*topLevel[L].first[0]);
    fused->body.push_back(mkComment("adjoint of this iteration"));
    append(fused->body, rloop.body);
    Block fwd;
    for (int k = 0; k < L; ++k)
      append(fwd, topLevel[k].first);
    fwd.push_back(mkComment("the adjoint of the code after this loop needs "
                            "no forward values: it runs first, and the "
                            "loop's adjoint runs inside the loop"));
    append(fwd, seed);
    append(fwd, revTail);
    fwd.push_back(fused);
    for (size_t k = L + 1; k < F.body.size(); ++k)
      append(fwd, topLevel[k].first);
    Block rev;
    for (int k = L - 1; k >= 0; --k)
      for (const StmtP &r : topLevel[k].second)
        if (!repeatsZeroing(rev, r))
          rev.push_back(r);
    sweeps = {fwd, rev};
    seed.clear();
    return true;
  }
};




bool isShadowVar(const std::map<Var *, Var *> &shadows, const Var *x) {
  for (auto &kv : shadows)
    if (kv.second == x)
      return true;
  return false;
}




} // namespace

std::string Module::specializationKey(const std::string &name,
                                      const std::vector<bool> &mask,
                                      bool activeRet) {
  std::string key = name + ":";
  for (bool b : mask)
    key += b ? '1' : '0';
  return key + (activeRet ? "r" : "");
}

std::string Module::clauseList(
    const std::vector<std::pair<std::string, clang::SourceLocation>> &l) {
  std::string s;
  for (auto &x : l)
    s += (s.empty() ? "" : ", ") + x.first;
  return s.empty() ? std::string("(none)") : s;
}

void Module::finishFunction(Generated &out, const std::string &head,
                            const std::string &sig, const std::string &body,
                            std::unique_ptr<Function> owned) {
  out.text = pendingHelpers_ + "\n" + head + sig + " {\n" + body + "}\n";
  out.prototype = sig + ";";
  pendingHelpers_.clear();
  owned_.push_back(std::move(owned));
}

void Module::nameVariables(Function &F) {
  std::set<std::string> seen = names_, loopNames;
  for (auto &v : F.vars)
    if (v->declaredInForInit)
      loopNames.insert(v->name);
  for (auto &v : F.vars) {
    if (v->declaredInForInit)
      continue; // scoped to its loop
    std::string n = v->name;
    auto taken = [&](const std::string &x) {
      return seen.count(x) || (v->inlinedCopy && loopNames.count(x));
    };
    for (int i = 2; taken(n) && v->kind != Var::Global; ++i)
      n = v->userName + "_" + std::to_string(i);
    v->name = n;
    seen.insert(n);
  }
}

std::string Module::globalShadow(const std::string &global,
                                 const std::string &suffix) {
  auto it = globalShadows_.find(global + suffix);
  if (it != globalShadows_.end())
    return it->second;
  return globalShadows_[global + suffix] = uniqueName(global + suffix);
}

Var *Module::globalShadowVar(Function &F, Var *g, const std::string &suffix,
                             bool report) {
  CType t = g->type;
  if (t.base.rfind("const ", 0) == 0)
    t.base = t.base.substr(6);
  t.isConst = false;
  // The shadow of a global pointer the file allocates may be declared by
  // the user's file (`extern double *state_b;`, as the generated header
  // declares it, so that the caller can read it): that is the one.
  // So may that of a global named in a clause (`extern double te_b;`).
  std::string want = g->name + suffix;
  bool exposed = exposedGlobals_.count(g->userName) > 0;
  if ((fe_.ownedGlobal(g) || exposed) && !globalShadows_.count(want)) {
    clang::ASTContext &ctx = fe_.context();
    for (clang::NamedDecl *nd :
         ctx.getTranslationUnitDecl()->lookup(&ctx.Idents.get(want)))
      if (const auto *vd = llvm::dyn_cast<clang::VarDecl>(nd))
        if (!vd->hasInit() && vd->hasGlobalStorage() &&
            (exposed ? !vd->getType()->isPointerType()
                     : vd->getType()->isPointerType()))
          globalShadows_[want] = want;
  }
  std::string n = globalShadow(g->name, suffix);
  for (auto &x : F.vars)
    if (report && x->kind != Var::Global && x->name == n)
      diag_.error(x->loc, "'" + x->userName + "' has the name of the " +
                              (suffix == "_b" ? "adjoint" : "tangent") +
                              " of the global '" + g->name + "'; rename it");
  return F.newVar(n, t, Var::Global);
}

std::string Module::uniqueName(const std::string &want) {
  std::string n = want;
  for (int i = 2; names_.count(n); ++i)
    n = want + std::to_string(i);
  names_.insert(n);
  return n;
}

/// Adds to `perStmt` what the restores of the recorded statements read: the
/// variables of the indices that locate a recorded element (`a[i]`, a
/// buffer `&u[k]` and its count) and the pointers they go through.  True
/// when anything was added.
static bool addRestoreReads(Function &F,
                            std::map<const Stmt *, ReverseReads> &perStmt) {
  bool changed = false;
  walk(F.body, [&](Stmt &s, const WalkCtx &) {
    if (s.tapeSet.empty())
      return;
    ReverseReads &r = perStmt[&s];
    auto locate = [&](const ExprP &e) {
      if (!e)
        return;
      visitExpr(e, [&](const Expr &x) {
        if (x.kind != Expr::Index)
          return;
        std::set<Var *> vs;
        collectVars(x.ops[1], vs);
        for (Var *v : vs)
          changed |= r.data.insert(aliasRoot(F, v)).second;
        if (x.ops[0]->kind == Expr::VarRef &&
            x.ops[0]->var->type.ptrDepth > 0)
          changed |= r.ptr.insert(x.ops[0]->var).second;
      });
    };
    if (s.kind == Stmt::Assign)
      locate(s.lhs);
    // `k -= 1`, the inverse of a recorded `k++`, reads k.
    if (inverseIncrement(s))
      changed |= r.data.insert(aliasRoot(F, s.lhs->var)).second;
    else if (s.kind == Stmt::ExprStmt)
      locate(s.rhs);
    else if (s.kind == Stmt::Comm)
      for (const ExprP &a : s.comm.args) {
        locate(a);
        std::set<Var *> vs; // counts and offsets
        collectVars(a, vs);
        for (Var *v : vs)
          if (v->type.isIntScalar())
            changed |= r.data.insert(aliasRoot(F, v)).second;
      }
  });
  return changed;
}

/// Runs the analyses and both sweeps of one request.  `gen` is left holding
/// the final (non-dry) generator.
static bool runPipeline(Module &M, Function &F, Request &R,
                        std::unique_ptr<ReverseGen> &gen, Pair &sweeps) {
  Diag &diag = M.diag_;
  inlineCommunicatingCallees(F, M.fe_, diag, R.ann.batched);
  if (!resolveClausePaths(F, R.ann, diag, true))
    return false;
  hoistStatefulCalls(F);
  if (!normalize(F, M.fe_, diag))
    return false;
  hoistResultCalls(F, M.rules_);
  // replicas(...): batched after normalization (its flags replace early
  // returns, break and continue), normalized again for the loops it adds.
  if (R.ann.batched && (!batchReplicas(F, R.ann, M.fe_, diag) ||
                        !normalize(F, M.fe_, diag)))
    return false;
  analyzeActivity(F, R, M.fe_, diag);
  if (diag.hasErrors())
    return false;

  std::shared_ptr<ReplicationResult> repl =
      analyzeReplication(F, R, M.fe_, diag);
  M.nameVariables(F);
  analyzeToBeRecorded(F, {}, M.fe_);
  size_t nvars = F.vars.size();
  std::map<const Stmt *, ReverseReads> perStmt; // of the dry run
  {
    ReverseGen dry(M, F, R, true, repl);
    dry.recordReads = &perStmt;
    Pair p = dry.block(F.body);
    // The init of a canonical loop declared outside the loop is a leaf too.
    walk(F.body, [&](Stmt &s, const WalkCtx &) {
      if (s.kind == Stmt::For && s.init && s.init->kind == Stmt::Assign)
        perStmt[s.init.get()];
    });
    std::set<Var *> reads;
    referenced(p.second, reads);
    for (Var *g : dry.generated)
      reads.erase(g);
    analyzeToBeRecorded(F, reads, M.fe_);
    // A canonical loop's counter declared outside it: the reversed loop
    // overwrites it, so its init records the old value when the reverse of
    // code before the loop (or, in an enclosing loop, after it) reads the
    // counter; the reads in the loop's own body are served by the reversed
    // loop (ToBeRecorded.cpp, loopGen).
    // A callee restores the pointed-to data its caller's reverse sweep
    // reads after the reverse helper returns.
    std::set<Var *> entryData;
    for (size_t k = 0; k < R.restoreParams.size() && k < F.params.size(); ++k)
      if (R.restoreParams[k]) {
        size_t j = R.sameAs.size() > k && R.sameAs[k] >= 0 ? R.sameAs[k] : k;
        entryData.insert(aliasRoot(F, F.params[j]));
      }
    // The restore of what a statement records reads where the value goes:
    // `a[i] = mpiad_pop_f64()` reads i (and the pointer a).  The dry run
    // records nothing, so it does not see these reads: add them and decide
    // again until nothing changes (a `while` loop's counter is then
    // recorded too).
    do
      decideRecording(F, perStmt, M.fe_, entryData);
    while (addRestoreReads(F, perStmt));
  }
  // Forget the dry run's synthetic variables.
  F.dropVarsFrom(nvars);
  gen = std::make_unique<ReverseGen>(M, F, R, false, repl);
  // Which frees does the primal perform?
  walk(F.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::ExprStmt && s.rhs->kind == Expr::Call &&
        s.rhs->text == "free" && s.rhs->ops.size() == 1)
      if (Var *p = baseVar(s.rhs->ops[0])) {
        bool row = s.rhs->ops[0]->kind == Expr::Index &&
                   p->type.ptrDepth >= 2;
        (row ? gen->freedRows : gen->freedInPrimal).insert(aliasRoot(F, p));
      }
  });
  // Copy-back loops become swaps in marked functions only: the split
  // helpers of callees pass their buffers between two functions.
  if (R.topLevel)
    gen->swaps = findSwapCopies(F);
  // A region swap whose buffers' data the rest of the reverse sweep never
  // reads (a linear step): its reverse need not exchange them back.  The
  // time loop is a statement of F's body; the reverse of what comes after
  // it runs before the copy's.
  for (auto &[copy, sc] : gen->swaps) {
    Var *a = aliasRoot(F, sc.dst), *b = aliasRoot(F, sc.src);
    if (sc.region.empty() || sc.recordsDst || a->kind == Var::Param ||
        a->kind == Var::Global || b->kind == Var::Param ||
        b->kind == Var::Global)
      continue;
    bool read = false;
    for (const StmtP &top : F.body) {
      walk({top}, [&](Stmt &st, const WalkCtx &) {
        for (const Stmt *x : {&st, st.init.get(), st.step.get()}) {
          auto it = x ? perStmt.find(x) : perStmt.end();
          if (it == perStmt.end())
            continue;
          for (const std::set<Var *> *set : {&it->second.data, &it->second.post})
            read |= set->count(a) || set->count(b);
        }
      });
      if (top.get() == sc.timeLoop)
        break;
    }
    sc.reverseReadsNeither = !read;
  }
  // A region swap's exchange runs on the host.
  for (auto it = gen->swaps.begin(); it != gen->swaps.end();)
    it = M.cuda && !it->second.region.empty() ? gen->swaps.erase(it)
                                               : std::next(it);
  gen->keepTopLevel = true;
  sweeps = gen->block(F.body);
  append(sweeps.second, gen->lateReleases);
  return !gen->failed && !diag.hasErrors();
}

/// A zeroed allocation of `len` elements of type `elem` for the generated
/// function `fn`: mpiad_alloc_zeroed, which names `fn` and `var` if the
/// memory runs out (plain calloc on the CUDA target, whose lowering turns
/// it into a device allocation).
ExprP Module::zeroedAlloc(const ExprP &len, const std::string &elem,
                          const std::string &fn, const std::string &var,
                          const std::string &comm) {
  ExprP size = mkOpaque("sizeof(" + elem + ")");
  if (cuda)
    return mkCall("calloc", {len, size}, Scalar::Void, 1);
  return mkCall("mpiad_alloc_zeroed",
                {len, size, mkOpaque("\"" + fn + "\""),
                 mkOpaque("\"" + var + "\""), mkOpaque(comm)},
                Scalar::Void, 1);
}

/// The length of scratch array `p`: scratch(p[LEN]) as written, else
/// inferred from its uses (Length.cpp); null after an error.
ExprP Module::scratchLength(Function &F, const Annotation &ann, Var *p) {
  auto it = ann.scratchLen.find(p->userName);
  if (it != ann.scratchLen.end())
    return mkOpaque("(" + it->second + ")");
  std::string why;
  clang::SourceLocation where;
  ExprP len = inferLength(F, p, why, fe_, &where);
  if (!len) {
    clang::SourceLocation at = p->loc; // the clause's name, where written
    for (const auto &sc : ann.scratch)
      if (sc.first == p->userName && sc.second.isValid())
        at = sc.second;
    diag_.error(at, "cannot infer the length of scratch array '" +
                            p->userName + "'" +
                            (why.empty() ? "" : " (from '" + why + "')") +
                            "; write scratch(" + p->userName +
                            "[LENGTH]) in the pragma");
    if (where.isValid())
      diag_.note(where, "the extent of this use cannot be bounded by loop "
                        "counters and unchanged parameters");
  }
  return len;
}

/// "'x' in CLAUSE(...) is not a parameter of 'f'", or for a differentiated
/// block, that it is no variable of the enclosing function the block uses
/// (and, for a global, what to write instead).
void Module::notAParameter(const Function &F, const std::string &name,
                           const std::string &clause,
                           clang::SourceLocation at) {
  if (!F.outlinedBlock()) {
    diag_.error(at, "'" + name + "' in " + clause +
                        "(...) is not a parameter of '" + F.name + "'");
    return;
  }
  std::string msg = "'" + name + "' in " + clause +
                    "(...) is not a variable of the enclosing function that "
                    "the block uses; a block's clauses name those";
  clang::ASTContext &ctx = fe_.context();
  for (clang::NamedDecl *nd :
       ctx.getTranslationUnitDecl()->lookup(&ctx.Idents.get(name)))
    if (llvm::isa<clang::VarDecl>(nd)) {
      msg += " ('" + name + "' is a global: copy it into a local before the "
             "block, use the local in the block and name it here)";
      break;
    }
  diag_.error(at, msg);
}

/// A name in a length written in a clause (`scratch(w[nx * NV])`): the
/// length is evaluated on entry, so it may name integer parameters, integer
/// constants of the file (enumerators, `static const int NV`) and integer
/// globals that the function does not change (set once at start-up, as
/// miniWeather's nx); else an error at the name.
bool Module::lengthName(Function &F,
                        const std::pair<std::string, clang::SourceLocation> &n,
                        const std::string &clause) {
  for (Var *p : F.params)
    if (p->userName == n.first) {
      if (p->type.ptrDepth == 0 && p->type.elem == Scalar::Int)
        return true;
      diag_.error(n.second, "'" + n.first + "' in the length of " + clause +
                                " must be an integer, not a parameter of "
                                "type '" + printType(p->type) + "'");
      return false;
    }
  clang::ASTContext &ctx = fe_.context();
  for (clang::NamedDecl *nd :
       ctx.getTranslationUnitDecl()->lookup(&ctx.Idents.get(n.first))) {
    if (llvm::isa<clang::EnumConstantDecl>(nd))
      return true;
    const auto *vd = llvm::dyn_cast<clang::VarDecl>(nd);
    if (!vd || !vd->getType()->isIntegerType())
      continue;
    if (vd->getType().isConstQualified())
      return true;
    std::set<Var *> changed = assignedIn(F.body, fe_);
    for (Var *v : changed)
      if (v->kind == Var::Global && v->userName == n.first) {
        diag_.error(n.second, "'" + n.first + "' in the length of " + clause +
                                  " is a global that '" + F.name +
                                  "' changes; the length is taken on entry: "
                                  "write it with values that do not change");
        return false;
      }
    return true;
  }
  diag_.error(n.second, "'" + n.first + "' in the length of " + clause +
                            " is neither an integer parameter of '" + F.name +
                            "' nor an integer constant or global of the file");
  return false;
}

bool Module::checkClauses(Function &F, const Annotation &ann) {
  // Clause checks: names exist and have a suitable type.
  auto param = [&](const std::string &n) -> Var * {
    for (Var *p : F.params)
      if (p->userName == n)
        return p;
    return nullptr;
  };
  // A global pointer the file allocates (GlobalHeap.h) that F uses.
  auto ownedGlobal = [&](const std::string &n) {
    for (auto &v : F.vars)
      if (v->userName == n && fe_.ownedGlobal(v.get()))
        return true;
    return false;
  };
  // A file-scope float/double scalar or fixed array (F, or a helper it
  // calls, uses it): its file-scope shadow NAME_b is the caller's
  // (Module::exposedGlobals).
  auto floatingGlobal = [&](const std::string &n) {
    return exposedGlobals_.count(n) > 0;
  };
  // A parameter named in output(...) or scratch(...): a non-const pointer
  // to float/double, else an error at its name (and null).
  auto pointerParam =
      [&](const std::pair<std::string, clang::SourceLocation> &n,
          const std::string &clause) -> Var * {
    Var *p = param(n.first);
    if (!p) {
      if (!(clause == "output" &&
            (ownedGlobal(n.first) || floatingGlobal(n.first))))
        notAParameter(F, n.first, clause, n.second);
      return nullptr;
    }
    bool structs = p->type.floatingFields;
    // A row-pointer array (`double **u`) may be an output: its shadow is
    // the caller's, of the same shape.
    bool rows = clause == "output" && p->type.isFloatingElem() &&
                p->type.ptrDepth == 2;
    if (clause == "scratch" && p->type.isFloatingElem() &&
        p->type.ptrDepth == 2) {
      diag_.error(n.second, "scratch parameter '" + n.first +
                                "' is a row-pointer array (pointer to "
                                "pointer), whose shadow's rows the adjoint "
                                "cannot allocate; list it in output(...) and "
                                "pass a shadow of the same shape, zeroed");
      return nullptr;
    }
    if ((!p->type.isFloatingElem() && !structs) ||
        (p->type.ptrDepth != 1 && !rows) || p->type.isConst) {
      diag_.error(n.second, clause + " parameter '" + n.first +
                                "' must be a non-const pointer to "
                                "float/double" +
                                " (or to structs with float/double "
                                "fields)");
      return nullptr;
    }
    return p;
  };
  bool ok = checkClausePaths(
      F, ann, diag_,
      [&](const std::pair<std::string, clang::SourceLocation> &n,
          const std::string &clause) { return lengthName(F, n, clause); });
  for (const auto &w : ann.wrt) {
    Var *p = param(w.first);
    if (hasClausePath(ann, w.first)) {
      // Checked with its paths (StructShadow.cpp).
    } else if (!p && ownedGlobal(w.first)) {
      // Its adjoint is added into the file-scope NAME_b.
    } else if (!p && floatingGlobal(w.first)) {
      // Its adjoint is added into the file-scope NAME_b: this rank's
      // share, which the user says with varying(...).
      if (!named(ann.varying, w.first)) {
        diag_.error(w.second,
                    "'" + w.first + "' in wrt(...) is a global, whose value "
                    "counts as each rank's own: its adjoint " + w.first +
                    "_b is this rank's share; say so with varying(" +
                    w.first + "), or, if it is equal on all ranks, pass it "
                    "as a parameter and list it in replicated(...)");
        ok = false;
      }
    } else if (!p) {
      notAParameter(F, w.first, "wrt", w.second);
      ok = false;
    } else if (p->type.floatingFields && p->type.ptrDepth == 0 &&
               p->type.dims.empty()) {
      // A struct by value (a parameter block): its adjoint is returned
      // through `S *p_b`.
    } else if (p->type.floatingFields && p->type.ptrDepth == 1) {
      // An array of structs: its float and double fields are the inputs.
    } else if (!p->type.isFloatingElem() || p->type.ptrDepth > 2) {
      diag_.error(w.second, "wrt parameter '" + w.first +
                                "' must be a float/double scalar, a pointer "
                                "to float/double, a row-pointer array "
                                "(double **), or a pointer to structs "
                                "with float/double fields");
      ok = false;
    }
  }
  for (const auto &o : ann.outputs) {
    if (o.first == "return") {
      if (!F.ret.isFloatingScalar()) {
        diag_.error(o.second, "output(return) needs a float or double return "
                              "type");
        ok = false;
      }
      continue;
    }
    if (!hasClausePath(ann, o.first) && !pointerParam(o, "output") &&
        !ownedGlobal(o.first) && !floatingGlobal(o.first))
      ok = false;
  }
  // A floating return value that output(...) leaves out is not differentiated:
  // with output(u) alone, F_b takes no seed for it.  Almost always the user
  // meant output(return, u).
  bool hasReturn = false;
  for (const auto &o : ann.outputs)
    hasReturn |= o.first == "return";
  if (!ann.outputs.empty() && !hasReturn && F.ret.isFloatingScalar())
    diag_.warning(ann.outputs.front().second, "unused-return",
                  "the return value of '" + F.name +
                      "' is not an output: output(...) does not list "
                      "'return', so the adjoint takes no seed for it; write "
                      "output(return, ...) if the returned value is (part "
                      "of) the objective");
  for (const auto &r : ann.replicated) {
    if (!param(r.first)) {
      if (ownedGlobal(r.first) || floatingGlobal(r.first))
        diag_.error(r.second, "'" + r.first + "' is a global, whose "
                              "value counts as each rank's own (varying); "
                              "replicated(...) names parameters");
      else
        notAParameter(F, r.first, "replicated", r.second);
      ok = false;
    }
    auto names = ann.replicatedLenNames.find(r.first);
    if (names == ann.replicatedLenNames.end())
      continue;
    for (const auto &n : names->second)
      ok &= lengthName(F, n, "replicated(" + r.first + "[...])");
  }
  for (const auto &v : ann.varying) {
    if (!param(v.first) && (ownedGlobal(v.first) || floatingGlobal(v.first))) {
      // A global's data is each rank's own: varying is what it is.
    } else if (!param(v.first)) {
      notAParameter(F, v.first, "varying", v.second);
      ok = false;
    } else if (named(ann.replicated, v.first)) {
      diag_.error(v.second, "'" + v.first +
                                "' is listed both in replicated(...) and in "
                                "varying(...); keep the one that is true");
      ok = false;
    }
  }
  for (const auto &sc : ann.scratch) {
    Var *p = pointerParam(sc, "scratch");
    if (!p) {
      ok = false;
    } else if (named(ann.wrt, sc.first) || named(ann.outputs, sc.first)) {
      diag_.error(sc.second, "'" + sc.first +
                                 "' is a work array in scratch(...) and also "
                                 "an input or output; a scratch array's "
                                 "contents on entry and exit do not matter, "
                                 "so keep only one of the clauses");
      ok = false;
    }
    auto names = ann.scratchLenNames.find(sc.first);
    if (names == ann.scratchLenNames.end())
      continue;
    for (const auto &n : names->second)
      ok &= lengthName(F, n, "scratch(" + sc.first + "[...])");
  }
  // Floating data read through a pointer kept in a struct field is a
  // constant to the analyses (fields carry no derivative).  When the field
  // may point into a differentiated array, the gradient would miss every
  // path through it, silently: refuse, unless no differentiated pointer of
  // that element type exists (checked again by the activity analysis for
  // local arrays whose values depend on the inputs: Activity.cpp).
  // A differentiated struct's own pointer fields are refused in any case.
  std::string activeArray;
  std::set<const Var *> inputStructs;
  for (Var *p : F.params) {
    if (!named(ann.wrt, p->userName) && !named(ann.outputs, p->userName))
      continue;
    if (p->type.ptrDepth >= 1 && p->type.isFloatingElem())
      activeArray = activeArray.empty() ? p->userName : activeArray;
    if (p->type.floatingFields || p->type.elem == Scalar::Other)
      inputStructs.insert(p);
  }
  if ((!activeArray.empty() || !inputStructs.empty()) &&
      !refusePointerFieldData(F, activeArray, diag_, inputStructs))
    ok = false;
  if (ann.outputs.empty() && !F.ret.isFloatingScalar()) {
    diag_.error(ann.loc, "'" + F.name +
                             "' returns no float or double; name its outputs "
                             "with output(...)");
    ok = false;
  }
  return ok;

}

/// The inputs of a marked function whose replication the pragma leaves
/// open: parameters in neither replicated(...) nor varying(...), other than
/// pure outputs and MPI handles.
static std::vector<std::string> unclassifiedInputs(const Function &F,
                                                   const Annotation &ann) {
  std::vector<std::string> out;
  for (const Var *p : F.params) {
    const std::string &n = p->userName;
    if (named(ann.replicated, n) || named(ann.varying, n))
      continue;
    if (named(ann.outputs, n) && !named(ann.wrt, n))
      continue;
    if (named(ann.scratch, n)) // contents on entry do not matter
      continue;
    std::string base = p->type.base;
    if (base.rfind("const ", 0) == 0)
      base = base.substr(6);
    if (base.rfind("MPI_", 0) == 0 || base.rfind("struct ompi_", 0) == 0)
      continue;
    out.push_back(n);
  }
  return out;
}

/// MPIAD_CHECK=1: on entry, verify that the inputs listed in replicated(...)
/// are equal on all ranks (one collective, only when the variable is set).
/// Scalars first, so that a length that differs is named before the array
/// it sizes; arrays whose length is known (given or inferred); on the CUDA
/// target, scalars only.
StmtP Module::replicationCheck(Function &F, const Annotation &ann,
                               const Request &R, const std::string &arr) {
  std::vector<std::string> scalars, arrays;
  for (Var *p : F.params) {
    if (!named(ann.replicated, p->userName) || !p->type.dims.empty())
      continue;
    std::string base = p->type.base;
    if (base.rfind("const ", 0) == 0)
      base = base.substr(6);
    const std::string &n = p->name;
    if (p->type.ptrDepth == 0) {
      char kind = base == "int"                                   ? 'i'
                  : base == "long long" || base == "long"         ? 'l'
                  : base == "float"                               ? 'f'
                  : base == "double"                              ? 'd'
                  : p->type.elem == Scalar::Int                   ? 'x'
                                                                  : 0;
      if (kind)
        scalars.push_back("{\"" + p->userName + "\", &" + n + ", 1, sizeof " +
                          n + ", '" + kind + "'}");
      continue;
    }
    if (p->type.ptrDepth != 1 || cuda || p->type.elem == Scalar::Other ||
        p->type.elem == Scalar::Void)
      continue;
    std::string len;
    auto it = ann.replicatedLen.find(p->userName);
    if (it != ann.replicatedLen.end()) {
      len = it->second;
    } else {
      std::string why;
      ExprP e = inferLength(F, p, why, fe_);
      if (!e)
        continue;
      len = printExpr(e);
    }
    arrays.push_back("{\"" + p->userName + "\", " + n + ", (long long)(" + len +
                     "), sizeof *" + n + ", 'a'}");
  }
  scalars.insert(scalars.end(), arrays.begin(), arrays.end());
  if (scalars.empty())
    return nullptr;
  std::string init = "const mpiad_check_input " + arr + "[] = {";
  for (size_t i = 0; i < scalars.size(); ++i)
    init += (i ? ", " : "") + scalars[i];
  init += "}";
  Block then;
  then.push_back(mkOpaqueDecl(init));
  std::string comm = mainComm(F);
  std::vector<Var *> commVar;
  for (Var *p : F.params)
    if (p->name == comm)
      commVar.push_back(p); // so that `(void)comm;` is not written
  then.push_back(mkExprStmt(mkCall(
      "mpiad_check_replicated",
      {mkOpaque(comm, commVar), mkOpaque("\"" + R.outName + "\""),
       mkOpaque(arr), mkInt((long long)scalars.size())},
      Scalar::Void)));
  return mkIf(mkCall("mpiad_check_enabled", {}, Scalar::Int), std::move(then));
}

std::string Module::trialText(const clang::FunctionDecl *fd,
                              const Annotation &ann,
                              const std::set<std::string> &assume) {
  // Everything a run adds to the module is put back afterwards, and it
  // reports nothing: a trial only produces text to compare.
  Diag::Quiet quiet(diag_);
  std::set<std::string> names = names_, defined = defined_;
  std::string pending = pendingHelpers_;
  std::map<std::string, CalleeNames> callees = callees_;
  std::map<std::string, std::string> tangentCallees = tangentCallees_;
  trial_ = true;
  Generated g;
  bool ok = generateOnce(fd, ann, assume, g);
  trial_ = false;
  names_ = names;
  defined_ = defined;
  pendingHelpers_ = pending;
  callees_ = callees;
  tangentCallees_ = tangentCallees;
  return ok ? g.text : std::string("<error>");
}

bool Module::generate(const clang::FunctionDecl *fd, const Annotation &ann,
                      Generated &out) {
  // Replication is never guessed.  Where the pragma leaves an input's
  // replication open, generate the adjoint with the open inputs taken as
  // replicated and as varying; if the code differs, the gradient depends on
  // the choice and the user must make it.
  Diag::Scope scope(diag_); // an earlier function's errors do not stop this one
  std::vector<std::string> open;
  if (ann.reverse && !ann.perRank) {
    std::unique_ptr<Function> F = fe_.lowerCopy(fd);
    if (!F)
      return false;
    open = unclassifiedInputs(*F, ann);
  }
  if (!open.empty()) {
    // Each open input alone taken as replicated, the others varying, must
    // give the code of all varying; and all replicated must too.  Where
    // they do not, the inputs named are those whose flip changes the code,
    // from all varying or from all replicated (else all of them: only their
    // combination matters).
    std::set<std::string> all(open.begin(), open.end());
    std::string asVarying = trialText(fd, ann, {});
    std::set<std::string> flips;
    for (const std::string &n : open)
      if (trialText(fd, ann, {n}) != asVarying)
        flips.insert(n);
    std::string asReplicated = trialText(fd, ann, all);
    if (!flips.empty() || asReplicated != asVarying) {
      for (const std::string &n : open) {
        std::set<std::string> allBut = all;
        allBut.erase(n);
        if (trialText(fd, ann, allBut) != asReplicated)
          flips.insert(n);
      }
      if (flips.empty())
        flips = all;
    }
    std::vector<std::string> culprits;
    for (const std::string &n : open) // in parameter order
      if (flips.count(n))
        culprits.push_back(n);
    if (!culprits.empty()) {
      for (const std::string &n : culprits)
        diag_.error(ann.loc, "the gradient depends on whether '" + n +
                                 "' is equal on all ranks; add replicated(" +
                                 n + ") if it is, or varying(" + n +
                                 ") if it differs between ranks");
      return false;
    }
  }
  return generateOnce(fd, ann, {}, out);
}

bool Module::generateOnce(const clang::FunctionDecl *fd,
                          const Annotation &annIn,
                          const std::set<std::string> &assume,
                          Generated &out) {
  std::unique_ptr<Function> owned = fe_.lowerCopy(fd);
  if (!owned)
    return false;
  Function &F = *owned;
  Request R;
  R.fn = &F;
  R.ann = annIn;
  R.perRank = annIn.perRank;
  R.topLevel = true;
  R.assumeReplicated = assume;
  R.outName = annIn.name.empty() ? F.name + "_b" : annIn.name;
  // replicas(...): F_bv, for R replicas (Replicas.cpp).  A function with a
  // return value gets a static core whose output F_val has a seed array,
  // and F_bv around it takes the seeds as `const double *F_bar`.
  std::string batchedName;
  bool batchedCore = false;
  if (annIn.batched) {
    batchedName = R.outName + "v";
    bool retValue = (F.ret.elem != Scalar::Void || F.ret.ptrDepth) &&
                    (annIn.outputs.empty() || named(annIn.outputs, "return"));
    batchedCore = retValue;
    R.outName = retValue ? "mpiad_" + batchedName : batchedName;
  }
  if (defined_.count(R.outName)) {
    diag_.error(annIn.loc, "'" + R.outName + "', the name of the generated "
                         "adjoint, is already defined in this file; choose "
                         "another with name(...)");
    return false;
  }
  defined_.insert(R.outName);

  resolveClausePaths(F, annIn, diag_, false);
  if (!checkClauses(F, annIn))
    return false;

  std::unique_ptr<ReverseGen> gen;
  Pair sweeps;
  if (!runPipeline(*this, F, R, gen, sweeps))
    return false;
  ReverseGen &G = *gen;
  const Annotation &ann = R.ann; // with the batched run's changes
  for (const std::string &k : G.usedCallees)
    emitCallee(k);

  // Signature.
  bool retOut = ann.outputs.empty() ? true : named(ann.outputs, "return");
  std::vector<std::string> params, argNames; // declarations, and names
  Block prologue, epilogue;
  std::string comm = mainComm(F);
  std::vector<PartialSum> partials;
  for (auto &[buf, len] : G.replicaBuffers) {
    prologue.push_back(
        mkDecl(buf, zeroedAlloc(len, buf->type.base, R.outName, buf->name, comm)));
    epilogue.push_back(mkExprStmt(mkCall("free", {mkVar(buf)}, Scalar::Void)));
  }
  for (Var *p : F.params) {
    params.push_back(printDecl(*p));
    argNames.push_back(p->name);
    bool wrt = named(ann.wrt, p->userName), outp = named(ann.outputs, p->userName);
    if (named(ann.scratch, p->userName)) {
      // A work array: its shadow is allocated (zeroed) here and freed at
      // the end; the caller passes none.
      if (p->active) {
        ExprP len = scratchLength(F, ann, p);
        if (!len)
          return false;
        Var *sh = G.shadow(p);
        prologue.push_back(mkDecl(
            sh, zeroedAlloc(len, sh->type.pointeeName(), R.outName,
                            p->userName, comm)));
        epilogue.push_back(mkExprStmt(mkCall("free", {mkVar(sh)}, Scalar::Void)));
      }
      continue;
    }
    if (!wrt && !outp)
      continue;
    CType st = p->type;
    if (st.base.rfind("const ", 0) == 0)
      st.base = st.base.substr(6);
    if (p->type.ptrDepth == 0 && p->type.floatingFields) {
      // A struct by value: `S *p_b`, its fields' adjoints added at the end.
      CType pt = st;
      pt.ptrDepth = 1;
      pt.isConst = false;
      Var *sig = F.newVar(G.unique(p->name + "_b"), pt, Var::Param);
      params.push_back(printDecl(*sig));
      argNames.push_back(sig->name);
      if (p->active)
        addStructParamAdjoint(
            F, p, G.shadow(p), sig, R.perRank,
            [&] { return G.newSynth("mpiad_k", G.intType("int")); }, epilogue,
            partials);
      continue;
    }
    if (p->type.ptrDepth == 0) {
      // Scalar: `double *s_b` (double also for float scalars, as the
      // contract says), accumulated at the end.
      CType pt = st;
      pt.ptrDepth = 1;
      pt.elem = Scalar::Double;
      pt.base = "double";
      Var *sig = F.newVar(G.unique(p->name + "_b"), pt, Var::Param);
      params.push_back(printDecl(*sig));
      argNames.push_back(sig->name);
      if (p->active) {
        Var *acc = G.shadow(p);
        if (p->replicated && p->partial && !R.perRank)
          partials.push_back({mkAddrOf(mkVar(acc)), mkVar(sig), mkInt(1),
                              Scalar::Double, nullptr});
        else
          epilogue.push_back(mkAssign(mkIndex(mkVar(sig), mkInt(0)), "+=",
                                      mkVar(acc)));
      }
      continue;
    }
    bool partialParam = p->active && p->replicated && p->partial && !R.perRank;
    Var *sig = nullptr;
    if (p->active && !partialParam) {
      // The caller's shadow is used directly.
      sig = G.shadow(p);
    } else {
      sig = F.newVar(G.unique(p->name + "_b"), st, Var::Param);
    }
    Var sigDecl = *sig;
    sigDecl.type = st;
    params.push_back(printDecl(sigDecl, true));
    argNames.push_back(sig->name);
    if (!p->active)
      continue;
    bool partialFields = false;
    for (auto &v : F.vars)
      partialFields |= v->fieldOf == p && v->active && v->replicated &&
                       v->partial && !R.perRank;
    if (partialFields) {
      diag_.error(p->loc, "'" + p->userName +
                              "' is an array of structs whose fields are "
                              "equal on all ranks (replicated); mpiad does "
                              "not yet sum such gradients over ranks: pass "
                              "the fields as arrays of double, or make '" +
                              p->userName + "' varying(" + p->userName + ")");
      return false;
    }
    if (partialParam) {
      if (p->type.ptrDepth == 2) {
        diag_.error(p->loc, "replicated row-pointer array '" + p->userName +
                                "' is read by rank-varying code, whose "
                                "adjoint must be summed over ranks through "
                                "its rows; keep it in one contiguous array "
                                "(" + p->userName + "[i * ny + j]), or mark "
                                "it varying(" + p->userName + ")");
        return false;
      }
      if (outp) {
        diag_.error(p->loc, "replicated parameter '" + p->userName +
                                "' is both updated in place and read by "
                                "rank-varying code; not supported");
        return false;
      }
      ExprP len;
      auto it = ann.replicatedLen.find(p->userName);
      std::string why;
      if (it != ann.replicatedLen.end()) {
        len = mkOpaque("(" + it->second + ")");
      } else {
        clang::SourceLocation where;
        len = inferLength(F, p, why, fe_, &where);
        if (!len) {
          diag_.error(p->loc, "cannot infer the length of replicated array '" +
                                  p->userName + "'" +
                                  (why.empty() ? "" : " (from '" + why + "')") +
                                  "; write replicated(" + p->userName +
                                  "[LENGTH]) in the pragma");
          // The access may be in a callee: show it.
          if (where.isValid())
            diag_.note(where, "the extent of this use cannot be bounded by "
                              "loop counters and unchanged parameters");
          return false;
        }
      }
      Var *part = G.shadow(p);
      part->type.base = st.base;
      prologue.push_back(mkDecl(
          part, zeroedAlloc(len, part->type.pointeeName(), R.outName,
                            p->userName, comm)));
      // The sum over ranks counts elements: LEN rows of a pointer to rows.
      ExprP elems = len;
      if (part->type.ptrToArray) {
        std::string n = printExpr(len);
        for (const std::string &d : part->type.dims) {
          bool token = std::all_of(d.begin(), d.end(), [](char ch) {
            return std::isalnum((unsigned char)ch) || ch == '_';
          });
          n += " * " + (token ? d : "(" + d + ")");
        }
        elems = mkOpaque(n);
      }
      // A pointer to rows (double (*)[NY]) is passed as its first element.
      auto flat = [&](Var *v, bool isConst) {
        ExprP e = mkVar(v);
        std::string elem = v->type.elem == Scalar::Float ? "float" : "double";
        return v->type.ptrToArray
                   ? mkCast((isConst ? "const " : "") + elem + " *", e,
                            v->type.elem, 1)
                   : e;
      };
      partials.push_back(
          {flat(part, true), flat(sig, false), elems, part->type.elem, part});
    }
  }
  if (!R.perRank && !trial_)
    if (StmtP check = replicationCheck(F, ann, R, G.unique("mpiad_inputs")))
      prologue.insert(prologue.begin(), check);
  if (annIn.batched)
    prologue.insert(prologue.begin(), noReplicasReturn(F));
  std::string retType = retOut ? printType(F.ret) : "void";
  if (!retOut && F.ret.elem != Scalar::Void)
    retType = printType(F.ret);
  std::string seedName;
  if (retOut && F.retVar) {
    seedName = G.unique(F.name + "_bar");
    params.push_back("double " + seedName);
  }
  if (partials.size()) {
    CType batchType;
    batchType.base = "mpiad_batch";
    Var *b = G.newSynth("mpiad_sum", batchType);
    epilogue.push_back(mkComment(
        "gradient of the replicated inputs: sum this rank's shares over "
        "ranks, in one call"));
    epilogue.push_back(mkExprStmt(mkCall(
        "mpiad_batch_begin", {mkAddrOf(mkVar(b)), mkOpaque(comm)}, Scalar::Void)));
    for (const PartialSum &ps : partials)
      epilogue.push_back(mkExprStmt(mkCall(
          std::string("mpiad_batch_add_") +
              (ps.elem == Scalar::Float ? "f32" : "f64"),
          {mkAddrOf(mkVar(b)), ps.part, ps.dest, ps.len}, Scalar::Void)));
    epilogue.push_back(mkExprStmt(
        mkCall("mpiad_batch_allreduce", {mkAddrOf(mkVar(b))}, Scalar::Void)));
    for (const PartialSum &ps : partials)
      if (ps.owned)
        epilogue.push_back(
            mkExprStmt(mkCall("free", {mkVar(ps.owned)}, Scalar::Void)));
  }
  // Seed of the return value.
  Block seed;
  if (retOut && F.retVar && F.retVar->active) {
    ExprP sv = mkOpaque(seedName);
    if (F.retVar->replicated && F.retVar->partial && !R.perRank)
      sv = mkBinary("*", G.root(), sv);
    seed.push_back(mkAssign(mkVar(G.shadow(F.retVar)), "=", sv));
  }
  if (G.rootVar)
    prologue.insert(prologue.begin(),
                    mkDecl(G.rootVar, mkCall("mpiad_root_factor",
                                             {mkOpaque(comm)}, Scalar::Double)));

  // Outputs whose writes the reverse sweep undoes (it restores recorded old
  // values) get their final values back at the end, so that F_b leaves them
  // as F would.  Needs the output's length, inferred from its loops or
  // those of the callees it is passed to.
  Block keepFinal;
  std::set<Var *> undone;
  walk(F.body, [&](Stmt &st, const WalkCtx &) {
    for (Var *v : st.tapeSet)
      undone.insert(aliasRoot(F, v));
    if (st.checkpoint) // re-run steps rewrite what the loop writes
      for (Var *v : assignedIn(st.body, fe_))
        undone.insert(aliasRoot(F, v));
  });
  // What to do to get the final values: run the primal.
  std::string rerun = F.outlinedBlock() ? "run the block itself"
                          : "call " + F.name;
  for (Var *p : F.params) {
    if (!named(ann.outputs, p->userName) || p->type.ptrDepth < 1 ||
        p->type.ptrDepth > 2 || !undone.count(aliasRoot(F, p)))
      continue;
    if (p->type.ptrDepth == 2) {
      diag_.warning(p->loc, "restored-output",
                    "after " + R.outName + " returns, output '" +
                        p->userName +
                        "' does not hold its final values: the adjoint "
                        "restores the old values its reverse sweep reads, "
                        "and cannot put the final values back (the shape of "
                        "a row-pointer array is not known); " + rerun +
                        " if you need them");
      continue;
    }
    ExprP len = G.arrayLength(p);
    if (!len) {
      diag_.warning(p->loc, "restored-output",
                    "after " + R.outName + " returns, output '" +
                        p->userName +
                        "' does not hold its final values: the adjoint "
                        "restores the old values its reverse sweep reads, "
                        "and cannot put the final values back (its length "
                        "cannot be inferred); " + rerun +
                        " if you need them");
      continue;
    }
    CType ct;
    ct.elem = p->type.elem;
    ct.ptrDepth = 1;
    ct.base = p->type.elemName();
    Var *keep = G.newSynth(p->name + "_final", ct);
    ExprP bytes = mkBinary("*", len, mkOpaque("sizeof(" + ct.base + ")"));
    keepFinal.push_back(mkDecl(keep, mkCall("malloc", {bytes}, Scalar::Void, 1)));
    keepFinal.push_back(mkExprStmt(
        mkCall("memcpy", {mkVar(keep), mkVar(p), bytes}, Scalar::Void)));
    epilogue.push_back(mkExprStmt(
        mkCall("memcpy", {mkVar(p), mkVar(keep), bytes}, Scalar::Void)));
    epilogue.push_back(mkExprStmt(mkCall("free", {mkVar(keep)}, Scalar::Void)));
  }

  // Globals too: F_b leaves them as F does.  (Collected first: keeping a
  // global's final value adds variables to F.vars, which a loop over it
  // would then read after the vector moved: a crash found by a metamorphic
  // run, codegen/global-final-values.c.)
  std::vector<Var *> globals;
  for (auto &v : F.vars)
    globals.push_back(v.get());
  for (Var *g : globals) {
    if (g->kind != Var::Global || G.generated.count(g) ||
        g->type.ptrDepth > 0 || !undone.count(aliasRoot(F, g)))
      continue;
    CType ct = g->type;
    if (ct.base.rfind("const ", 0) == 0)
      continue; // never written
    if (ct.dims.empty()) {
      Var *keep = G.newSynth(g->name + "_final", ct);
      keepFinal.push_back(mkDecl(keep, mkVar(g)));
      epilogue.push_back(mkAssign(mkVar(g), "=", mkVar(keep)));
    } else { // on the heap: a global array may be large
      CType kt;
      kt.elem = ct.elem;
      kt.ptrDepth = 1;
      kt.base = ct.elemName();
      Var *keep = G.newSynth(g->name + "_final", kt);
      ExprP bytes = mkOpaque("sizeof " + g->name);
      keepFinal.push_back(
          mkDecl(keep, mkCall("malloc", {bytes}, Scalar::Void, 1)));
      keepFinal.push_back(mkExprStmt(
          mkCall("memcpy", {mkVar(keep), mkVar(g), bytes}, Scalar::Void)));
      epilogue.push_back(mkExprStmt(
          mkCall("memcpy", {mkVar(g), mkVar(keep), bytes}, Scalar::Void)));
      epilogue.push_back(
          mkExprStmt(mkCall("free", {mkVar(keep)}, Scalar::Void)));
    }
  }

  // (--verify keeps each adjoint at its statement: no fusion, no deferred
  // seeds.)
  bool fusedLast = !verify && retOut && ann.outputs.empty() && keepFinal.empty() &&
                   G.sweepBarrier.empty() && G.fuseLastLoop(sweeps, seed);
  if (!fusedLast && !verify && G.sweepBarrier.empty())
    G.deferSeeds(sweeps, [&](const ExprP &len, Var *acc, Var *target) {
      std::string name = target->name;
      for (auto &[p, sh] : G.shadows)
        if (sh == target)
          name = p->userName;
      return zeroedAlloc(len, acc->type.base, R.outName, name, comm);
    });

  // Shadows of local pointers that carry nothing back, set but never read.
  dropUnreadPointerCopies({&prologue, &sweeps.first, &keepFinal, &seed,
                           &sweeps.second, &epilogue},
                          [&](const Var *v) { return G.isLocalShadow(v); });

  // --target=cuda: kernels for the parallel loops, device calls.
  std::string kernels;
  if (cuda) {
    CudaLowering cl(diag_, R.outName, "adjoint of " + F.name, false);
    cl.setFallbackLocation(F.loc);
    if (!cl.lower({&prologue, &sweeps.first, &keepFinal, &seed,
                   &sweeps.second, &epilogue}))
      return false;
    kernels = cl.kernels();
  }

  // The shadows of globals (file-scope, Module::globalShadow) start at zero
  // in every call: the global's final value is no output, its value on
  // entry no input.
  // A global pointer's shadow must exist; it starts at zero unless the
  // pointer is an input (its adjoint is added) or an output (the shadow
  // holds the seed), as a parameter's would.
  std::vector<std::pair<Var *, Var *>> heapShadows;
  for (auto &[v, sv] : G.shadows) {
    if (v->kind != Var::Global)
      continue;
    if (!isHeapShadow(sv)) {
      // Named in wrt/output: the caller's, as a parameter's shadow.
      if (!named(ann.wrt, v->userName) && !named(ann.outputs, v->userName))
        prologue.insert(prologue.begin(), zeroGlobal(sv));
      continue;
    }
    heapShadows.push_back({v, sv});
    heapShadowEntry(prologue, sv, v->userName, R.outName,
                    shadowsPrefix(F, R.outName) + "_shadows_new",
                    "mpiad_need_shadow",
                    named(ann.wrt, v->userName) ||
                        named(ann.outputs, v->userName));
  }
  // Declarations: every hoisted variable the sweeps use, shadows zeroed.
  std::set<Var *> used, inline_;
  referenced(sweeps.first, used);
  referenced(sweeps.second, used);
  referenced(seed, used);
  referenced(epilogue, used);
  declaredIn(sweeps.first, inline_);
  declaredIn(sweeps.second, inline_);
  declaredIn(prologue, inline_);
  declaredIn(keepFinal, inline_);
  if (F.retVar)
    used.insert(F.retVar);
  std::set<Var *> readAnywhere;
  for (const Block *b : {&prologue, &sweeps.first, &sweeps.second, &seed,
                         &epilogue, &keepFinal})
    readVars(*b, readAnywhere);
  Block decls;
  for (auto &v : F.vars) {
    Var *x = v.get();
    if (!used.count(x) || inline_.count(x) || x->kind == Var::Param ||
        x->kind == Var::Global || x->kind == Var::Field || x->declaredInForInit)
      continue;
    bool isShadow = isShadowVar(G.shadows, x);
    bool sigShadow = false;
    for (auto &[p, s] : G.shadows)
      if (s == x && p->kind == Var::Param && p->type.ptrDepth > 0 &&
          !(p->replicated && p->partial && !R.perRank))
        sigShadow = true;
    if (sigShadow)
      continue;
    std::string d = printDecl(*x, isShadow);
    if (isShadow || scalarLike(*x))
      d += zeroInit(*x);
    decls.push_back(mkOpaqueDecl(cuda ? CudaLowering::deviceDecl(d) : d));
    // A local of the user's that nothing reads (`double u = 1;`, unused in
    // the primal too) is only assigned: voided, so that the adjoint adds no
    // "set but not used" warning of its own.
    if (x->kind == Var::Local && !isShadow && !readAnywhere.count(x))
      decls.push_back(mkExprStmt(mkOpaque("(void)" + x->name)));
  }

  // Assemble.
  std::ostringstream head;
  auto list = clauseList;
  std::string deps;
  if (ann.outputs.empty())
    deps = "return value";
  else
    deps = clauseNames(ann, false);
  std::string retRepl;
  if (retOut && F.retVar)
    retRepl = R.perRank ? "per rank"
              : F.retVar->replicated ? "replicated: counted once"
                                     : "varying: summed over ranks";
  head << "/*\n * mpiad: adjoint (reverse mode) of " << F.name
       << ", semantics(" << (R.perRank ? "per_rank" : "global") << ")\n"
       << " *   independents: " << clauseNames(ann, true) << "\n"
       << " *   dependents:   " << deps
       << (retRepl.empty() ? "" : " (" + retRepl + ")") << "\n"
       << " *   replicated:   " << list(ann.replicated) << "\n"
       << " *   varying:      " << list(ann.varying) << "\n";
  if (!ann.scratch.empty())
    head << " *   scratch:      " << list(ann.scratch)
         << " (work arrays: their adjoints are allocated here)\n";
  std::string sig = (batchedCore ? "static " : "") + retType + " " +
                    R.outName + "(";
  for (size_t i = 0; i < params.size(); ++i)
    sig += (i ? ", " : "") + params[i];
  sig += ")";
  head << globalsComment(F, "_b", "adjoints", R.outName);
  std::string structShadows, structPrototypes, structComment;
  if (!trial_)
    addStructShadows(F, ann, shadowsPrefix(F, R.outName), structShadows,
                     structPrototypes, structComment);
  head << structComment;
  head << " *   " << sig << "\n"
       << " * Adjoints of inputs are accumulated (+=): zero them first.\n */\n";
  std::string body;
  printBlock(decls, 1, body);
  referenced(prologue, used);
  printBlock(unusedParams(F.params, used), 1, body);
  printBlock(prologue, 1, body);
  body += "\n  /* forward sweep */\n";
  printBlock(sweeps.first, 1, body);
  if (!keepFinal.empty()) {
    body += "  /* outputs the reverse sweep will restore: keep their final values */\n";
    printBlock(keepFinal, 1, body);
  }
  body += "\n  /* reverse sweep */\n";
  if (!G.sweepBarrier.empty()) {
    body += "  /* every rank has received its forward messages before any "
            "adjoint message\n     is sent (a wildcard receive could take "
            "one) */\n";
    body += "  MPI_Barrier(" + G.sweepBarrier + ");\n";
  }
  printBlock(seed, 1, body);
  printBlock(sweeps.second, 1, body);
  if (!epilogue.empty()) {
    body += "\n";
    printBlock(epilogue, 1, body);
  }
  if (retType != "void")
    body += "  return " + F.retVar->name + ";\n";
  if (annIn.batched && !trial_) {
    head.str("");
    head << batchedComment(F, ann, annIn, "adjoint (reverse mode)",
                           batchedName);
  }
  Function &Fref = F;
  finishFunction(out,
                 globalShadowDecls(G.shadows, externalShadows_) + kernels +
                     (trial_ ? std::string() : head.str()),
                 (cuda ? "extern \"C\" " : "") + sig, body, std::move(owned));
  if (!heapShadows.empty() && !trial_)
    addShadowsNew(out, shadowsPrefix(Fref, R.outName), R.outName,
                  heapShadows);
  out.text += structShadows;
  out.prototype += structPrototypes;
  for (auto &[v, sv] : G.shadows)
    if (v->kind == Var::Global && !isHeapShadow(sv) &&
        externalShadows_.count(v->userName) && !trial_)
      out.prototype += "\nextern " + printDecl(*sv, true) + ";";
  if (cuda)
    out.prototype = sig + ";";
  if (batchedCore) {
    // F_bv: the seeds as `const double *F_bar`, copied for the core (whose
    // output shadow is consumed), and the values in F_val.
    Var *val = Fref.params.back();
    std::vector<std::string> wp(params.begin(), params.end() - 2);
    std::vector<std::string> wa(argNames.begin(), argNames.end() - 2);
    std::string bar = Fref.name + "_bar";
    wp.push_back("const double *" + bar);
    wp.push_back(params[params.size() - 2]);
    std::string wsig = "void " + batchedName + "(";
    for (size_t i = 0; i < wp.size(); ++i)
      wsig += (i ? ", " : "") + wp[i];
    wsig += ")";
    std::string seeds = "mpiad_seeds";
    std::string w;
    w += "\n/*\n * mpiad: " + batchedName + ", the adjoint of " + Fref.name +
         " for R independent replicas.\n * " + bar + "[r] is replica r's "
         "seed, " + val->name + "[r] receives its value.\n */\n";
    w += wsig + " {\n";
    // One replica: F_b itself, which computes the same in the same order.
    {
      std::string fb = batchedName.substr(0, batchedName.size() - 1);
      std::string rn = Fref.params.front()->name;
      w += "  if (" + rn + " < 1)\n    return;\n";
      w += "  if (" + rn + " == 1) {\n    " + val->name + "[0] = " + fb + "(";
      bool first = true;
      for (size_t i = 1; i < wa.size(); ++i) {
        std::string a = wa[i];
        if (ann.replicaScalars.count(a))
          a += "[0]";
        w += (first ? "" : ", ") + a;
        first = false;
      }
      w += std::string(first ? "" : ", ") + bar + "[0]);\n    return;\n  }\n";
    }
    w += "  double *" + seeds + " = " +
         printExpr(zeroedAlloc(mkVar(Fref.params.front()), "double",
                               batchedName, bar, comm)) +
         ";\n";
    w += "  for (int r = 0; r < " + Fref.params.front()->name + "; r++)\n";
    w += "    " + seeds + "[r] = " + bar + "[r];\n";
    w += "  " + R.outName + "(";
    for (size_t i = 0; i < wa.size(); ++i)
      w += wa[i] + ", ";
    w += val->name + ", " + seeds + ");\n";
    w += "  free(" + seeds + ");\n}\n";
    out.text += w;
    out.prototype = wsig + ";";
  }
  return true;
}

/// Replaces every reference to `from` by `to`.
static ExprP renameVar(const ExprP &e, const Var *from, Var *to) {
  return renameVars(e, {{const_cast<Var *>(from), to}});
}

static void renameVar(Block &b, const Var *from, Var *to) {
  for (StmtP &s : b) {
    s->lhs = renameVar(s->lhs, from, to);
    s->rhs = renameVar(s->rhs, from, to);
    s->cond = renameVar(s->cond, from, to);
    for (ExprP &a : s->comm.args)
      a = renameVar(a, from, to);
    if (s->init) {
      Block one{s->init};
      renameVar(one, from, to);
    }
    if (s->step) {
      Block one{s->step};
      renameVar(one, from, to);
    }
    renameVar(s->body, from, to);
    renameVar(s->elseBody, from, to);
  }
}

void Module::emitCallee(const std::string &key) {
  auto it = callees_.find(key);
  if (it == callees_.end() || it->second.emitted)
    return;
  it->second.emitted = true;
  std::vector<std::string> uses = it->second.uses;
  for (const std::string &u : uses)
    emitCallee(u);
  pendingHelpers_ += callees_[key].text;
}

const Module::CalleeNames *Module::callee(const std::string &name,
                                          const CallPattern &pat,
                                          clang::SourceLocation loc) {
  const std::vector<bool> &mask = pat.active;
  bool activeRet = pat.activeReturn;
  std::string key = specializationKey(name, mask, activeRet);
  bool restoreAny = false, sameAny = false;
  for (bool b : pat.restore)
    restoreAny |= b;
  for (int j : pat.sameAs)
    sameAny |= j >= 0;
  if (restoreAny) {
    key += ":restore=";
    for (bool b : pat.restore)
      key += b ? '1' : '0';
  }
  if (sameAny) {
    key += ":same=";
    for (int j : pat.sameAs)
      key += std::to_string(j) + ",";
  }
  auto it = callees_.find(key);
  if (it != callees_.end())
    return &it->second;
  Function *proto = fe_.callee(name);
  const clang::FunctionDecl *fd = fe_.decl(proto);
  std::unique_ptr<Function> owned = fe_.lowerCopy(fd);
  if (!owned)
    return nullptr;
  Function &F = *owned;
  Request R;
  R.fn = &F;
  R.topLevel = false;
  R.perRank = true;
  R.activeParams = mask;
  R.activeReturn = activeRet;
  R.restoreParams = pat.restore;
  R.sameAs = pat.sameAs;
  // Arguments that are the same pointer: the helper reads and writes one
  // array through the first of those parameters, so that its analyses see
  // the aliasing.
  // When one of them is written (`h(t, t, n)` with `h(const double *a,
  // double *b, int n)`), the one kept loses its const.
  for (size_t k = 0; k < pat.sameAs.size() && k < F.params.size(); ++k)
    if (pat.sameAs[k] >= 0) {
      Var *kept = F.params[pat.sameAs[k]];
      if (kept->type.isConst && !F.params[k]->type.isConst) {
        kept->type.isConst = false;
        if (kept->type.base.rfind("const ", 0) == 0)
          kept->type.base = kept->type.base.substr(6);
        kept->type.declFmt.clear();
      }
      renameVar(F.body, F.params[k], kept);
    }
  CalleeNames names;
  names.key = key;
  names.fwd = uniqueName("mpiad_fwd_" + name);
  names.rev = uniqueName("mpiad_rev_" + name);
  callees_[key] = names; // before generating: guards recursion
  std::unique_ptr<ReverseGen> gen;
  Pair sweeps;
  if (!runPipeline(*this, F, R, gen, sweeps)) {
    diag_.note(loc, "while differentiating the call to '" + name + "'");
    return nullptr;
  }
  ReverseGen &G = *gen;
  callees_[key].uses = G.usedCallees;
  {
    ReverseReads rr;
    G.classify(sweeps.second, rr);
    std::vector<bool> reads;
    for (Var *p : F.params)
      reads.push_back(p->type.ptrDepth == 0 || rr.data.count(aliasRoot(F, p)));
    callees_[key].readsData = reads;
  }
  // Active communication inside callees is not supported yet.
  bool commActive = false;
  walk(F.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind != Stmt::Comm)
      return;
    for (const ExprP &a : s.comm.args)
      if (Var *b = baseVar(a))
        if (b->active && a->ptrDepth > 0)
          commActive = true;
  });
  if (commActive) {
    diag_.error(loc, "'" + name + "' communicates values that carry "
                                  "derivatives and cannot be inlined into its "
                                  "caller: mpiad differentiates communication "
                                  "in a helper by inlining it, which needs a "
                                  "helper that does not call itself");
    return nullptr;
  }
  // Live-in values of the reverse sweep: pushed at the end of the forward
  // helper, popped at the start of the reverse helper.
  std::set<Var *> revUsed, revDecl;
  referenced(sweeps.second, revUsed);
  declaredIn(sweeps.second, revDecl);
  std::vector<Var *> live;
  for (auto &v : F.vars) {
    Var *x = v.get();
    if (!revUsed.count(x) || revDecl.count(x) || x->declaredInForInit)
      continue;
    bool heapShadow = false;
    for (auto &[p, s] : G.shadows)
      if (s == x && p->type.ptrDepth > 0 && p->kind != Var::Param)
        heapShadow = true;
    bool primal = !G.generated.count(x) &&
                  (x->kind == Var::Local || x->kind == Var::Synthetic ||
                   (x->kind == Var::Param && x->assignCount > 0));
    if (primal || heapShadow)
      live.push_back(x);
  }
  Block pushLive, popLive;
  for (Var *x : live) {
    if (!x->type.dims.empty()) {
      std::string n = "1";
      for (auto &d : x->type.dims)
        n += " * " + d;
      if (!x->type.isFloatingElem()) {
        diag_.error(x->loc, "cannot record integer array '" + x->userName +
                                "' for the reverse sweep of '" + name + "'");
        return nullptr;
      }
      std::string sfx = x->type.elem == Scalar::Float ? "f32" : "f64";
      pushLive.push_back(mkExprStmt(mkCall(
          "mpiad_push_" + sfx + "_array",
          {mkCast(x->type.elemName() + " *", mkVar(x), x->type.elem, 1),
           mkOpaque(n)},
          Scalar::Void)));
      popLive.insert(popLive.begin(),
                     mkExprStmt(mkCall("mpiad_pop_" + sfx + "_array",
                                       {mkCast(x->type.elemName() + " *",
                                               mkVar(x), x->type.elem, 1),
                                        mkOpaque(n)},
                                       Scalar::Void)));
      continue;
    }
    pushLive.push_back(G.push(mkVar(x)));
    popLive.insert(popLive.begin(), G.pop(mkVar(x)));
  }

  // Parameters: primal, then shadow for active ones.
  std::vector<std::string> fparams, rparams;
  Block epilogue;
  for (size_t k = 0; k < F.params.size(); ++k) {
    Var *p = F.params[k];
    fparams.push_back(printDecl(*p));
    rparams.push_back(printDecl(*p));
    if (!mask[k] || !p->type.isFloatingElem())
      continue;
    CType st = p->type;
    if (st.base.rfind("const ", 0) == 0)
      st.base = st.base.substr(6);
    if (p->type.ptrDepth == 0) {
      CType pt = st;
      pt.ptrDepth = 1;
      Var *sig = F.newVar(G.unique(p->name + "_b"), pt, Var::Param);
      rparams.push_back(printDecl(*sig));
      if (p->active)
        epilogue.push_back(mkAssign(mkIndex(mkVar(sig), mkInt(0)), "+=",
                                    mkVar(G.shadow(p))));
      else // an argument that carries derivatives into a dead result
        epilogue.push_back(mkExprStmt(mkOpaque("(void)" + sig->name)));
    } else {
      Var *s = G.shadow(p);
      Var tmp = *s;
      tmp.type = st;
      rparams.push_back(printDecl(tmp));
      // The same pointer as an earlier argument: read through that one.
      if (k < pat.sameAs.size() && pat.sameAs[k] >= 0)
        epilogue.push_back(mkExprStmt(mkOpaque("(void)" + s->name)));
    }
  }
  if (activeRet) {
    Var *rb = G.shadow(F.retVar);
    rparams.push_back(F.ret.elemName() + " " + rb->name + "_seed");
    popLive.push_back(mkAssign(mkVar(rb), "=", mkOpaque(rb->name + "_seed")));
  }

  dropUnreadPointerCopies(
      {&sweeps.first, &pushLive, &popLive, &sweeps.second, &epilogue},
      [&](const Var *v) { return G.isLocalShadow(v); });
  std::set<Var *> used, inl;
  referenced(sweeps.first, used);
  referenced(pushLive, used);
  declaredIn(sweeps.first, inl);
  // A pointer parameter's shadow that the forward sweep reads (to set a
  // local pointer's shadow) is a parameter of the forward helper too.
  std::vector<bool> &fwdShadows = callees_[key].fwdShadows;
  fwdShadows.assign(F.params.size(), false);
  for (size_t k = 0, at = 0; k < F.params.size(); ++k, ++at) {
    Var *p = F.params[k];
    if (!mask[k] || !p->type.isFloatingElem() || p->type.ptrDepth == 0 ||
        !used.count(G.shadow(p)))
      continue;
    fwdShadows[k] = true;
    Var tmp = *G.shadow(p);
    if (tmp.type.base.rfind("const ", 0) == 0)
      tmp.type.base = tmp.type.base.substr(6);
    fparams.insert(fparams.begin() + at + 1, printDecl(tmp));
    ++at;
  }
  std::string fbody, rbody;
  auto declare = [&](const std::set<Var *> &use, const std::set<Var *> &inl,
                     bool rev, std::string &out) {
    Block d;
    for (auto &v : F.vars) {
      Var *x = v.get();
      if (!use.count(x) || inl.count(x) || x->kind == Var::Param ||
          x->kind == Var::Global || x->kind == Var::Field || x->declaredInForInit)
        continue;
      bool paramShadow = false;
      for (auto &[p, s] : G.shadows)
        if (s == x && p->kind == Var::Param && p->type.ptrDepth > 0)
          paramShadow = true;
      if (paramShadow)
        continue;
      bool isShadow = isShadowVar(G.shadows, x) && rev;
      d.push_back(mkOpaqueDecl(printDecl(*x, isShadow) +
                               (isShadow || scalarLike(*x) ? zeroInit(*x) : "")));
    }
    printBlock(d, 1, out);
  };
  declare(used, inl, false, fbody);
  printBlock(unusedParams(F.params, used), 1, fbody);
  printBlock(sweeps.first, 1, fbody);
  printBlock(pushLive, 1, fbody);
  if (F.retVar)
    fbody += "  return " + F.retVar->name + ";\n";
  std::set<Var *> rused, rinl;
  referenced(popLive, rused);
  referenced(sweeps.second, rused);
  referenced(epilogue, rused);
  declaredIn(sweeps.second, rinl);
  declare(rused, rinl, true, rbody);
  printBlock(unusedParams(F.params, rused), 1, rbody);
  // Shadows of pointer parameters that carry nothing back (a helper whose
  // result is not differentiated: a convergence test's sum).
  {
    std::vector<Var *> shadowParams;
    for (size_t k = 0; k < F.params.size(); ++k) {
      Var *p = F.params[k];
      if (mask[k] && p->type.isFloatingElem() && p->type.ptrDepth > 0)
        shadowParams.push_back(G.shadow(p));
    }
    printBlock(unusedParams(shadowParams, rused), 1, rbody);
  }
  printBlock(popLive, 1, rbody);
  printBlock(sweeps.second, 1, rbody);
  printBlock(epilogue, 1, rbody);

  auto join = [](const std::vector<std::string> &v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + v[i];
    return s.empty() ? std::string("void") : s;
  };
  std::string text = globalShadowDecls(G.shadows, externalShadows_);
  text += "\n/* mpiad: forward sweep of " + name +
          " (records what " + names.rev + " needs) */\n";
  text += "static " + (F.retVar ? printType(F.ret) : std::string("void")) +
          " " + names.fwd + "(" + join(fparams) + ") {\n" + fbody + "}\n";
  text += "\n/* mpiad: reverse sweep of " + name + " */\n";
  text += "static void " + names.rev + "(" + join(rparams) + ") {\n" + rbody +
          "}\n";
  callees_[key].text = text;
  owned_.push_back(std::move(owned));
  return &callees_[key];
}

} // namespace mpiad
