//===- CallHoist.cpp - Derivatives from a call's value, not its argument ---===//
//
// The derivative of tanh is a function of its value: d tanh(a) = 1 - t^2
// with t = tanh(a); so are those of exp, sqrt and cbrt.  An expert's
// adjoint of
//
//   for (int k = 0; k < h; k++) {
//     double a = 0.0;
//     for (int j = 0; j < d; j++)
//       a += w[k * d + j] * X[i * d + j];
//     out += w[h * d + k] * tanh(a);
//   }
//
// keeps the activation t = tanh(a) from the forward sweep and calls tanh
// nowhere in the reverse sweep.  mpiad-cc kept a and called tanh(a) again
// in the reverse sweep, once per unit and sample: on the NNPDF-style losses
// of bench/replicas_bench.c tanh was most of the adjoint's time.
//
// hoistResultCalls, run on the primal after normalization (before the
// replicas are batched), gives such a call a local of its own,
//
//     double mpiad_h1;          (declared in the block)
//     mpiad_h1 = tanh(a);       (Stmt::resultRead)
//     out += w[h * d + k] * mpiad_h1;
//
// and marks the assignment, as it marks a user's own `double t = tanh(z);`.
// The reverse of a marked assignment (Reverse.cpp) computes the derivative
// from the value assigned, `a_b += mpiad_h1_b * (1.0 - mpiad_h1 * mpiad_h1)`,
// before popping the old value, and the recording analysis
// (ToBeRecorded.cpp, ReverseReads::post) keeps that value live after the
// statement, so that later writes of it record it.
//
// It does so only where the tape does not grow: when every floating
// variable of the call's arguments is a scalar local whose every read in
// the function is inside this same call, the call occurring once (`a`
// above; its `a += ...` is not counted as a read: the reverse of an
// accumulation does not read its target), and which is assigned more than
// once or from a call (a local assigned once from arithmetic may be
// computed again by the reverse sweep, Recompute.cpp, at no tape).  Then the reverse
// sweep no longer reads the argument, which is no longer recorded, and the
// call's value is recorded in its place: the same bytes, one call fewer per
// evaluation.  Where the argument is read elsewhere too (the logistic loss's
// `m`, which also decides a branch), recording the value as well would add
// to the tape, and nothing changes.  Which functions qualify is read from
// the rules: every derivative of the rule must use its parameters only
// inside the call itself (`math tanh(x)  dx = 1.0 - tanh(x) * tanh(x)`).
// Calls evaluated under a condition (a branch of ?:, right of && or ||),
// and statements of checkpointed or parallel loops (whose reverse re-runs
// or recomputes the forward body), are left as they are.
//
// hoistStatefulCalls, run before normalization in both modes, does the same
// for calls whose value differs from call to call (rand, drand48, clock,
// MPI_Wtime, ...) inside an assigned value or a condition:
// `t = x[i] * (1.0 + 1e-3 * (rand() % 7))` called rand() again in the
// reverse sweep, in the partial derivative of t by x[i], and in the
// tangent; the gradient was silently wrong.  The call now assigns a local
// of its own just before the statement, which both read.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "Rules.h"
#include "Transform.h"

#include <set>

namespace mpiad {

namespace {

/// A local `name` of type t, declared and assigned the call c at loc (both
/// statements appended to `before`).
Var *callLocal(Function &F, const std::string &name, const CType &t,
               const ExprP &c, clang::SourceLocation loc, Block &before) {
  Var *h = F.newVar(name, t, Var::Local);
  h->loc = loc;
  StmtP decl = mkDecl(h);
  decl->loc = loc;
  StmtP def = mkAssign(mkVar(h), "=", c);
  def->loc = loc;
  before.push_back(decl);
  before.push_back(def);
  return h;
}

/// Does e use the rule's parameters only as the arguments of the call
/// `name(p1, p2, ...)` itself?
bool onlyThroughCall(const ExprP &e, const MathRule &r) {
  if (!e)
    return true;
  if (e->kind == Expr::Call && e->text == r.name &&
      e->ops.size() == r.params.size()) {
    bool same = true;
    for (size_t k = 0; k < r.params.size(); ++k)
      same &= e->ops[k]->kind == Expr::Opaque && e->ops[k]->text == r.params[k];
    if (same)
      return true;
  }
  if (e->kind == Expr::Opaque)
    for (const std::string &p : r.params)
      if (e->text == p)
        return false;
  for (const ExprP &o : e->ops)
    if (!onlyThroughCall(o, r))
      return false;
  return true;
}

/// Is every derivative of the rule a function of the call's value alone?
bool derivativeFromValue(const MathRule &r) {
  bool any = false;
  for (const ExprP &d : r.derivs)
    if (d) {
      any = true;
      if (!onlyThroughCall(d, r))
        return false;
    }
  return any;
}

class Hoister {
public:
  Hoister(Function &F, const RuleSet &rules) : F(F), rules(rules) {}

