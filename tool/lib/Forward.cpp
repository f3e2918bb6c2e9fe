//===- Forward.cpp - Forward (tangent) mode on the IR ---------------------===//
//
// Stage 3, forward mode.  Each statement becomes its tangent statement(s)
// followed by the primal statement (the tangent reads the operands before
// the primal may overwrite them).  Control flow is the primal's.  No tape.
// Tangents are per rank, like values: across ranks they need no rule beyond
// the communication itself, which takes its tangent steps from the rule
// table (`tangent` lines of rules/mpi.rules).
//
//===----------------------------------------------------------------------===//
#include "Backend.h"
#include "Reverse.h"
#include "Cuda.h"
#include "Emit.h"
#include "Signature.h"
#include "StructShadow.h"
#include "Transform.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace mpiad {

namespace {

class ForwardGen {
public:
  ForwardGen(Module &M, Function &F, const Request &R)
      : M(M), F(F), R(R), diag(M.diag_) {
    taken = M.globalNames();
    for (auto &v : F.vars)
      taken.insert(v->name);
    // Copy-back loops over buffers that carry tangents become swaps
    // (findSwapCopies reads the assignment counts of to-be-recorded).
    analyzeToBeRecorded(F, {}, M.fe_);
    for (const auto &kv : findSwapCopies(F))
      if (kv.second.dst->active && kv.second.src->active &&
          (kv.second.region.empty() || !M.cuda)) // the exchange is host code
        swaps.insert(kv);
  }

  Module &M;
  Function &F;
  const Request &R;
  Diag &diag;
  std::map<Var *, Var *> tangents;
  std::set<std::string> taken;
  bool failed = false;

  void error(clang::SourceLocation loc, const std::string &m) {
    diag.error(loc, m);
    failed = true;
  }

  int callTemps = 0; // temporaries of CallReuse.cpp
  std::string unique(const std::string &want) {
    std::string n = want;
    for (int i = 2; taken.count(n); ++i)
      n = want + std::to_string(i);
    taken.insert(n);
    return n;
  }

  /// The tangent variable of an active variable.
  Var *tangent(Var *v) {
    auto it = tangents.find(v);
    if (it != tangents.end())
      return it->second;
    if (v->fieldOf) { // p[i].x -> p_d[i].x
      Var *d = F.sameView(v, tangent(v->fieldOf));
      tangents[v] = d;
      return d;
    }
    if (v->kind == Var::Global) { // a file-scope tangent, one per module
      // A global pointer the file allocates (GlobalHeap.h) has the
      // tangent NAME_d, allocated by F_tangents_new; another was reported
      // by the activity analysis.
      if (v->type.ptrDepth > 0 && !M.fe_.ownedGlobal(v))
        error(v->loc.isValid() ? v->loc : F.loc,
              "the global pointer '" + v->userName + "' would carry "
              "tangents, and mpiad gives a global pointer a tangent only "
              "when the file allocates it: pass it as a parameter");
      Var *d = M.globalShadowVar(F, v, "_d", true);
      tangents[v] = d;
      return d;
    }
    CType t = v->type;
    if (t.base.rfind("const ", 0) == 0)
      t.base = t.base.substr(6);
    t.isConst = false;
    if (v->kind == Var::Param && t.ptrDepth == 0 &&
        !t.floatingFields) { // by value: double s_d
      t.elem = Scalar::Double;
      t.base = "double";
    }
    Var *d = F.newVar(unique(v->name + "_d"), t, Var::Synthetic);
    tangents[v] = d;
    return d;
  }

  bool activeVar(const Var *v) const { return v && v->active; }

  /// Copy-back loops whose source is dead afterwards (BufferSwap.cpp).
  std::map<const Stmt *, SwapCopy> swaps;

  /// The copy-back `a[i] = b[i]` for every element, b's old contents dead:
  /// swap the buffers and their tangents (every write of b writes b_d, so
  /// b_d's old contents are dead too).
  Block swappedCopy(const SwapCopy &sc) {
    Var *a = sc.dst, *b = sc.src;
    auto tmp = [&](Var *v) {
      return F.newVar(unique("mpiad_swap"), v->type, Var::Synthetic);
    };
    return {mkComment("copy-back " + a->name + "[i] = " + b->name +
                      "[i] for every i: the old contents of " + b->name +
                      " are not read again, so swap the buffers"),
            swapPointers(a, b, tmp(a)),
            swapPointers(tangent(a), tangent(b), tmp(tangent(a)))};
  }

