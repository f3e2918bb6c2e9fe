//===- Inline.cpp - Communication in same-file helpers, inlined ------------===//
//
// Real MPI programs keep their communication in helpers: `ddot()` ends in an
// MPI_Allreduce, `exchange_halo()` posts the sends and receives.  The
// replication analysis decides whether a collective's result is replicated
// (and so whether its adjoint needs communication) from the context of the
// call: the same `ddot(r, r, ...)` returns a replicated value wherever its
// result feeds replicated code.  Rather than analysing each helper once per
// calling context, this stage inlines every same-file callee that
// communicates (directly or through its own callees) into the function
// being differentiated, before normalization.  Every later stage then sees
// the communication where it happens, with the caller's replication, its
// pointer aliasing and its matching of reversed messages (a request posted
// in one helper and completed in another is one set in the caller).
//
// The same is done for a call that passes two different pointers into one
// array to a helper that writes through one of them (the two planes of a
// grid, `update(&u[iz * plane], &u[(1 - iz) * plane])`): inlined, the writes
// are writes into the caller's array, whose analyses treat it as one, where a
// separate helper could not know whether the two regions overlap.
//
// The primal that the user calls is unchanged; only the generated adjoint
// (and tangent: Forward.cpp inlines the same callees) contains the inlined
// body, inside a `{ }` block that starts with a comment naming the call.  A call
//
//   lhs = f(a1, ..., an);        (or `T lhs = f(...)`, or `f(...);`)
//
// becomes
//
//   { /* inlined: f(a1, ..., an) */
//     P1 p1 = a1; ... Pn pn = an;     the parameters, as locals
//     <f's body>                      with its final `return e` as `lhs = e`
//   }
//
// Arguments are evaluated once, in order, as for a call.  A helper inlined
// here is lowered afresh (Frontend::lowerCopy), so its variables belong to
// the caller from then on; clashing names are made unique later by
// Module::nameVariables.  A helper that returns before its last statement
// is normalized first (its returns become flags that guard the rest, and its
// value is in its own mpiad_ret), then inlined the same way.  Recursive
// helpers are not inlined (inlining stops at depth 16) and keep the error of
// Reverse.cpp.  A floating scalar passed by address goes through a
// one-element array (see expand).
//
// A call that passes a struct whose float/double fields may carry
// derivatives (`forces(p, n)` with `particle *p`) is inlined too, in both
// modes: the fields are followed as field views (IR.h) of the caller's
// struct, and the callee's parameter is replaced by the caller's variable
// itself (`q[i].x` becomes `p[i].x`), when the argument is that variable,
// of the same shape, and the callee neither assigns the parameter nor, for a
// struct passed by value, writes its fields.  Any other such call stays a
// call, and Activity.cpp reports the struct used whole.  A callee that
// reads or writes a float/double global is inlined the same way, so that
// the global's derivatives are followed in the caller.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "Frontend.h"
#include "IR.h"

#include "clang/AST/Decl.h"

#include <algorithm>
#include <functional>

namespace mpiad {

namespace {

class Inliner {
public:
  Inliner(Function &f, Frontend &fe, Diag &diag, bool pointerCalls,
          bool structsOnly)
      : F(f), fe(fe), diag(diag), pointerCalls(pointerCalls),
        structsOnly(structsOnly) {}

  void run() { block(F.body, 0); }

private:
  Function &F;
  Frontend &fe;
  Diag &diag;
  bool pointerCalls; // also every call with a pointer argument (replicas)
  bool structsOnly;  // only calls that pass structs with floating fields
  std::map<const Function *, bool> comm_; // callee -> communicates

  /// Does `cf` contain communication, directly or in its same-file callees?
  bool communicates(const Function *cf, std::set<const Function *> &seen) {
    if (!seen.insert(cf).second)
      return false; // recursion: decided by the outer query
    bool any = false;
    walk(cf->body, [&](Stmt &s, const WalkCtx &) {
      if (any)
        return;
      if (s.kind == Stmt::Comm) {
        any = true;
        return;
      }
      if (const Function *g = calleeOf(s))
        any = communicates(g, seen);
    });
    return any;
  }

