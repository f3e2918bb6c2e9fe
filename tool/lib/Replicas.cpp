//===- Replicas.cpp - One function for R independent replicas -------------===//
//
// `replicas(w, y)` in a differentiate pragma asks for F_bv (and F_dv): the
// adjoint of F for R independent replicas at once, where the replicas differ
// in the named inputs and share every other input (the NNPDF case: one model
// fitted to R pseudo-data replicas).  This stage turns the function, after
// inlining (every same-file helper called with a pointer is inlined, so that
// every array access is seen) and normalization (early returns, break and
// continue are flags), into its batched primal, which is normalized again
// and then differentiated by the usual pipeline:
//
//   - `int R` becomes the first parameter.  A per-replica array parameter
//     holds R copies back to back (replica r at `w + r*len`); a per-replica
//     scalar parameter becomes an array of R; the return value becomes the
//     output array F_val[R].
//   - Inside, every per-replica value has the replica axis innermost: element
//     k of replica r of an array lives at `[k*R + r]`, a scalar at `[r]`.
//     Parameters are copied into that layout on entry (and outputs back on
//     exit).  With the replica axis innermost, every contiguous piece of an
//     array stays contiguous over all replicas, so each MPI call keeps its
//     buffers and datatype and only multiplies its counts by R: one
//     Allreduce of R*count values instead of R Allreduces, one halo message
//     carrying every replica.  Element-wise reductions (SUM, PROD, MAX, MIN)
//     do not care about the order of the elements.
//   - Which values are per-replica is a forward data-flow fixpoint: the
//     named inputs, whatever is computed from them or assigned under a
//     condition that reads them, and every buffer of a communication call
//     one of whose buffers is per-replica (all point-to-point buffers of the
//     function once one is, so that every message has the same length on
//     both sides).  Pointers themselves are never per-replica: they point to
//     storage laid out for all replicas.
//   - Statements are batched innermost: a loop or branch whose control is
//     shared stays as it is and the per-replica statements inside it run in
//     a `for (r = 0; r < R; r++)` loop of their own (consecutive ones share
//     one); the replica loop then walks contiguous memory and vectorises,
//     and shared data (X) is read once for all replicas.  A loop or branch
//     whose condition depends on per-replica values runs whole inside a
//     replica loop (each replica takes its own path) when it does not
//     communicate; one that does is masked first (maskBranches, maskLoop).
//   - A per-replica scalar declared inside one replica loop and used only
//     there stays a scalar; other per-replica scalars become arrays of R
//     (Var::replicaCount).  A store into every element in a loop over the
//     replicas (Stmt::replicaFill) is a new value for replication and
//     to-be-recorded: the loop runs at least once (Stmt::replicaLoop), since
//     the batched function returns first when R < 1.
//
// No replica ever reads another replica's values: every per-replica access
// is at `[... * R + r]` inside the loop over r, and each communication call
// moves element k*R + r to element k*R + r.
//
// What cannot be batched exactly is a located error that says what to
// write: in a masked branch or loop, a non-blocking call or one that writes
// more than its count, or a loop condition with side effects; a
// pointer chosen by per-replica data, a per-replica array passed to an
// external function, a row of a multi-dimensional per-replica array used as
// a pointer (such arrays are flattened row by row, fixedArray).  The v
// collectives' count and displacement arrays are scaled by R at run time
// (scalePerRankArrays).
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "Frontend.h"
#include "IR.h"
#include "Rules.h"
#include "Transform.h"

#include <cctype>

namespace mpiad {

namespace {

bool isAllocCall(const ExprP &e) {
  ExprP c = e;
  while (c && c->kind == Expr::Cast)
    c = c->ops[0];
  return c && c->kind == Expr::Call &&
         (c->text == "malloc" || c->text == "calloc" || c->text == "realloc");
}

class Batcher {
public:
  Batcher(Function &f, Annotation &ann, Frontend &fe, Diag &diag)
      : F(f), ann(ann), fe(fe), diag(diag) {}

  bool run();

private:
  Function &F;
  Annotation &ann;
  Frontend &fe;
  Diag &diag;
  bool failed = false;

  Var *Rv = nullptr;                // the replica count
  std::set<Var *> repVal;           // scalars with a value per replica
  std::map<Var *, Var *> parent;    // alias classes of pointers and arrays
  std::set<Var *> repData;          // roots whose data is per replica
  bool p2pRep = false;              // point-to-point messages carry replicas
  std::set<Var *> expanded;         // per-replica scalars stored as [R]
  std::vector<Stmt *> regions;      // the replica loops made
  std::map<Var *, std::set<int>> regionsOf; // per-replica var -> regions
  std::set<Var *> usedOutside;      // referenced outside any replica loop
  std::map<Var *, int> declaredIn;  // declared inside this replica loop

  clang::SourceLocation stmtLoc; // of the statement being rewritten
  void fail(clang::SourceLocation loc, const std::string &msg) {
    if (!loc.isValid())
      loc = stmtLoc.isValid() ? stmtLoc : F.loc;
    if (!failed)
      diag.error(loc, "replicas: " + msg);
    failed = true;
  }

  // --- alias classes -----------------------------------------------------
  Var *root(Var *v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v)
      return v;
    return it->second = root(it->second);
  }
  bool unite(Var *a, Var *b) {
    a = root(a);
    b = root(b);
    if (a == b)
      return false;
    parent[a] = b;
    if (repData.count(a) && repData.insert(b).second)
      return true;
    return false;
  }
  bool dataRep(Var *v) { return v && repData.count(root(v)); }
  bool markData(Var *v) { return v && repData.insert(root(v)).second; }

  static bool isPointerish(const Var *v) {
    return v->type.ptrDepth > 0 || !v->type.dims.empty();
  }

  // --- reads of per-replica values ----------------------------------------
  bool readsRep(const ExprP &e) {
    if (!e)
      return false;
    switch (e->kind) {
    case Expr::VarRef:
      return e->ptrDepth == 0 && repVal.count(e->var);
    case Expr::Index:
      if (e->ptrDepth == 0 && dataRep(baseVar(e->ops[0])))
        return true;
      break;
    case Expr::Unary:
      if (e->text == "*" && e->ptrDepth == 0 && dataRep(baseVar(e->ops[0])))
        return true;
      break;
    case Expr::Opaque:
      for (Var *v : e->vars)
        if (repVal.count(v) || dataRep(v))
          return true;
      break;
    default:
      break;
    }
    for (const ExprP &o : e->ops)
      if (readsRep(o))
        return true;
    return false;
  }

  /// Does a pointer expression depend on per-replica values?  `&a[i]`,
  /// `a + i` and `a` choose their element by i alone: the elements of a
  /// are not read.
  bool pointerReadsRep(const ExprP &e) {
    if (!e)
      return false;
    switch (e->kind) {
    case Expr::Cast:
      return pointerReadsRep(e->ops[0]);
    case Expr::VarRef:
      return false;
    case Expr::AddrOf:
      if (e->ops[0]->kind == Expr::Index)
        return pointerReadsRep(e->ops[0]->ops[0]) ||
               readsRep(e->ops[0]->ops[1]);
      return readsRep(e);
    case Expr::Binary:
      if (e->ptrDepth > 0 && (e->text == "+" || e->text == "-")) {
        bool left = e->ops[0]->ptrDepth > 0;
        return pointerReadsRep(e->ops[left ? 0 : 1]) ||
               readsRep(e->ops[left ? 1 : 0]);
      }
      return readsRep(e);
    default:
      return readsRep(e);
    }
  }

  // --- the fixpoint --------------------------------------------------------
  bool changed = false;
  void addVal(Var *v) {
    if (v && repVal.insert(v).second)
      changed = true;
  }
  void addData(Var *v) {
    if (markData(v))
      changed = true;
  }

  /// Is this buffer argument of a communication call per-replica?
  /// `&s` for a scalar s (its expression, not its type: a per-replica
  /// scalar's type becomes a pointer once it is stored as [R]).
  static bool scalarAddress(const ExprP &a) {
    return a->kind == Expr::AddrOf && a->ops[0]->kind == Expr::VarRef &&
           a->ops[0]->ptrDepth == 0;
  }
  bool bufferRep(const ExprP &a) {
    if (scalarAddress(a))
      return repVal.count(a->ops[0]->var) > 0;
    return dataRep(baseVar(a));
  }
  void markBuffer(const ExprP &a) {
    if (scalarAddress(a))
      addVal(a->ops[0]->var);
    else if (Var *b = baseVar(a))
      addData(b);
  }

  void flow(const Block &b, bool ctl) {
    for (const StmtP &s : b)
      flow(*s, ctl);
  }

