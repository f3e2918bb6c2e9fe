//===- Recompute.cpp - Values the reverse sweep computes again ------------===//
//
// Recording chosen by cost.  A floating local declared in a loop body and
// assigned once from a few arithmetic operations on values that nothing
// changes afterwards,
//
//   for (int i = 1; i <= nx; i++)
//     for (int j = 1; j <= ny; j++) {
//       double d = u[i * ys + j] - uobs[(i - 1) * ny + (j - 1)];
//       local += d * d;
//     }
//
// was pushed at every iteration, because the reverse of `local += d * d`
// reads d.  The reverse of the body can instead compute it again first,
// as it already does for integers such as `int c = i * ys + j;`
// (Reverse.cpp, ReverseGen::recomputed): two loads and a subtraction
// instead of a push and a pop, and no tape.
//
// A floating local recomputed so can be read by the next one
// (`double d = u[c] - v[c]; double e = d * d;`), and a branch on such
// values is taken again by the reverse sweep instead of being recorded
// (Reverse.cpp, stableOrAgain).  A reduction loop is not recomputed: on the
// logistic loss, computing z again (16 dependent multiply-adds per sample)
// cost more than the 8 bytes of tape per sample it saved.
//
// This file decides when that is valid.  The reverse of a statement s runs
// after the reverses of everything that follows s in the forward sweep,
// and the reverse sweep changes a variable only at the reverse of a
// statement that wrote it (a pop, a swap back).  So when no statement at or
// after the start of the outermost loop around s writes v, the reverse of
// s, in every iteration, sees v as s saw it, and reading v there needs no
// record either.  Positions are those of a pre-order walk of the function,
// in which the statements of a loop follow the loop; a write is any effect
// of Effects.cpp on v's alias class (element, whole value, pointer value,
// a call's or a communication's buffers).  Statements in checkpointed
// loops (whose reverse re-runs steps) and in parallel loops (kernels on the
// CUDA target, which recompute by other rules) are left out.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

namespace mpiad {

FinalValues::FinalValues(Function &fn, const Frontend &fe) : f(fn) {
  int pos = 0;
  // outer: the position of the outermost enclosing loop, or -1.
  std::function<void(const Block &, int, bool)> visit;
  std::function<void(const StmtP &, int, bool)> one =
      [&](const StmtP &sp, int outer, bool excluded) {
        if (!sp)
          return;
        Stmt &s = *sp;
        int here = pos++;
        bool loop = s.kind == Stmt::For || s.kind == Stmt::While ||
                    s.kind == Stmt::DoWhile;
        bool ex = excluded || (loop && (s.checkpoint || s.parallel));
        int o = outer >= 0 ? outer : (loop ? here : -1);
        if (!ex && !loop)
          start[&s] = o >= 0 ? o : here;
        switch (s.kind) {
        case Stmt::Assign:
        case Stmt::ExprStmt:
        case Stmt::Comm:
        case Stmt::Decl:
          for (const Effect &e : effectsOf(s, fe))
            if (e.target) {
              const Var *r = aliasRoot(f, e.target);
              int &w = lastWrite.emplace(r, here).first->second;
              w = std::max(w, here);
            }
          break;
        default:
          break;
        }
        one(s.init, o, ex);
        one(s.step, o, ex);
        visit(s.body, o, ex);
        visit(s.elseBody, o, ex);
      };
  visit = [&](const Block &b, int outer, bool excluded) {
    for (const StmtP &s : b)
      one(s, outer, excluded);
  };
  visit(f.body, -1, false);
}

bool FinalValues::unchangedFrom(const Stmt *s, Var *v) const {
  auto st = start.find(s);
  if (st == start.end() || !v)
    return false;
  auto w = lastWrite.find(aliasRoot(f, v));
  return w == lastWrite.end() || w->second < st->second;
}

bool FinalValues::cheap(const Stmt *s, const ExprP &e,
                        const std::function<bool(const ExprP &)> &intOk,
                        int &budget) const {
  if (!e || --budget < 0)
    return false;
  switch (e->kind) {
  case Expr::IntLit:
  case Expr::FloatLit:
    return true;
  case Expr::VarRef:
    // intOk also accepts the locals recomputed before (Reverse.cpp).
    if (e->var->type.isIntScalar() || intOk(e))
      return intOk(e);
    return e->var->type.isFloatingScalar() && unchangedFrom(s, e->var);
  case Expr::Index:
    // a[k]: a a plain variable (pointer or array) unchanged from s, k an
    // integer the reverse can compute again.
    return e->ops.size() == 2 && e->ops[0]->kind == Expr::VarRef &&
           e->isFloating() && unchangedFrom(s, e->ops[0]->var) &&
           intOk(e->ops[1]);
  case Expr::Unary:
    if (e->text == "++" || e->text == "--" || e->text == "*" ||
        e->text == "&")
      return false;
    return cheap(s, e->ops[0], intOk, budget);
  case Expr::Binary:
  case Expr::Cond:
  case Expr::Cast:
    for (const ExprP &o : e->ops)
      if (!cheap(s, o, intOk, budget))
        return false;
    return true;
  default:
    return false;
  }
}

bool FinalValues::cheapAgain(
    const Stmt *s, const ExprP &e,
    const std::function<bool(const ExprP &)> &intOk) const {
  // A dozen nodes: a stencil point, a difference, a scaled sum.
  int budget = 12;
  return cheap(s, e, intOk, budget);
}

} // namespace mpiad