  /// The copy of a region (BufferSwap.cpp): when the run-time condition
  /// holds, swap the buffers and their tangents and exchange both pairs'
  /// elements outside the region; otherwise copy (`copy`, the loop's
  /// tangent code).
  Block regionSwappedCopy(const SwapCopy &sc, const StmtP &copy) {
    Var *a = sc.dst, *b = sc.src, *ad = tangent(a), *bd = tangent(b);
    NewVar nv = [&](const std::string &n, const CType &t) {
      return F.newVar(unique(n), t, Var::Synthetic);
    };
    Block swap{mkComment("copy-back of the region of " + a->name + " from " +
                         b->name + ": the old contents of " + b->name +
                         " there are not read again, so swap the buffers "
                         "and exchange the elements outside the region"),
               swapPointers(a, b, nv("mpiad_swap", a->type)),
               swapPointers(ad, bd, nv("mpiad_swap", ad->type))};
    append(swap, exchangeOutsideRegion(sc, nv, {{a, b}, {ad, bd}}));
    return {mkIf(regionSwapCondition(sc), swap, {copy})};
  }

  bool activeIn(const ExprP &e) const { return carriesDerivative(e); }

  /// Replaces the variable an lvalue / buffer is rooted at by its tangent.
  ExprP td(const ExprP &e) {
    return rebase(e, [&](Var *v) { return tangent(v); });
  }

  static ExprP add(const ExprP &a, const ExprP &b) {
    if (!a)
      return b;
    if (!b)
      return a;
    if (b->kind == Expr::Unary && b->text == "-")
      return mkBinary("-", a, b->ops[0]);
    return mkBinary("+", a, b);
  }

  /// The directional derivative of e, or null when it is zero.
  ExprP tan(const ExprP &e) {
    if (!activeIn(e))
      return nullptr;
    switch (e->kind) {
    case Expr::VarRef:
    case Expr::Index:
      return td(e);
    case Expr::Unary:
      return neg(tan(e->ops[0]));
    case Expr::Cast:
      return tan(e->ops[0]);
    case Expr::Binary: {
      const ExprP &a = e->ops[0], &b = e->ops[1];
      ExprP ta = tan(a), tb = tan(b);
      const std::string &op = e->text;
      if (op == "+")
        return add(ta, tb);
      if (op == "-")
        return add(ta, tb ? neg(tb) : nullptr);
      if (op == "*")
        return add(ta ? mul(ta, b) : nullptr, tb ? mul(a, tb) : nullptr);
      if (op == "/")
        return add(ta ? mkBinary("/", ta, b) : nullptr,
                   tb ? neg(mkBinary("/", mul(a, tb), mkBinary("*", b, b)))
                      : nullptr);
      error(e->loc, "operator '" + op + "' cannot be differentiated");
      return nullptr;
    }
    case Expr::Cond: {
      ExprP a = tan(e->ops[1]), b = tan(e->ops[2]);
      return mkCond(e->ops[0], a ? a : mkFloat("0.0"), b ? b : mkFloat("0.0"));
    }
    case Expr::Call: {
      const MathRule *r = M.rules_.math(e->text);
      if (!r || r->params.size() != e->ops.size()) {
        error(e->loc, "no derivative known for '" + e->text + "'");
        return nullptr;
      }
      std::map<std::string, ExprP> sub;
      for (size_t k = 0; k < r->params.size(); ++k)
        sub[r->params[k]] = e->ops[k];
      ExprP sum;
      for (size_t k = 0; k < r->params.size(); ++k)
        if (r->derivs[k])
          if (ExprP t = tan(e->ops[k]))
            sum = add(sum, mul(substitute(r->derivs[k], sub), t));
      return sum;
    }
    default:
      return nullptr;
    }
  }

  // --- statements -------------------------------------------------------

  Block block(const Block &b) {
    Block out;
    for (const StmtP &s : b)
      append(out, stmt(s));
    return out;
  }

