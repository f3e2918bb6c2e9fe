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

class Reallocs {
public:
  Reallocs(Function &f, Diag &diag) : F(f), diag(diag) {}

  bool run() {
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
  bool ok = true;
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

bool lowerReallocs(Function &f, Diag &diag) { return Reallocs(f, diag).run(); }

} // namespace mpiad