  void run() {
    countReads(F.body);
    block(F.body);
  }

private:
  Function &F;
  const RuleSet &rules;
  // Per floating scalar local: the printed calls its reads are in (one
  // entry per read; "" for a read outside any call of a qualifying rule),
  // and whether its address is taken.
  std::map<Var *, std::vector<std::string>> readsIn;
  std::set<Var *> addressed;
  std::map<std::string, int> callCount; // occurrences of each call
  // Assignments per variable, and whether one of them calls a function.
  std::map<Var *, int> assigns;
  std::set<Var *> callAssigned;
  int count = 0;

  bool qualifies(const Expr &call) const {
    if (call.kind != Expr::Call || call.ptrDepth != 0 ||
        call.type != Scalar::Double)
      return false;
    const MathRule *r = rules.math(call.text);
    return r && r->params.size() == call.ops.size() && derivativeFromValue(*r);
  }

  void readsOf(const ExprP &e, const std::string &inCall) {
    if (!e)
      return;
    if (e->kind == Expr::AddrOf)
      if (Var *v = baseVar(e->ops[0]))
        addressed.insert(v);
    if (e->kind == Expr::VarRef)
      readsIn[e->var].push_back(inCall);
    std::string here = inCall;
    if (here.empty() && qualifies(*e)) {
      here = printExpr(e);
      callCount[here]++;
    }
    for (const ExprP &o : e->ops)
      readsOf(o, here);
    for (Var *v : e->vars) // opaque text: a read outside any call
      readsIn[v].push_back("");
  }

  void countAssign(const Stmt &s) {
    if (s.kind != Stmt::Assign || !s.lhs || s.lhs->kind != Expr::VarRef)
      return;
    assigns[s.lhs->var]++;
    bool call = false;
    visitExpr(s.rhs, [&](const Expr &e) { call |= e.kind == Expr::Call; });
    if (call)
      callAssigned.insert(s.lhs->var);
  }

  void countReads(const Block &b) {
    walk(b, [&](Stmt &s, const WalkCtx &) {
      countAssign(s);
      if (s.init)
        countAssign(*s.init);
      if (s.step)
        countAssign(*s.step);
      // The target of an assignment is written, not read (its indices are).
      if (s.kind == Stmt::Assign && s.lhs && s.lhs->kind != Expr::VarRef)
        readsOf(s.lhs, "");
      if (s.kind != Stmt::Assign && s.lhs)
        readsOf(s.lhs, "");
      // `v += e` reads v, but its reverse does not (`v *= e` arrives as
      // `v = v * e`, which reads v on the right).
      readsOf(s.rhs, "");
      readsOf(s.cond, "");
      for (const StmtP &h : {s.init, s.step}) // a loop's head
        if (h) {
          readsOf(h->rhs, "");
          if (h->lhs && (h->lhs->kind != Expr::VarRef || h->op != "="))
            readsOf(h->lhs, "");
        }
      if (s.kind == Stmt::Comm)
        for (const ExprP &a : s.comm.args)
          readsOf(a, "");
    });
  }

  /// The call's floating arguments are scalar locals read nowhere else.
  bool argumentsFreed(const ExprP &call) {
    std::set<Var *> vs;
    collectVars(call, vs);
    std::string key = printExpr(call);
    if (callCount[key] != 1) // two records for one argument's
      return false;
    bool floating = false;
    for (Var *v : vs) {
      if (v->type.isIntScalar())
        continue;
      if (!v->type.isFloatingScalar() || v->kind != Var::Local ||
          addressed.count(v) || v->fieldOf)
        return false;
      for (const std::string &in : readsIn[v])
        if (in != key)
          return false;
      // Assigned once from arithmetic, v may be computed again by the
      // reverse sweep instead of recorded (Recompute.cpp): recording the
      // call's value would then add to the tape.
      if (assigns[v] < 2 && !callAssigned.count(v))
        return false;
      floating = true;
    }
    return floating;
  }

