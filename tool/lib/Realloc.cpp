//===- Realloc.cpp - realloc as malloc, copy and free ----------------------===//
//
// `p = realloc(q, n)` keeps q's values in a new block and frees q.  The
// reverse sweep needs what q held before (the statements before the realloc
// read it), and their adjoints must flow back into q's shadow; a freed block
// has neither.  Right after lowering, each such statement becomes
//
//   mpiad_rb = n;                                  the new size, once
//   mpiad_rp = malloc(mpiad_rb);                   a new block
//   mpiad_rk = min(q_bytes, mpiad_rb) / sizeof *q;  elements kept
//   for (k = 0; k < mpiad_rk; k++) mpiad_rp[k] = q[k];
//   free(q);
//   p = mpiad_rp;
//   p_bytes = mpiad_rb;
//
// statements every later stage already differentiates: the copy carries the
// derivatives, the allocation gets its shadow, and the reverse sweep frees
// the old block (and its shadow) only after the statements that read it.
// realloc(NULL, n) is malloc(n).
//
// q's size in bytes is a synthetic `size_t q_bytes`, set after every
// assignment of q: `malloc(e)` (e), `calloc(a, b)` (a * b), NULL (0), and
// realloc (n).  That requires q to be a local of the function that is
// assigned nothing else (a pointer copy, a parameter's data, the result of
// another function): otherwise its size is unknown, and the realloc is a
// located error that says what to write.  Only the generated code changes;
// the primal the user calls is the user's.
//
// Allocation wrappers come first.  `p = xrealloc(p, n)` and `p =
// xmalloc(n)`, where the same-file function only allocates (malloc, calloc
// or realloc of its parameters), may check the result and end the program
// when it is NULL, and returns the block, become the allocation itself,
// followed by the wrapper's check with the target in place of its result:
//
//   static void *xrealloc(void *q, size_t n) {      p = realloc(p, n);
//     void *r = realloc(q, n);                  ->  if (p == NULL) {
//     if (!r) { perror("xrealloc"); exit(1); }        perror("xrealloc");
//     return r;                                       exit(1);
//   }                                               }
//
// so that the realloc is lowered as above.  The wrapper's own body is then
// never differentiated (its realloc of a parameter is not an error there);
// a call of a realloc wrapper that is not such an assignment is.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "IR.h"
#include "Transform.h"

#include <functional>