  Block stmt(const StmtP &s) {
    switch (s->kind) {
    case Stmt::Decl:
      if (s->rhs && !s->var->type.dims.empty())
        return {arrayInitCopy(*s)};
      return {};
    case Stmt::Assign:
      return assign(s);
    case Stmt::ExprStmt:
      return exprStmt(s);
    case Stmt::If: {
      auto n = std::make_shared<Stmt>(*s);
      n->body = block(s->body);
      n->elseBody = block(s->elseBody);
      return {n};
    }
    case Stmt::For:
      if (swaps.count(s.get()) && swaps.at(s.get()).region.empty())
        return swappedCopy(swaps.at(s.get()));
      [[fallthrough]];
    case Stmt::While:
    case Stmt::DoWhile: {
      auto n = std::make_shared<Stmt>(*s);
      n->body = block(s->body);
      if (s->init && s->init->kind == Stmt::Assign)
        n->init = s->init;
      if (swaps.count(s.get()))
        return regionSwappedCopy(swaps.at(s.get()), n);
      // The math calls of a loop over the replicas, for all replicas at
      // once before it (VectorMath.cpp).
      Block out;
      if (s->kind == Stmt::For && s->replicaLoop && !M.cuda)
        vectorMath(F, *s, n->body, out,
                   [&](const std::string &name, const CType &t) {
                     return F.newVar(unique(name), t, Var::Synthetic);
                   },
                   [this](const std::string &fn) {
                     return M.rules_.math(fn) != nullptr;
                   });
      out.push_back(n);
      return out;
    }
    case Stmt::Compound:
      return {mkCompound(block(s->body))};
    case Stmt::Comm:
      return comm(s);
    case Stmt::Comment:
      return {s};
    default:
      error(s->loc, "internal: unexpected statement after normalization");
      return {};
    }
  }

  static bool isAlloc(const ExprP &e, ExprP &call) {
    call = allocationCall(e);
    return call != nullptr;
  }

  Block assign(const StmtP &s) {
    Var *t = baseVar(s->lhs);
    if (s->rhs->kind == Expr::Call && M.fe_.callee(s->rhs->text))
      return userCall(s, s->rhs, s->lhs);
    Block out;
    if (!t || !t->active) {
      out.push_back(s);
      return out;
    }
    // A pointer, or a row of a row-pointer array (`a[i] = malloc(...)`):
    // the tangent's pointer follows.
    bool rowStore = s->lhs->ptrDepth > 0 && s->lhs->kind == Expr::Index &&
                    t->type.ptrDepth >= 2;
    if (s->lhs->ptrDepth > 0 && (s->lhs->kind == Expr::VarRef || rowStore)) {
      if (rowStore && t->kind == Var::Param) {
        error(s->loc, "row of parameter '" + t->userName +
                          "' is reassigned; its tangent's rows are the "
                          "caller's and cannot follow: assign the elements "
                          "instead (" + t->userName + "[i][j] = ...), or build "
                          "the rows in a local row-pointer array");
        return {};
      }
      out.push_back(s);
      ExprP call;
      if (isAlloc(s->rhs, call)) {
        ExprP n = call->text == "malloc"
                      ? mkCall("calloc", {mkInt(1), call->ops[0]}, Scalar::Void,
                               1)
                      : mkCall("calloc", call->ops, Scalar::Void, 1);
        out.push_back(mkAssign(td(s->lhs), "=", n));
      } else {
        out.push_back(mkAssign(td(s->lhs), "=", td(s->rhs)));
      }
      return out;
    }
    if (!s->lhs->isFloating()) {
      out.push_back(s);
      return out;
    }
    ExprP d = tan(s->rhs);
    if (s->op == "=")
      out.push_back(mkAssign(td(s->lhs), "=", d ? d : mkInt(0)));
    else if (d)
      out.push_back(mkAssign(td(s->lhs), s->op, d));
    out.push_back(s);
    // `y_d = x_d * (1.0 - tanh(x) * tanh(x)); y = tanh(x);`: one tanh
    // (CallReuse.cpp).  The tangent writes no primal value, and the primal
    // statement reads its right side before it writes.
    reuseCalls(
        out, [this](const std::string &fn) { return M.rules_.math(fn) != nullptr; },
        [this](Scalar type) {
          CType t;
          t.elem = type == Scalar::Float ? Scalar::Float : Scalar::Double;
          t.base = t.elemName();
          return F.newVar(unique("mpiad_t" + std::to_string(++callTemps)), t,
                          Var::Synthetic);
        });
    return out;
  }