  void flow(Stmt &s, bool ctl) {
    switch (s.kind) {
    case Stmt::Decl:
      if (s.rhs) {
        if (isPointerish(s.var)) {
          if (Var *b = baseVar(s.rhs))
            if (isPointerish(b) && unite(s.var, b))
              changed = true;
        } else if (ctl || readsRep(s.rhs)) {
          addVal(s.var);
        }
      }
      break;
    case Stmt::Assign:
      if (s.lhs->kind == Expr::VarRef && !isPointerish(s.lhs->var)) {
        if (ctl || readsRep(s.rhs))
          addVal(s.lhs->var);
      } else if (s.lhs->kind == Expr::VarRef) {
        if (Var *b = baseVar(s.rhs))
          if (isPointerish(b) && unite(s.lhs->var, b))
            changed = true;
      } else if (ctl || readsRep(s.rhs) || readsRep(s.lhs)) {
        addData(baseVar(s.lhs));
      }
      break;
    case Stmt::If:
    case Stmt::While:
    case Stmt::DoWhile: {
      bool c = ctl || readsRep(s.cond);
      flow(s.body, c);
      flow(s.elseBody, c);
      break;
    }
    case Stmt::For: {
      if (s.init)
        flow(*s.init, ctl);
      bool c = ctl || readsRep(s.cond);
      if (s.step && s.step->kind == Stmt::Assign &&
          s.step->lhs->kind == Expr::VarRef && repVal.count(s.step->lhs->var))
        c = true;
      if (s.step)
        flow(*s.step, c);
      flow(s.body, c);
      break;
    }
    case Stmt::Compound:
      flow(s.body, ctl);
      break;
    case Stmt::Comm: {
      const CommRule *rule = s.comm.rule;
      if (!rule)
        break;
      bool any = rule->pointToPoint && p2pRep;
      for (size_t k = 0; k < rule->args.size() && k < s.comm.args.size(); ++k)
        if (rule->args[k].role == CommArg::Buffer && bufferRep(s.comm.args[k]))
          any = true;
      if (!any)
        break;
      if (rule->pointToPoint && !p2pRep) {
        p2pRep = true;
        changed = true;
      }
      for (size_t k = 0; k < rule->args.size() && k < s.comm.args.size(); ++k)
        if (rule->args[k].role == CommArg::Buffer)
          markBuffer(s.comm.args[k]);
      break;
    }
    default:
      break;
    }
  }

  // --- batching the statements ---------------------------------------------
  /// Does the statement (or anything nested in it) touch per-replica data?
  bool touches(const Stmt &s) {
    bool any = false;
    auto expr = [&](const ExprP &e) {
      if (!e || any)
        return;
      if (readsRep(e)) {
        any = true;
        return;
      }
      visitExpr(e, [&](const Expr &x) {
        if (x.kind == Expr::VarRef && (repVal.count(x.var) || dataRep(x.var)))
          any = true;
      });
    };
    std::function<void(const Stmt &)> st = [&](const Stmt &t) {
      if (any)
        return;
      if (t.kind == Stmt::Decl && (repVal.count(t.var) || dataRep(t.var)))
        any = true;
      expr(t.lhs);
      expr(t.rhs);
      expr(t.cond);
      for (const ExprP &a : t.comm.args)
        expr(a);
      if (t.init)
        st(*t.init);
      if (t.step)
        st(*t.step);
      for (const StmtP &x : t.body)
        st(*x);
      for (const StmtP &x : t.elseBody)
        st(*x);
    };
    st(s);
    return any;
  }

  static bool containsComm(const Stmt &s) {
    if (s.kind == Stmt::Comm)
      return true;
    for (const StmtP &x : s.body)
      if (containsComm(*x))
        return true;
    for (const StmtP &x : s.elseBody)
      if (containsComm(*x))
        return true;
    return false;
  }

  /// `p = malloc(...)` or `T *p = calloc(...)` (a pointer statement that
  /// allocates, not realloc).
  static bool allocStmt(const Stmt &s) {
    if (!pointerStmt(s) || !isAllocCall(s.rhs))
      return false;
    ExprP c = s.rhs;
    while (c->kind == Expr::Cast)
      c = c->ops[0];
    return c->text != "realloc";
  }
  /// An allocation, inside s, of a pointer declared inside s: in a masked
  /// branch it runs once for all replicas (maskBranch), since a pointer
  /// that the branch's end forgets is the same for every replica that
  /// takes the branch.
  static bool allocatesLocal(const Stmt &s) {
    std::set<const Var *> declared;
    bool found = false;
    collectDecls(s, declared);
    Block one{std::make_shared<Stmt>(s)};
    walk(one, [&](Stmt &x, const WalkCtx &) {
      if (allocStmt(x) &&
          declared.count(x.kind == Stmt::Decl ? x.var : x.lhs->var))
        found = true;
    });
    return found;
  }
  /// Statements of a masked block that cannot run under `if (mask)` in a
  /// loop over replicas: communication and allocations.
  static bool needsMask(const Stmt &s) {
    return containsComm(s) || allocatesLocal(s);
  }

  bool controlRep(const Stmt &s) {
    switch (s.kind) {
    case Stmt::If:
    case Stmt::While:
    case Stmt::DoWhile:
      return readsRep(s.cond);
    case Stmt::For:
      return readsRep(s.cond) ||
             (s.step && s.step->kind == Stmt::Assign &&
              s.step->lhs->kind == Expr::VarRef &&
              repVal.count(s.step->lhs->var));
    default:
      return false;
    }
  }

  /// A statement that assigns a pointer: shared, rewritten in place.
  static bool pointerStmt(const Stmt &s) {
    if (s.kind == Stmt::Decl)
      return isPointerish(s.var) && s.rhs;
    if (s.kind == Stmt::Assign)
      return s.lhs->kind == Expr::VarRef && isPointerish(s.lhs->var);
    return false;
  }

  /// Checks a statement that runs whole inside a replica loop: no
  /// communication, no jump out of it (normalization has made flags of
  /// them; one left would leave a loop all replicas share), no allocation
  /// and no pointer chosen by per-replica values.
  /// The variables declared in the statement that checkWhole checks.
  std::set<const Var *> wholeDecls;
  void declaredWithin(const Stmt &s) {
    wholeDecls.clear();
    collectDecls(s, wholeDecls);
  }
  /// Adds the variables declared in s (at any depth) to `into`.
  static void collectDecls(const Stmt &s, std::set<const Var *> &into) {
    Block one{std::make_shared<Stmt>(s)};
    walk(one, [&](Stmt &x, const WalkCtx &) {
      if (x.kind == Stmt::Decl)
        into.insert(x.var);
    });
  }
  void checkWhole(const Stmt &s, int loops) {
    if (s.kind == Stmt::Comm) {
      fail(s.loc, "'" + s.comm.name +
                      "' runs under a condition that depends on per-replica "
                      "values, so the replicas would need different "
                      "messages; make the condition depend on shared values "
                      "only (a fixed iteration count, a shared tolerance "
                      "test after a reduction over replicas)");
      return;
    }
    if ((s.kind == Stmt::Break || s.kind == Stmt::Continue) && loops == 0) {
      fail(s.loc, std::string("'") +
                      (s.kind == Stmt::Break ? "break" : "continue") +
                      "' under a condition that depends on per-replica "
                      "values leaves a loop that all replicas share; "
                      "replicas cannot take different paths out of it");
      return;
    }
    if (s.kind == Stmt::Return) {
      fail(s.loc, "'return' under a condition that depends on per-replica "
                  "values; replicas cannot take different paths out of the "
                  "function: assign the result and return at the end");
      return;
    }
    // A copy of a shared pointer (`v = w`, `v = &a[k]`, an inlined
    // helper's parameter) into a pointer declared in the statement that
    // runs whole is the same for every replica that takes the path, and
    // nothing outside sees it; an allocation, a pointer chosen by
    // per-replica values, or one that lives on after the statement (some
    // replicas would leave it pointing elsewhere) is not.
    if (pointerStmt(s) &&
        (isAllocCall(s.rhs) || pointerReadsRep(s.rhs) ||
         !wholeDecls.count(s.kind == Stmt::Decl ? s.var : s.lhs->var))) {
      fail(s.loc, "a pointer assigned under a condition that depends on "
                  "per-replica values; replicas share their pointers, so "
                  "each would see the choice of the last one: select the "
                  "values instead (v = c ? b[k] : a[k]), or declare the "
                  "pointer inside the branch that uses it");
      return;
    }
    bool loop = s.kind == Stmt::For || s.kind == Stmt::While ||
                s.kind == Stmt::DoWhile;
    for (const StmtP &x : s.body)
      checkWhole(*x, loops + (loop ? 1 : 0));
    for (const StmtP &x : s.elseBody)
      checkWhole(*x, loops);
  }

  // --- communication under a per-replica condition -------------------------
  //
  // `if (C) { A; MPI_Allreduce(&s, &t, 1, ...); B; }` with C per-replica:
  // each replica takes the branch or not, but the batched call carries every
  // replica.  The branch is masked: m = C for each replica, the statements
  // without communication run under `if (m)`, and each call runs for all
  // replicas between a save and a restore of what it writes, for the
  // replicas whose m is 0:
  //
  //   m = C ? 1 : 0;
  //   if (m) { A; }
  //   if (!m) keep = t;  MPI_Allreduce(&s, &t, 1, ...);  if (!m) t = keep;
  //   if (m) { B; }
  //
  // A replica with m = 0 gets back the values it had, its contribution to
  // the others is discarded by theirs (a reduction's result is restored),
  // and the reverse sweep, which differentiates this code, gives it no
  // adjoint through the call.  A rank makes the call when some replica's
  // mask is set there (guardMaskedCalls): where each replica's primal
  // agrees across ranks, so do the batched calls.  A
  // branch inside a masked one is masked with m && C2; a loop whose
  // condition depends on per-replica values is masked too (maskLoop, below).
  // Calls supported: the
  // blocking ones whose written buffers hold exactly COUNT elements (`exact`
  // in the rules) or are one scalar.

  Var *maskVar(clang::SourceLocation loc) {
    CType it;
    it.elem = Scalar::Int;
    it.base = "int";
    Var *m = F.newVar("mpiad_mask", it, Var::Local);
    m->loc = loc;
    return m;
  }
  static ExprP notMask(Var *m) { return mkBinary("==", mkVar(m), mkInt(0)); }
  static StmtP located(StmtP s, clang::SourceLocation loc) {
    s->loc = loc;
    return s;
  }

