//===- Verify.cpp - The read verifier of --verify --------------------------===//
//
// Reads: the forward-sweep code and the reverse-sweep code of one leaf
// statement (an assignment, a call, a communication call), as the reverse
// generator made them.  Changes: adds, before the forward code, a
// `mpiad_verify_push(e);` for each value e of the program that the reverse
// code reads (a variable or an array element of floating or integer type),
// and to the reverse code, where those reads begin (after the pops that
// restore the statement's own old values), a `mpiad_verify_check(e, ...)`
// for each, in the opposite order.  The runtime (runtime/verify.c) keeps the
// pushed values on a stack of its own and stops the program where a value
// the adjoint reads differs from the one the forward sweep had: a value that
// was overwritten and not restored, whatever the recording analysis decided.
//
// Statements whose adjoint runs another function's reverse (a call of a
// same-file function) are not instrumented themselves (the helper's own
// statements are), nor values whose read is meant to see the statement's
// result (`t = tanh(a)`, CallHoist.cpp).  The optimisations that move an
// adjoint away from its statement (gathers, deferred seeds, sweep fusion)
// are off under --verify (Reverse.cpp).
//
//===----------------------------------------------------------------------===//
#include "Verify.h"
#include "Backend.h"
#include "Emit.h"
#include "Transform.h"

namespace mpiad {

namespace {

bool numericValue(const ExprP &e) {
  return e->ptrDepth == 0 && (e->type == Scalar::Double ||
                              e->type == Scalar::Float ||
                              e->type == Scalar::Int);
}

/// The values of the program that e reads, in order, without repeats.
void readValues(const ExprP &e, const std::function<bool(Var *)> &primal,
                std::vector<ExprP> &out, std::set<std::string> &seen) {
  if (!e)
    return;
  auto add = [&](const ExprP &x) {
    if (seen.insert(printExpr(x)).second)
      out.push_back(x);
  };
  if (e->kind == Expr::VarRef) {
    Var *v = e->var;
    if (primal(v) && v->type.ptrDepth == 0 && v->type.dims.empty() &&
        numericValue(e))
      add(e);
    return;
  }
  if (e->kind == Expr::Index) {
    Var *b = baseVar(e);
    // The index first: a wrong counter is reported as such.
    for (const Expr *x = e.get(); x->kind == Expr::Index;
         x = x->ops[0].get())
      readValues(x->ops[1], primal, out, seen);
    if (b && primal(b) && numericValue(e))
      add(e);
    return;
  }
  if (e->kind == Expr::Opaque || e->kind == Expr::AddrOf)
    return; // source text, or an address: no value read
  for (const ExprP &o : e->ops)
    readValues(o, primal, out, seen);
}

} // namespace

void addReadChecks(Block &fwd, Block &rev, const VerifySite &site,
                   const std::function<bool(Var *)> &primal) {
  std::vector<ExprP> values;
  std::set<std::string> seen;
  size_t at = rev.size(); // where the reads begin
  for (size_t k = 0; k < rev.size(); ++k) {
    const Stmt &s = *rev[k];
    Var *t = nullptr;
    if (s.kind == Stmt::Assign)
      t = baseVar(s.lhs);
    else if (s.kind == Stmt::Decl)
      t = s.var;
    // Restores of the program's own values (pops, `k -= 1`) come first and
    // read what the statement left; the adjoint reads after them.
    if (t && primal(t) && s.kind == Stmt::Assign) {
      if (at == rev.size())
        continue;
      break; // a restore after the adjoint (CallHoist's value): stop there
    }
    if (s.kind != Stmt::Assign && s.kind != Stmt::Decl &&
        s.kind != Stmt::ExprStmt && s.kind != Stmt::Comm)
      break; // nested blocks: their own statements are checked
    if (at == rev.size())
      at = k;
    if (s.kind == Stmt::Assign) {
      if (s.lhs->kind == Expr::Index)
        readValues(s.lhs, [&](Var *v) { return primal(v) && v != t; },
                   values, seen);
      readValues(s.rhs, primal, values, seen);
    } else if (s.kind == Stmt::Decl) {
      readValues(s.rhs, primal, values, seen);
    } else if (s.kind == Stmt::ExprStmt) {
      readValues(s.rhs, primal, values, seen);
    } else {
      for (const ExprP &a : s.comm.args)
        readValues(a, primal, values, seen);
    }
  }
  std::vector<ExprP> kept;
  for (const ExprP &v : values)
    if (!site.skip.count(baseVar(v)))
      kept.push_back(v);
  if (kept.empty())
    return;
  Block pushes, checks;
  for (const ExprP &v : kept)
    pushes.push_back(mkExprStmt(mkCall("mpiad_verify_push", {v}, Scalar::Void)));
  std::string names, values_;
  for (Var *c : site.counters) {
    names += (names.empty() ? "" : ", ") + c->userName;
    values_ += (values_.empty() ? "" : ", ") + c->name;
  }
  ExprP counterArray =
      site.counters.empty()
          ? mkOpaque("NULL")
          : mkOpaque("(const long[]){" + values_ + "}");
  for (size_t k = kept.size(); k-- > 0;) {
    std::string text = printExpr(kept[k]);
    checks.push_back(mkExprStmt(mkCall(
        "mpiad_verify_check",
        {kept[k], mkOpaque(quoted(text)), mkOpaque(quoted(site.where)),
         mkOpaque(quoted(names)), counterArray,
         mkInt((long long)site.counters.size())},
        Scalar::Void)));
  }
  fwd.insert(fwd.begin(), pushes.begin(), pushes.end());
  rev.insert(rev.begin() + (long)at, checks.begin(), checks.end());
}

} // namespace mpiad