  Block exprStmt(const StmtP &s) {
    const ExprP &e = s->rhs;
    if (e->kind == Expr::Call && M.fe_.callee(e->text))
      return userCall(s, e, nullptr);
    Block out{s};
    if (e->kind == Expr::Call && e->text == "free" && e->ops.size() == 1) {
      Var *p = baseVar(e->ops[0]);
      if (p && p->active)
        out.push_back(mkExprStmt(mkCall("free", {td(e->ops[0])}, Scalar::Void)));
    }
    return out;
  }

  Block userCall(const StmtP &s, const ExprP &call, const ExprP &lhs) {
    Function *cf = M.fe_.callee(call->text);
    std::vector<bool> mask;
    bool any = false;
    for (size_t k = 0; k < call->ops.size(); ++k) {
      const ExprP &a = call->ops[k];
      bool on = false;
      if (k < cf->params.size() && cf->params[k]->type.isFloatingElem()) {
        if (a->ptrDepth > 0)
          on = activeVar(baseVar(a));
        else if (a->kind == Expr::VarRef)
          on = activeVar(a->var);
      }
      mask.push_back(on);
      any |= on;
    }
    Var *t = lhs ? baseVar(lhs) : nullptr;
    bool activeRet = t && t->active && lhs->isFloating();
    if (!any && !activeRet) {
      Block out{s};
      if (activeRet)
        out.insert(out.begin(), mkAssign(td(lhs), "=", mkInt(0)));
      return out;
    }
    const std::string *name =
        M.tangentCallee(call->text, mask, activeRet, call->loc);
    if (!name) {
      failed = true;
      return {};
    }
    std::vector<ExprP> args;
    for (size_t k = 0; k < call->ops.size(); ++k) {
      args.push_back(call->ops[k]);
      if (!mask[k])
        continue;
      const ExprP &a = call->ops[k];
      args.push_back(a->ptrDepth > 0 ? td(a) : td(a));
    }
    // The helper writes the tangent through a pointer to the callee's return
    // type. A target of another floating type (float t = a double function)
    // gets it through a temporary of that type: passing &t_d would write 8
    // bytes into a float.
    Var *retTmp = nullptr;
    if (activeRet) {
      if (lhs->type == cf->ret.elem && s->op == "=") {
        args.push_back(mkAddrOf(td(lhs)));
      } else {
        CType tt;
        tt.elem = cf->ret.elem;
        tt.base = cf->ret.elemName();
        retTmp = F.newVar(unique("mpiad_ret_d"), tt, Var::Synthetic);
        retTemps[retTmp] = retTmp;
        args.push_back(mkAddrOf(mkVar(retTmp)));
      }
    }
    ExprP c = mkCall(*name, args, call->type, call->ptrDepth);
    if (!lhs)
      return {mkExprStmt(c)};
    Block out{mkAssign(lhs, s->op, c)};
    if (retTmp)
      out.push_back(mkAssign(td(lhs), s->op, mkVar(retTmp)));
    return out;
  }

  // --- communication ----------------------------------------------------

  int p2pActive = -1, startActive = -1;
  NcclGroups groups; // NCCL calls in and out of groups
  bool pointToPointActive() {
    if (p2pActive < 0)
      p2pActive = mpiad::pointToPointActive(F.body);
    return p2pActive;
  }
  bool startsActive() {
    if (startActive < 0)
      startActive = mpiad::startsActive(F.body);
    return startActive;
  }

  static bool isInPlace(const ExprP &e) {
    return e->kind == Expr::Opaque && e->text == "MPI_IN_PLACE";
  }
  /// A null pointer passed as a buffer (MPI_Reduce's receive buffer on a
  /// rank other than the root): its tangent is a null pointer too.
  static bool isNullBuffer(const ExprP &e) {
    if (e->kind == Expr::Cast)
      return isNullBuffer(e->ops[0]);
    return (e->kind == Expr::Opaque && e->text == "NULL") ||
           (e->kind == Expr::IntLit && e->text == "0");
  }

  /// Stand-in tangent buffers of variables that carry no derivative but are
  /// passed to a communication call beside buffers that do (the result of
  /// an MPI_Allreduce that is never read): zero for what the call reads,
  /// scratch for what it writes.  They are declared zero-initialised.
  std::map<Var *, Var *> zeroTangents, scratchTangents;