  /// The masked form of one communication call (m: its replicas' mask).
  void maskComm(const StmtP &s, Var *m, Block &out) {
    const CommRule *rule = s->comm.rule;
    clang::SourceLocation at = s->loc;
    auto refuse = [&](const std::string &why) {
      fail(at, "'" + s->comm.name + "' runs under a condition that depends "
                   "on per-replica values, " + why);
    };
    if (!rule) {
      refuse("and has no rule");
      return;
    }
    if (rule->starts || rule->completes || !rule->creates.empty() ||
        !rule->releases.empty()) {
      refuse("and is a non-blocking call, a completion or a communicator's "
             "creation or release, which cannot be masked per replica; use "
             "the blocking call, or make the condition depend on shared "
             "values only");
      return;
    }
    Block before, after, frees;
    for (size_t k = 0; k < rule->args.size() && k < s->comm.args.size(); ++k) {
      const CommArg &a = rule->args[k];
      const ExprP &buf = s->comm.args[k];
      if (a.role != CommArg::Buffer || !a.write)
        continue;
      if (buf->kind == Expr::Opaque && buf->text == "MPI_IN_PLACE")
        continue;
      Var *b = baseVar(buf);
      if (!b || !b->type.isFloatingElem()) {
        refuse("and writes '" + printExpr(buf) +
               "', which the masked call cannot keep for the replicas that "
               "do not take the branch");
        return;
      }
      CType t;
      t.elem = b->type.elem;
      t.base = b->type.elemName();
      if (buf->kind == Expr::AddrOf && buf->ops[0]->kind == Expr::VarRef &&
          buf->ops[0]->ptrDepth == 0) {
        // One scalar: keep = x before, x = keep after.
        ExprP x = buf->ops[0];
        Var *keep = F.newVar("mpiad_keep", t, Var::Local);
        before.push_back(located(mkDecl(keep), at));
        before.push_back(located(
            mkIf(notMask(m), {located(mkAssign(mkVar(keep), "=", x), at)}),
            at));
        after.push_back(located(
            mkIf(notMask(m), {located(mkAssign(x, "=", mkVar(keep)), at)}),
            at));
        continue;
      }
      int ci = rule->argIndex(a.count);
      if (!a.exactCount || ci < 0 || ci >= (int)s->comm.args.size() ||
          readsRep(s->comm.args[ci])) {
        refuse("and writes more (or other) elements of '" + printExpr(buf) +
               "' than its count says, which the masked call cannot keep "
               "for the replicas that do not take the branch");
        return;
      }
      ExprP n = s->comm.args[ci];
      t.ptrDepth = 1;
      Var *keep = F.newVar("mpiad_keep", t, Var::Local);
      CType ti;
      ti.elem = Scalar::Int;
      ti.base = "int";
      before.push_back(located(
          mkDecl(keep,
                 mkCall("malloc",
                        {mkBinary("*", mkCast("size_t", n, Scalar::Int),
                                  mkOpaque("sizeof(" + t.base + ")", {},
                                           Scalar::Int))},
                        t.elem, 1)),
          at));
      auto copy = [&](bool save) {
        Var *k = F.newVar("mpiad_k", ti, Var::Local);
        k->declaredInForInit = true;
        ExprP kept = mkIndex(mkVar(keep), mkVar(k));
        ExprP elem = bufferElement(buf, mkVar(k));
        StmtP set = located(save ? mkAssign(kept, "=", elem)
                                 : mkAssign(elem, "=", kept),
                            at);
        return countedLoop(k, n, {located(mkIf(notMask(m), {set}), at)}, at);
      };
      before.push_back(copy(true));
      after.push_back(copy(false));
      frees.push_back(located(
          mkExprStmt(mkCall("free", {mkVar(keep)}, Scalar::Void)), at));
    }
    append(out, before);
    out.push_back(s);
    maskedCalls[s.get()] = m;
    append(out, after);
    append(out, frees);
  }
  /// The masked calls and their masks: after batching, each runs only where
  /// some replica's mask is set (guardMaskedCalls).
  std::map<const Stmt *, Var *> maskedCalls;

  /// `if (mpiad_replica_any(m, R)) call;`: a rank makes a masked call when
  /// at least one replica takes the branch there, as the primal does for
  /// that replica; a branch whose condition also reads shared values (`rank
  /// == 0 && C`) then calls only where the primal does for some replica.
  void guardMaskedCalls(Block &b) {
    for (StmtP &s : b) {
      guardMaskedCalls(s->body);
      guardMaskedCalls(s->elseBody);
      auto it = maskedCalls.find(s.get());
      if (it == maskedCalls.end())
        continue;
      ExprP any = mkCall("mpiad_replica_any",
                         {mkVar(it->second), mkVar(Rv)}, Scalar::Int);
      StmtP guarded = mkIf(any, {s});
      guarded->loc = s->loc;
      s = guarded;
    }
  }

  /// The statements of a block that runs only for the replicas whose mask
  /// m is set (see above).
  Block masked(const Block &b, Var *m) {
    Block out;
    Stmt *open = nullptr; // the `if (m)` consecutive statements join
    std::set<const Var *> allocated; // by this block, for every replica
    for (const StmtP &x : b) {
      if (failed)
        break;
      // The free() of a block this block allocated for every replica
      // runs for every replica too (a helper's buffer in a masked loop is
      // allocated and freed once per iteration).
      if (Var *f = freedVar(*x); f && allocated.count(f)) {
        open = nullptr;
        out.push_back(x);
        continue;
      }
      if (x->kind == Stmt::Decl && !x->rhs) {
        out.push_back(x); // the scope stays as written
        continue;
      }
      if (x->kind == Stmt::Comment) {
        out.push_back(x);
        continue;
      }
      if (pointerStmt(*x) &&
          (x->kind == Stmt::Decl || maskedDecls.count(x->lhs->var)) &&
          (allocStmt(*x) || !pointerReadsRep(x->rhs))) {
        // A pointer declared in the branch, set for every replica as
        // outside the branch: an allocation (the block serves all
        // replicas; its free() in the branch is deferred to the end,
        // rwStmt) or a copy of a shared pointer (an inlined helper's
        // parameter).  The replicas that do not take the branch do not use
        // it.
        if (allocStmt(*x) && readsRep(x->rhs)) {
          fail(x->loc, "an allocation whose size depends on per-replica "
                       "values, in a branch that some replicas take; "
                       "allocate the largest size any replica needs");
          break;
        }
        if (allocStmt(*x))
          allocated.insert(x->kind == Stmt::Decl ? x->var : x->lhs->var);
        open = nullptr;
        out.push_back(x);
        continue;
      }
      if (!needsMask(*x)) {
        if (!open) {
          out.push_back(located(mkIf(mkVar(m), {}), x->loc));
          open = out.back().get();
        }
        open->body.push_back(x);
        continue;
      }
      open = nullptr;
      if (x->kind == Stmt::Comm) {
        maskComm(x, m, out);
        continue;
      }
      if (x->kind == Stmt::If && readsRep(x->cond)) {
        maskBranch(x, m, out);
        continue;
      }
      if (isLoop(*x) && controlRep(*x)) {
        maskLoop(x, m, out);
        continue;
      }
      if (controlRep(*x)) {
        declaredWithin(*x);
        checkWhole(*x, 1); // another statement with per-replica control
        continue;
      }
      // Shared control: the loop or branch runs for every replica, its
      // body masked.
      x->body = masked(x->body, m);
      x->elseBody = masked(x->elseBody, m);
      out.push_back(x);
    }
    return out;
  }

  /// `if (C) A else B` with C per-replica and communication inside, under
  /// the mask `outer` (null at the top): masks m = outer && C and
  /// m2 = outer && !C.
  void maskBranch(const StmtP &s, Var *outer, Block &out) {
    clang::SourceLocation at = s->loc;
    collectDecls(*s, maskedDecls);
    ExprP on = mkCond(s->cond, mkInt(1), mkInt(0));
    if (outer)
      on = mkCond(mkVar(outer), on, mkInt(0));
    Var *m = maskVar(at);
    out.push_back(located(mkDecl(m), at));
    out.push_back(located(mkAssign(mkVar(m), "=", on), at));
    Var *m2 = nullptr;
    if (!s->elseBody.empty()) {
      ExprP off = notMask(m);
      if (outer)
        off = mkCond(mkVar(outer), off, mkInt(0));
      m2 = maskVar(at);
      out.push_back(located(mkDecl(m2), at));
      out.push_back(located(mkAssign(mkVar(m2), "=", off), at));
    }
    append(out, masked(s->body, m));
    if (m2)
      append(out, masked(s->elseBody, m2));
  }