namespace mpiad {

namespace {

/// The call below a cast, if `e` is a call of `name`.
ExprP callOf(const ExprP &e, const std::string &name) {
  ExprP c = e;
  while (c && c->kind == Expr::Cast)
    c = c->ops[0];
  if (c && c->kind == Expr::Call && c->text == name)
    return c;
  return nullptr;
}

/// The pointer that `s` assigns (`p = ...`, or `T *p = ...`), or null.
Var *pointerTarget(const Stmt &s) {
  if (s.kind == Stmt::Decl && s.rhs && s.var && s.var->type.ptrDepth > 0 &&
      s.var->type.dims.empty())
    return s.var;
  if (s.kind != Stmt::Assign || s.op != "=" || !s.lhs ||
      s.lhs->kind != Expr::VarRef || s.lhs->ptrDepth == 0)
    return nullptr;
  return s.lhs->var;
}

/// Does the statement use a variable of the function (its parameters and
/// locals), in any expression?
bool usesVariables(const Stmt &s) {
  bool any = false;
  auto expr = [&](const ExprP &e) {
    if (e)
      visitExpr(e, [&](const Expr &x) {
        any |= x.kind == Expr::VarRef || !x.vars.empty();
      });
  };
  expr(s.lhs);
  expr(s.rhs);
  expr(s.cond);
  for (const ExprP &a : s.comm.args)
    expr(a);
  for (const StmtP *p : {&s.init, &s.step})
    if (*p)
      any |= usesVariables(**p);
  for (const Block *b : {&s.body, &s.elseBody})
    for (const StmtP &c : *b)
      any |= usesVariables(*c);
  return any;
}

/// A same-file allocation wrapper: its allocation (malloc, calloc or
/// realloc, in the wrapper's parameters) and what it does when that is
/// NULL (statements that use none of its variables, with no return, break
/// or continue; empty when it does not check).
struct AllocWrapper {
  ExprP alloc;
  Block onFailure;
};

/// `return ALLOC(...)`, or `r = ALLOC(...)` (or `T *r = ...`, `T *r =
/// NULL` first), optionally `if (!r) { ... }` (or `r == NULL`), then
/// `return r`; the allocation's arguments built from parameters, realloc's
/// first one the only pointer.  aligned_alloc and memalign are malloc of
/// their size, and so is posix_memalign(&r, a, n), bare or assigned to an
/// int (`ret`), whose failure path `if (ret) r = NULL;` is malloc's (PRK's
/// prk_malloc).
bool allocationWrapper(const Function &cf, AllocWrapper &out) {
  if (cf.ret.ptrDepth == 0)
    return false;
  Var *held = nullptr;
  ExprP alloc;
  Block failure;
  bool returned = false;
  std::set<const Var *> codes; // ints holding posix_memalign's answer
  auto isAlloc = [](const ExprP &e) {
    return callOf(e, "malloc") || callOf(e, "calloc") || callOf(e, "realloc");
  };
  // `posix_memalign(&r, a, n)`: r holds malloc(n).
  auto aligned = [&](const ExprP &call, const Var *code) {
    ExprP n;
    Var *p = alignedAllocation(call, n);
    if (!p || alloc || (held && held != p))
      return false;
    held = p;
    alloc = plainAllocation(n);
    if (code)
      codes.insert(code);
    return true;
  };
  // `if (ret) r = NULL;` (or `ret != 0`): what malloc does on failure.
  auto failurePath = [&](const Stmt &s) {
    std::set<Var *> vs;
    collectVars(s.cond, vs);
    for (Var *v : vs)
      if (!codes.count(v))
        return false;
    for (const Block *b : {&s.body, &s.elseBody})
      for (const StmtP &x : *b)
        if (x->kind != Stmt::Assign || x->lhs->kind != Expr::VarRef ||
            x->lhs->var != held || !isNullPointer(x->rhs))
          return false;
    return !vs.empty();
  };
  auto isNullTest = [&](const ExprP &c) {
    if (!held || !c)
      return false;
    if (c->kind == Expr::Unary && c->text == "!" &&
        c->ops[0]->kind == Expr::VarRef && c->ops[0]->var == held)
      return true;
    if (c->kind == Expr::Binary && c->text == "==")
      for (int k = 0; k < 2; ++k)
        if (c->ops[k]->kind == Expr::VarRef && c->ops[k]->var == held &&
            isNullPointer(c->ops[1 - k]))
          return true;
    return false;
  };
  for (const StmtP &s : cf.body) {
    if (returned)
      return false;
    switch (s->kind) {
    case Stmt::Comment:
      continue;
    case Stmt::Decl:
      if (s->rhs && s->var->type.isIntScalar() && aligned(s->rhs, s->var))
        continue;
      if (held || s->var->type.ptrDepth == 0 || !s->var->type.dims.empty())
        return false;
      held = s->var;
      if (s->rhs && !isNullPointer(s->rhs)) {
        if (!isAlloc(unaligned(s->rhs)))
          return false;
        alloc = unaligned(s->rhs);
      }
      continue;
    case Stmt::Assign:
      if (s->op == "=" && s->lhs->kind == Expr::VarRef &&
          s->lhs->var->type.isIntScalar() && aligned(s->rhs, s->lhs->var))
        continue;
      // (A pointer parameter may hold it too: `vect = malloc(...)`.)
      if (!held && s->lhs->kind == Expr::VarRef &&
          s->lhs->var->type.ptrDepth > 0 && s->lhs->var->type.dims.empty())
        held = s->lhs->var;
      if (alloc || s->op != "=" || s->lhs->kind != Expr::VarRef ||
          s->lhs->var != held || !isAlloc(unaligned(s->rhs)))
        return false;
      alloc = unaligned(s->rhs);
      continue;
    case Stmt::ExprStmt:
      if (aligned(s->rhs, nullptr))
        continue;
      return false;
    case Stmt::If:
      if (alloc && failure.empty() && !codes.empty() && failurePath(*s))
        continue;
      if (!alloc || !failure.empty() || !isNullTest(s->cond) ||
          !s->elseBody.empty() || s->body.empty() || hasJump(s->body))
        return false;
      for (const StmtP &x : s->body)
        if (usesVariables(*x))
          return false;
      failure = s->body;
      continue;
    case Stmt::Return: {
      ExprP e = s->rhs;
      while (e && e->kind == Expr::Cast)
        e = e->ops[0];
      if (e && held && e->kind == Expr::VarRef && e->var == held && alloc) {
        returned = true;
        continue;
      }
      if (!held && s->rhs && isAlloc(unaligned(s->rhs))) {
        alloc = unaligned(s->rhs);
        returned = true;
        continue;
      }
      return false;
    }
    default:
      return false;
    }
  }
  if (!returned || !alloc)
    return false;
  // Scalar parameters only, but realloc's block.
  ExprP call = callOf(alloc, "realloc");
  if (!call)
    call = callOf(alloc, "malloc") ? callOf(alloc, "malloc")
                                   : callOf(alloc, "calloc");
  for (size_t k = 0; k < call->ops.size(); ++k) {
    std::set<Var *> vs;
    collectVars(call->ops[k], vs);
    bool block = call->text == "realloc" && k == 0;
    if (block && (call->ops[0]->kind != Expr::VarRef ||
                  call->ops[0]->var->kind != Var::Param))
      return false;
    for (Var *v : vs)
      if (v->kind != Var::Param || (!block && v->type.ptrDepth > 0))
        return false;
  }
  out.alloc = alloc;
  out.onFailure = failure;
  return true;
}

using CalleeFn = std::function<const Function *(const std::string &)>;

class Reallocs {
public:
  Reallocs(Function &f, Diag &diag, const CalleeFn &callee)
      : F(f), diag(diag), callee(callee) {}

