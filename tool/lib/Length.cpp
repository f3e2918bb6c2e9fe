//===- Length.cpp - How many elements of a pointer parameter are touched --===//
//
// The adjoint allocates per-rank shares of replicated gradients, snapshots
// the arrays a checkpointed loop changes, and hashes replicated inputs under
// MPIAD_CHECK; each needs the length of an array that only a pointer
// parameter describes.  The length is inferred from every access to the
// array, and a length that is too short is a heap overflow in generated
// code (a callee's reverse helper writing past `w_b_part`), so the inference
// never guesses: an access it cannot bound makes the whole answer unknown,
// and the callers then ask the user for `replicated(w[LEN])` or report an
// error.
//
// An access `p[ix]` (or `*p`, `*(p + k)`) contributes max(ix) + 1, where the
// maximum is taken over the canonical loops around it: a counter of
// `for (i = lo; i < hi; i++)` is at most hi - 1, and expressions built from
// literals, parameters and globals the function never assigns, the integer fields of
// structs passed by value that it never assigns (`params.nx`, also through
// the copy an inlined call makes) are their own bound.  A product `j * w`
// of such a `w` is bounded where an enclosing loop `i < w` from 0 shows
// that w is positive.  A field of an element (`p[ix].speeds[k]`) is an
// access of element ix.
// `p`, `p + k` or `&p[k]` passed to a same-file callee contributes k plus the
// callee's lengths for that parameter (computed the same way, in terms of
// its parameters, then bound to the call's arguments).  A buffer of a
// communication call contributes k plus its count where the rule marks the
// buffer `exact`.  A local pointer that is only ever a copy of the parameter
// (`const double *a = p;`) is the parameter: its accesses count.  Any other
// use of the pointer (copied with an offset or into a pointer assigned
// something else too, passed to an external function, assigned) cannot be
// bounded.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "Backend.h"
#include "Checkpoint.h"
#include "Transform.h"
#include <algorithm>
#include <deque>
#include <functional>
#include <memory>

namespace mpiad {

namespace {

std::string printWithUserNames(const ExprP &e);

/// Every access to one pointer parameter of one function.
class Accesses {
public:
  /// What one inference shares with the callees it walks: the functions
  /// (and parameter numbers) being analysed further up the call chain (a
  /// recursive call cannot be bounded), and the callees already analysed
  /// (a callee called from many places is walked once).
  struct Summary {
    std::vector<ExprP> lens;
    bool bad = false;
    std::string why;
    clang::SourceLocation where;
  };
  struct Shared {
    std::set<std::pair<const Function *, size_t>> active;
    std::map<std::pair<const Function *, size_t>, Summary> done;
  };

  Accesses(const Function &f, Var *p, const Frontend &fe, Shared &shared)
      : F(f), P(p), fe(fe), shared(shared) {}

  /// One length per access (largest index + 1), in terms of F's parameters
  /// that F never assigns; `bad` when some access cannot be bounded.
  std::vector<ExprP> lens;
  bool bad = false;
  std::string why;             // the access that could not be bounded
  clang::SourceLocation where; // and where it is

  void run() {
    findAliases();
    block(F.body);
  }

private:
  const Function &F;
  Var *P;
  const Frontend &fe;
  Shared &shared;
  std::unique_ptr<std::set<Var *>> assigned; // computed on first use
  std::map<Var *, const Stmt *> loops; // canonical loops around the access
  std::deque<Stmt> calleeLoops;        // shapes of a callee's counted loops

  void fail(const ExprP &e, clang::SourceLocation loc) {
    if (bad)
      return;
    bad = true;
    why = printWithUserNames(e);
    where = e->loc.isValid() ? e->loc : loc;
  }

