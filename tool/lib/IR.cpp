//===- IR.cpp - Constructors and small queries on the IR ------------------===//
#include "IR.h"

namespace mpiad {

static std::shared_ptr<Expr> node(Expr::Kind k) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  return e;
}

long long nextVarOrder() {
  static long long next = 0;
  return next++;
}

static unsigned currentActivityEpoch = 1;
unsigned activityEpoch() { return currentActivityEpoch; }
void newActivityEpoch() { ++currentActivityEpoch; }

ExprP mkInt(long long v) { return mkIntText(std::to_string(v)); }

ExprP mkIntText(const std::string &t) {
  auto e = node(Expr::IntLit);
  e->text = t;
  e->type = Scalar::Int;
  return e;
}

ExprP mkFloat(const std::string &t) {
  auto e = node(Expr::FloatLit);
  e->text = t;
  e->type = Scalar::Double;
  return e;
}

ExprP mkVar(Var *v) {
  auto e = node(Expr::VarRef);
  e->var = v;
  e->type = v->type.elem;
  e->ptrDepth = v->type.ptrDepth + (int)v->type.dims.size();
  return e;
}

ExprP mkIndex(ExprP base, ExprP idx) {
  auto e = node(Expr::Index);
  e->type = base->type;
  e->ptrDepth = base->ptrDepth > 0 ? base->ptrDepth - 1 : 0;
  e->ops = {base, idx};
  return e;
}

ExprP mkUnary(const std::string &op, ExprP a) {
  auto e = node(Expr::Unary);
  e->text = op;
  e->type = op == "!" ? Scalar::Int : a->type;
  e->ptrDepth = op == "!" ? 0 : a->ptrDepth;
  e->ops = {a};
  return e;
}

static Scalar promote(Scalar a, Scalar b) {
  if (a == Scalar::Double || b == Scalar::Double)
    return Scalar::Double;
  if (a == Scalar::Float || b == Scalar::Float)
    return Scalar::Float;
  if (a == Scalar::Int && b == Scalar::Int)
    return Scalar::Int;
  return Scalar::Other;
}

ExprP mkBinary(const std::string &op, ExprP a, ExprP b) {
  auto e = node(Expr::Binary);
  e->text = op;
  static const std::set<std::string> cmp = {"<",  "<=", ">",  ">=",
                                            "==", "!=", "&&", "||"};
  if (cmp.count(op)) {
    e->type = Scalar::Int;
  } else if (a->ptrDepth > 0 || b->ptrDepth > 0) {
    const ExprP &p = a->ptrDepth > 0 ? a : b;
    e->type = p->type;
    e->ptrDepth = p->ptrDepth;
  } else {
    e->type = promote(a->type, b->type);
  }
  e->ops = {a, b};
  return e;
}

ExprP mkCond(ExprP c, ExprP a, ExprP b) {
  auto e = node(Expr::Cond);
  e->type = promote(a->type, b->type);
  if (a->ptrDepth) {
    e->type = a->type;
    e->ptrDepth = a->ptrDepth;
  }
  e->ops = {c, a, b};
  return e;
}

ExprP mkCall(const std::string &fn, std::vector<ExprP> args, Scalar type,
             int ptrDepth) {
  auto e = node(Expr::Call);
  e->text = fn;
  e->ops = std::move(args);
  e->type = type;
  e->ptrDepth = ptrDepth;
  return e;
}

ExprP mkCast(const std::string &ty, ExprP a, Scalar type, int ptrDepth) {
  auto e = node(Expr::Cast);
  e->text = ty;
  e->ops = {a};
  e->type = type;
  e->ptrDepth = ptrDepth;
  return e;
}

ExprP mkAddrOf(ExprP a) {
  auto e = node(Expr::AddrOf);
  e->ops = {a};
  e->type = a->type;
  e->ptrDepth = a->ptrDepth + 1;
  return e;
}

ExprP mkOpaque(const std::string &text, std::vector<Var *> vars, Scalar type) {
  auto e = node(Expr::Opaque);
  e->text = text;
  e->vars = std::move(vars);
  e->type = type;
  return e;
}

void visitExpr(const ExprP &e, const std::function<void(const Expr &)> &fn) {
  if (!e)
    return;
  fn(*e);
  for (const ExprP &o : e->ops)
    visitExpr(o, fn);
}