  /// Memoized for the outermost query only: an answer found while a cycle of
  /// calls was cut short may be incomplete.
  bool communicates(const Function *cf) {
    auto it = comm_.find(cf);
    if (it != comm_.end())
      return it->second;
    std::set<const Function *> seen;
    return comm_[cf] = communicates(cf, seen);
  }

  /// The call of a same-file function that `s` makes at its top: `f(...);`,
  /// `lhs = f(...);` or `T v = f(...);`.
  const Function *calleeOf(const Stmt &s) const {
    const ExprP *call = callOf(s);
    return call ? fe.callee((*call)->text) : nullptr;
  }

  static const ExprP *callOf(const Stmt &s) {
    const ExprP *e = nullptr;
    if (s.kind == Stmt::ExprStmt ||
        (s.kind == Stmt::Assign && s.op == "=") ||
        (s.kind == Stmt::Decl && s.rhs))
      e = &s.rhs;
    if (!e || !*e || (*e)->kind != Expr::Call)
      return nullptr;
    return e;
  }

  /// Does the call pass two different pointers into one array, at least one
  /// of which the callee writes through (`update(&u[iz * plane],
  /// &u[(1 - iz) * plane])`, two planes of one grid)?  A helper cannot tell
  /// whether they overlap; inlined, the writes are writes into the caller's
  /// array, which the caller's analyses treat as one.
  bool overlapping(const Stmt &s, const Function *cf) const {
    const ExprP &call = *callOf(s);
    const std::vector<bool> &written = writtenParams(cf, fe);
    size_t n = std::min(call->ops.size(), cf->params.size());
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < k; ++j) {
        const ExprP &a = call->ops[k], &b = call->ops[j];
        if (a->ptrDepth == 0 || b->ptrDepth == 0 || !(written[j] || written[k]))
          continue;
        Var *va = baseVar(a), *vb = baseVar(b);
        if (va && va == vb && printExpr(a) != printExpr(b))
          return true;
        if (va && vb && va != vb && copiesOfOne(va, vb))
          return true;
      }
    return false;
  }

  /// Are a and b pointers that the caller copies into one another, whole
  /// (the two buffers of a time loop swapped through a temporary, `tmp =
  /// u; u = w; w = tmp;`)?  Then they may be the same array at the call.
  bool copiesOfOne(Var *a, Var *b) const {
    std::map<Var *, Var *> parent;
    std::function<Var *(Var *)> root = [&](Var *v) {
      auto it = parent.find(v);
      return it == parent.end() ? v : it->second = root(it->second);
    };
    walk(F.body, [&](Stmt &s, const WalkCtx &) {
      bool copy = (s.kind == Stmt::Assign && s.op == "=" &&
                   s.lhs->kind == Expr::VarRef) ||
                  (s.kind == Stmt::Decl && s.rhs);
      if (!copy || !s.rhs || s.rhs->ptrDepth == 0 ||
          s.rhs->kind != Expr::VarRef)
        return; // `next = x + 1` stays an error (Reverse.cpp)
      Var *t = s.kind == Stmt::Decl ? s.var : s.lhs->var;
      Var *f = baseVar(s.rhs);
      if (t && f && t->type.ptrDepth > 0 && root(t) != root(f))
        parent[root(t)] = root(f);
    });
    return root(a) == root(b);
  }

  /// Does the call pass or return a row-pointer array of float or double
  /// (`double **a = alloc2d(n, m)`, `free2d(a)`)?  Inlined, the rows it
  /// allocates, assigns and frees are the caller's, which the shadow's rows
  /// follow (Reverse.cpp, Forward.cpp).
  static bool rowArrays(const Stmt &s, const Function *cf) {
    if (cf->ret.isFloatingElem() && cf->ret.ptrDepth >= 2)
      return true;
    for (const ExprP &a : (*callOf(s))->ops)
      if (Var *b = baseVar(a))
        if (b->type.isFloatingElem() && a->ptrDepth >= 2)
          return true;
    return false;
  }

