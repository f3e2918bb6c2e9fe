//===- Checkpoint.cpp - Checkpointed reversal of marked time-step loops ---===//
//
// The generated code of a loop `for (int t = lo; t < hi; t++) BODY` under
// `#pragma mpiad checkpoint(snapshots=K)`:
//
//   forward sweep                        reverse sweep
//   ck = mpiad_ckpt_begin(hi - lo, K);   ck = mpiad_pop_ptr();
//   for (act = next(ck); act != DONE;)   for (act = next(ck); act != DONE;)
//     ADVANCE: BODY for steps [from,to)    ADVANCE, SAVE, RESTORE: the same
//     SAVE:    save the state              TURN: BODY recorded, then its
//     RESTORE: load the state                    reverse
//     FIRST_TURN: BODY recorded (the       REVERSE: the reverse of the step
//       last step); break                           turned in the forward
//   mpiad_push_ptr(ck);                  mpiad_ckpt_end(ck);
//
// The forward sweep leaves the state of the last step, so the code after the
// loop runs as usual; every rank follows the same schedule, so the
// communication of re-run steps matches.  The state is what the body writes
// and outlives a step: scalars and pointers by value, fixed arrays whole,
// heap buffers by their allocation size, pointer parameters by the length
// inferred from their loops.
//
//===----------------------------------------------------------------------===//
#include "Checkpoint.h"
#include "Backend.h"
#include "Transform.h"

#include <functional>
#include <map>

namespace mpiad {

namespace {

ExprP sizeofExpr(const std::string &what) {
  return mkOpaque("sizeof(" + what + ")", {}, Scalar::Int);
}

/// `x = malloc(E)` / `x = calloc(a, b)` (possibly cast): the byte count.
ExprP allocationBytes(const Stmt &s, Var *x) {
  if (s.kind != Stmt::Assign || s.op != "=" || s.lhs->kind != Expr::VarRef ||
      s.lhs->var != x)
    return nullptr;
  ExprP c = allocationCall(s.rhs);
  if (!c)
    return nullptr;
  if (c->text == "malloc" && c->ops.size() == 1)
    return c->ops[0];
  if (c->text == "calloc" && c->ops.size() == 2)
    return mkBinary("*", c->ops[0], c->ops[1]);
  return nullptr;
}

/// Is x assigned from malloc/calloc anywhere?
bool allocated(Function &F, Var *x) {
  bool found = false;
  walk(F.body, [&](Stmt &s, const WalkCtx &) {
    found |= allocationBytes(s, x) != nullptr;
  });
  return found;
}

/// Bytes of the heap buffer x points to: its one allocation, made outside
/// the loop, sized by values that never change.
ExprP heapBytes(Function &F, Var *x, const Stmt &loop, std::string &why) {
  std::vector<ExprP> found;
  bool inLoop = false;
  walk(F.body, [&](Stmt &s, const WalkCtx &) {
    if (ExprP b = allocationBytes(s, x))
      found.push_back(b);
  });
  walk(loop.body, [&](Stmt &s, const WalkCtx &) {
    if (allocationBytes(s, x))
      inLoop = true;
  });
  if (found.size() != 1 || inLoop) {
    why = "'" + x->userName + "' is allocated " +
          (inLoop ? std::string("inside the loop")
                  : found.empty() ? std::string("in a way mpiad does not follow")
                                  : std::string("more than once"));
    return nullptr;
  }
  std::set<Var *> vs;
  collectVars(found[0], vs);
  for (Var *v : vs)
    if (!isStable(v)) {
      why = "the size of '" + x->userName + "' depends on '" + v->userName +
            "', which changes";
      return nullptr;
    }
  return found[0];
}

/// Is the local pointer x only ever a copy of a parameter (`double *a =
/// sa0;`)?  Then the parameter's snapshot covers what is written through it.
bool plainCopy(Function &F, Var *x) {
  bool any = false, other = false;
  walk(F.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind != Stmt::Assign || !s.lhs || s.lhs->kind != Expr::VarRef ||
        s.lhs->var != x)
      return;
    any = true;
    other |= s.op != "=" || !s.rhs || s.rhs->kind != Expr::VarRef ||
             s.rhs->var->kind != Var::Param ||
             s.rhs->var->type.ptrDepth != x->type.ptrDepth;
  });
  return any && !other;
}

} // namespace