  static bool isLoop(const Stmt &s) {
    return s.kind == Stmt::While || s.kind == Stmt::For ||
           s.kind == Stmt::DoWhile;
  }
  /// `while (C) B`, `for (I; C; S) B` or `do B while (C)` with C (or S)
  /// per-replica and communication inside, under the mask `outer` (null
  /// at the top): the loop runs while some replica's mask is set, each
  /// iteration masked,
  ///
  ///   I;  m = outer && C;                  // do-while: m = outer
  ///   while (mpiad_replica_any(m, R)) {    // set after batching
  ///     masked(B; S, m)
  ///     m = m && C;
  ///   }
  ///
  /// A replica whose C fails keeps m = 0 from then on: it runs no more
  /// statements and gets back what the calls write, as in a masked branch.
  /// Where each replica's primal makes the same calls on every rank, every
  /// rank runs the loop as often as its longest replica, and so makes the
  /// same number of calls.
  void maskLoop(const StmtP &s, Var *outer, Block &out) {
    clang::SourceLocation at = s->loc;
    collectDecls(*s, maskedDecls);
    // break and continue are flags by now (Normalize.cpp): a replica that
    // breaks clears its flag, which the condition tests.  The condition
    // is evaluated once per replica and iteration.
    if (!sideEffectFree(s->cond, [&](const std::string &f) {
          return fe.rules()->math(f) != nullptr;
        })) {
      fail(at, "the condition of this loop depends on per-replica values, "
               "the loop communicates, and its condition has side effects; "
               "move them into the loop's body");
      return;
    }
    if (s->kind == Stmt::For && s->init) {
      // The initialisation runs before the loop, under the outer mask; a
      // counter declared in the header is declared before the loop.
      StmtP init = s->init;
      if (init->kind == Stmt::Decl) {
        init->var->declaredInForInit = false;
        if (outer && init->rhs) {
          out.push_back(located(mkDecl(init->var), at));
          init = located(mkAssign(mkVar(init->var), "=", init->rhs), at);
        } else {
          out.push_back(init);
          init = nullptr;
        }
      }
      if (init)
        out.push_back(outer ? located(mkIf(mkVar(outer), {init}), at) : init);
    }
    auto test = [&](Var *gate) {
      ExprP on = mkCond(s->cond ? s->cond : mkInt(1), mkInt(1), mkInt(0));
      return gate ? mkCond(mkVar(gate), on, mkInt(0)) : on;
    };
    Var *m = maskVar(at);
    out.push_back(located(mkDecl(m), at));
    ExprP first = test(outer);
    if (s->kind == Stmt::DoWhile) // the body runs once first
      first = outer ? mkCond(mkVar(outer), mkInt(1), mkInt(0)) : mkInt(1);
    out.push_back(located(mkAssign(mkVar(m), "=", first), at));
    Block body = s->body;
    if (s->kind == Stmt::For && s->step)
      body.push_back(s->step);
    auto loop = std::make_shared<Stmt>();
    loop->kind = Stmt::While;
    loop->loc = at;
    loop->cond = mkInt(1); // mpiad_replica_any(m, R), after batching
    loop->body = masked(body, m);
    loop->body.push_back(located(mkAssign(mkVar(m), "=", test(m)), at));
    maskedLoops[loop.get()] = m;
    out.push_back(loop);
  }
  /// The masked loops and their masks (their conditions are set after
  /// batching, like the masked calls' guards).
  std::map<const Stmt *, Var *> maskedLoops;

  /// The variables declared in masked branches (an allocation into one of
  /// them runs for all replicas).
  std::set<const Var *> maskedDecls;

  /// Masks every branch with a per-replica condition that communicates.
  /// True when something changed.
  bool maskBranches(Block &b) {
    bool any = false;
    Block out;
    for (const StmtP &x : b) {
      if (failed)
        return false;
      if (x->kind == Stmt::If && readsRep(x->cond) && needsMask(*x)) {
        maskBranch(x, nullptr, out);
        any = true;
        continue;
      }
      if (isLoop(*x) && controlRep(*x) && needsMask(*x)) {
        maskLoop(x, nullptr, out);
        any = true;
        continue;
      }
      if (!controlRep(*x)) {
        any |= maskBranches(x->body);
        any |= maskBranches(x->elseBody);
      }
      out.push_back(x);
    }
    b.swap(out);
    return any;
  }

  /// `for (int c = 0; c < hi; c++) { body }`, c a new counter.
  StmtP countedLoop(Var *c, ExprP hi, Block body, clang::SourceLocation loc) {
    auto l = std::make_shared<Stmt>();
    l->kind = Stmt::For;
    l->loc = loc;
    l->init = mkDecl(c, mkInt(0));
    l->init->loc = loc;
    l->cond = mkBinary("<", mkVar(c), hi);
    l->step = mkAssign(mkVar(c), "+=", mkInt(1));
    l->step->loc = loc;
    l->body = std::move(body);
    return l;
  }
  /// A new `int` counter declared in its loop's header.
  Var *counter(const std::string &name) {
    CType it;
    it.elem = Scalar::Int;
    it.base = "int";
    Var *c = F.newVar(name, it, Var::Local);
    c->declaredInForInit = true;
    return c;
  }

  Stmt *newRegion(Block &out, clang::SourceLocation loc) {
    Var *r = counter(replicaName);
    StmtP loop = countedLoop(r, mkVar(Rv), {}, loc);
    loop->replicaLoop = true;
    out.push_back(loop);
    regions.push_back(loop.get());
    regionVars.push_back(r);
    regionInLoop.push_back(loopDepth > 0);
    return loop.get();
  }
  std::string replicaName = "r";
  int loopDepth = 0;               // loops around the statements batched
  std::vector<char> regionInLoop;  // per replica loop: inside another loop?
  int rwLoops = 0;                 // loops inside the replica loop, in rwStmt
  bool rwInLoop = false;           // the replica loop is inside a loop
  Block deferredFrees;             // frees taken out of replica loops

  /// Is p assigned once in the function (its allocation), by a statement
  /// outside every loop but the replica loops?
  bool allocatedOnceOutsideLoops(const Var *p) {
    int sets = 0;
    bool inLoop = false;
    std::function<void(const Block &, int)> scan = [&](const Block &b,
                                                       int loops) {
      for (const StmtP &x : b) {
        bool sets1 = (x->kind == Stmt::Decl && x->var == p && x->rhs) ||
                     (x->kind == Stmt::Assign && x->lhs &&
                      x->lhs->kind == Expr::VarRef && x->lhs->var == p);
        if (sets1) {
          ++sets;
          inLoop |= loops > 0;
        }
        bool loop = (x->kind == Stmt::For || x->kind == Stmt::While ||
                     x->kind == Stmt::DoWhile) &&
                    !x->replicaLoop;
        for (const StmtP *h : {&x->init, &x->step})
          if (*h)
            scan({*h}, loops + loop);
        scan(x->body, loops + loop);
        scan(x->elseBody, loops + loop);
      }
    };
    scan(F.body, 0);
    return p && sets == 1 && !inLoop;
  }

  /// Pass 1: the new shape of a block, with replica loops whose bodies are
  /// still the original statements.
  void batchBlock(Block &b) {
    Block out;
    Stmt *open = nullptr; // the replica loop consecutive statements join
    for (size_t i = 0; i < b.size(); ++i) {
      StmtP s = b[i];
      if (failed)
        return;
      if (s->kind == Stmt::Comm && p2pRep &&
          (s->comm.name == "MPI_Get_count" ||
           s->comm.name == "MPI_Get_elements")) {
        fail(s->loc, "'" + s->comm.name + "' would count the elements of "
                     "every replica, since each message carries all "
                     "replicas; use the count you sent");
        return;
      }
      if (s->kind == Stmt::Decl && !s->rhs && !isPointerish(s->var)) {
        // A per-replica scalar's declaration joins the replica loop that
        // follows (a scalar declared and used in one loop stays a scalar);
        // a shared one stays where it is.  Dropped later if stored as [R].
        if (!repVal.count(s->var)) {
          out.push_back(s);
          continue;
        }
        if (!open)
          open = newRegion(out, s->loc);
        open->body.push_back(s);
        continue;
      }
      bool toVal = s->kind == Stmt::Assign && s->lhs->kind == Expr::Index &&
                   baseVar(s->lhs) == valVar && valVar;
      if (!toVal && (!touches(*s) || s->kind == Stmt::Comment)) {
        if (s->kind != Stmt::Comment && s->kind != Stmt::Decl)
          open = nullptr;
        if (s->kind == Stmt::Break || s->kind == Stmt::Continue ||
            s->kind == Stmt::Return)
          open = nullptr;
        out.push_back(s);
        continue;
      }
      if (s->kind == Stmt::Comm) {
        open = nullptr;
        comms.push_back(s.get());
        out.push_back(s);
        continue;
      }
      if (pointerStmt(*s) || (s->kind == Stmt::Decl && isPointerish(s->var))) {
        open = nullptr;
        pointers.push_back(s.get());
        out.push_back(s);
        continue;
      }
      if (s->kind == Stmt::ExprStmt && s->rhs &&
          ((s->rhs->kind == Expr::Call && s->rhs->text == "free") ||
           (s->rhs->kind == Expr::Cast && s->rhs->text == "void"))) {
        // free(p) and (void)v touch no values: they stay as written.
        open = nullptr;
        out.push_back(s);
        continue;
      }
      bool compound = s->kind == Stmt::If || s->kind == Stmt::For ||
                      s->kind == Stmt::While || s->kind == Stmt::DoWhile ||
                      s->kind == Stmt::Compound;
      if (compound && !controlRep(*s)) {
        // Shared control: the loop or branch stays, batched inside.
        open = nullptr;
        if (s->kind == Stmt::For && s->init && touches(*s->init)) {
          fail(s->init->loc, "the start of this loop depends on per-replica "
                             "values, but its condition does not");
          return;
        }
        bool isLoop = s->kind == Stmt::For || s->kind == Stmt::While ||
                      s->kind == Stmt::DoWhile;
        loopDepth += isLoop;
        batchBlock(s->body);
        loopDepth -= isLoop;
        batchBlock(s->elseBody);
        out.push_back(s);
        continue;
      }
      if (compound)
        declaredWithin(*s);
      if (compound)
        for (const StmtP &x : s->body)
          checkWhole(*x, s->kind == Stmt::If || s->kind == Stmt::Compound ? 0 : 1);
      if (compound)
        for (const StmtP &x : s->elseBody)
          checkWhole(*x, 0);
      if (failed)
        return;
      if (!open)
        open = newRegion(out, s->loc);
      open->body.push_back(s);
    }
    b.swap(out);
  }