  /// An integer value that is the same wherever F evaluates it: literals and
  /// integer parameters that F never assigns.
  bool invariant(const ExprP &e) {
    if (e->ptrDepth > 0)
      return false;
    switch (e->kind) {
    case Expr::IntLit:
      return true;
    case Expr::Opaque:
      return e->intConstant || unchangedField(e);
    case Expr::VarRef:
      // Integer parameters and globals (miniWeather's nx) F never assigns;
      // a global that is not const only where F calls no function of
      // another file, which could change it.
      if ((e->var->kind != Var::Param && e->var->kind != Var::Global) ||
          !e->var->type.isIntScalar() || e->var->assignCount ||
          loops.count(e->var))
        return false;
      if (e->var->kind == Var::Global && !e->var->type.isConst &&
          callsElsewhere())
        return false;
      if (!assigned)
        assigned = std::make_unique<std::set<Var *>>(assignedIn(F.body, fe));
      return !assigned->count(e->var);
    case Expr::Unary:
      if (e->text != "-" && e->text != "+")
        return false;
      break;
    case Expr::Binary:
      if (e->ptrDepth > 0)
        return false;
      break;
    case Expr::Cond:
    case Expr::Cast:
      break;
    default:
      return false;
    }
    if (e->type != Scalar::Int)
      return false;
    for (const ExprP &o : e->ops)
      if (!invariant(o))
        return false;
    return true;
  }

  /// Does F call a function defined in another file (other than the C
  /// library's allocation, copying and printing functions and the math
  /// functions of the rules)?
  int elsewhere = -1;
  bool callsElsewhere() {
    if (elsewhere >= 0)
      return elsewhere;
    static const std::set<std::string> library = {
        "printf", "fprintf", "puts",  "putchar", "malloc", "calloc",
        "realloc", "free",   "memcpy", "memset", "memmove", "assert",
        "exit",   "abort"};
    elsewhere = 0;
    walk(const_cast<Block &>(F.body), [&](Stmt &st, const WalkCtx &) {
      for (const ExprP &x : {st.lhs, st.rhs, st.cond})
        visitExpr(x, [&](const Expr &c) {
          if (c.kind == Expr::Call && !fe.callee(c.text) &&
              !library.count(c.text) &&
              !(fe.rules() && fe.rules()->math(c.text)))
            elsewhere = 1;
        });
    });
    return elsewhere;
  }

  /// An integer field of a struct passed by value that F never assigns
  /// (`params.nx`, `info.grid.ny`): the same wherever F reads it.
  bool unchangedField(const ExprP &e) {
    if (e->type != Scalar::Int || e->ptrDepth > 0 || e->ops.size() != 1 ||
        e->text.rfind(".", 0) != 0)
      return false;
    const ExprP &base = e->ops[0];
    if (base->kind == Expr::Opaque)
      return unchangedField(base);
    return base->kind == Expr::VarRef && unchangedStruct(base->var);
  }