  bool run() {
    // A wrapper's own realloc of its parameter: the calls are replaced.
    AllocWrapper self;
    if (allocationWrapper(F, self))
      return true;
    unwrap(F.body);
    leftWrappers();
    if (!ok)
      return false;
    // Which pointers are realloc'd (argument and target)?
    std::map<Var *, const Stmt *> first; // pointer -> a realloc of it
    walk(F.body, [&](Stmt &s, const WalkCtx &) {
      Var *t = pointerTarget(s);
      ExprP c = t ? callOf(s.rhs, "realloc") : nullptr;
      if (!c || c->ops.size() != 2)
        return;
      first.emplace(t, &s);
      if (Var *q = c->ops[0]->kind == Expr::VarRef ? c->ops[0]->var : nullptr)
        first.emplace(q, &s);
      else if (!isNullPointer(c->ops[0]))
        bad(s.loc, "the pointer given to 'realloc' must be a variable (or "
                   "NULL) in a differentiated function");
    });
    if (first.empty())
      return ok;
    // Each must be a local assigned only allocations and NULL.
    for (auto &kv : first) {
      Var *v = kv.first;
      const Stmt *at = kv.second;
      if (v->kind != Var::Local) {
        bad(at->loc, "'realloc' of '" + v->userName + "', a " +
                         (v->kind == Var::Param ? "parameter" : "global") +
                         ": the adjoint cannot know how large its block is; "
                         "malloc a local buffer, copy the values into it and "
                         "realloc that");
        continue;
      }
      std::string why;
      walk(F.body, [&](Stmt &s, const WalkCtx &) {
        if (pointerTarget(s) == v && !isNullPointer(s.rhs) &&
            !callOf(s.rhs, "malloc") && !callOf(s.rhs, "calloc") &&
            !callOf(s.rhs, "realloc") && why.empty())
          why = printExpr(s.rhs);
      });
      if (!why.empty()) {
        bad(at->loc, "'realloc' of '" + v->userName + "', which is also "
                         "assigned '" + why + "': the adjoint must know how "
                         "large its block is, so assign it only malloc, "
                         "calloc, realloc or NULL");
        continue;
      }
      CType st;
      st.elem = Scalar::Int;
      st.base = "size_t";
      Var *b = F.newVar("mpiad_" + v->name + "_bytes", st, Var::Synthetic);
      b->loc = v->loc;
      bytes[v] = b;
    }
    if (!ok)
      return false;
    rewrite(F.body);
    // The sizes start at 0 (an unassigned pointer is never realloc'd).
    Block decls;
    for (auto &[v, b] : bytes) {
      decls.push_back(mkDecl(b));
      decls.push_back(mkAssign(mkVar(b), "=", mkInt(0)));
    }
    F.body.insert(F.body.begin(), decls.begin(), decls.end());
    return ok;
  }

private:
  Function &F;
  Diag &diag;
  const CalleeFn &callee;
  bool ok = true;