  void block(Block &b) {
    for (size_t k = 0; k < b.size(); ++k) {
      StmtP &s = b[k];
      switch (s->kind) {
      case Stmt::If:
        block(s->body);
        block(s->elseBody);
        continue;
      case Stmt::For:
      case Stmt::While:
      case Stmt::DoWhile:
        if (!s->checkpoint && !s->parallel)
          block(s->body);
        continue;
      case Stmt::Compound:
        block(s->body);
        continue;
      case Stmt::Assign:
        break;
      default:
        continue;
      }
      if (!s->lhs->isFloating() || !s->rhs)
        continue;
      // The user's own `t = tanh(a);`, t a scalar: marked as it is.  (An
      // array element's value read after the statement would keep the whole
      // array live, and make the copy-back and stencil stages record it.)
      if (s->op == "=" && s->lhs->kind == Expr::VarRef &&
          s->lhs->var->type.isFloatingScalar() && qualifies(*s->rhs) &&
          argumentsFreed(s->rhs)) {
        s->resultRead = true;
        continue;
      }
      std::vector<ExprP> calls; // outer first, not those inside them
      unconditionalCalls(
          s->rhs,
          [&](const ExprP &c) {
            return qualifies(*c) && sideEffectFree(c, [&](const std::string &f) {
                     return rules.math(f) != nullptr;
                   });
          },
          false, calls);
      StmtP cur = s;
      Block before;
      for (const ExprP &c : calls) {
        if (!argumentsFreed(c))
          continue;
        CType t;
        t.elem = Scalar::Double;
        t.base = "double";
        Var *h = callLocal(F, "mpiad_h" + std::to_string(++count), t, c,
                           cur->loc, before);
        before.back()->resultRead = true;
        auto copy = std::make_shared<Stmt>(*cur);
        copy->rhs = replaceCall(cur->rhs, printExpr(c), mkVar(h));
        cur = copy;
      }
      if (before.empty())
        continue;
      b[k] = cur;
      b.insert(b.begin() + k, before.begin(), before.end());
      k += before.size();
    }
  }
};

} // namespace

void hoistResultCalls(Function &F, const RuleSet &rules) {
  Hoister(F, rules).run();
}

namespace {

/// Calls whose value differs from one call to the next.
bool stateful(const std::string &f) {
  static const std::set<std::string> names = {
      "rand",    "random",  "rand_r",  "drand48", "erand48",
      "lrand48", "nrand48", "mrand48", "jrand48", "clock",
      "time",    "MPI_Wtime", "omp_get_wtime"};
  return names.count(f) > 0;
}

void hoistStateful(Function &F, Block &b, int &count) {
  for (size_t k = 0; k < b.size(); ++k) {
    StmtP s = b[k];
    hoistStateful(F, s->body, count);
    hoistStateful(F, s->elseBody, count);
    ExprP *where = s->kind == Stmt::If ? &s->cond
                   : (s->kind == Stmt::Assign ||
                      (s->kind == Stmt::Decl && s->rhs))
                       ? &s->rhs
                       : nullptr;
    if (!where || !*where)
      continue;
    std::vector<ExprP> calls;
    unconditionalCalls(
        *where, [](const ExprP &c) { return stateful(c->text); }, false,
        calls);
    // `x = rand();` already keeps the value.
    if (calls.size() == 1 && calls[0] == *where && s->kind != Stmt::If)
      continue;
    if (calls.empty())
      continue;
    auto copy = std::make_shared<Stmt>(*s);
    Block before;
    for (const ExprP &c : calls) {
      CType t;
      if (c->isFloating()) {
        t.elem = Scalar::Double;
        t.base = "double";
      } else {
        t.elem = Scalar::Int;
        t.base = "long long";
      }
      Var *h = callLocal(F, "mpiad_s" + std::to_string(++count), t, c,
                         s->loc, before);
      ExprP &e = s->kind == Stmt::If ? copy->cond : copy->rhs;
      e = replaceWhere(
          e, [&](const ExprP &x) { return x == c; }, mkVar(h));
    }
    b[k] = copy;
    b.insert(b.begin() + k, before.begin(), before.end());
    k += before.size();
  }
}

} // namespace

void hoistStatefulCalls(Function &F) {
  int count = 0;
  hoistStateful(F, F.body, count);
}

} // namespace mpiad