/// Is v only ever a counter of counted loops (`int i; ... for (i = 0; i < n;
/// i++)` reused by several loops), read nowhere outside them?  Each loop
/// sets it before reading it, so it carries nothing from step to step.
bool onlyCounter(Function &F, Var *v) {
  bool outside = false, counter = false;
  std::function<void(const Block &, bool)> scan = [&](const Block &b,
                                                      bool inside) {
    for (const StmtP &s : b) {
      bool own = s->kind == Stmt::For && s->loopStep != 0 && s->loopVar == v;
      counter |= own;
      bool in = inside || own;
      if (!in)
        for (const ExprP *e : {&s->lhs, &s->rhs, &s->cond})
          outside |= mentionsVar(*e, v);
      if (!in && s->var == v && s->kind != Stmt::Decl)
        outside = true;
      if (!own) {
        if (s->init)
          scan({s->init}, in);
        if (s->step)
          scan({s->step}, in);
      }
      scan(s->body, in);
      scan(s->elseBody, in);
    }
  };
  scan(F.body, false);
  return counter && !outside;
}

bool checkpointState(Function &F, const Stmt &loop, const Frontend &fe,
                     Diag *diag, CheckpointState &out, const Annotation *ann) {
  auto fail = [&](clang::SourceLocation loc, const std::string &m) {
    if (diag)
      diag->error(loc.isValid() ? loc : loop.loc, m);
    return false;
  };
  // Counters declared in for headers live in their loop only.  Variables
  // declared in the body are declared at the top of the generated function,
  // and the reverse sweep may need their values from before the loop (a
  // recorded step restores them on its way back): they belong to the state.
  std::set<Var *> inner;
  declaredIn(loop.body, inner);
  for (auto it = inner.begin(); it != inner.end();)
    it = (*it)->declaredInForInit ? std::next(it) : inner.erase(it);
  inner.insert(loop.loopVar);

  // What the body writes.
  std::set<Var *> values;              // whole values: scalars, pointers
  std::set<Var *> arrays;              // fixed arrays, whole
  std::map<Var *, Stmt *> dataClasses; // alias classes written through
  std::set<Var *> pointerWrites;       // pointers reassigned in the body
  bool ok = true;
  walk(loop.body, [&](Stmt &s, const WalkCtx &) {
    if (!ok)
      return;
    if (s.kind == Stmt::Comm) {
      const CommRule &r = *s.comm.rule;
      if (!r.creates.empty()) {
        ok = fail(s.loc, "'" + s.comm.name + "' creates a communicator at "
                         "every step of a checkpointed loop; create it "
                         "before the loop");
        return;
      }
      for (const ExprP &a : s.comm.args)
        if (a->kind == Expr::Opaque &&
            (a->text == "MPI_ANY_SOURCE" || a->text == "MPI_ANY_TAG")) {
          ok = fail(s.loc, "a receive from " + a->text +
                               " inside a checkpointed loop: a re-run step "
                               "could match a different message");
          return;
        }
    }
    if (s.kind == Stmt::Assign || s.kind == Stmt::ExprStmt) {
      ExprP c = s.rhs;
      if (c && c->kind == Expr::Cast)
        c = c->ops[0];
      if (c && c->kind == Expr::Call &&
          (c->text == "malloc" || c->text == "calloc" ||
           c->text == "realloc" || c->text == "free")) {
        ok = fail(s.loc, "'" + c->text + "' inside a checkpointed loop: "
                         "allocate the loop's buffers before it");
        return;
      }
    }
    for (const Effect &e : effectsOf(s, fe)) {
      Var *t = e.target;
      if (!t || inner.count(t))
        continue;
      // A pointer to rows (`double (*u)[NY]`) has dims but is a pointer:
      // its snapshot is the rows it points to, not sizeof(u).
      bool fixedArray = !t->type.dims.empty() && !t->type.ptrToArray;
      if (fixedArray) {
        arrays.insert(t);
      } else if (t->type.ptrDepth > 0 && e.elementWrite) {
        dataClasses.emplace(aliasRoot(F, t), &s);
      } else {
        values.insert(t);
        if (t->type.ptrDepth > 0)
          pointerWrites.insert(aliasRoot(F, t));
      }
    }
  });
  if (!ok)
    return false;

  // In declaration order, which is stable from run to run.
  for (auto &vp : F.vars)
    if (values.count(vp.get()) && !onlyCounter(F, vp.get()))
      out.parts.push_back(
          {mkAddrOf(mkVar(vp.get())), sizeofExpr(vp->name)});
  for (auto &vp : F.vars)
    if (arrays.count(vp.get()))
      out.parts.push_back({mkVar(vp.get()), sizeofExpr(vp->name)});

  for (auto &cls : dataClasses) {
    Var *root = cls.first;
    std::vector<std::pair<Var *, ExprP>> owners; // buffer and its bytes
    bool derived = false;                        // pointers into a param
    std::string why;
    for (auto &vp : F.vars) {
      Var *x = vp.get();
      if (aliasRoot(F, x) != root || inner.count(x))
        continue;
      if (!x->type.dims.empty() && !x->type.ptrToArray) {
        if (!arrays.count(x))
          out.parts.push_back({mkVar(x), sizeofExpr(x->name)});
        arrays.insert(x);
        continue;
      }
      if (x->type.ptrDepth != 1) {
        if (x->type.ptrDepth > 1)
          return fail(cls.second->loc,
                      "cannot snapshot the rows behind '" + x->userName +
                          "' (a row-pointer array, pointer to pointer) for "
                          "the checkpointed loop: keep the state in one "
                          "contiguous array (" + x->userName +
                          "[i * ny + j]), or remove the checkpoint pragma");
        continue;
      }
      std::string elem = "sizeof(*" + x->name + ")";
      if (x->kind == Var::Local && allocated(F, x)) {
        ExprP bytes = heapBytes(F, x, loop, why);
        if (!bytes)
          return fail(cls.second->loc,
                      "cannot tell how much of '" + x->userName +
                          "' the checkpointed loop changes: " + why);
        owners.push_back({x, bytes});
      } else if (x->kind == Var::Param) {
        // The length the pragma gives (scratch(w[LEN]), replicated(c[LEN]);
        // rows for a pointer to rows), else the one its uses give.
        ExprP len;
        std::string clause;
        if (ann) {
          auto sc = ann->scratchLen.find(x->userName);
          auto rp = ann->replicatedLen.find(x->userName);
          if (sc != ann->scratchLen.end())
            len = mkOpaque("(" + sc->second + ")");
          else if (rp != ann->replicatedLen.end())
            len = mkOpaque("(" + rp->second + ")");
          for (const auto &n : ann->scratch)
            clause = n.first == x->userName ? "scratch" : clause;
          for (const auto &n : ann->replicated)
            clause = n.first == x->userName ? "replicated" : clause;
        }
        if (!len)
          len = inferLength(F, x, why, fe);
        if (!len) {
          std::string unit = x->type.ptrToArray ? "rows" : "elements";
          std::string m = "cannot tell how many " + unit + " of '" +
                          x->userName + "' the checkpointed loop changes";
          if (!why.empty())
            m += ": its length cannot be inferred from its use '" + why + "'";
          if (!clause.empty())
            m += "; give it in the pragma, " + clause + "(" + x->userName +
                 "[LEN])" + (x->type.ptrToArray ? ", LEN counting rows" : "");
          else
            m += "; keep the loop's state in a buffer malloc'd in this "
                 "function or a fixed array, or remove the checkpoint pragma";
          return fail(cls.second->loc, m);
        }
        owners.push_back({x, mkBinary("*", len, mkOpaque(elem, {}, Scalar::Int))});
      } else if (!plainCopy(F, x)) {
        derived = true;
      }
    }
    bool paramOwner = false;
    for (auto &o : owners)
      paramOwner |= o.first->kind == Var::Param;
    if (owners.empty() && arrays.count(root))
      continue;
    if (root->fieldOf)
      return fail(cls.second->loc,
                  "a checkpointed loop that changes the struct field '" +
                      root->field.substr(1) + "' of '" +
                      root->fieldOf->userName +
                      "' is not supported yet: keep the changing state in "
                      "arrays of double, or remove the checkpoint pragma");
    if (owners.empty() || (paramOwner && derived))
      return fail(cls.second->loc,
                  "cannot tell which memory the checkpointed loop changes "
                  "through '" + root->userName +
                      "': write through a parameter, a fixed array or a "
                      "buffer malloc'd in this function");
    if (pointerWrites.count(root))
      for (auto &o : owners)
        if (printExpr(o.second) != printExpr(owners[0].second))
          return fail(cls.second->loc,
                      "the checkpointed loop exchanges pointers to buffers "
                      "of different sizes ('" + owners[0].first->userName +
                          "' and '" + o.first->userName + "')");
    for (auto &o : owners)
      out.parts.push_back({mkVar(o.first), o.second});
  }
  return true;
}