  /// The wrapper a call (below casts) calls, or null.
  const Function *wrapperOf(const ExprP &e, AllocWrapper &w, ExprP &call) {
    call = e;
    while (call && call->kind == Expr::Cast)
      call = call->ops[0];
    if (!call || call->kind != Expr::Call)
      return nullptr;
    const Function *cf = callee(call->text);
    return cf && allocationWrapper(*cf, w) ? cf : nullptr;
  }

  /// `p = wrap(args)` as the wrapper's allocation and check (see the
  /// header); any other call of a realloc wrapper is an error.
  void unwrap(Block &b) {
    Block out;
    for (StmtP &s : b) {
      unwrap(s->body);
      unwrap(s->elseBody);
      Var *t = pointerTarget(*s);
      AllocWrapper w;
      ExprP call;
      const Function *cf = t ? wrapperOf(s->rhs, w, call) : nullptr;
      bool safe = cf != nullptr;
      if (cf)
        for (const ExprP &a : call->ops)
          safe &= sideEffectFree(a);
      if (!safe) {
        out.push_back(s);
        continue;
      }
      ExprP bound = bindArgs(w.alloc, cf->params, call->ops);
      s->rhs = s->rhs->kind == Expr::Cast
                   ? mkCast(s->rhs->text, bound, s->rhs->type, s->rhs->ptrDepth)
                   : bound;
      out.push_back(s);
      if (!w.onFailure.empty()) {
        auto check = mkIf(mkBinary("==", mkVar(t), mkOpaque("NULL")),
                          deepCopy(w.onFailure));
        check->loc = s->loc;
        out.push_back(check);
      }
    }
    b.swap(out);
  }

  /// A realloc wrapper called otherwise than `p = wrap(...)`: an error.
  void leftWrappers() {
    walk(F.body, [&](Stmt &s, const WalkCtx &) {
      std::vector<ExprP> es{s.rhs, s.lhs, s.cond};
      es.insert(es.end(), s.comm.args.begin(), s.comm.args.end());
      bool found = false;
      for (const ExprP &e : es)
        if (e && !found)
          visitExpr(e, [&](const Expr &x) {
            AllocWrapper w;
            const Function *cf =
                x.kind == Expr::Call && !found ? callee(x.text) : nullptr;
            if (cf && allocationWrapper(*cf, w) &&
                callOf(w.alloc, "realloc")) {
              found = true;
              bad(s.loc, "'" + x.text + "' reallocates its argument: in a "
                         "differentiated function, assign its result to a "
                         "pointer (`p = " + x.text + "(p, n);`), with "
                         "arguments that have no side effects");
            }
          });
    });
  }
  std::map<Var *, Var *> bytes; // tracked pointer -> its size in bytes
  int count = 0;

  void bad(clang::SourceLocation loc, const std::string &m) {
    diag.error(loc, m);
    ok = false;
  }

  Var *temp(const std::string &name, const CType &t, clang::SourceLocation at) {
    Var *v = F.newVar(name + std::to_string(count), t, Var::Synthetic);
    v->loc = at;
    return v;
  }

