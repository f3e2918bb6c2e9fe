//===- DeferredSeed.cpp - A sum's loop differentiated inside the loop -----===//
//
// A loss summed over samples, then reduced and scaled:
//
//   for (int i = 0; i < n; i++) {
//     double z = b; ... double m = -y[i] * z;
//     local += log(1.0 + exp(m));          // (branches, calls of libm)
//   }
//   MPI_Allreduce(&local, &total, ...); MPI_Allreduce(&count, &total_count, ...);
//   return total / total_count + ...;
//
// The reverse sweep reaches the loop with local_b = loss_bar / total_count,
// a value known only after the loop and the reductions, so the loop's
// reverse runs as a second pass over the samples, and whatever it reads of
// each iteration (m) is recorded.  But the reverse of such a loop is linear
// in local_b, which it only reads: every adjoint it adds into (w_b, b_b) gets
// local_b times what a seed of 1 would give.  So the forward sweep runs each
// iteration's reverse right after the iteration, for a seed of 1, into
// accumulators of its own, and the reverse sweep, where the loop's reverse
// was, scales them by local_b:
//
//   double *w_b_part_u = mpiad_alloc_zeroed(d, ...); double b_b_acc_u = 0.0;
//   for (int i = 0; i < n; i++) {
//     ... the iteration ...
//     /* adjoint of this iteration, for a seed of 1 of local */
//     m_b += 1.0 * ...; z_b += -(y[i] * m_b); m_b = 0;
//     for (...) w_b_part_u[j] += z_b * X[i * d + j];
//     b_b_acc_u += z_b; z_b = 0;
//   }
//   ...
//   /* reverse sweep */ ...
//   for (k ...) w_b_part[k] += local_b * w_b_part_u[k];
//   b_b_acc += local_b * b_b_acc_u;
//
// One pass over the data instead of two, and nothing recorded: a record of
// a scalar that the iteration assigns once is not needed when its reverse
// runs right after it, and a loop that would still push and pop at every
// iteration is left as it is (switching between pushes and pops costs a
// call into the runtime each time).  (This is
// what a hand-written adjoint of the logistic loss does: it sums the
// per-sample gradients and scales them by 1 / N after the reduction.)
//
// Called by Reverse.cpp on each counted loop of the function's body whose
// forward code is the loop alone and whose reverse is the reversed loop
// alone.  The conditions, on the loop's generated bodies (F the forward
// iteration, B its reverse):
//   - B reads exactly one adjoint that it never writes, a scalar: the seed;
//   - every other adjoint B writes is either a target, only added to
//     (`t += ...`, `t[k] -= ...`) and never read, a scalar or an array
//     whose index does not depend on the loop's counter (the adjoint of a
//     model's parameters) and whose length is known, or a local, a scalar
//     that B leaves zero when it starts at zero (`v = 0` last, in B or in
//     the body of each of its loops that write v), which then also starts
//     every iteration at zero;
//   - B calls nothing but the math functions of the rules table
//     (rules/math.rules) and the tape's pops, has no communication,
//     no jump, and writes no variable of the program that the function
//     names outside the loop or that F reads before assigning it (the
//     values B restores or recomputes are dead after the iteration: the
//     next one assigns them before reading them);
//   - F names no adjoint.
// Each statement of B adds to an adjoint a product of values of the program
// and of adjoints, linear in the adjoints (that is what reverse mode
// generates): with the locals starting at zero, what B adds to the targets
// is the seed times what it adds for a seed of 1.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Transform.h"
#include <algorithm>

namespace mpiad {

namespace {

/// How a block uses its variables.
struct Uses {
  const PureCall &pure; // the math functions B may call, besides the pops
  std::set<Var *> read, assigned, added;
  /// Targets indexed by an expression with the loop's counter in it.
  std::set<Var *> perIteration;
  bool ok = true;

  void reads(const ExprP &e) {
    if (!e)
      return;
    collectVars(e, read);
    visitExpr(e, [&](const Expr &x) {
      if (x.kind == Expr::Call && !pure(x.text) &&
          x.text.rfind("mpiad_pop_", 0) != 0)
        ok = false;
      if (x.kind == Expr::AddrOf)
        ok = false;
    });
  }

  void block(const Block &b, const Var *i) {
    for (const StmtP &s : b)
      stmt(*s, i);
  }