  // --- rewriting --------------------------------------------------------------
  /// e * R, without the `0 * R` and `1 * R` of constant offsets.
  ExprP times(const ExprP &e) {
    if (isZeroLiteral(e))
      return e;
    if (isOneLiteral(e))
      return mkVar(Rv);
    return mkBinary("*", e, mkVar(Rv));
  }

  /// `p + k` (shared pointer arithmetic on per-replica storage) becomes
  /// `p + k*R`; `&p[k]` becomes `&p[k*R]`.
  ExprP scalePointer(const ExprP &e) {
    if (e->kind == Expr::Cast)
      return mkCast(e->text, scalePointer(e->ops[0]), e->type, e->ptrDepth);
    if (e->kind == Expr::Binary && e->ptrDepth > 0 &&
        (e->text == "+" || e->text == "-")) {
      bool left = e->ops[0]->ptrDepth > 0;
      ExprP p = scalePointer(left ? e->ops[0] : e->ops[1]);
      ExprP k = left ? e->ops[1] : e->ops[0];
      if (readsRep(k))
        fail(e->loc, "a pointer offset that depends on per-replica values");
      return left ? mkBinary(e->text, p, times(k)) : mkBinary(e->text, times(k), p);
    }
    if (e->kind == Expr::AddrOf && e->ops[0]->kind == Expr::Index &&
        dataRep(baseVar(e->ops[0]))) {
      const ExprP &ix = e->ops[0];
      if (readsRep(ix->ops[1]))
        fail(e->loc, "a pointer offset that depends on per-replica values");
      return mkAddrOf(mkIndex(scalePointer(ix->ops[0]), times(ix->ops[1])));
    }
    return e;
  }

  /// Scales an allocation for R replicas.
  ExprP scaleAlloc(const ExprP &e) {
    if (e->kind == Expr::Cast)
      return mkCast(e->text, scaleAlloc(e->ops[0]), e->type, e->ptrDepth);
    if (e->text == "malloc")
      return mkCall("malloc", {mkBinary("*", mkVar(Rv), e->ops[0])},
                    e->type, e->ptrDepth);
    if (e->text == "calloc")
      return mkCall("calloc", {mkBinary("*", mkVar(Rv), e->ops[0]), e->ops[1]},
                    e->type, e->ptrDepth);
    fail(e->loc, "'" + e->text + "' of an array with per-replica values; "
                 "allocate it once with malloc or calloc");
    return e;
  }

  void pointerAssign(Stmt &s) {
    Var *v = s.kind == Stmt::Decl ? s.var : s.lhs->var;
    if (s.kind == Stmt::Decl && !v->type.dims.empty()) {
      if (dataRep(v))
        fixedArray(s);
      return;
    }
    if (!s.rhs)
      return;
    if (pointerReadsRep(s.rhs)) {
      fail(s.loc, "pointer '" + v->userName +
                      "' is chosen by per-replica values; replicas share "
                      "their pointers");
      return;
    }
    if (!dataRep(v))
      return;
    if (isAllocCall(s.rhs))
      s.rhs = scaleAlloc(s.rhs);
    else
      s.rhs = scalePointer(s.rhs);
  }

  std::vector<Var *> fixedArrays;
  /// The dimensions of the multi-dimensional per-replica arrays, flattened
  /// by fixedArray: `a[i][j]` is element `i * (B) + j` of a[A][B].
  std::map<Var *, std::vector<std::string>> flatDims;
  /// A dimension's text as a factor of a product: as it is when it is a
  /// name or a number, else in parentheses.
  static std::string factor(const std::string &d) {
    for (char c : d)
      if (!std::isalnum((unsigned char)c) && c != '_')
        return "(" + d + ")";
    return d;
  }
  /// `double a[N]` holding per-replica values becomes R*N elements (and
  /// `double a[A][B]` R*(A)*(B), row by row).  In a replica loop (`only` its
  /// counter) the initialiser is stored for that replica only; elsewhere
  /// for every replica.
  void fixedArray(Stmt &s, Var *only = nullptr) {
    Var *v = s.var;
    std::vector<std::string> dims = v->type.dims;
    std::string n = dims[0], shape = "[" + dims[0] + "]";
    if (dims.size() > 1) {
      flatDims[v] = dims;
      n = factor(dims[0]);
      for (size_t d = 1; d < dims.size(); ++d) {
        n += " * " + factor(dims[d]);
        shape += "[" + dims[d] + "]";
      }
    }
    std::string elem = v->type.elemName();
    ExprP init = s.rhs; // a constant initialiser list, `{0.0, 1.0}`
    v->type.dims.clear();
    v->type.ptrDepth = 1;
    if (v->type.base.rfind("const ", 0) == 0)
      v->type.base = v->type.base.substr(6);
    // Allocated once at the top (the declaration may be in a loop), freed
    // at the end.
    StmtP alloc = mkDecl(
        v, mkCall("malloc",
                  {mkBinary("*",
                            mkBinary("*", mkVar(Rv),
                                     mkOpaque("(" + n + ")", {}, Scalar::Int)),
                            mkOpaque("sizeof(" + elem + ")", {}, Scalar::Int))},
                  v->type.elem, 1));
    alloc->loc = s.loc;
    fixedAllocs.push_back(alloc);
    fixedArrays.push_back(v);
    if (!init) {
      s = *mkComment(v->userName + ": " + n + " values per replica, " +
                     v->userName + "[k * R + r]");
      return;
    }
    if (init->kind != Expr::Opaque || !init->vars.empty()) {
      fail(s.loc, "the initialiser of per-replica array '" + v->userName +
                      "' is not a list of constants; assign its elements");
      return;
    }
    // Each replica gets the initial values: v[k * R + r] = init[k].
    Var *k = counter("mpiad_k");
    Var *r = only ? only : counter(replicaName);
    clang::SourceLocation at = s.loc;
    // The list as an array of its declared shape, read element by element
    // in order (row by row for several dimensions).
    std::string list = "(" + elem + shape + ")" + init->text;
    if (dims.size() > 1)
      list = "(" + elem + " *)" + list;
    ExprP value = mkOpaque("(" + list + ")[" + k->name + "]", {k},
                           v->type.elem);
    StmtP fill = mkAssign(
        mkIndex(mkVar(v), mkBinary("+", mkBinary("*", mkVar(k), mkVar(Rv)),
                                   mkVar(r))),
        "=", value);
    fill->loc = s.loc;
    s = Stmt();
    s.kind = Stmt::Compound;
    s.loc = at;
    Block perReplica = {fill};
    if (!only)
      perReplica = {countedLoop(r, mkVar(Rv), {fill}, at)};
    s.body = {countedLoop(k, mkOpaque("(" + n + ")", {}, Scalar::Int),
                          std::move(perReplica), at)};
  }
  Block fixedAllocs; // the allocations of per-replica fixed arrays

  void batchComm(Stmt &s) {
    const CommRule *rule = s.comm.rule;
    if (!rule)
      return;
    std::set<int> counts;
    bool any = false;
    for (size_t k = 0; k < rule->args.size() && k < s.comm.args.size(); ++k) {
      const CommArg &a = rule->args[k];
      if (a.role != CommArg::Buffer)
        continue;
      ExprP &e = s.comm.args[k];
      if (!bufferRep(e))
        continue;
      int dt = rule->argIndex(a.datatype);
      if (dt >= 0 && s.comm.args[dt]->derivedDatatype) {
        fail(s.comm.args[dt]->loc,
             "derived datatype '" + s.comm.args[dt]->text + "' in '" +
                 s.comm.name +
                 "' on per-replica values: its layout does not know the "
                 "replica axis; in a function with replicas(...) use "
                 "MPI_DOUBLE on a contiguous buffer");
        return;
      }
      any = true;
      if (e->kind == Expr::AddrOf && e->ops[0]->kind == Expr::VarRef &&
          e->ops[0]->ptrDepth == 0)
        e = mkVar(e->ops[0]->var); // now an array of R
      else
        e = scalePointer(e);
      int c = rule->argIndex(a.count);
      if (c >= 0)
        counts.insert(c);
    }
    if (!any)
      return;
    for (int c : counts) {
      if (!rule->args[c].perRank.empty())
        continue; // an array of counts: scaled below
      ExprP &e = s.comm.args[c];
      if (e->ptrDepth > 0) {
        fail(s.loc, "'" + s.comm.name +
                        "' takes arrays of counts that its rule does not "
                        "describe (no 'perrank' in rules/mpi.rules), so they "
                        "cannot be scaled to carry every replica; in a "
                        "function with replicas(...) use MPI_Alltoallv");
        return;
      }
      e = isOneLiteral(e) ? mkVar(Rv) : mkBinary("*", mkVar(Rv), e);
    }
    scalePerRankArrays(s);
  }