  void rewrite(Block &b) {
    Block out;
    for (StmtP &s : b) {
      rewrite(s->body);
      rewrite(s->elseBody);
      Var *t = pointerTarget(*s);
      auto it = t ? bytes.find(t) : bytes.end();
      if (it == bytes.end()) {
        out.push_back(s);
        continue;
      }
      Var *tb = it->second;
      ExprP size;
      // `T *p = ...`: the declaration, then the assignment.
      StmtP as = s;
      if (s->kind == Stmt::Decl) {
        auto d = mkDecl(t);
        d->loc = s->loc;
        out.push_back(d);
        as = mkAssign(mkVar(t), "=", s->rhs);
        as->loc = s->loc;
      }
      if (ExprP c = callOf(as->rhs, "realloc")) {
        expand(*as, c, t, tb, out);
        continue;
      }
      out.push_back(as);
      if (ExprP c = callOf(as->rhs, "malloc"))
        size = c->ops[0];
      else if (ExprP c = callOf(as->rhs, "calloc"))
        size = mkBinary("*", c->ops[0], c->ops[1]);
      else
        size = mkInt(0); // NULL
      auto set = mkAssign(mkVar(tb), "=", size);
      set->loc = s->loc;
      out.push_back(set);
    }
    b.swap(out);
  }

  /// `t = realloc(q, n)` (q a tracked variable or NULL), as the header says.
  void expand(const Stmt &s, const ExprP &call, Var *t, Var *tb, Block &out) {
    ++count;
    clang::SourceLocation at = s.loc;
    if (!F.reallocAt.isValid())
      F.reallocAt = at;
    auto put = [&](StmtP st) {
      st->loc = at;
      out.push_back(st);
    };
    CType st;
    st.elem = Scalar::Int;
    st.base = "size_t";
    Var *rb = temp("mpiad_rb", st, at);
    put(mkDecl(rb));
    put(mkAssign(mkVar(rb), "=", call->ops[1]));
    CType pt = t->type;
    pt.isConst = false;
    Var *rp = temp("mpiad_rp", pt, at);
    put(mkDecl(rp));
    put(mkAssign(mkVar(rp), "=",
                 mkCall("malloc", {mkVar(rb)}, t->type.elem, 1)));
    const ExprP &q = call->ops[0];
    if (!isNullPointer(q)) {
      Var *qb = bytes.at(q->var);
      CType lt; // the count compared with an int loop counter
      lt.elem = Scalar::Int;
      lt.base = "long long";
      Var *rk = temp("mpiad_rk", lt, at);
      put(mkDecl(rk));
      put(mkAssign(mkVar(rk), "=", mkVar(rb)));
      put(mkIf(mkBinary("<", mkVar(qb), mkVar(rb)),
               {mkAssign(mkVar(rk), "=", mkVar(qb))}));
      put(mkAssign(mkVar(rk), "=",
                   mkBinary("/", mkVar(rk),
                            mkOpaque("(long long)sizeof *" + q->var->name,
                                     {q->var}, Scalar::Int))));
      CType it;
      it.elem = Scalar::Int;
      it.base = "int";
      Var *k = F.newVar("mpiad_rc" + std::to_string(count), it, Var::Local);
      k->loc = at;
      k->declaredInForInit = true;
      auto loop = std::make_shared<Stmt>();
      loop->kind = Stmt::For;
      loop->loc = at;
      loop->init = mkDecl(k, mkInt(0));
      loop->init->loc = at;
      loop->cond = mkBinary("<", mkVar(k), mkVar(rk));
      loop->step = mkAssign(mkVar(k), "+=", mkInt(1));
      loop->step->loc = at;
      auto copy = mkAssign(mkIndex(mkVar(rp), mkVar(k)), "=",
                           mkIndex(mkVar(q->var), mkVar(k)));
      copy->loc = at;
      loop->body.push_back(copy);
      out.push_back(loop);
      put(mkExprStmt(mkCall("free", {mkVar(q->var)}, Scalar::Void)));
    }
    put(mkAssign(mkVar(t), "=", mkVar(rp)));
    put(mkAssign(mkVar(tb), "=", mkVar(rb)));
  }
};

} // namespace

bool lowerReallocs(Function &f, Diag &diag, const CalleeFn &callee) {
  return Reallocs(f, diag, callee).run();
}

} // namespace mpiad