  /// A struct variable whose value is the same wherever F reads it: a
  /// parameter F never assigns, or a local that is only set once, to such
  /// a struct (`m_2 = m;`, an inlined call's by-value parameter).
  bool unchangedStruct(Var *v) {
    if (v->type.ptrDepth != 0 || !v->type.dims.empty() ||
        v->type.elem != Scalar::Other)
      return false;
    if (v->kind == Var::Param) {
      if (v->assignCount)
        return false;
      if (!assigned)
        assigned = std::make_unique<std::set<Var *>>(assignedIn(F.body, fe));
      return !assigned->count(v);
    }
    if (v->kind != Var::Local && v->kind != Var::Synthetic)
      return false;
    auto known = copies.find(v);
    if (known != copies.end())
      return known->second;
    copies[v] = false; // a copy of itself is not unchanged
    int sets = 0;
    Var *from = nullptr;
    walk(const_cast<Block &>(F.body), [&](Stmt &st, const WalkCtx &) {
      for (const Effect &ef : effectsOf(st, fe))
        if (ef.target == v) {
          ++sets;
          if (st.kind == Stmt::Assign && st.op == "=" &&
              st.lhs->kind == Expr::VarRef && st.lhs->var == v &&
              st.rhs->kind == Expr::VarRef)
            from = st.rhs->var;
        }
    });
    bool ok = sets == 1 && from && unchangedStruct(from);
    copies[v] = ok;
    if (ok)
      source[v] = source.count(from) ? source[from] : from;
    return ok;
  }
  std::map<Var *, bool> copies;

public:
  /// The parameter each such local copies (m_2 -> m): a length is
  /// evaluated before the forward sweep sets the copies, so it names the
  /// parameters.
  std::map<Var *, Var *> source;

private:
  /// Is c (invariant) at least 1 wherever F evaluates the access: the
  /// bound of an enclosing `for (v = lo; v < c; v++)` with lo >= 0, or of
  /// `v <= c` with lo >= 1?
  bool positiveHere(const ExprP &c) {
    std::string text = printExpr(c);
    for (auto &[v, l] : loops) {
      if (l->loopStep <= 0 || printExpr(l->loopHi) != text)
        continue;
      ExprP lo = bound(l->loopLo, false);
      if (!lo || lo->kind != Expr::IntLit)
        continue;
      long long k = std::stoll(lo->text, nullptr, 0);
      if ((l->loopCmp == "<" && k >= 0) || (l->loopCmp == "<=" && k >= 1))
        return true;
    }
    return false;
  }

  static ExprP add(const ExprP &a, const ExprP &b,
                   const std::string &op = "+") {
    if (b->kind == Expr::IntLit) {
      long long k = std::stoll(b->text, nullptr, 0);
      return plusConst(a, op == "+" ? k : -k);
    }
    if (a->kind == Expr::IntLit && op == "+")
      return plusConst(b, std::stoll(a->text, nullptr, 0));
    return mkBinary(op, a, b);
  }

  /// The largest (or smallest) value of an integer expression where F
  /// evaluates it, as an invariant expression; null when unknown.
  ExprP bound(const ExprP &e, bool max) {
    if (invariant(e))
      return e;
    if (e->kind == Expr::VarRef) {
      auto it = loops.find(e->var);
      if (it == loops.end())
        return nullptr;
      const Stmt &l = *it->second;
      // An ascending loop's counter is largest just below its bound, a
      // descending one's just above; the other extreme is its first value.
      bool up = l.loopStep > 0;
      if (max != up)
        return bound(l.loopLo, max);
      ExprP h = bound(l.loopHi, max);
      if (!h)
        return nullptr;
      if (l.loopCmp == "<")
        return plusConst(h, -1);
      if (l.loopCmp == ">")
        return plusConst(h, 1);
      return h;
    }
    if (e->kind == Expr::Binary && e->ptrDepth == 0 &&
        (e->text == "+" || e->text == "-")) {
      ExprP a = bound(e->ops[0], max);
      ExprP b = bound(e->ops[1], e->text == "+" ? max : !max);
      return a && b ? add(a, b, e->text) : nullptr;
    }
    if (e->kind == Expr::Binary && e->text == "*") {
      for (int s = 0; s < 2; ++s) {
        const ExprP &c = e->ops[s], &x = e->ops[1 - s];
        if (c->kind != Expr::IntLit)
          continue;
        long long k = std::stoll(c->text, nullptr, 0);
        ExprP b = bound(x, k >= 0 ? max : !max);
        return b ? mkBinary("*", c, b) : nullptr;
      }
      // Row times width, `j * nx` inside `for (i = 0; i < nx; i++)`: nx is
      // positive there, and j's extremes are its value's when j >= 0.
      for (int s = 0; s < 2; ++s) {
        const ExprP &c = e->ops[s], &x = e->ops[1 - s];
        if (!invariant(c) || !positiveHere(c))
          continue;
        ExprP lo = bound(x, false);
        if (!lo || lo->kind != Expr::IntLit ||
            std::stoll(lo->text, nullptr, 0) < 0)
          continue;
        ExprP b = max ? bound(x, true) : lo;
        return b ? mkBinary("*", b, c) : nullptr;
      }
    }
    return nullptr;
  }