  /// The count and displacement arrays of a v collective (`perrank` in the
  /// rules) are passed with every entry multiplied by R, by the runtime
  /// (`mpiad_replica_counts`, one static slot per array of the call): block
  /// q of a batched buffer starts at element displs[q] * R and holds
  /// counts[q] * R elements, every replica of each of its elements.
  void scalePerRankArrays(Stmt &s) {
    const CommRule *rule = s.comm.rule;
    int slot = 0;
    int commArg = -1;
    for (size_t k = 0; k < rule->args.size(); ++k)
      if (rule->args[k].role == CommArg::Comm)
        commArg = (int)k;
    for (size_t k = 0; k < rule->args.size() && k < s.comm.args.size(); ++k) {
      const CommArg &a = rule->args[k];
      if (a.perRank.empty())
        continue;
      ExprP root = mkInt(-1);
      int ri = a.perRankRoot.empty() ? -1 : rule->argIndex(a.perRankRoot);
      if (ri >= 0 && ri < (int)s.comm.args.size())
        root = s.comm.args[ri];
      const char *per = a.perRank == "sources"        ? "MPIAD_PER_SOURCE"
                        : a.perRank == "destinations" ? "MPIAD_PER_DESTINATION"
                                                      : "MPIAD_PER_RANK";
      if (commArg < 0 || commArg >= (int)s.comm.args.size() || slot >= 4) {
        fail(s.loc, "'" + s.comm.name + "': its rule describes more than four "
                    "count arrays or no communicator (rules/mpi.rules)");
        return;
      }
      ExprP &e = s.comm.args[k];
      e = mkCall("mpiad_replica_counts",
                 {mkInt(slot++), e, mkVar(Rv), s.comm.args[commArg],
                  mkOpaque(per, {}, Scalar::Int), root},
                 Scalar::Int, 1);
    }
  }

  Var *valVar = nullptr;
  std::map<Var *, Var *> paramCopy; // per-replica pointer param -> local

  ExprP rw(const ExprP &e, Var *r) {
    if (!e)
      return e;
    switch (e->kind) {
    case Expr::VarRef:
      if (expanded.count(e->var) && e->ptrDepth == 0)
        return mkIndex(mkVar(e->var), mkVar(r));
      if (e->ptrDepth > 0 && dataRep(e->var))
        fail(e->loc,
             "per-replica array '" + e->var->userName + "' is " +
                 (currentCall.empty()
                      ? std::string("used as a pointer here")
                      : "passed to '" + currentCall +
                            "', which cannot see the replicas") +
                 "; only its elements can be used here" +
                 (fe.callee(currentCall)
                      ? " (a same-file helper is inlined, and then sees "
                        "them, unless it calls itself)"
                      : ""));
      return e;
    case Expr::Index: {
      Var *b = baseVar(e->ops[0]);
      auto flat = b ? flatDims.find(b) : flatDims.end();
      if (flat != flatDims.end()) {
        // a[i][j] of a flattened a[A][B]: a[(i * (B) + j) * R + r].
        std::vector<ExprP> idx;
        ExprP x = e;
        while (x->kind == Expr::Index) {
          idx.insert(idx.begin(), rw(x->ops[1], r));
          x = x->ops[0];
        }
        if (x->kind != Expr::VarRef || idx.size() != flat->second.size()) {
          fail(e->loc, "per-replica array '" + b->userName +
                           "' is used here other than by one element of "
                           "every dimension; only its elements can be used "
                           "(write " + b->userName + "[i][j])");
          return e;
        }
        ExprP k = idx[0];
        for (size_t d = 1; d < idx.size(); ++d)
          k = mkBinary("+",
                       mkBinary("*", k,
                                mkOpaque(factor(flat->second[d]), {},
                                         Scalar::Int)),
                       idx[d]);
        // The variable as it is now, a pointer (x has the array's type).
        return mkIndex(mkVar(x->var), mkBinary("+", times(k), mkVar(r)));
      }
      if (e->ptrDepth == 0 && dataRep(b)) {
        ExprP base = e->ops[0], idx = rw(e->ops[1], r);
        if (base->kind == Expr::Binary && base->ptrDepth > 0 &&
            base->text == "+" && base->ops[0]->ptrDepth > 0) {
          idx = mkBinary("+", base->ops[1], idx);
          base = base->ops[0];
        }
        if (base->kind != Expr::VarRef) {
          fail(e->loc, "this access to per-replica array '" + b->userName +
                           "' is not a plain index; write " + b->userName +
                           "[i]");
          return e;
        }
        return mkIndex(base, mkBinary("+", times(idx), mkVar(r)));
      }
      break;
    }
    case Expr::Unary:
      if (e->text == "*" && e->ptrDepth == 0 && dataRep(baseVar(e->ops[0]))) {
        ExprP p = e->ops[0], idx = mkInt(0);
        if (p->kind == Expr::Binary && p->text == "+" && p->ops[0]->ptrDepth > 0) {
          idx = rw(p->ops[1], r);
          p = p->ops[0];
        }
        if (p->kind != Expr::VarRef) {
          fail(e->loc, "this access to a per-replica array is not a plain "
                       "index");
          return e;
        }
        return mkIndex(p, mkBinary("+", times(idx), mkVar(r)));
      }
      break;
    case Expr::Opaque:
      for (Var *v : e->vars)
        if (expanded.count(v) || dataRep(v))
          fail(e->loc, "'" + e->text + "' reads per-replica '" + v->userName +
                           "' in a form the replicas transformation cannot "
                           "follow (a struct field, a macro with side "
                           "effects); use a plain variable");
      return e;
    case Expr::Call: {
      std::string saved = currentCall;
      currentCall = e->text;
      auto c = std::make_shared<Expr>(*e);
      for (ExprP &o : c->ops)
        o = rw(o, r);
      currentCall = saved;
      return c;
    }
    case Expr::AddrOf:
      if (dataRep(baseVar(e)) || (e->ops[0]->kind == Expr::VarRef &&
                                  expanded.count(e->ops[0]->var)))
        fail(e->loc, "the address of per-replica data is " +
                         (currentCall.empty()
                              ? std::string("taken here")
                              : "passed to '" + currentCall + "'") +
                         ", which cannot see the replicas; use its elements");
      return e;
    default:
      break;
    }
    if (e->ops.empty())
      return e;
    auto c = std::make_shared<Expr>(*e);
    for (ExprP &o : c->ops)
      o = rw(o, r);
    return c;
  }
  std::string currentCall; // the call whose arguments rw is rewriting

  /// The floating scalar arguments of a same-file callee are variables
  /// (the frontend hoists the others), so that the adjoint of the call can
  /// add into their shadows.  One stored as [R] becomes a temporary:
  /// `a = t[r]; ... f(a) ...`.
  void scalarArguments(StmtP &s) {
    if (!s->rhs || s->rhs->kind != Expr::Call || !fe.callee(s->rhs->text) ||
        (s->kind != Stmt::Assign && s->kind != Stmt::ExprStmt &&
         s->kind != Stmt::Decl))
      return;
    Block pre;
    auto call = std::make_shared<Expr>(*s->rhs);
    for (ExprP &a : call->ops) {
      if (a->kind != Expr::VarRef || !expanded.count(a->var) ||
          a->ptrDepth > 0 || !a->isFloating())
        continue;
      CType t = a->var->type;
      t.ptrDepth = 0;
      Var *tmp = F.newVar(a->var->userName + "_arg", t, Var::Local);
      tmp->loc = s->loc;
      StmtP d = mkDecl(tmp, a); // rewritten to t[r] below
      d->loc = s->loc;
      pre.push_back(d);
      a = mkVar(tmp);
    }
    if (pre.empty())
      return;
    s->rhs = call;
    pre.push_back(s);
    StmtP c = mkCompound(std::move(pre));
    c->loc = s->loc;
    s = c;
  }

  void rwStmt(StmtP &s, Var *r) {
    if (s->loc.isValid())
      stmtLoc = s->loc;
    scalarArguments(s);
    // A pointer copied under per-replica control (checkWhole allowed only
    // shared values): the same for every replica, offsets times R.
    // A fixed array declared inside the replica loop: allocated once for
    // all replicas, initialised for this replica only.
    if (s->kind == Stmt::Decl && !s->var->type.dims.empty()) {
      if (dataRep(s->var)) {
        Stmt &d = *s;
        fixedArray(d, r);
      }
      return;
    }
    if (pointerStmt(*s) &&
        !expanded.count(s->kind == Stmt::Decl ? s->var : s->lhs->var)) {
      Var *v = s->kind == Stmt::Decl ? s->var : s->lhs->var;
      if (dataRep(v))
        s->rhs = scalePointer(s->rhs);
      return;
    }
    // free(p) of per-replica storage under per-replica control: the storage
    // serves every replica, so it is freed once, at the end.
    if (s->kind == Stmt::ExprStmt && s->rhs && s->rhs->kind == Expr::Call &&
        s->rhs->text == "free" && s->rhs->ops.size() == 1 &&
        dataRep(baseVar(s->rhs->ops[0]))) {
      // Each path of the original frees it once: free it once.  In a loop,
      // only storage allocated once, outside every loop, is freed at most
      // once on each path.
      if ((rwLoops > 0 || rwInLoop) &&
          !allocatedOnceOutsideLoops(baseVar(s->rhs->ops[0]))) {
        fail(s->loc, "free() of per-replica storage in a loop, under a "
                     "condition that depends on per-replica values, and the "
                     "pointer is assigned in a loop or more than once; free "
                     "it where every replica passes, once per allocation "
                     "(after the branch)");
        return;
      }
      std::string what = printExpr(s->rhs->ops[0]);
      bool seen = false;
      for (const StmtP &f : deferredFrees)
        seen |= printExpr(f->rhs->ops[0]) == what;
      if (!seen)
        deferredFrees.push_back(s);
      s = mkComment("free(" + printExpr(s->rhs->ops[0]) +
                    ") after the replicas are done, at the end");
      return;
    }
    switch (s->kind) {
    case Stmt::Decl:
      if (expanded.count(s->var)) {
        if (!s->rhs) {
          s = mkComment(s->var->userName + ": one value per replica, " +
                        s->var->userName + "[r]");
          return;
        }
        StmtP a = mkAssign(mkIndex(mkVar(s->var), mkVar(r)), "=", rw(s->rhs, r));
        a->loc = s->loc;
        s = a;
        return;
      }
      s->rhs = rw(s->rhs, r);
      return;
    case Stmt::Assign:
    case Stmt::ExprStmt:
    case Stmt::Return:
      if (s->lhs && s->lhs->kind == Expr::Index && s->lhs->ops[0]->kind == Expr::VarRef &&
          s->lhs->ops[0]->var == valVar) {
        s->lhs = mkIndex(mkVar(valVar), mkVar(r));
        s->rhs = rw(s->rhs, r);
        return;
      }
      s->lhs = rw(s->lhs, r);
      s->rhs = rw(s->rhs, r);
      return;
    default:
      break;
    }
    s->cond = rw(s->cond, r);
    if (s->init)
      rwStmt(s->init, r);
    if (s->step)
      rwStmt(s->step, r);
    bool isLoop = s->kind == Stmt::For || s->kind == Stmt::While ||
                  s->kind == Stmt::DoWhile;
    rwLoops += isLoop;
    for (StmtP &x : s->body)
      rwStmt(x, r);
    rwLoops -= isLoop;
    for (StmtP &x : s->elseBody)
      rwStmt(x, r);
  }