  /// The tangents and the stand-ins: what is declared zero-initialised.
  std::map<Var *, Var *> declaredTangents() const {
    std::map<Var *, Var *> all = tangents;
    for (const auto &kv : zeroTangents)
      all[kv.second] = kv.second;
    for (const auto &kv : scratchTangents)
      all[kv.second] = kv.second;
    for (const auto &kv : retTemps)
      all[kv.second] = kv.second;
    return all;
  }

  /// Temporaries that receive a callee's return tangent (userCall).
  std::map<Var *, Var *> retTemps;

  Var *standIn(Var *v, bool write) {
    std::map<Var *, Var *> &m = write ? scratchTangents : zeroTangents;
    auto it = m.find(v);
    if (it != m.end())
      return it->second;
    CType t = v->type;
    if (t.base.rfind("const ", 0) == 0)
      t.base = t.base.substr(6);
    t.isConst = false;
    Var *d = F.newVar(unique(v->name + (write ? "_d_unused" : "_d_zero")), t,
                      Var::Synthetic);
    m[v] = d;
    return d;
  }

  /// The tangent of a buffer argument.  A buffer that carries no derivative
  /// gets NULL when the step calls a libmpiad helper (which accepts NULL:
  /// no derivative on this rank); an MPI call needs a real buffer on every
  /// rank, so a variable with storage of its own (a scalar or a fixed array)
  /// gets a stand-in, and a pointer, whose extent is unknown here, is an
  /// error.
  ExprP tanBuffer(const CommRule &r, const std::vector<ExprP> &args,
                  const std::string &name, const std::string &callee,
                  const StmtP &s) {
    int i = r.argIndex(name);
    const ExprP &buf = args[i];
    if (isInPlace(buf))
      return buf;
    if (r.args[i].write && isNullBuffer(buf))
      return mkOpaque("NULL");
    Var *b = baseVar(buf);
    if (b && b->active)
      return td(buf);
    if (callee.rfind("mpiad_", 0) == 0)
      return mkOpaque("NULL");
    if (b && (b->type.ptrDepth == 0 || !b->type.dims.empty())) {
      Var *d = standIn(b, r.args[i].write);
      return rebase(buf, [&](Var *) { return d; });
    }
    error(buf->loc.isValid() ? buf->loc : s->loc,
          "buffer '" + printExpr(buf) + "' of " + s->comm.name +
              " carries no derivative, but the call's other buffers do, "
              "and its size is unknown here; use a local array, or make "
              "it carry a derivative");
    return mkOpaque("NULL");
  }

  ExprP ruleArg(const CommRule &r, const std::vector<ExprP> &args,
                const std::string &a, const std::string &callee,
                const StmtP &s) {
    if (a.rfind("tan(", 0) == 0)
      return tanBuffer(r, args, a.substr(4, a.size() - 5), callee, s);
    int i = r.argIndex(a);
    return i >= 0 ? args[i] : mkOpaque(a);
  }

