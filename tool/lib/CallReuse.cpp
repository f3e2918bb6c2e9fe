//===- CallReuse.cpp - One evaluation of a math call per adjoint statement -===//
//
// The derivative rules of rules/math.rules are written in the call's own
// argument (`math tanh(x)  dx = 1.0 - tanh(x) * tanh(x)`), and the product
// rule multiplies by the other factor as written.  The reverse of
//
//   out += w[k] * tanh(a);
//
// was therefore
//
//   w_b[k] += out_b * tanh(a);
//   a_b += w[k] * out_b * (1.0 - tanh(a) * tanh(a));
//
// three calls of tanh where one suffices.  The C compiler does not merge
// them (and in each branch of an `if` among them, within the branch): under the default -fmath-errno a libm call may set errno, so it is
// not a pure function to the optimizer.  On the NNPDF-style losses of
// bench/replicas_bench.c, where tanh is most of the time, that made the
// adjoint cost twice what it must.
//
// reuseCalls takes the statements that one primal statement's reverse (or
// tangent) produced and computes each call of a math function that occurs
// more than once at their top level once, into a temporary declared before
// them (and in each branch of an `if` among them, within the branch):
//
//   double mpiad_t2 = tanh(a);
//   w_b[k] += out_b * mpiad_t2;
//   a_b += w[k] * out_b * (1.0 - mpiad_t2 * mpiad_t2);
//
// Valid because those statements only accumulate into adjoints (or declare
// temporaries of the seed): the arguments of the calls are primal values,
// which none of them writes, so every occurrence has the same value, and the
// call has no other effect (errno aside, which the generated code never
// reads).  A call that the statements evaluate only under a condition (in a
// branch of `c ? a : b`, right of && or ||) is not counted: hoisting it
// would evaluate it where the primal did not (`log(x)` under `x > 0`); it
// is replaced only where the same call is evaluated anyway.  The temporary has the
// call's type (float for tanhf), so the arithmetic is that of the
// statements as they were; each occurrence is replaced by the value it had.
//
//===----------------------------------------------------------------------===//
#include "Backend.h"
#include "Transform.h"

namespace mpiad {

void unconditionalCalls(const ExprP &e,
                        const std::function<bool(const ExprP &)> &want,
                        bool nested, std::vector<ExprP> &out) {
  if (!e)
    return;
  if (e->kind == Expr::Call && want(e)) {
    out.push_back(e);
    if (!nested)
      return;
  }
  // What the primal evaluates only under a condition is left out: the
  // branches of `?:`, the right operand of && and ||.
  if (e->kind == Expr::Cond ||
      (e->kind == Expr::Binary && (e->text == "&&" || e->text == "||"))) {
    unconditionalCalls(e->ops[0], want, nested, out);
    return;
  }
  for (const ExprP &o : e->ops)
    unconditionalCalls(o, want, nested, out);
}

ExprP replaceWhere(const ExprP &e,
                   const std::function<bool(const ExprP &)> &match,
                   const ExprP &by) {
  if (!e)
    return e;
  if (match(e))
    return by;
  bool changed = false;
  std::vector<ExprP> ops;
  for (const ExprP &o : e->ops) {
    ops.push_back(replaceWhere(o, match, by));
    changed |= ops.back() != o;
  }
  if (!changed)
    return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->ops = std::move(ops);
  return copy;
}

ExprP replaceCall(const ExprP &e, const std::string &key, const ExprP &by) {
  return replaceWhere(
      e,
      [&](const ExprP &x) {
        return x->kind == Expr::Call && printExpr(x) == key;
      },
      by);
}

StmtP replaceCalls(const StmtP &s, const std::string &call, const ExprP &by) {
  ExprP rhs = replaceCall(s->rhs, call, by), lhs = replaceCall(s->lhs, call, by);
  if (rhs == s->rhs && lhs == s->lhs)
    return s;
  auto copy = std::make_shared<Stmt>(*s);
  copy->rhs = rhs;
  copy->lhs = lhs;
  return copy;
}

void reuseCalls(Block &b, const std::function<bool(const std::string &)> &pure,
                const std::function<Var *(Scalar)> &temp) {
  // The branches of an `if` (the reverse of `c ? a : b`), each on its own.
  for (StmtP &s : b)
    if (s->kind == Stmt::If) {
      auto copy = std::make_shared<Stmt>(*s);
      reuseCalls(copy->body, pure, temp);
      reuseCalls(copy->elseBody, pure, temp);
      s = copy;
    }
  // Outer calls first (a pre-order walk), so that `exp(tanh(x))` twice
  // becomes one temporary before its argument is looked at again.
  auto want = [&](const ExprP &c) {
    return pure(c->text) && c->ptrDepth == 0 &&
           (c->type == Scalar::Double || c->type == Scalar::Float) &&
           sideEffectFree(c, pure);
  };
  for (;;) {
    // The calls of the statements (of an assignment or a declaration with
    // a value); the first that occurs more than once is picked.
    std::vector<ExprP> calls;
    for (const StmtP &s : b)
      if ((s->kind == Stmt::Assign || s->kind == Stmt::Decl) && s->rhs) {
        unconditionalCalls(s->rhs, want, true, calls);
        unconditionalCalls(s->lhs, want, true, calls);
      }
    std::map<std::string, int> count;
    for (const ExprP &c : calls)
      count[printExpr(c)]++;
    ExprP pick;
    for (const ExprP &c : calls)
      if (count[printExpr(c)] > 1) {
        pick = c;
        break;
      }
    if (!pick)
      return;
    std::string key = printExpr(pick);
    Var *t = temp(pick->type);
    for (StmtP &s : b)
      if ((s->kind == Stmt::Assign || s->kind == Stmt::Decl) && s->rhs)
        s = replaceCalls(s, key, mkVar(t));
    // Before every statement of the block that reads it: the call's
    // arguments are primal values that none of them changes, or the
    // temporaries of calls picked before (`exp(mpiad_t1)` after `tanh(x)`),
    // which it must follow.
    std::set<Var *> reads;
    collectVars(pick, reads);
    size_t at = 0;
    for (size_t k = 0; k < b.size(); ++k)
      if (b[k]->kind == Stmt::Decl && reads.count(b[k]->var))
        at = k + 1;
    b.insert(b.begin() + at, mkDecl(t, pick));
  }
}

} // namespace mpiad