/// The original statements, recording nothing (ADVANCE re-runs them);
/// shadow pointers follow the primal pointers they belong to.
Block primalCopy(const Block &b,
                 const std::function<StmtP(const StmtP &)> &shadowCopy) {
  Block out;
  for (const StmtP &s : b) {
    switch (s->kind) {
    case Stmt::Decl:
      if (s->var->hoisted && !s->rhs)
        continue;
      if (s->var->hoisted && s->rhs && s->rhs->kind == Expr::Opaque &&
          !s->rhs->text.empty() && s->rhs->text[0] == '{') {
        out.push_back(arrayInitCopy(*s));
        continue;
      }
      out.push_back(s);
      continue;
    case Stmt::If:
    case Stmt::For:
    case Stmt::While:
    case Stmt::DoWhile:
    case Stmt::Compound: {
      auto c = std::make_shared<Stmt>(*s);
      c->body = primalCopy(s->body, shadowCopy);
      c->elseBody = primalCopy(s->elseBody, shadowCopy);
      out.push_back(c);
      continue;
    }
    default:
      out.push_back(s);
      if (shadowCopy)
        if (StmtP sc = shadowCopy(s))
          out.push_back(sc);
    }
  }
  return out;
}

namespace {

ExprP ckCall(const char *fn, Var *ck, Scalar type = Scalar::Int) {
  return mkCall(fn, {mkVar(ck)}, type);
}

} // namespace