  void stmt(const Stmt &s, const Var *i) {
    switch (s.kind) {
    case Stmt::Assign: {
      Var *t = nullptr;
      if (s.lhs->kind == Expr::VarRef) {
        t = s.lhs->var;
      } else if (s.lhs->kind == Expr::Index &&
                 s.lhs->ops[0]->kind == Expr::VarRef) {
        t = s.lhs->ops[0]->var;
        reads(s.lhs->ops[1]);
        std::set<Var *> idx;
        collectVars(s.lhs->ops[1], idx);
        if (idx.count(const_cast<Var *>(i)))
          perIteration.insert(t);
      } else {
        ok = false;
        return;
      }
      if (s.op == "+=" || s.op == "-=")
        added.insert(t);
      else if (s.op == "=")
        assigned.insert(t);
      else
        ok = false;
      reads(s.rhs);
      return;
    }
    case Stmt::Decl:
      assigned.insert(s.var);
      reads(s.rhs);
      return;
    case Stmt::ExprStmt:
      reads(s.rhs);
      return;
    case Stmt::If:
      reads(s.cond);
      block(s.body, i);
      block(s.elseBody, i);
      return;
    case Stmt::For:
      if (s.init)
        stmt(*s.init, i);
      reads(s.cond);
      if (s.step)
        stmt(*s.step, i);
      block(s.body, i);
      return;
    case Stmt::Compound:
      block(s.body, i);
      return;
    case Stmt::Comment:
      return;
    default: // while loops, jumps, returns, communication
      ok = false;
      return;
    }
  }
};

/// Does the forward iteration read v before it assigns it, on some path
/// (in a loop, before the body assigns it)?  `assigned`: v holds a value of
/// this iteration on entry; on exit, whether it does after b.  The records
/// of v (`mpiad_push_f64(v)`) do not count as reads: what they save is
/// restored, never used, in the fused loop.
bool exposedRead(const Block &b, const Var *v, bool &assigned) {
  auto reads = [&](const ExprP &e) {
    std::set<Var *> vs;
    if (e)
      collectVars(e, vs);
    return vs.count(const_cast<Var *>(v)) > 0;
  };
  for (const StmtP &sp : b) {
    const Stmt &s = *sp;
    switch (s.kind) {
    case Stmt::Assign: {
      bool self = s.lhs->kind == Expr::VarRef && s.lhs->var == v;
      bool idx = s.lhs->kind == Expr::Index && reads(s.lhs->ops[1]);
      if (!assigned && (reads(s.rhs) || idx || (self && s.op != "=")))
        return true;
      if (self && s.op == "=")
        assigned = true;
      break;
    }
    case Stmt::Decl:
      if (!assigned && reads(s.rhs))
        return true;
      if (s.var == v)
        assigned = true;
      break;
    case Stmt::ExprStmt: {
      bool record = s.rhs && s.rhs->kind == Expr::Call &&
                    s.rhs->text.rfind("mpiad_push_", 0) == 0;
      if (!assigned && !record && reads(s.rhs))
        return true;
      break;
    }
    case Stmt::If: {
      if (!assigned && reads(s.cond))
        return true;
      bool a = assigned, e = assigned;
      if (exposedRead(s.body, v, a) || exposedRead(s.elseBody, v, e))
        return true;
      assigned = a && e;
      break;
    }
    case Stmt::For: {
      bool a = assigned;
      if (s.init && exposedRead({s.init}, v, a))
        return true;
      if (!a && reads(s.cond))
        return true;
      bool inBody = a;
      if (exposedRead(s.body, v, inBody) ||
          (s.step && exposedRead({s.step}, v, inBody)))
        return true;
      assigned = a; // the body may not run
      break;
    }
    case Stmt::Compound:
      if (exposedRead(s.body, v, assigned))
        return true;
      break;
    case Stmt::Comment:
      break;
    default:
      if (!assigned && namesVar({sp}, v))
        return true;
    }
  }
  return false;
}

/// Is the adjoint v zero after b, when it is (`zero`) before?  Only
/// `v = 0` makes it zero; a loop keeps it zero when its body does.
bool zeroAtEnd(const Block &b, const Var *v, bool zero) {
  for (const StmtP &sp : b) {
    const Stmt &s = *sp;
    if (!namesVar({sp}, v))
      continue;
    switch (s.kind) {
    case Stmt::Assign:
      if (s.lhs->kind == Expr::VarRef && s.lhs->var == v)
        zero = s.op == "=" && isZeroLiteral(s.rhs);
      else if (s.lhs->kind != Expr::VarRef && baseVar(s.lhs) == v)
        return false;
      break; // otherwise a read
    case Stmt::Decl:
    case Stmt::ExprStmt:
      break; // reads (B takes no address: Uses)
    case Stmt::If:
      zero = zeroAtEnd(s.body, v, zero) && zeroAtEnd(s.elseBody, v, zero);
      break;
    case Stmt::For:
      zero = zero && zeroAtEnd(s.body, v, true);
      break;
    case Stmt::Compound:
      zero = zeroAtEnd(s.body, v, zero);
      break;
    default:
      return false;
    }
  }
  return zero;
}

/// The record of a scalar v in fb (`mpiad_push_f64(v);` at its top level)
/// and its restore in rb (`v = mpiad_pop_f64();`) are needed no more when
/// the iteration's reverse runs right after it: v keeps the value the
/// iteration gave it until the reverse is done.  Removes both where v is
/// recorded once, restored once, and named nowhere after the restore.
void dropRecords(Block &fb, Block &rb) {
  for (size_t p = 0; p < fb.size(); ++p) {
    const Stmt &s = *fb[p];
    if (s.kind != Stmt::ExprStmt || !s.rhs || s.rhs->kind != Expr::Call ||
        (s.rhs->text != "mpiad_push_f64" && s.rhs->text != "mpiad_push_f32") ||
        s.rhs->ops.size() != 1 || s.rhs->ops[0]->kind != Expr::VarRef)
      continue;
    Var *v = s.rhs->ops[0]->var;
    std::string pop = "mpiad_pop_" + s.rhs->text.substr(11);
    int pushes = 0, pops = 0;
    size_t at = rb.size();
    auto count = [&](const Block &b, bool restores) {
      walk(b, [&](Stmt &x, const WalkCtx &) {
        if (!restores && x.kind == Stmt::ExprStmt && x.rhs &&
            x.rhs->kind == Expr::Call &&
            x.rhs->text.rfind("mpiad_push_", 0) == 0 &&
            namesVar({std::make_shared<Stmt>(x)}, v))
          ++pushes;
        if (restores && x.kind == Stmt::Assign && x.lhs->kind == Expr::VarRef &&
            x.lhs->var == v && x.rhs->kind == Expr::Call &&
            x.rhs->text.rfind("mpiad_pop_", 0) == 0)
          ++pops;
      });
    };
    count(fb, false);
    count(rb, true);
    for (size_t k = 0; k < rb.size() && at == rb.size(); ++k)
      if (rb[k]->kind == Stmt::Assign && rb[k]->lhs->kind == Expr::VarRef &&
          rb[k]->lhs->var == v && rb[k]->rhs->kind == Expr::Call &&
          rb[k]->rhs->text == pop)
        at = k;
    if (pushes != 1 || pops != 1 || at == rb.size() ||
        namesVar(Block(rb.begin() + at + 1, rb.end()), v))
      continue;
    rb.erase(rb.begin() + at);
    fb.erase(fb.begin() + p);
    --p;
  }
}

} // namespace

bool deferredSeed(Function &F, const Stmt &loop, const StmtP &fwdLoop,
                  const StmtP &revLoop, const DeferredSeedContext &cx,
                  StmtP &fused, Block &before, Block &scale) {
  Var *i = loop.loopVar;
  if (loop.kind != Stmt::For || !i || loop.checkpoint || loop.parallel ||
      fwdLoop->kind != Stmt::For || revLoop->kind != Stmt::For ||
      revLoop->loopVar != i)
    return false;
  const Block &fb = fwdLoop->body, &rb = revLoop->body;
  Uses u{cx.pure, {}, {}, {}, {}, true};
  u.block(rb, i);
  if (!u.ok || hasJump(rb))
    return false;
  // The forward iteration names no adjoint.
  std::set<Var *> inF;
  referenced(fb, inF);
  for (Var *v : inF)
    if (cx.isShadow(v))
      return false;
  std::set<Var *> all = u.read;
  all.insert(u.assigned.begin(), u.assigned.end());
  all.insert(u.added.begin(), u.added.end());
  Var *seed = nullptr;
  std::vector<Var *> targets;
  for (Var *v : all) {
    bool scalar = v->type.ptrDepth == 0 && v->type.dims.empty();
    if (!cx.isShadow(v)) {
      // The program's own variables: B may read them; what it writes
      // (restored, recomputed, inner counters) must be dead after it: a
      // local of the function named only in the loop, and assigned by each
      // iteration before it is read.
      if (!(u.assigned.count(v) || u.added.count(v)) || v->declaredInForInit)
        continue;
      Var *root = aliasRoot(F, v);
      bool assigned = false;
      if ((root->kind != Var::Local && root->kind != Var::Synthetic) ||
          namedOutside(F.body, loop, v) || exposedRead(fb, v, assigned))
        return false;
      continue;
    }
    bool written = u.assigned.count(v) || u.added.count(v);
    if (!written) { // read only: the seed
      if (seed || !scalar)
        return false;
      seed = v;
      continue;
    }
    if (!u.read.count(v) && !u.assigned.count(v)) { // added to only
      // An array target is a plain pointer (its accumulator is one too;
      // not a pointer to rows).
      bool flat = v->type.ptrDepth == 1 && v->type.dims.empty() &&
                  !v->type.ptrToArray;
      if (!scalar && (!flat || u.perIteration.count(v) || !cx.length(v)))
        return false;
      targets.push_back(v);
      continue;
    }
    // A local: a scalar that B leaves zero.
    if (!scalar || !zeroAtEnd(rb, v, true))
      return false;
  }
  if (!seed || targets.empty())
    return false;
  // In a fixed order (the sets are ordered by address).
  std::sort(targets.begin(), targets.end(),
            [](const Var *a, const Var *b) { return a->name < b->name; });

  // B for a seed of 1, into accumulators of its own.
  Block unit;
  if (!substituteVar(rb, seed, mkFloat("1.0"), unit))
    return false;
  Block made, scaled;
  for (Var *t : targets) {
    bool scalar = t->type.ptrDepth == 0 && t->type.dims.empty();
    CType ut = t->type;
    ut.dims.clear();
    if (!scalar) {
      ut.ptrDepth = 1;
      ut.base = t->type.elemName();
    }
    Var *tu = cx.newVar(t->name + "_u", ut);
    if (!substituteVar(unit, t, mkVar(tu), unit))
      return false;
    if (scalar) {
      made.push_back(mkDecl(tu, mkFloat("0.0")));
      scaled.push_back(
          mkAssign(mkVar(t), "+=", mkBinary("*", mkVar(seed), mkVar(tu))));
      continue;
    }
    ExprP len = cx.length(t);
    made.push_back(mkDecl(tu, cx.zeroed(len, tu, t)));
    scaled.push_back(cx.elementwise(len, [&](const ExprP &k) {
      return mkAssign(mkIndex(mkVar(t), k), "+=",
                      mkBinary("*", mkVar(seed), mkIndex(mkVar(tu), k)));
    }));
    scaled.push_back(mkExprStmt(mkCall("free", {mkVar(tu)}, Scalar::Void)));
  }
  Block forward = fb;
  dropRecords(forward, unit);
  // A record left in the iteration would be pushed and popped at every
  // iteration, each switch between pushing and popping a call into the
  // runtime (mpiad.h): slower than the two sweeps (measured on the mlp loss
  // of bench/replicas.sh, whose tanh of each hidden unit is recorded in an
  // inner loop: 4 to 8 % slower fused).
  bool taped = false;
  for (const Block *blk : {&forward, &unit})
    walk(*blk, [&](Stmt &st, const WalkCtx &) {
      for (const ExprP &e : {st.lhs, st.rhs, st.cond})
        visitExpr(e, [&](const Expr &x) {
          taped |= x.kind == Expr::Call &&
                   (x.text.rfind("mpiad_push", 0) == 0 ||
                    x.text.rfind("mpiad_pop", 0) == 0);
        });
    });
  if (taped)
    return false;
  auto loopCopy = std::make_shared<Stmt>(*fwdLoop);
  loopCopy->body = forward;
  loopCopy->body.push_back(
      mkComment("adjoint of this iteration, for " + seed->name +
                " = 1 (the reverse sweep scales it by " + seed->name + ")"));
  append(loopCopy->body, unit);
  fused = loopCopy;
  before = made;
  scale = {mkComment("adjoint of the loop, run inside it for " +
                     seed->name + " = 1: times " + seed->name)};
  append(scale, scaled);
  return true;
}

} // namespace mpiad