  Block comm(const StmtP &s) {
    const CommRule &r = *s->comm.rule;
    const auto &args = s->comm.args;
    bool anyActive = false;
    for (size_t i = 0; i < r.args.size(); ++i)
      if (r.args[i].role == CommArg::Buffer)
        if (Var *b = baseVar(args[i]))
          anyActive |= b->active;
    if (r.pointToPoint && pointToPointActive())
      anyActive = true;
    if (r.completes && startsActive())
      anyActive = true;
    if (!anyActive)
      return {s};
    // A collective with derivatives must not be in an NCCL group, a
    // point-to-point call of a group (ncclSend) must be in one.
    std::string why = ncclGroupingError(*s, F.body, groups);
    if (!why.empty())
      error(s->loc, why);
    for (size_t i = 0; i < r.args.size(); ++i) {
      const CommArg &a = r.args[i];
      if (a.role == CommArg::Op) {
        const auto &ok = r.allowedOps.at(a.name);
        if (std::find(ok.begin(), ok.end(), args[i]->text) == ok.end())
          error(args[i]->loc, "reduction operator '" + args[i]->text +
                                  "' of " + s->comm.name +
                                  " is not supported for values that carry "
                                  "derivatives");
      }
      if (a.role == CommArg::Datatype) {
        const std::string &t = args[i]->text;
        bool onlyInPlace = true;
        for (size_t j = 0; j < r.args.size(); ++j)
          if (r.args[j].role == CommArg::Buffer &&
              r.args[j].datatype == a.name && !isInPlace(args[j]))
            onlyInPlace = false;
        std::string why =
            onlyInPlace ? "" : derivedDatatypeError(r, a, *args[i], s->comm.name);
        if (!why.empty())
          error(args[i]->loc, why);
        else if (!onlyInPlace && !args[i]->derivedDatatype &&
                 datatypeElem(t) == Scalar::Other)
          error(args[i]->loc, "datatype '" + t + "' of " + s->comm.name +
                                  " cannot carry derivatives; use " +
                                  floatingDatatypes(t));
      }
    }
    Block out;
    bool any = false;
    for (const CommStep &st : r.tangent) {
      bool hold = true;
      for (const Guard &g : st.guards)
        hold &= guardHolds(g, *args[r.argIndex(g.arg)],
                           printExpr(args[r.argIndex(g.arg)]));
      if (!hold)
        continue;
      for (const CommAction &a : st.actions) {
        std::vector<ExprP> cargs;
        for (const std::string &x : a.args)
          cargs.push_back(ruleArg(r, args, x, a.op, s));
        out.push_back(mkExprStmt(mkCall(a.op, cargs, Scalar::Int)));
        any = true;
      }
    }
    if (!any) {
      error(s->loc, "no tangent rule for " + s->comm.name + " (" + r.where +
                        "); add a 'tangent' line to its rule");
      return {s};
    }
    return out;
  }
};

/// Declarations of the variables a generated body uses.
Block declarations(Function &F, const Block &body,
                   const std::map<Var *, Var *> &tangents,
                   const std::set<Var *> &skip) {
  std::set<Var *> used, inl;
  referenced(body, used);
  declaredIn(body, inl);
  Block d;
  for (auto &v : F.vars) {
    Var *x = v.get();
    if (!used.count(x) || inl.count(x) || skip.count(x) ||
        x->kind == Var::Param || x->kind == Var::Global || x->kind == Var::Field ||
        x->declaredInForInit)
      continue;
    bool isTan = false;
    for (auto &kv : tangents)
      isTan |= kv.second == x;
    d.push_back(mkOpaqueDecl(printDecl(*x, isTan) +
                             (isTan || scalarLike(*x) ? zeroInit(*x) : "")));
  }
  return d;
}

/// Declarations, `(void)` for unused parameters, the tangent body, the
/// epilogue and the return of the primal value.
std::string functionBody(Function &F, const Block &body, const Block &epilogue,
                         const std::map<Var *, Var *> &tangents,
                         const std::set<Var *> &skip, bool returns) {
  Block all = body;
  append(all, epilogue);
  std::set<Var *> used;
  referenced(all, used);
  Block decls = declarations(F, all, tangents, skip);
  if (F.retVar && !used.count(F.retVar))
    decls.push_back(mkOpaqueDecl(printDecl(*F.retVar) + " = 0"));
  if (F.retVar)
    used.insert(F.retVar);
  std::string text;
  printBlock(decls, 1, text);
  printBlock(unusedParams(F.params, used), 1, text);
  printBlock(body, 1, text);
  printBlock(epilogue, 1, text);
  if (returns)
    text += "  return " + F.retVar->name + ";\n";
  return text;
}

bool prepare(Module &M, Function &F, Request &R) {
  hoistStatefulCalls(F);
  if (!normalize(F, M.fe_, M.diag_))
    return false;
  analyzeActivity(F, R, M.fe_, M.diag_);
  if (M.diag_.hasErrors())
    return false;
  M.nameVariables(F);
  return true;
}

} // namespace