void collectVars(const ExprP &e, std::set<Var *> &out) {
  if (!e)
    return;
  if (e->var)
    out.insert(e->var);
  for (Var *v : e->vars)
    out.insert(v);
  for (const ExprP &o : e->ops)
    collectVars(o, out);
}

Var *baseVar(const ExprP &e) {
  if (!e)
    return nullptr;
  switch (e->kind) {
  case Expr::VarRef:
    return e->var;
  case Expr::Index:
  case Expr::AddrOf:
  case Expr::Cast:
    return baseVar(e->ops[0]);
  case Expr::Unary:
    return e->text == "*" ? baseVar(e->ops[0]) : nullptr;
  case Expr::Binary:
    if (e->ptrDepth > 0)
      return baseVar(e->ops[0]->ptrDepth > 0 ? e->ops[0] : e->ops[1]);
    return nullptr;
  default:
    return nullptr;
  }
}

ExprP renameVars(const ExprP &e, const std::map<Var *, Var *> &to) {
  if (!e || to.empty())
    return e;
  auto r = std::make_shared<Expr>(*e);
  if (r->var && to.count(r->var))
    r->var = to.at(r->var);
  for (Var *&v : r->vars)
    if (to.count(v))
      v = to.at(v);
  for (ExprP &o : r->ops)
    o = renameVars(o, to);
  return r;
}

ExprP substitute(const ExprP &e, const std::map<std::string, ExprP> &map) {
  if (e->kind == Expr::Opaque) {
    auto it = map.find(e->text);
    if (it != map.end())
      return it->second;
  }
  if (e->ops.empty())
    return e;
  auto c = std::make_shared<Expr>(*e);
  for (ExprP &o : c->ops)
    o = substitute(o, map);
  // Rule expressions are built with unknown types; recompute from operands.
  if (c->kind == Expr::Binary)
    return mkBinary(c->text, c->ops[0], c->ops[1]);
  return c;
}

bool isZeroLiteral(const ExprP &e) {
  if (e->kind != Expr::IntLit && e->kind != Expr::FloatLit)
    return false;
  return e->text == "0" || e->text == "0.0" || e->text == "0." ||
         e->text == "0.0f";
}

bool isOneLiteral(const ExprP &e) {
  if (e->kind != Expr::IntLit && e->kind != Expr::FloatLit)
    return false;
  return e->text == "1" || e->text == "1.0" || e->text == "1.";
}

static StmtP stmt(Stmt::Kind k) {
  auto s = std::make_shared<Stmt>();
  s->kind = k;
  return s;
}

StmtP mkAssign(ExprP lhs, const std::string &op, ExprP rhs) {
  auto s = stmt(Stmt::Assign);
  s->lhs = lhs;
  s->op = op;
  s->rhs = rhs;
  return s;
}

StmtP mkExprStmt(ExprP e) {
  auto s = stmt(Stmt::ExprStmt);
  s->rhs = e;
  return s;
}

StmtP mkIf(ExprP cond, Block then, Block els) {
  auto s = stmt(Stmt::If);
  s->cond = cond;
  s->body = std::move(then);
  s->elseBody = std::move(els);
  return s;
}

StmtP mkComment(const std::string &text) {
  auto s = stmt(Stmt::Comment);
  s->text = text;
  return s;
}

StmtP mkDecl(Var *v, ExprP init) {
  auto s = stmt(Stmt::Decl);
  s->var = v;
  s->rhs = init;
  return s;
}

/// for (long long v = from; v <= to; v++) body   (or from to down to `to`)
StmtP mkCountedLoop(Var *v, const ExprP &from, const ExprP &to, bool down,
                  const std::string &cmp, Block body) {
  v->declaredInForInit = true;
  auto r = std::make_shared<Stmt>();
  r->kind = Stmt::For;
  r->init = mkDecl(v, from);
  r->cond = mkBinary(cmp, mkVar(v), to);
  r->step = mkAssign(mkVar(v), down ? "-=" : "+=", mkInt(1));
  r->body = std::move(body);
  return r;
}

StmtP mkCompound(Block b) {
  auto s = stmt(Stmt::Compound);
  s->body = std::move(b);
  return s;
}

} // namespace mpiad