  /// Does cf free memory its caller passed (`free(p)` of a pointer
  /// parameter or a local copy of one: PRK's prk_free)?  Inlined, the free
  /// is the caller's, which the reverse sweep defers until the memory is
  /// no longer read; left a call, it would free memory the caller's
  /// reverse sweep still reads.
  static bool freesParameter(const Function &cf) {
    std::set<const Var *> params(cf.params.begin(), cf.params.end());
    bool frees = false;
    walk(const_cast<Block &>(cf.body), [&](Stmt &st, const WalkCtx &) {
      if ((st.kind == Stmt::Decl && st.rhs && st.var->type.ptrDepth > 0) ||
          (st.kind == Stmt::Assign && st.lhs->kind == Expr::VarRef &&
           st.lhs->ptrDepth > 0))
        if (Var *b = baseVar(st.rhs))
          if (params.count(b))
            params.insert(st.kind == Stmt::Decl ? st.var : st.lhs->var);
      if (st.kind == Stmt::ExprStmt && st.rhs->kind == Expr::Call &&
          st.rhs->text == "free" && st.rhs->ops.size() == 1)
        if (Var *b = baseVar(st.rhs->ops[0]))
          frees |= params.count(b) > 0;
    });
    return frees;
  }

  bool pointerArgument(const Stmt &s) const {
    if (!pointerCalls)
      return false;
    for (const ExprP &a : (*callOf(s))->ops)
      if (a->ptrDepth > 0)
        return true;
    return false;
  }

  /// Does the call pass a struct (or pointer to structs) with float/double
  /// fields?
  static bool structArgument(const Stmt &s) {
    for (const ExprP &a : (*callOf(s))->ops)
      if (Var *b = baseVar(a))
        if (b->type.floatingFields)
          return true;
    return false;
  }

  /// The callee's struct parameter `p` can be replaced by the caller's
  /// variable `arg`: the argument is the variable itself, of p's shape, and
  /// the callee neither assigns p, takes its address, nor (for a struct
  /// passed by value, a copy) writes its fields.
  /// The struct array an argument `p + k` or `&p[k]` points into (and k),
  /// or null.
  static Var *offsetInto(const ExprP &arg, ExprP &off) {
    if (arg->kind == Expr::Binary && arg->text == "+" && arg->ptrDepth > 0 &&
        arg->ops[0]->kind == Expr::VarRef && arg->ops[1]->ptrDepth == 0) {
      off = arg->ops[1];
      return arg->ops[0]->var;
    }
    if (arg->kind == Expr::AddrOf && arg->ops[0]->kind == Expr::Index &&
        arg->ops[0]->ops[0]->kind == Expr::VarRef) {
      off = arg->ops[0]->ops[1];
      return arg->ops[0]->ops[0]->var;
    }
    return nullptr;
  }

  static bool substitutable(const Function &cf, const Var *p, const ExprP &arg) {
    if (!p->type.floatingFields)
      return false;
    ExprP off;
    if (arg->kind != Expr::VarRef) {
      // `forces(p + k, m)`, `forces(&p[k], m)`: p's elements from k on, as
      // a pointer parameter of the same struct type.
      Var *a = offsetInto(arg, off);
      auto unconst = [](std::string b) {
        return b.rfind("const ", 0) == 0 ? b.substr(6) : b;
      };
      if (!a || !a->type.floatingFields || p->type.ptrDepth != 1 ||
          !p->type.dims.empty() || p->type.ptrToArray ||
          a->type.ptrDepth + a->type.dims.size() != 1 ||
          unconst(a->type.base) != unconst(p->type.base))
        return false;
    }
    const Var *a = arg->kind == Expr::VarRef ? arg->var : offsetInto(arg, off);
    if (!a->type.floatingFields)
      return false;
    if (off) // the shapes were checked above
      return assignsNorTakesAddress(cf, p);
    // The same shape, or an array passed to a pointer (`struct P sa[8]` to
    // `const struct P *q`: its first dimension decays).
    const std::vector<std::string> &da = a->type.dims, &dp = p->type.dims;
    bool same = a->type.ptrDepth == p->type.ptrDepth && da == dp &&
                a->type.ptrToArray == p->type.ptrToArray;
    bool decays = a->type.ptrDepth == 0 && p->type.ptrDepth == 1 &&
                  da.size() == dp.size() + 1 &&
                  std::equal(dp.begin(), dp.end(), da.begin() + 1);
    if (!same && !decays)
      return false;
    return assignsNorTakesAddress(cf, p);
  }