bool Module::generateForward(const clang::FunctionDecl *fd,
                             const Annotation &annIn, Generated &out) {
  std::unique_ptr<Function> owned = fe_.lowerCopy(fd);
  if (!owned)
    return false;
  Function &F = *owned;
  Request R;
  R.fn = &F;
  R.ann = annIn;
  R.topLevel = true;
  R.outName = annIn.name.empty() ? F.name + "_d" : annIn.name;
  if (annIn.batched)
    R.outName += "v"; // F_dv: the tangent of R replicas (Replicas.cpp)
  if (defined_.count(R.outName)) {
    diag_.error(annIn.loc, "'" + R.outName + "', the name of the generated "
                           "tangent, is already defined in this file; choose "
                           "another with name(...)");
    return false;
  }
  defined_.insert(R.outName);
  resolveClausePaths(F, annIn, diag_, false);
  if (!checkClauses(F, annIn))
    return false;
  if (annIn.batched) {
    // Every array access must be visible to the batching: helpers called
    // with pointers are inlined first.
    inlineCommunicatingCallees(F, fe_, diag_, true);
    if (!normalize(F, fe_, diag_) || !batchReplicas(F, R.ann, fe_, diag_))
      return false;
  } else {
    // A request started in one helper and completed in another, or in the
    // caller, is one set of requests in the caller, whose tangent calls
    // complete what tangent calls started (Inline.cpp).
    inlineCommunicatingCallees(F, fe_, diag_, false);
    inlineStructCallees(F, fe_, diag_);
  }
  if (!resolveClausePaths(F, R.ann, diag_, true))
    return false;
  const Annotation &ann = R.ann;
  if (!prepare(*this, F, R))
    return false;
  ForwardGen G(*this, F, R);
  Block body = G.block(F.body);
  if (G.failed || diag_.hasErrors())
    return false;

  bool retOut = ann.outputs.empty() ? true : named(ann.outputs, "return");
  std::vector<std::string> params;
  std::set<Var *> skip;
  Block epilogue;
  Block prologue;
  for (Var *p : F.params) {
    params.push_back(printDecl(*p));
    bool wrt = named(ann.wrt, p->userName),
         outp = named(ann.outputs, p->userName);
    if (named(ann.scratch, p->userName)) {
      // A work array: its tangent is allocated (zeroed) here, freed at the
      // end; the caller passes none.
      if (p->active) {
        ExprP len = scratchLength(F, ann, p);
        if (!len)
          return false;
        Var *t = G.tangent(p);
        prologue.push_back(mkAssign(mkVar(t), "=",
                                    zeroedAlloc(len, p->type.pointeeName(),
                                                R.outName, p->userName,
                                                mainComm(F))));
        epilogue.push_back(mkExprStmt(mkCall("free", {mkVar(t)}, Scalar::Void)));
      }
      continue;
    }
    if (!wrt && !outp)
      continue;
    Var *t = G.tangent(p);
    skip.insert(t);
    Var decl = *t;
    if (p->type.ptrDepth == 0 && !p->type.floatingFields) {
      decl.type.base = "double";
      decl.type.elem = Scalar::Double;
    }
    params.push_back(printDecl(decl));
  }
  std::string dotName;
  if (retOut && F.retVar) {
    dotName = G.unique(F.name + "_dot");
    params.push_back("double *" + dotName);
    if (F.retVar->active)
      epilogue.push_back(mkAssign(mkIndex(mkOpaque(dotName), mkInt(0)), "=",
                                  mkVar(G.tangent(F.retVar))));
    else
      epilogue.push_back(
          mkAssign(mkIndex(mkOpaque(dotName), mkInt(0)), "=", mkInt(0)));
  }
  std::string retType =
      F.ret.elem == Scalar::Void && !F.ret.ptrDepth ? "void" : printType(F.ret);
  std::string sig = retType + " " + R.outName + "(";
  for (size_t i = 0; i < params.size(); ++i)
    sig += (i ? ", " : "") + params[i];
  sig += ")";
  if (annIn.batched)
    prologue.insert(prologue.begin(), noReplicasReturn(F));
  body.insert(body.begin(), prologue.begin(), prologue.end());
  Block all = body;
  append(all, epilogue);
  std::set<Var *> used;
  referenced(all, used);
  if (F.retVar)
    used.insert(F.retVar);
  std::ostringstream head;
  auto list = clauseList;
  head << "/*\n * mpiad: tangent (forward mode) of " << F.name << "\n"
       << " *   independents: " << list(ann.wrt) << "\n"
       << " *   dependents:   "
       << (ann.outputs.empty() ? std::string("return value")
                               : list(ann.outputs))
       << "\n";
  head << globalsComment(F, "_d", "tangents");
  head << " *   " << sig << "\n"
       << " * Each p_d holds a direction on entry; outputs' _d receive the "
          "directional\n * derivative (per rank, like the values).\n */\n";
  if (annIn.batched) {
    head.str("");
    head << batchedComment(F, ann, annIn, "tangent (forward mode)",
                           R.outName);
  }
  std::string kernels;
  if (cuda) {
    CudaLowering cl(diag_, R.outName, "tangent of " + F.name, false);
    cl.setFallbackLocation(F.loc);
    if (!cl.lower({&body, &epilogue}))
      return false;
    kernels = cl.kernels();
  }
  // The tangents of globals (file-scope) start at zero in every call: the
  // global's value on entry is no input, unless wrt(...) names it (then
  // its tangent NAME_d is the caller's direction).
  // A global pointer's tangent must exist (F_tangents_new); it starts at
  // zero unless it is the caller's direction.
  std::string prefix = shadowsPrefix(F, R.outName);
  std::vector<std::pair<Var *, Var *>> heapTangents;
  for (auto &[v, tv] : G.tangents) {
    if (v->kind != Var::Global)
      continue;
    bool input = named(R.ann.wrt, v->userName);
    if (!isHeapShadow(tv)) {
      if (!input)
        body.insert(body.begin(), zeroGlobal(tv));
      continue;
    }
    heapTangents.push_back({v, tv});
    heapShadowEntry(body, tv, v->userName, R.outName,
                    prefix + "_tangents_new", "mpiad_need_tangent", input);
  }
  std::string text = functionBody(F, body, epilogue, G.declaredTangents(),
                                  skip, retType != "void");
  finishFunction(out, globalShadowDecls(G.tangents, externalShadows_) + kernels + head.str(),
                 (cuda ? "extern \"C\" " : "") + sig, text,
                 std::move(owned));
  if (!heapTangents.empty())
    addShadowsNew(out, prefix, R.outName, heapTangents, "tangents");
  if (cuda)
    out.prototype = sig + ";";
  return true;
}