std::pair<Block, Block> checkpointDriver(const Stmt &loop,
                                         const CheckpointState &state,
                                         const CheckpointParts &parts) {
  Var *i = loop.loopVar, *ck = parts.ck, *act = parts.action;
  const std::string &ity = i->type.base;
  bool up = loop.loopStep > 0;
  // Number of steps, and the counter value of step k.
  bool fromZero = isZeroLiteral(loop.loopLo);
  ExprP n = up ? (fromZero ? loop.loopHi
                           : mkBinary("-", loop.loopHi, loop.loopLo))
               : mkBinary("-", loop.loopLo, loop.loopHi);
  if (loop.loopCmp == "<=" || loop.loopCmp == ">=")
    n = plusConst(n, 1);
  auto counter = [&](ExprP k) {
    ExprP c = mkCast(ity, k, Scalar::Int);
    if (fromZero)
      return up ? c : mkUnary("-", c);
    return mkBinary(up ? "+" : "-", loop.loopLo, c);
  };
  auto is = [&](const char *what) {
    return mkBinary("==", mkVar(act), mkOpaque(what, {}, Scalar::Int));
  };

  // ADVANCE: the original loop over steps [from, to).
  auto advance = std::make_shared<Stmt>();
  advance->kind = Stmt::For;
  advance->loc = loop.loc;
  advance->init = mkDecl(i, counter(ckCall("mpiad_ckpt_from", ck)));
  advance->cond = mkBinary(up ? "<" : ">", mkVar(i),
                           counter(ckCall("mpiad_ckpt_to", ck)));
  advance->step = mkAssign(mkVar(i), up ? "+=" : "-=", mkInt(1));
  advance->body = primalCopy(loop.body, parts.shadowCopy);
  Block save, load;
  for (const auto &p : state.parts) {
    save.push_back(mkExprStmt(mkCall("mpiad_ckpt_save",
                                     {mkVar(ck), p.first, p.second},
                                     Scalar::Void)));
    load.push_back(mkExprStmt(mkCall("mpiad_ckpt_load",
                                     {mkVar(ck), p.first, p.second},
                                     Scalar::Void)));
  }
  auto step = [&](Block body) {
    Block b{mkDecl(i, counter(ckCall("mpiad_ckpt_step", ck)))};
    append(b, body);
    // A body that does not read the counter (a time loop whose step does
    // not depend on t) would leave it unused: -Wunused-variable.
    std::set<Var *> used;
    referenced(body, used);
    if (!used.count(i))
      b.push_back(mkExprStmt(mkCast("void", mkVar(i), Scalar::Void)));
    return mkCompound(b);
  };
  auto driver = [&](Block turns) {
    auto d = std::make_shared<Stmt>();
    d->kind = Stmt::For;
    d->loc = loop.loc;
    d->init = mkDecl(act, ckCall("mpiad_ckpt_next", ck));
    d->cond = mkBinary("!=", mkVar(act),
                       mkOpaque("MPIAD_CKPT_DONE", {}, Scalar::Int));
    d->step = mkAssign(mkVar(act), "=", ckCall("mpiad_ckpt_next", ck));
    d->body = {mkIf(is("MPIAD_CKPT_ADVANCE"), {advance},
                    {mkIf(is("MPIAD_CKPT_SAVE"), save,
                          {mkIf(is("MPIAD_CKPT_RESTORE"), load, turns)})})};
    return d;
  };
  std::string k = loop.snapshots.empty() ? "MPIAD_CKPT_DEFAULT_SNAPSHOTS"
                                         : loop.snapshots;

  Block fwd;
  fwd.push_back(mkComment("checkpointed loop over " + i->userName +
                          ": at most " +
                          (loop.snapshots.empty() ? std::string("the default")
                                                  : loop.snapshots) +
                          " snapshots"));
  fwd.push_back(mkAssign(
      mkVar(ck), "=",
      mkCall("mpiad_ckpt_begin",
             {mkCast("long", n, Scalar::Int), mkOpaque(k, {}, Scalar::Int)},
             Scalar::Other, 1)));
  Block first = {mkComment("MPIAD_CKPT_FIRST_TURN: the last step, recorded"),
                 step(parts.recorded)};
  auto brk = std::make_shared<Stmt>();
  brk->kind = Stmt::Break;
  first.push_back(brk);
  fwd.push_back(driver(first));
  fwd.push_back(mkExprStmt(mkCall("mpiad_push_ptr", {mkVar(ck)}, Scalar::Void)));

  Block rev;
  rev.push_back(mkAssign(mkVar(ck), "=",
                         mkCall("mpiad_pop_ptr", {}, Scalar::Other, 1)));
  Block turnBody = {mkIf(is("MPIAD_CKPT_TURN"), parts.recorded)};
  append(turnBody, parts.reversed);
  Block turns = {
      mkComment("MPIAD_CKPT_TURN: run the step recorded, then reverse it; "
                "MPIAD_CKPT_REVERSE: reverse the step the forward sweep "
                "recorded"),
      step(turnBody)};
  rev.push_back(driver(turns));
  rev.push_back(mkExprStmt(mkCall("mpiad_ckpt_end", {mkVar(ck)}, Scalar::Void)));
  return {fwd, rev};
}

} // namespace mpiad