  /// Which per-replica scalars each replica loop references, and which are
  /// referenced outside every replica loop.
  void collectUses() {
    std::set<Stmt *> regionSet(regions.begin(), regions.end());
    std::function<void(const Stmt &, int)> st = [&](const Stmt &s, int reg) {
      auto note = [&](Var *v) {
        if (!repVal.count(v))
          return;
        if (reg < 0)
          usedOutside.insert(v);
        else
          regionsOf[v].insert(reg);
      };
      auto expr = [&](const ExprP &e) {
        std::set<Var *> vs;
        if (e)
          collectVars(e, vs);
        for (Var *v : vs)
          note(v);
      };
      int here = reg;
      if (regionSet.count(const_cast<Stmt *>(&s)))
        for (size_t k = 0; k < regions.size(); ++k)
          if (regions[k] == &s)
            here = (int)k;
      if (s.kind == Stmt::Decl && (s.rhs || here >= 0))
        note(s.var);
      if (s.kind == Stmt::Decl && here >= 0)
        declaredIn[s.var] = here;
      if (s.kind == Stmt::For && s.init && s.init->kind == Stmt::Decl &&
          here >= 0)
        declaredIn[s.init->var] = here;
      expr(s.lhs);
      expr(s.rhs);
      expr(s.cond);
      for (const ExprP &a : s.comm.args)
        expr(a);
      if (s.init)
        st(*s.init, here);
      if (s.step)
        st(*s.step, here);
      for (const StmtP &x : s.body)
        st(*x, here);
      for (const StmtP &x : s.elseBody)
        st(*x, here);
    };
    for (const StmtP &s : F.body)
      st(*s, -1);
  }

  bool setUp();
  Block prologueStmts, epilogueStmts;
  std::vector<Var *> regionVars;        // the counter of each replica loop
  std::vector<Stmt *> comms, pointers;  // rewritten after pass 1

  ExprP renameExpr(const ExprP &e, Var *from, Var *to) {
    if (!e)
      return e;
    if (e->kind == Expr::VarRef && e->var == from)
      return mkVar(to);
    auto c = std::make_shared<Expr>(*e);
    for (Var *&v : c->vars)
      if (v == from)
        v = to;
    for (ExprP &o : c->ops)
      o = renameExpr(o, from, to);
    return c;
  }
  void renameStmt(Stmt &s, Var *from, Var *to) {
    if (s.var == from)
      s.var = to;
    s.lhs = renameExpr(s.lhs, from, to);
    s.rhs = renameExpr(s.rhs, from, to);
    s.cond = renameExpr(s.cond, from, to);
    for (ExprP &a : s.comm.args)
      a = renameExpr(a, from, to);
    if (s.init)
      renameStmt(*s.init, from, to);
    if (s.step)
      renameStmt(*s.step, from, to);
    for (StmtP &x : s.body)
      renameStmt(*x, from, to);
    for (StmtP &x : s.elseBody)
      renameStmt(*x, from, to);
  }
  void renameInBody(Var *from, Var *to) {
    for (StmtP &s : F.body)
      renameStmt(*s, from, to);
  }

  /// Declarations (without a value) of per-replica scalars stored as [R]
  /// disappear: their storage is allocated at the top.
  void dropDecls(Block &b) {
    for (StmtP &s : b) {
      if (s->kind == Stmt::Decl && !s->rhs && expanded.count(s->var)) {
        s = mkComment(s->var->userName + ": one value per replica, " +
                      s->var->userName + "[" + replicaName + "]");
        continue;
      }
      dropDecls(s->body);
      dropDecls(s->elseBody);
    }
  }
};

bool Batcher::setUp() {
  auto named = [](const std::vector<std::pair<std::string,
                                              clang::SourceLocation>> &l,
                  const std::string &n) {
    for (const auto &x : l)
      if (x.first == n)
        return true;
    return false;
  };
  std::set<std::string> names;
  for (auto &v : F.vars)
    names.insert(v->userName);
  // A lowered realloc copies by byte counts that know no replica axis.
  if (F.reallocAt.isValid()) {
    diag.error(F.reallocAt, "replicas: 'realloc' is not supported with "
                            "replicas(...): allocate the final size with "
                            "malloc");
    return false;
  }
  // Row-pointer arrays have no batched layout (R copies of each row).
  for (auto &v : F.vars)
    if (v->type.isFloatingElem() && v->type.ptrDepth >= 2) {
      diag.error(v->loc, "replicas: '" + v->userName +
                             "' is a row-pointer array (pointer to pointer), "
                             "which replicas(...) does not support: keep its "
                             "data in one contiguous array (" +
                             v->userName + "[i * ny + j])");
      return false;
    }
  while (names.count(replicaName))
    replicaName = replicaName == "r" ? "rep" : "mpiad_" + replicaName;

  // The replica count, first parameter, equal on all ranks.
  CType it;
  it.elem = Scalar::Int;
  it.base = "int";
  std::string rn = "R";
  while (names.count(rn))
    rn = "mpiad_" + rn;
  Rv = F.newVar(rn, it, Var::Param);
  Rv->loc = F.loc;
  F.params.insert(F.params.begin(), Rv);
  ann.replicated.push_back({rn, ann.loc});

  Block prologue, epilogue;
  auto loopOver = [&](Var *c, ExprP hi, Block body) {
    return countedLoop(c, hi, std::move(body), F.loc);
  };

  for (const auto &[name, loc] : ann.replicas) {
    Var *p = nullptr;
    for (Var *q : F.params)
      if (q->userName == name)
        p = q;
    if (!p) {
      diag.error(loc, "'" + name + "' in replicas(...) is not a parameter of '" +
                          F.name + "'");
      return false;
    }
    if (p->type.ptrDepth == 0 && p->type.dims.empty()) {
      if (!p->type.isFloatingElem() && p->type.elem != Scalar::Int) {
        diag.error(loc, "'" + name + "' in replicas(...) must be a number or "
                                     "a pointer to float or double");
        return false;
      }
      // A scalar per replica: the parameter becomes an array of R, copied
      // into a local array of R.
      CType pt = p->type;
      pt.ptrDepth = 1;
      pt.isConst = true;
      pt.base = "const " + p->type.elemName();
      if (p->type.elem == Scalar::Int)
        pt.base = "const int";
      ann.replicaScalars.insert(name);
      Var *copy = F.newVar(p->userName, p->type, Var::Local);
      copy->loc = p->loc;
      p->type = pt;
      p->name = p->userName; // unchanged name in the signature
      copy->name = p->userName + "_rep"; // messages say the user's name
      // Every use of the parameter now reads the copy.
      renameInBody(p, copy);
      repVal.insert(copy);
      expanded.insert(copy);
      Var *k = counter(replicaName);
      prologue.push_back(loopOver(
          k, mkVar(Rv),
          {mkAssign(mkIndex(mkVar(copy), mkVar(k)), "=",
                    mkIndex(mkVar(p), mkVar(k)))}));
      if (named(ann.replicated, name))
        ann.replicatedLen[name] = rn;
      continue;
    }
    if (p->type.ptrDepth != 1 || !p->type.dims.empty() ||
        p->type.ptrToArray || !p->type.isFloatingElem()) {
      diag.error(loc, "'" + name + "' in replicas(...) must be a number or a "
                                   "pointer to float or double");
      return false;
    }
    ExprP len;
    auto li = ann.replicasLen.find(name);
    if (li != ann.replicasLen.end()) {
      len = mkOpaque("(" + li->second + ")", {}, Scalar::Int);
    } else {
      std::string why;
      clang::SourceLocation where;
      len = inferLength(F, p, why, fe, &where);
      if (!len) {
        diag.error(loc, "cannot infer the length of per-replica array '" +
                            name + "'" +
                            (why.empty() ? "" : " (from '" + why + "')") +
                            "; write replicas(" + name + "[LENGTH])");
        if (where.isValid())
          diag.note(where, "the extent of this use cannot be bounded by loop "
                           "counters and unchanged parameters");
        return false;
      }
    }
    // The local copy in replica-innermost layout.
    CType ct = p->type;
    ct.isConst = false;
    ct.base = p->type.elemName();
    Var *copy = F.newVar(p->userName + "_rep", ct, Var::Local);
    copy->userName = p->userName; // messages say the user's name
    copy->loc = p->loc;
    renameInBody(p, copy);
    repData.insert(copy);
    paramCopy[p] = copy;
    ExprP bytes = mkBinary("*", mkBinary("*", mkVar(Rv), len),
                           mkOpaque("sizeof(" + ct.base + ")", {}, Scalar::Int));
    StmtP d = mkDecl(copy, mkCall("malloc", {bytes}, ct.elem, 1));
    d->loc = p->loc;
    prologue.push_back(d);
    // Between the caller's layout (p[r * len + k]) and the replica-
    // innermost one (copy[k * R + r]): in on entry, out on exit.
    auto transpose = [&](bool in) {
      Var *r = counter(replicaName), *k = counter("k");
      ExprP inner = mkIndex(
          mkVar(copy), mkBinary("+", mkBinary("*", mkVar(k), mkVar(Rv)), mkVar(r)));
      ExprP outer =
          mkIndex(mkVar(p), mkBinary("+", mkBinary("*", mkVar(r), len), mkVar(k)));
      return loopOver(r, mkVar(Rv),
                      {loopOver(k, len, {in ? mkAssign(inner, "=", outer)
                                            : mkAssign(outer, "=", inner)})});
    };
    prologue.push_back(transpose(true));
    if (named(ann.outputs, name))
      epilogue.push_back(transpose(false));
    epilogue.push_back(mkExprStmt(mkCall("free", {mkVar(copy)}, Scalar::Void)));
    if (named(ann.replicated, name)) {
      ann.replicatedLen[name] = rn + " * (" + printExpr(len) + ")";
      ann.replicatedLenNames[name].push_back({rn, ann.loc});
    }
  }

  // The return value becomes the output F_val[R].
  bool retOut = ann.outputs.empty();
  for (auto &o : ann.outputs)
    if (o.first == "return")
      retOut = true;
  if (F.ret.elem != Scalar::Void && F.ret.ptrDepth == 0 && retOut) {
    CType vt = F.ret;
    vt.ptrDepth = 1;
    vt.isConst = false;
    vt.base = F.ret.elemName();
    std::string vn = F.name + "_val";
    while (names.count(vn))
      vn = "mpiad_" + vn;
    valVar = F.newVar(vn, vt, Var::Param);
    valVar->loc = F.loc;
    F.params.push_back(valVar);
    std::vector<std::pair<std::string, clang::SourceLocation>> outs;
    for (auto &o : ann.outputs)
      if (o.first != "return")
        outs.push_back(o);
    outs.push_back({vn, ann.loc});
    ann.outputs = outs;
    // After normalization the function's value is in mpiad_ret: it goes
    // to F_val[r] at the end.
    if (F.retVar) {
      StmtP a = mkAssign(mkIndex(mkVar(valVar), mkInt(0)), "=",
                         mkVar(F.retVar));
      a->loc = F.endLoc.isValid() ? F.endLoc : F.loc;
      F.body.push_back(a);
    }
    F.ret = CType();
    F.ret.elem = Scalar::Void;
    F.ret.base = "void";
    F.retVar = nullptr;
  }

  prologueStmts = std::move(prologue);
  epilogueStmts = std::move(epilogue);
  return true;
}

} // namespace