  /// Local pointers that are only ever copies of P (`const double *a =
  /// theta;`): an access through one is an access of P.
  std::set<Var *> aliases;
  void findAliases() {
    std::map<Var *, bool> copyOnly;
    walk(const_cast<Block &>(F.body), [&](Stmt &s, const WalkCtx &) {
      Var *t = nullptr;
      ExprP rhs;
      if (s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef) {
        t = s.lhs->var;
        rhs = s.op == "=" ? s.rhs : nullptr;
      } else if (s.kind == Stmt::Decl && s.rhs) {
        t = s.var;
        rhs = s.rhs;
      }
      if (!t || t == P || t->type.ptrDepth != 1 || !t->type.dims.empty() ||
          (t->kind != Var::Local && t->kind != Var::Synthetic))
        return;
      while (rhs && rhs->kind == Expr::Cast)
        rhs = rhs->ops[0];
      bool copy = rhs && rhs->kind == Expr::VarRef && rhs->var == P;
      auto it = copyOnly.find(t);
      copyOnly[t] = copy && (it == copyOnly.end() || it->second);
    });
    for (auto &[v, ok] : copyOnly)
      if (ok)
        aliases.insert(v);
  }
  bool copyOfP(const Stmt &s) const {
    Var *t = s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef
                 ? s.lhs->var
                 : s.kind == Stmt::Decl ? s.var : nullptr;
    return t && aliases.count(t);
  }

  /// If e points into P's array (p, p + k, p - k, &p[k]), the element offset.
  ExprP offsetInto(const ExprP &e) const {
    if (!e)
      return nullptr;
    if (e->kind == Expr::VarRef)
      return e->var == P || aliases.count(e->var) ? mkInt(0) : nullptr;
    if (e->kind == Expr::Binary && e->ptrDepth > 0 &&
        (e->text == "+" || e->text == "-")) {
      if (e->ops[0]->ptrDepth > 0) {
        if (ExprP o = offsetInto(e->ops[0]))
          return add(o, e->ops[1], e->text);
      } else if (e->text == "+") {
        if (ExprP o = offsetInto(e->ops[1]))
          return add(e->ops[0], o);
      }
      return nullptr;
    }
    if (e->kind == Expr::AddrOf && e->ops[0]->kind == Expr::Index)
      if (ExprP o = offsetInto(e->ops[0]->ops[0]))
        return add(o, e->ops[0]->ops[1]);
    return nullptr;
  }

  /// An element access at index ix.
  void access(const ExprP &ix, const ExprP &e, clang::SourceLocation loc) {
    ExprP m = bound(ix, true);
    if (!m)
      return fail(e, loc);
    lens.push_back(plusConst(m, 1));
  }

  /// P + offset passed as argument k of a call.
  void argument(const ExprP &call, size_t k, const ExprP &offset,
                clang::SourceLocation loc) {
    Function *cf = fe.callee(call->text);
    std::pair<const Function *, size_t> key{cf, k};
    if (!cf || k >= cf->params.size() || cf->params[k]->type.ptrDepth != 1 ||
        shared.active.count(key))
      return fail(call, loc);
    if (!shared.done.count(key)) {
      shared.active.insert(key);
      Accesses walk(*cf, cf->params[k], fe, shared);
      walk.run();
      shared.active.erase(key);
      shared.done[key] = {walk.lens, walk.bad, walk.why, walk.where};
    }
    const Summary &inner = shared.done[key];
    if (inner.bad) {
      // Report the callee's access: that is what the user must look at.
      bad = true;
      why = inner.why;
      where = inner.where;
      return;
    }
    for (const ExprP &len : inner.lens) {
      ExprP m = bound(add(offset, bindArgs(len, cf->params, call->ops)), true);
      if (!m)
        return fail(call, loc);
      lens.push_back(m);
    }
  }