  /// The callee neither assigns struct parameter p (nor, for a struct
  /// passed by value, its fields) nor takes an address in it.
  static std::string unqualified(const std::string &base) {
    return base.rfind("const ", 0) == 0 ? base.substr(6) : base;
  }
  /// Does `f` take the address of v anywhere?
  static bool addressTaken(const Function &f, const Var *v) {
    bool taken = false;
    walk(f.body, [&](Stmt &st, const WalkCtx &) {
      auto addr = [&](const ExprP &e) {
        if (e)
          visitExpr(e, [&](const Expr &x) {
            if (x.kind == Expr::AddrOf && baseVar(x.ops[0]) == v)
              taken = true;
          });
      };
      addr(st.lhs);
      addr(st.rhs);
      addr(st.cond);
      for (const ExprP &c : st.comm.args)
        addr(c);
    });
    return taken;
  }

  static bool assignsNorTakesAddress(const Function &cf, const Var *p) {
    bool byValue = p->type.ptrDepth == 0 && p->type.dims.empty();
    bool ok = true;
    walk(cf.body, [&](Stmt &st, const WalkCtx &) {
      Var *t = st.kind == Stmt::Assign ? baseVar(st.lhs) : nullptr;
      if (t == p || (byValue && t && t->fieldOf == p))
        ok = false;
    });
    return ok && !addressTaken(cf, p);
  }

  /// `e` with the callee's struct parameters (and their field views)
  /// replaced by the caller's variables.
  /// The struct parameters passed as `p + k` being substituted, and their
  /// offset (a local holding k): `q[i]` becomes `p[k + i]`.
  std::map<Var *, ExprP> offsets;

  /// The offset of v (an offset struct parameter, or a field view of one).
  ExprP offsetOf(const Var *v) const {
    if (!v)
      return nullptr;
    auto it = offsets.find(const_cast<Var *>(v));
    if (it == offsets.end() && v->fieldOf)
      it = offsets.find(v->fieldOf);
    return it == offsets.end() ? nullptr : it->second;
  }

  ExprP substitute(const ExprP &e, const std::map<Var *, Var *> &to) {
    if (!e)
      return e;
    if (!offsets.empty()) {
      // q[i] (or a field view of q, q[i].x): p[k + i].
      if (e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef)
        if (ExprP off = offsetOf(e->ops[0]->var)) {
          Var *b = e->ops[0]->var;
          ExprP base;
          if (b->fieldOf) { // a view: the same view of p
            base = substitute(e->ops[0], to);
          } else { // q itself: p (not p + k, the index adds k)
            auto r = std::make_shared<Expr>(*e->ops[0]);
            r->var = to.at(b);
            base = r;
          }
          auto c = std::make_shared<Expr>(*e);
          c->ops = {base, mkBinary("+", off, substitute(e->ops[1], to))};
          return c;
        }
      // q->k (an int field): p[k].k.
      if (e->kind == Expr::Opaque && e->ops.size() == 1 &&
          e->text.rfind("->", 0) == 0 && e->ops[0]->kind == Expr::VarRef)
        if (ExprP off = offsetOf(e->ops[0]->var)) {
          auto c = std::make_shared<Expr>(*e);
          c->text = "." + e->text.substr(2);
          c->ops = {mkIndex(substitute(e->ops[0], to), off)};
          c->vars.clear();
          for (Var *v : e->vars) {
            auto t = to.find(v);
            c->vars.push_back(t != to.end() ? t->second : v);
          }
          c->vars.push_back(off->var);
          return c;
        }
      // q itself: p + k.
      if (e->kind == Expr::VarRef && offsetOf(e->var) && !e->var->fieldOf) {
        ExprP off = offsetOf(e->var);
        auto c = std::make_shared<Expr>(
            *mkBinary("+", mkVar(to.at(e->var)), off));
        c->ptrDepth = e->ptrDepth;
        c->loc = e->loc;
        return c;
      }
    }
    auto mapped = [&](Var *v) -> Var * {
      if (!v)
        return v;
      auto it = to.find(v);
      if (it != to.end())
        return it->second;
      if (v->fieldOf) {
        auto pt = to.find(v->fieldOf);
        if (pt != to.end())
          return F.sameView(v, pt->second);
      }
      return v;
    };
    bool changed = false;
    std::vector<ExprP> ops;
    for (const ExprP &o : e->ops) {
      ops.push_back(substitute(o, to));
      changed |= ops.back() != o;
    }
    Var *var = mapped(e->var);
    std::vector<Var *> vars;
    std::map<std::string, std::string> ren;
    for (Var *v : e->vars) {
      vars.push_back(mapped(v));
      if (vars.back() != v)
        ren[v->userName] = vars.back()->userName;
    }
    if (!changed && var == e->var && ren.empty())
      return e;
    auto c = std::make_shared<Expr>(*e);
    c->ops = ops;
    c->var = var;
    c->vars = vars;
    if (!ren.empty() && e->kind == Expr::Opaque)
      c->text = renameIdentifiers(e->text, ren);
    return c;
  }