const std::string *Module::tangentCallee(const std::string &name,
                                         const std::vector<bool> &mask,
                                         bool activeRet,
                                         clang::SourceLocation loc) {
  std::string key = specializationKey(name, mask, activeRet);
  auto it = tangentCallees_.find(key);
  if (it != tangentCallees_.end())
    return &it->second;
  std::string fname = uniqueName("mpiad_tan_" + name);
  tangentCallees_[key] = fname;
  std::unique_ptr<Function> owned = fe_.lowerCopy(fe_.decl(fe_.callee(name)));
  if (!owned)
    return nullptr;
  Function &F = *owned;
  Request R;
  R.fn = &F;
  R.topLevel = false;
  R.activeParams = mask;
  R.activeReturn = activeRet;
  if (!prepare(*this, F, R)) {
    diag_.note(loc, "while differentiating the call to '" + name + "'");
    return nullptr;
  }
  ForwardGen G(*this, F, R);
  Block body = G.block(F.body);
  if (G.failed)
    return nullptr;
  std::vector<std::string> params;
  std::set<Var *> skip;
  for (size_t k = 0; k < F.params.size(); ++k) {
    Var *p = F.params[k];
    params.push_back(printDecl(*p));
    if (!mask[k] || !p->type.isFloatingElem())
      continue;
    Var *t = G.tangent(p);
    skip.insert(t);
    params.push_back(printDecl(*t));
  }
  Block epilogue;
  if (activeRet) {
    std::string out = G.unique("mpiad_ret_d_out");
    params.push_back(F.ret.elemName() + " *" + out); // the caller's tangent type
    epilogue.push_back(mkAssign(mkIndex(mkOpaque(out), mkInt(0)), "=",
                                F.retVar->active ? mkVar(G.tangent(F.retVar))
                                                 : mkInt(0)));
  }
  Block all = body;
  append(all, epilogue);
  std::set<Var *> used;
  referenced(all, used);
  // A tangent parameter that nothing reads (an argument that carries
  // derivatives into a result that does not, as in a loop condition).
  for (Var *t : skip)
    if (!used.count(t))
      body.insert(body.begin(), mkExprStmt(mkOpaque("(void)" + t->name)));
  std::string text = functionBody(F, body, epilogue, G.declaredTangents(),
                                  skip, F.retVar != nullptr);
  std::string ps;
  for (size_t i = 0; i < params.size(); ++i)
    ps += (i ? ", " : "") + params[i];
  pendingHelpers_ += globalShadowDecls(G.tangents, externalShadows_) +
                     "\n/* mpiad: tangent of " + name + " */\nstatic " +
                     (F.retVar ? printType(F.ret) : std::string("void")) + " " +
                     fname + "(" + (ps.empty() ? "void" : ps) + ") {\n" + text +
                     "}\n";
  owned_.push_back(std::move(owned));
  return &tangentCallees_[key];
}

} // namespace mpiad