  /// Argument k of a communication call.  A buffer into P's array is
  /// bounded by its count only where the rule says the buffer holds exactly
  /// COUNT elements (`exact`; a gather's receive buffer holds COUNT per
  /// rank), of the C element type.
  void commArg(const Stmt &s, size_t k) {
    const ExprP &a = s.comm.args[k];
    ExprP o = a->ptrDepth > 0 ? offsetInto(a) : nullptr;
    if (!o)
      return scan(a, s.loc);
    const CommRule *rule = s.comm.rule;
    const CommArg *arg =
        rule && k < rule->args.size() ? &rule->args[k] : nullptr;
    if (!arg || arg->role != CommArg::Buffer || !arg->exactCount)
      return fail(a, s.loc);
    int c = rule->argIndex(arg->count), t = rule->argIndex(arg->datatype);
    if (c < 0 || t < 0 || (size_t)c >= s.comm.args.size() ||
        (size_t)t >= s.comm.args.size())
      return fail(a, s.loc);
    std::string type = printExpr(s.comm.args[t]);
    bool sameType = P->type.isFloatingElem() &&
                    datatypeElem(type) == P->type.elem;
    ExprP m = sameType ? bound(add(o, s.comm.args[c]), true) : nullptr;
    if (!m)
      return fail(a, s.loc);
    lens.push_back(m);
    scan(o, s.loc);
  }

  void scan(const ExprP &e, clang::SourceLocation loc) {
    if (!e || bad)
      return;
    if (e->kind == Expr::Index)
      if (ExprP o = offsetInto(e->ops[0])) {
        ExprP ix = add(o, e->ops[1]);
        access(ix, e, loc);
        return scan(ix, loc);
      }
    // A field of P's elements, p[ix].f (a view of P's shape, Frontend's
    // field views): an access of element ix.
    if (e->kind == Expr::Index && e->ops[0]->kind == Expr::VarRef) {
      const Var *v = e->ops[0]->var;
      if (v->fieldOf && v->fieldParentRank == 1 &&
          (v->fieldOf == P || aliases.count(v->fieldOf))) {
        access(e->ops[1], e, loc);
        return scan(e->ops[1], loc);
      }
    }
    if (e->kind == Expr::Unary && e->text == "*")
      if (ExprP o = offsetInto(e->ops[0])) {
        access(o, e, loc);
        return scan(o, loc);
      }
    if (e->kind == Expr::Call) {
      for (size_t k = 0; k < e->ops.size(); ++k) {
        const ExprP &a = e->ops[k];
        ExprP o = a->ptrDepth > 0 ? offsetInto(a) : nullptr;
        if (o) {
          argument(e, k, o, loc);
          scan(o, loc);
        } else {
          scan(a, loc);
        }
      }
      return;
    }
    // Reading the pointer's value without following it.
    bool valueOnly =
        (e->kind == Expr::Binary && (e->text == "==" || e->text == "!=")) ||
        (e->kind == Expr::Unary && e->text == "!") ||
        (e->kind == Expr::Cast && e->text == "void");
    if (!valueOnly && offsetInto(e))
      return fail(e, loc); // the pointer escapes (copied, cast, ...)
    if (e->kind == Expr::Opaque &&
        std::count(e->vars.begin(), e->vars.end(), P))
      return fail(e, loc);
    for (const ExprP &o : e->ops)
      if (!(valueOnly && o->kind == Expr::VarRef && o->var == P))
        scan(o, loc);
  }