  void substitute(Block &b, const std::map<Var *, Var *> &to) {
    for (StmtP &st : b) {
      st->lhs = substitute(st->lhs, to);
      st->rhs = substitute(st->rhs, to);
      st->cond = substitute(st->cond, to);
      st->loopLo = substitute(st->loopLo, to);
      st->loopHi = substitute(st->loopHi, to);
      for (ExprP &a : st->comm.args)
        a = substitute(a, to);
      if (st->init) {
        Block one{st->init};
        substitute(one, to);
      }
      if (st->step) {
        Block one{st->step};
        substitute(one, to);
      }
      substitute(st->body, to);
      substitute(st->elseBody, to);
    }
  }

  /// No array-typed parameters (they would be copies); a pointer to rows,
  /// `double x[][N]` (`double (*x)[N]`), is a pointer like any other.
  static bool arrayFree(const Function &cf) {
    for (Var *p : cf.params)
      if (!p->type.dims.empty() && !p->type.ptrToArray)
        return false;
    return true;
  }

  /// Can cf's body be spliced in as it is: one return at most, as its last
  /// statement?
  static bool inlinable(const Function &cf) {
    int returns = 0;
    walk(cf.body, [&](Stmt &s, const WalkCtx &) {
      if (s.kind == Stmt::Return)
        ++returns;
    });
    if (returns == 0)
      return true;
    return returns == 1 && !cf.body.empty() &&
           cf.body.back()->kind == Stmt::Return;
  }

  void block(Block &b, int depth) {
    Block out;
    for (StmtP &s : b) {
      nested(*s, depth);
      if (!expand(s, out, depth))
        out.push_back(s);
    }
    b.swap(out);
  }

  void nested(Stmt &s, int depth) {
    block(s.body, depth);
    block(s.elseBody, depth);
  }