namespace {

bool Batcher::run() {
  // Loops are recognised for length inference (normalization comes later).
  walk(F.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::For)
      markCanonicalLoop(s, fe);
  });
  if (!setUp())
    return false;
  do {
    changed = false;
    flow(F.body, false);
  } while (changed);
  // Branches with per-replica conditions that communicate are masked; the
  // masks and what they keep are then per-replica too.
  if (maskBranches(F.body))
    do {
      changed = false;
      flow(F.body, false);
    } while (changed);
  if (failed)
    return false;

  for (Var *p : F.params)
    if (p != Rv && p != valVar && isPointerish(p) && dataRep(p)) {
      fail(p->loc, "parameter '" + p->userName +
                       "' holds per-replica values but is not named in "
                       "replicas(...); name it there, so that it holds R "
                       "copies back to back");
      return false;
    }
  for (auto &v : F.vars)
    if (v->kind == Var::Global && (repVal.count(v.get()) || dataRep(v.get()))) {
      fail(v->loc, "global '" + v->userName +
                       "' would hold per-replica values; use a local");
      return false;
    }
  for (Var *v : repVal)
    if (v->kind == Var::Param) {
      fail(v->loc, "parameter '" + v->userName +
                       "' is assigned per-replica values; copy it into a "
                       "local variable first");
      return false;
    }

  batchBlock(F.body);
  if (failed)
    return false;

  // A per-replica scalar declared inside one replica loop and used only
  // there stays a scalar; every other one is stored as [R].
  collectUses();
  for (Var *v : repVal) {
    auto it = regionsOf.find(v);
    bool local = it != regionsOf.end() && it->second.size() == 1 &&
                 !usedOutside.count(v) && declaredIn.count(v) &&
                 declaredIn[v] == *it->second.begin();
    if (!local)
      expanded.insert(v);
  }
  // A masked call or loop reads its mask outside any replica loop.
  for (auto &kv : maskedCalls)
    expanded.insert(kv.second);
  for (auto &kv : maskedLoops)
    expanded.insert(kv.second);
  Block decls, frees;
  for (Var *v : expanded) {
    v->type.ptrDepth = 1;
    v->type.dims.clear();
    v->type.isConst = false;
    v->type.base = v->type.elem == Scalar::Int ? "int" : v->type.elemName();
    v->declaredInForInit = false;
    v->replicaCount = Rv;
    StmtP d = mkDecl(
        v, mkCall("malloc",
                  {mkBinary("*", mkVar(Rv),
                            mkOpaque("sizeof(" + v->type.base + ")", {},
                                     Scalar::Int))},
                  v->type.elem, 1));
    d->loc = v->loc;
    decls.push_back(d);
    frees.push_back(mkExprStmt(mkCall("free", {mkVar(v)}, Scalar::Void)));
  }
  dropDecls(F.body);
  for (Stmt *s : pointers)
    pointerAssign(*s);
  for (Stmt *s : comms)
    batchComm(*s);
  guardMaskedCalls(F.body);
  walk(F.body, [&](Stmt &st, const WalkCtx &) {
    auto it = maskedLoops.find(&st);
    if (it != maskedLoops.end())
      st.cond = mkCall("mpiad_replica_any", {mkVar(it->second), mkVar(Rv)},
                       Scalar::Int);
  });
  for (size_t k = 0; k < regions.size(); ++k)
    for (StmtP &x : regions[k]->body) {
      rwInLoop = regionInLoop[k];
      rwStmt(x, regionVars[k]);
      // An unconditional `z[r] = e` defines all of z over the loop.
      if (x->kind == Stmt::Assign && x->op == "=" &&
          x->lhs->kind == Expr::Index &&
          x->lhs->ops[0]->kind == Expr::VarRef &&
          expanded.count(x->lhs->ops[0]->var) &&
          x->lhs->ops[1]->kind == Expr::VarRef &&
          x->lhs->ops[1]->var == regionVars[k])
        x->replicaFill = true;
    }
  if (failed)
    return false;
  for (Var *v : fixedArrays)
    frees.push_back(mkExprStmt(mkCall("free", {mkVar(v)}, Scalar::Void)));
  for (StmtP &a : fixedAllocs)
    decls.push_back(a);

  Block body = std::move(decls);
  for (StmtP &s : prologueStmts)
    body.push_back(s);
  for (StmtP &s : F.body)
    body.push_back(s);
  for (StmtP &s : epilogueStmts)
    body.push_back(s);
  for (StmtP &s : deferredFrees)
    body.push_back(s);
  for (StmtP &s : frees)
    body.push_back(s);
  F.body = std::move(body);
  return true;
}

} // namespace

bool batchReplicas(Function &F, Annotation &ann, Frontend &fe, Diag &diag) {
  return Batcher(F, ann, fe, diag).run();
}

StmtP noReplicasReturn(const Function &F) {
  auto none = std::make_shared<Stmt>();
  none->kind = Stmt::Return;
  none->loc = F.loc;
  StmtP guard =
      mkIf(mkBinary("<", mkVar(F.params.front()), mkInt(1)), {none});
  guard->loc = F.loc;
  return guard;
}

std::string batchedComment(const Function &F, const Annotation &ann,
                           const Annotation &user, const std::string &kind,
                           const std::string &name) {
  auto list = [](const std::vector<std::pair<std::string,
                                             clang::SourceLocation>> &l) {
    std::string t;
    for (const auto &x : l)
      t += (t.empty() ? "" : ", ") + x.first;
    return t.empty() ? std::string("(none)") : t;
  };
  std::string r = F.params.empty() ? "R" : F.params.front()->name;
  std::string c;
  c += "/*\n * mpiad: " + kind + " of " + F.name.substr(0) + " for " + r +
       " independent replicas (" + name + "), semantics(" +
       (ann.perRank ? "per_rank" : "global") + ")\n";
  c += " *   replicas:     " + list(user.replicas) +
       ": replica r of an array p is p + r * (its length), of a scalar s is "
       "s[r]; its shadows likewise\n";
  c += " *   independents: " + list(ann.wrt) + "\n";
  c += " *   dependents:   " + list(ann.outputs) + " (one per replica)\n";
  c += " *   replicated:   " + list(ann.replicated) + "\n";
  c += " *   varying:      " + list(ann.varying) + "\n";
  c += " * Each communication call runs once for all replicas (its counts "
       "times " + r + ").\n";
  c += " * No replica reads another replica's values: inside, element k of "
       "replica r is\n * stored at [k * " + r + " + r], and each loop over "
       "replicas touches its own r only.\n */\n";
  return c;
}

} // namespace mpiad