  void stmt(const Stmt &s) {
    if (bad)
      return;
    // The pointer itself reassigned: later accesses are relative to
    // another address.
    if (s.kind == Stmt::Assign && s.lhs->kind == Expr::VarRef &&
        s.lhs->var == P)
      return fail(s.lhs, s.loc);
    if (copyOfP(s))
      return; // `a = p` of an alias: its accesses count as p's
    scan(s.lhs, s.loc);
    scan(s.rhs, s.loc);
    scan(s.cond, s.loc);
    if (s.kind == Stmt::Comm)
      for (size_t k = 0; k < s.comm.args.size(); ++k)
        commArg(s, k);
    if (s.init)
      stmt(*s.init);
    if (s.step)
      stmt(*s.step);
    const Stmt *loop = nullptr;
    if (s.kind == Stmt::For && s.loopStep != 0) {
      loop = &s;
    } else if (s.kind == Stmt::For) {
      // A callee's loops are not normalized: recognise the counted ones.
      calleeLoops.push_back(s);
      if (markCanonicalLoop(calleeLoops.back(), fe))
        loop = &calleeLoops.back();
    }
    if (loop) {
      auto saved = loops;
      loops[loop->loopVar] = loop;
      block(s.body);
      loops = saved;
    } else {
      block(s.body);
    }
    block(s.elseBody);
  }

  void block(const Block &b) {
    for (const StmtP &s : b)
      stmt(*s);
  }
};

/// e as the user wrote it: variables by their names in the source (an
/// inlined helper's `state_tmp_2` is its `state_tmp`).
std::string printWithUserNames(const ExprP &e) {
  std::set<Var *> vs;
  collectVars(e, vs);
  std::deque<Var> copies;
  std::map<Var *, Var *> to;
  for (Var *v : vs) {
    if (v->userName.empty() || v->userName == v->name)
      continue;
    copies.push_back(*v);
    copies.back().name = v->userName;
    to[v] = &copies.back();
  }
  return printExpr(renameVars(e, to));
}


} // namespace

ExprP inferLength(Function &F, Var *p, std::string &why, const Frontend &fe,
                  clang::SourceLocation *where) {
  // An array of the function that encloses a differentiated block, passed
  // to the block's outlined function: its declared extent (rows for a
  // 2-D array, as a pointer to rows counts).
  if (p->outlinedExtent > 0)
    return mkInt(p->outlinedExtent);
  // A pointer to rows (`double u[][NY]`) or a row-pointer array (`double
  // **u`): its uses count rows, not elements.  Never guessed: the length
  // must be given (and a row-pointer array has none).
  if (p->type.ptrToArray || p->type.ptrDepth > 1) {
    why = p->userName + "[...][...]";
    if (where)
      *where = p->loc;
    return nullptr;
  }
  Accesses::Shared shared;
  Accesses acc(F, p, fe, shared);
  acc.run();
  if (acc.bad) {
    why = acc.why;
    if (where)
      *where = acc.where;
    return nullptr;
  }
  if (acc.lens.empty())
    return nullptr;
  for (ExprP &l : acc.lens)
    l = renameVars(l, acc.source);
  // Lengths X + c with the same X: keep the largest c.
  std::map<std::string, std::pair<ExprP, long long>> byBase;
  for (const ExprP &l : acc.lens) {
    ExprP base = l;
    long long c = 0;
    if (l->kind == Expr::Binary && (l->text == "+" || l->text == "-") &&
        l->ops[1]->kind == Expr::IntLit) {
      base = l->ops[0];
      c = std::stoll(l->ops[1]->text, nullptr, 0) * (l->text == "-" ? -1 : 1);
    }
    std::string key = base->kind == Expr::IntLit ? "" : printExpr(base);
    if (base->kind == Expr::IntLit) {
      c += std::stoll(base->text, nullptr, 0);
      base = mkInt(0);
    }
    auto it = byBase.find(key);
    if (it == byBase.end() || it->second.second < c)
      byBase[key] = {base, c};
  }
  ExprP len;
  for (auto &kv : byBase) {
    ExprP one = plusConst(kv.second.first, kv.second.second);
    len = len ? mkCall("mpiad_max_len", {len, one}, Scalar::Int) : one;
  }
  return len;
}

} // namespace mpiad