  /// Appends the inlined form of `s` to `out`; false when `s` stays a call.
  bool expand(const StmtP &s, Block &out, int depth) {
    const Function *cf = calleeOf(*s);
    if (!cf || depth >= 16)
      return false;
    bool structs = structArgument(*s);
    bool globals = !floatingGlobalOf(*cf).empty();
    bool rows = rowArrays(*s, cf) || freesParameter(*cf);
    bool other = !structsOnly && (communicates(cf) || overlapping(*s, cf) ||
                                  pointerArgument(*s));
    if (!structs && !other && !globals && !rows)
      return false;
    const clang::FunctionDecl *fd = fe.decl(cf);
    if (!fd)
      return false;
    std::unique_ptr<Function> body = fe.lowerCopy(fd);
    if (!body || !arrayFree(*body))
      return false;
    // A helper that returns before its end is normalized first: its returns
    // become flags that guard the rest, and its value is in mpiad_ret.
    bool early = !inlinable(*body);
    if (early) {
      Diag::Quiet quiet(diag); // not inlined after all: the caller says why
      if (!normalize(*body, fe, diag) || diag.hasErrors())
        return false;
    }
    const ExprP call = *callOf(*s);
    if (call->ops.size() != body->params.size())
      return false;
    // Struct parameters replaced by the caller's variables.
    std::map<Var *, Var *> structArgs;
    std::map<Var *, ExprP> offsetArgs; // parameter -> k of `p + k`
    for (size_t k = 0; k < body->params.size(); ++k)
      if (substitutable(*body, body->params[k], call->ops[k])) {
        ExprP off;
        Var *a = call->ops[k]->kind == Expr::VarRef
                     ? call->ops[k]->var
                     : offsetInto(call->ops[k], off);
        structArgs[body->params[k]] = a;
        if (off)
          offsetArgs[body->params[k]] = off;
      }
    if (structArgs.empty() && !other && !globals && !rows)
      return false; // stays a call: reported as a struct used whole
    // A function that frees what it is passed (`prk_free(w)`): a pointer
    // parameter it never assigns is the caller's variable itself, so that
    // `free(p)` becomes `free(w)`, deferred (and its shadow's free with it).
    if (freesParameter(*cf))
      for (size_t k = 0; k < body->params.size(); ++k) {
        Var *pp = body->params[k];
        ExprP a = call->ops[k];
        while (a->kind == Expr::Cast)
          a = a->ops[0];
        if (pp->type.ptrDepth > 0 && !structArgs.count(pp) &&
            a->kind == Expr::VarRef && a->var->type.ptrDepth > 0 &&
            assignsNorTakesAddress(*body, pp))
          structArgs[pp] = a->var;
      }

    // Replicas: an integer parameter that the callee neither assigns nor
    // takes the address of, passed the caller's integer variable of the
    // same type whose address the caller never takes, is that variable
    // (nothing can change it during the call).  A shared count then stays
    // shared in a branch that some replicas take, where a copy assigned
    // there would be per-replica (`malloc(k * ...)` in an inlined helper).
    if (pointerCalls)
      for (size_t k = 0; k < body->params.size(); ++k) {
        Var *pp = body->params[k];
        const ExprP &a = call->ops[k];
        if (structArgs.count(pp) || !pp->type.isIntScalar() ||
            pp->type.ptrDepth || !pp->type.dims.empty() ||
            a->kind != Expr::VarRef || !a->var->type.isIntScalar() ||
            a->var->type.ptrDepth || a->var->kind == Var::Global ||
            unqualified(a->var->type.base) != unqualified(pp->type.base) ||
            addressTaken(F, a->var) || !assignsNorTakesAddress(*body, pp))
          continue;
        structArgs[pp] = a->var;
      }

    Block inl, copyBack;
    inl.push_back(mkComment("inlined: " + printExpr(call)));
    // An offset is evaluated once, at the call, into a local of its own.
    for (auto &kv : offsetArgs) {
      CType it;
      it.elem = Scalar::Int;
      it.base = "int";
      Var *o = F.newVar("mpiad_off", it, Var::Synthetic);
      o->loc = s->loc;
      StmtP d = mkDecl(o);
      d->loc = s->loc;
      inl.push_back(d);
      StmtP a = mkAssign(mkVar(o), "=", kv.second);
      a->loc = s->loc;
      inl.push_back(a);
      kv.second = mkVar(o);
    }
    offsets = offsetArgs;
    // A floating scalar passed by address (`gsum(&s, comm)`) is copied into
    // a one-element array that the parameter points to, and copied back
    // after the body: the analyses follow pointers into arrays, not into
    // scalars.  The same scalar passed twice shares one array.
    std::map<Var *, Var *> byAddress;
    std::vector<ExprP> args = call->ops;
    for (ExprP &a : args) {
      if (a->kind != Expr::AddrOf || a->ops[0]->kind != Expr::VarRef ||
          !a->ops[0]->var->type.isFloatingScalar())
        continue;
      Var *sv = a->ops[0]->var;
      Var *&arr = byAddress[sv];
      if (!arr) {
        CType t = sv->type;
        t.dims = {"1"};
        if (t.base.rfind("const ", 0) == 0)
          t.base = t.base.substr(6);
        t.isConst = false;
        arr = F.newVar(sv->userName + "_ref", t, Var::Local);
        StmtP d = mkDecl(arr);
        d->loc = s->loc;
        inl.push_back(d);
        StmtP in = mkAssign(mkIndex(mkVar(arr), mkInt(0)), "=", mkVar(sv));
        in->loc = s->loc;
        inl.push_back(in);
        StmtP out = mkAssign(mkVar(sv), "=", mkIndex(mkVar(arr), mkInt(0)));
        out->loc = s->loc;
        copyBack.push_back(out);
      }
      auto r = std::make_shared<Expr>(*mkVar(arr));
      r->ptrDepth = 1; // the array decays to a pointer
      a = r;
    }
    for (size_t k = 0; k < body->params.size(); ++k) {
      Var *p = body->params[k];
      p->kind = Var::Local;
      // Declared at the top of the generated function and assigned here:
      // a top-level const goes, as for the caller's own locals (`const
      // int32_t k`, `double *const q`; csmith seed 10479).
      CType &t = p->type;
      if (t.ptrDepth == 0 && t.dims.empty() && t.base.rfind("const ", 0) == 0) {
        t.base = t.base.substr(6);
        t.isConst = false;
      }
      size_t top = t.declFmt.find("const @N@");
      if (top != std::string::npos)
        t.declFmt.erase(top, 6);
      if (structArgs.count(p))
        continue;
      StmtP d = mkDecl(p, args[k]);
      d->loc = s->loc;
      inl.push_back(d);
    }
    // The callee's globals are the caller's (lowered afresh, the callee has
    // variables of its own for them).
    std::map<Var *, Var *> replace = structArgs;
    for (auto &v : body->vars)
      if (v->kind == Var::Global)
        for (auto &w : F.vars)
          if (w->kind == Var::Global && w->name == v->name) {
            replace[v.get()] = w.get();
            break;
          }
    Block cb = std::move(body->body);
    if (!replace.empty())
      substitute(cb, replace);
    StmtP ret;
    if (!cb.empty() && cb.back()->kind == Stmt::Return) {
      ret = cb.back();
      cb.pop_back();
    }
    if (early && body->retVar) { // normalized: the value is in mpiad_ret
      ret = std::make_shared<Stmt>();
      ret->kind = Stmt::Return;
      ret->rhs = mkVar(body->retVar);
      ret->loc = s->loc;
    }
    // The callee's writes through the pointer land before the call's value
    // is assigned (`s = f(&s)` keeps the returned value).
    for (StmtP &x : copyBack)
      cb.push_back(x);
    if (ret) {
      if (ret->rhs && s->kind == Stmt::Assign) {
        StmtP a = mkAssign(s->lhs, "=", ret->rhs);
        a->loc = ret->loc;
        cb.push_back(a);
      } else if (ret->rhs && s->kind == Stmt::Decl) {
        StmtP a = mkAssign(mkVar(s->var), "=", ret->rhs);
        a->loc = ret->loc;
        cb.push_back(a);
      } else if (ret->rhs && ret->rhs->kind == Expr::Call) {
        StmtP a = mkExprStmt(ret->rhs); // result unused: still evaluated
        a->loc = ret->loc;
        cb.push_back(a);
      }
    }
    for (StmtP &x : cb)
      inl.push_back(x);
    // The callee's variables now belong to the caller (its field views
    // too: they are found again by their struct and field).
    for (auto &v : body->vars) {
      v->id = (int)F.vars.size();
      v->inlinedCopy = true;
      F.vars.push_back(std::move(v));
    }
    for (auto &kv : body->fieldViews)
      F.fieldViews.insert(kv);
    // Helpers the inlined body calls are inlined in turn.
    block(inl, depth + 1);
    if (s->kind == Stmt::Decl) {
      StmtP d = mkDecl(s->var);
      d->loc = s->loc;
      out.push_back(d);
    }
    StmtP c = mkCompound(std::move(inl));
    c->loc = s->loc;
    out.push_back(c);
    return true;
  }
};

} // namespace

std::string floatingGlobalOf(const Function &cf) {
  std::string name;
  auto look = [&](const ExprP &e) {
    if (name.empty() && e)
      visitExpr(e, [&](const Expr &x) {
        if (name.empty() && x.kind == Expr::VarRef &&
            x.var->kind == Var::Global && x.var->type.isFloatingElem())
          name = x.var->name;
      });
  };
  walk(cf.body, [&](Stmt &st, const WalkCtx &) {
    look(st.lhs);
    look(st.rhs);
    look(st.cond);
    for (const ExprP &a : st.comm.args)
      look(a);
  });
  return name;
}

void inlineCommunicatingCallees(Function &f, Frontend &fe, Diag &diag,
                                bool pointerCalls) {
  Inliner(f, fe, diag, pointerCalls, false).run();
}

void inlineStructCallees(Function &f, Frontend &fe, Diag &diag) {
  Inliner(f, fe, diag, false, true).run();
}

} // namespace mpiad
