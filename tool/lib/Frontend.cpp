//===- Frontend.cpp - Clang AST to IR -------------------------------------===//
#include "Frontend.h"

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <functional>

using namespace clang;

namespace mpiad {

void Diag::error(SourceLocation loc, const std::string &msg) {
  ++errors_;
  if (quiet_)
    return;
  diags_.Report(loc, diags_.getCustomDiagID(DiagnosticsEngine::Error, "%0"))
      << msg;
}
void Diag::warning(SourceLocation loc, const std::string &name,
                   const std::string &msg) {
  if (quiet_ || policy_.none || policy_.disabled.count(name))
    return;
  bool asError = policy_.errors.count(name) ||
                 (policy_.error && !policy_.noErrors.count(name));
  if (asError) {
    error(loc, msg + " [-Werror,-Wmpiad-" + name + "]");
    return;
  }
  diags_.Report(loc, diags_.getCustomDiagID(DiagnosticsEngine::Warning, "%0"))
      << msg + " [-Wmpiad-" + name + "]";
}
void Diag::note(SourceLocation loc, const std::string &msg) {
  if (quiet_)
    return;
  diags_.Report(loc, diags_.getCustomDiagID(DiagnosticsEngine::Note, "%0"))
      << msg;
}

static Scalar classify(QualType t) {
  t = t.getCanonicalType();
  if (const auto *bt = t->getAs<BuiltinType>()) {
    switch (bt->getKind()) {
    case BuiltinType::Double:
      return Scalar::Double;
    case BuiltinType::Float:
      return Scalar::Float;
    case BuiltinType::Void:
      return Scalar::Void;
    case BuiltinType::LongDouble:
      return Scalar::Other;
    default:
      return bt->isInteger() ? Scalar::Int : Scalar::Other;
    }
  }
  if (t->isEnumeralType())
    return Scalar::Int;
  return Scalar::Other;
}

CType convertType(QualType t, const ASTContext &ctx) {
  CType r;
  PrintingPolicy pp(ctx.getLangOpts());
  pp.SuppressTagKeyword = false;
  QualType cur = t;
  while (true) {
    if (const auto *at = ctx.getAsConstantArrayType(cur)) {
      r.dims.push_back(std::to_string(at->getSize().getZExtValue()));
      cur = at->getElementType();
      continue;
    }
    if (cur->isArrayType()) { // incomplete or variable: treat as pointer
      r.ptrDepth++;
      cur = ctx.getAsArrayType(cur)->getElementType();
      continue;
    }
    QualType canon = cur.getCanonicalType();
    if (canon->isPointerType() && !canon->isFunctionPointerType()) {
      // Keep typedef'd pointer types (MPI_Comm, MPI_Request) whole.
      if (cur->getAs<TypedefType>() && !cur->isPointerType())
        break;
      if (cur->getAs<TypedefType>()) {
        QualType pointee = canon->getPointeeType();
        if (classify(pointee) == Scalar::Other)
          break;
      }
      r.ptrDepth++;
      cur = cur->getPointeeType();
      continue;
    }
    break;
  }
  r.elem = classify(cur);
  r.isConst = cur.isConstQualified();
  r.base = cur.getAsString(pp);
  // Declarators our printer cannot rebuild (function pointers, pointers to
  // arrays): keep Clang's own spelling around a placeholder name.
  std::string simple = r.base + " " + std::string(r.ptrDepth, '*') + "@N@";
  for (const std::string &d : r.dims)
    simple += "[" + d + "]";
  std::string full;
  llvm::raw_string_ostream os(full);
  t.print(os, pp, "@N@");
  os.flush();
  auto squash = [](std::string x) {
    x.erase(std::remove(x.begin(), x.end(), ' '), x.end());
    return x;
  };
  if (squash(full) != squash(simple))
    r.declFmt = full;
  return r;
}

/// Lowers one function body.
class Lowering {
public:
  Lowering(Frontend &fe, Function &fn, const FunctionDecl *fd)
      : fe(fe), F(fn), fd(fd), SM(fe.ctx_.getSourceManager()),
        LO(fe.ctx_.getLangOpts()) {}

  bool run();
  bool checkExprDepth(const clang::Stmt *body);

private:
  Frontend &fe;
  Function &F;
  const FunctionDecl *fd;
  const SourceManager &SM;
  const LangOptions &LO;
  std::map<const VarDecl *, Var *> vars;
  std::map<const VarDecl *, Var *> globals;
  Block *pre = nullptr; // statements hoisted before the current statement
  // Increments hoisted after the current statement (`a[k++] = e`): set only
  // for statements that run their expressions once, in full (expression
  // statements, assignments, declarations, returns).
  Block *post = nullptr;
  int guarded = 0; // inside an operand of &&, || or ?: (may not run)
  const clang::Stmt *fullExpr = nullptr; // what an increment is sequenced in
  int tempCount = 0;
  int loopDepth = 0;
  bool inCondition = false;
  bool failed = false;
  const CallExpr *directCall = nullptr; // `y = f(...)` / `f(...);`
  // Loops that a `#pragma mpiad checkpoint` precedes.
  std::map<const clang::ForStmt *, const PragmaRecord *> checkpointed;
  std::map<const clang::Expr *, SourceLocation> begins; // see beginLoc
  // Loops that `#pragma mpiad parallel` or `#pragma omp parallel for`
  // precedes.
  std::set<const clang::ForStmt *> parallelLoops;

  void findCheckpointedLoops(const CompoundStmt *body);
  bool ompParallelFor(const clang::ForStmt *fs);

  void error(SourceLocation loc, const std::string &msg) {
    fe.diag_.error(loc, msg);
    failed = true;
  }
  std::string text(SourceRange r) {
    CharSourceRange cr = CharSourceRange::getTokenRange(r);
    if (r.getBegin().isMacroID() || r.getEnd().isMacroID())
      cr = SM.getExpansionRange(r);
    return Lexer::getSourceText(cr, SM, LO).str();
  }
  std::string spelling(SourceRange r) {
    return Lexer::getSourceText(
               CharSourceRange::getTokenRange(SM.getSpellingLoc(r.getBegin()),
                                              SM.getSpellingLoc(r.getEnd())),
               SM, LO)
        .str();
  }

  /// e->getBeginLoc(), remembered: Clang finds the beginning of `a + b` by
  /// walking down the left operands, and asking at every level of a sum of
  /// n terms would cost n^2.
  SourceLocation beginLoc(const clang::Expr *e) {
    std::vector<const clang::Expr *> path;
    SourceLocation loc;
    for (;;) {
      auto it = begins.find(e);
      if (it != begins.end()) {
        loc = it->second;
        break;
      }
      path.push_back(e);
      if (const auto *bo = dyn_cast<BinaryOperator>(e))
        e = bo->getLHS();
      else if (const auto *ice = dyn_cast<ImplicitCastExpr>(e))
        e = ice->getSubExpr();
      else {
        loc = e->getBeginLoc();
        break;
      }
    }
    for (const clang::Expr *p : path)
      begins[p] = loc;
    return loc;
  }

  Var *varFor(const VarDecl *vd, SourceLocation use);
  ExprP lower(const clang::Expr *e);
  bool isIntConstant(const clang::Expr *e) const;
  ExprP constant(ExprP x, const clang::Expr *e) const;
  ExprP lowerCall(const CallExpr *ce);
  ExprP lowerIncrement(const clang::UnaryOperator *uo);
  ExprP hoistToTemp(ExprP value, QualType t, SourceLocation loc);
  void lowerStmt(const clang::Stmt *s, Block &out);
  void lowerInto(const clang::Stmt *s, Block &out);
  bool lowerComm(const CallExpr *ce, Block &out);
  StmtP lowerLoopPart(const clang::Stmt *s);
};

Var *Lowering::varFor(const VarDecl *vd, SourceLocation use) {
  auto it = vars.find(vd);
  if (it != vars.end())
    return it->second;
  if (vd->hasGlobalStorage() && !vd->isStaticLocal()) {
    auto g = globals.find(vd);
    if (g != globals.end())
      return g->second;
    Var *v = F.newVar(vd->getName().str(), convertType(vd->getType(), fe.ctx_),
                      Var::Global);
    v->loc = vd->getLocation();
    globals[vd] = v;
    return v;
  }
  error(use, "internal: reference to an undeclared variable");
  return nullptr;
}

static bool isIdentifier(const std::string &s) {
  if (s.empty() || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

ExprP Lowering::hoistToTemp(ExprP value, QualType t, SourceLocation loc) {
  if (!pre || inCondition) {
    error(loc, "a call to a differentiated function inside a loop condition "
               "is not supported; assign it to a variable first");
    return value;
  }
  CType ct = convertType(t, fe.ctx_);
  Var *tmp = F.newVar("mpiad_c" + std::to_string(++tempCount), ct,
                      Var::Synthetic);
  tmp->loc = loc;
  pre->push_back(mkDecl(tmp));
  auto s = mkAssign(mkVar(tmp), "=", value);
  s->loc = loc;
  pre->push_back(s);
  return mkVar(tmp);
}

/// Is e an integer constant expression (length inference may take a macro
/// N or an enumerator as its own bound)?
bool Lowering::isIntConstant(const clang::Expr *e) const {
  return !e->isValueDependent() && e->getType()->isIntegerType() &&
         e->isIntegerConstantExpr(fe.ctx_);
}

ExprP Lowering::constant(ExprP x, const clang::Expr *e) const {
  if (!isIntConstant(e))
    return x;
  auto c = std::make_shared<mpiad::Expr>(*x);
  c->intConstant = true;
  return c;
}

ExprP Lowering::lower(const clang::Expr *e) {
  // A whole object-like macro whose body is parenthesised
  // (MPI_STATUS_IGNORE is `((MPI_Status *) 0)`) prints as its name.
  if (isa<ParenExpr>(e) && e->getBeginLoc().isMacroID() &&
      Lexer::isAtStartOfMacroExpansion(e->getBeginLoc(), SM, LO) &&
      Lexer::isAtEndOfMacroExpansion(e->getEndLoc(), SM, LO)) {
    std::string t = text(e->getSourceRange());
    if (isIdentifier(t) && !SM.isMacroArgExpansion(e->getBeginLoc())) {
      CType ct = convertType(e->getType(), fe.ctx_);
      auto x = std::make_shared<mpiad::Expr>(*mkOpaque(t, {}, ct.elem));
      x->ptrDepth = ct.ptrDepth;
      x->intConstant = isIntConstant(e);
      x->loc = e->getExprLoc();
      return x;
    }
  }
  e = e->IgnoreParens();
  SourceLocation loc = e->getExprLoc();
  QualType qt = e->getType();
  CType ct = convertType(qt, fe.ctx_);
  auto typed = [&](ExprP x) {
    auto c = std::make_shared<mpiad::Expr>(*x);
    c->type = ct.elem;
    c->ptrDepth = ct.ptrDepth + (int)ct.dims.size();
    c->loc = loc;
    return ExprP(c);
  };

  // A whole object-like macro (M_PI, N, MPI_COMM_WORLD) prints as its name.
  if (!isa<CallExpr>(e) && beginLoc(e).isMacroID() &&
      Lexer::isAtStartOfMacroExpansion(beginLoc(e), SM, LO) &&
      Lexer::isAtEndOfMacroExpansion(e->getEndLoc(), SM, LO)) {
    std::string t = text(e->getSourceRange());
    if (isIdentifier(t) && !SM.isMacroArgExpansion(e->getBeginLoc()))
      return constant(typed(mkOpaque(t, {}, ct.elem)), e);
  }

  if (const auto *ice = dyn_cast<ImplicitCastExpr>(e)) {
    ExprP sub = lower(ice->getSubExpr());
    if (!sub)
      return nullptr;
    switch (ice->getCastKind()) {
    case CK_IntegralToFloating:
    case CK_FloatingCast:
    case CK_FloatingToIntegral:
    case CK_IntegralCast:
      // Keep the value's new type (matters for derivative arithmetic).
      return typed(sub);
    default:
      return sub;
    }
  }
  if (const auto *il = dyn_cast<IntegerLiteral>(e))
    return typed(mkIntText(spelling(il->getSourceRange())));
  if (const auto *fl = dyn_cast<FloatingLiteral>(e))
    return typed(mkFloat(spelling(fl->getSourceRange())));
  if (isa<CharacterLiteral>(e) || isa<StringLiteral>(e) ||
      isa<UnaryExprOrTypeTraitExpr>(e) || isa<OffsetOfExpr>(e))
    return constant(typed(mkOpaque(text(e->getSourceRange()), {}, ct.elem)), e);
  if (const auto *dre = dyn_cast<DeclRefExpr>(e)) {
    if (const auto *vd = dyn_cast<VarDecl>(dre->getDecl())) {
      Var *v = varFor(vd, loc);
      return v ? typed(mkVar(v)) : nullptr;
    }
    return constant(
        typed(mkOpaque(dre->getNameInfo().getAsString(), {}, ct.elem)), e);
  }
  if (const auto *ase = dyn_cast<ArraySubscriptExpr>(e)) {
    ExprP b = lower(ase->getBase()), i = lower(ase->getIdx());
    if (!b || !i)
      return nullptr;
    return typed(mkIndex(b, i));
  }
  if (const auto *me = dyn_cast<MemberExpr>(e)) {
    // Struct fields are read as opaque values (never active).  The base is
    // kept as an operand, so that it prints with its generated name
    // (`st_2.MPI_SOURCE` when two `MPI_Status st` share a function).
    std::set<Var *> used;
    ExprP base = lower(me->getBase());
    if (base)
      collectVars(base, used);
    ExprP out = mkOpaque(text(e->getSourceRange()),
                         std::vector<Var *>(used.begin(), used.end()), ct.elem);
    if (base) {
      auto m = std::make_shared<Expr>(*out);
      m->text = (me->isArrow() ? "->" : ".") +
                me->getMemberNameInfo().getAsString();
      m->ops = {base};
      out = m;
    }
    return typed(out);
  }
  if (const auto *uo = dyn_cast<UnaryOperator>(e)) {
    switch (uo->getOpcode()) {
    case UO_Minus:
    case UO_Plus:
    case UO_LNot:
    case UO_Not: {
      ExprP a = lower(uo->getSubExpr());
      if (!a)
        return nullptr;
      if (uo->getOpcode() == UO_Plus)
        return a;
      return typed(mkUnary(UnaryOperator::getOpcodeStr(uo->getOpcode()).str(),
                           a));
    }
    case UO_Deref: {
      ExprP a = lower(uo->getSubExpr());
      return a ? typed(mkIndex(a, mkInt(0))) : nullptr;
    }
    case UO_AddrOf: {
      ExprP a = lower(uo->getSubExpr());
      return a ? typed(mkAddrOf(a)) : nullptr;
    }
    default:
      if (ExprP v = lowerIncrement(uo))
        return v;
      if (failed)
        return nullptr;
      error(loc, "'" + UnaryOperator::getOpcodeStr(uo->getOpcode()).str() +
                     "' inside an expression is not supported here in a "
                     "differentiated function (a loop header, a condition, "
                     "an operand of &&, || or ?:, or on a value that is not "
                     "an integer variable); write it as a separate "
                     "statement");
      return nullptr;
    }
  }
  if (const auto *bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->isAssignmentOp()) {
      error(loc, "assignment inside an expression is not supported in a "
                 "differentiated function; write it as a separate statement");
      return nullptr;
    }
    if (bo->getOpcode() == BO_Comma) {
      error(loc, "the comma operator is not supported in a differentiated "
                 "function");
      return nullptr;
    }
    bool shortCircuit = bo->getOpcode() == BO_LAnd || bo->getOpcode() == BO_LOr;
    ExprP a = lower(bo->getLHS());
    guarded += shortCircuit;
    ExprP b = lower(bo->getRHS());
    guarded -= shortCircuit;
    if (!a || !b)
      return nullptr;
    return typed(mkBinary(bo->getOpcodeStr().str(), a, b));
  }
  if (const auto *co = dyn_cast<ConditionalOperator>(e)) {
    ExprP c = lower(co->getCond());
    ++guarded;
    ExprP a = lower(co->getTrueExpr()), b = lower(co->getFalseExpr());
    --guarded;
    if (!c || !a || !b)
      return nullptr;
    return typed(mkCond(c, a, b));
  }
  if (const auto *cc = dyn_cast<CStyleCastExpr>(e)) {
    ExprP a = lower(cc->getSubExpr());
    if (!a)
      return nullptr;
    PrintingPolicy pp(LO);
    return typed(mkCast(cc->getTypeAsWritten().getAsString(pp), a, ct.elem,
                        ct.ptrDepth));
  }
  if (const auto *ce = dyn_cast<CallExpr>(e))
    return lowerCall(ce);
  if (isa<InitListExpr>(e) || isa<ImplicitValueInitExpr>(e)) {
    std::string t = text(e->getSourceRange());
    return typed(mkOpaque(t.empty() ? "{0}" : t, {}, ct.elem));
  }
  if (isa<StmtExpr>(e)) {
    error(loc, "statement expressions are not supported in a differentiated "
               "function");
    return nullptr;
  }
  error(loc, std::string("unsupported expression '") + e->getStmtClassName() +
                 "' in a differentiated function");
  return nullptr;
}

/// `a[k++] = e`, `t = b[--k]`: an increment or decrement of an integer
/// variable inside an expression that runs once, in full.  The pre forms
/// become a statement before the current one (`k -= 1; t = b[k];`), the
/// post forms a statement after it (`a[k] = e; k += 1;`); the expression
/// reads the variable.  C leaves a second access to the same variable in
/// the statement unsequenced, so the value is that of any order.  Returns
/// null (and reports nothing) where this does not apply.
ExprP Lowering::lowerIncrement(const clang::UnaryOperator *uo) {
  if (!uo->isIncrementDecrementOp() || !pre || !post || inCondition ||
      guarded)
    return nullptr;
  const auto *dre =
      dyn_cast<DeclRefExpr>(uo->getSubExpr()->IgnoreParenImpCasts());
  const auto *vd = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  if (!vd || !vd->getType()->isIntegerType())
    return nullptr;
  // C leaves a second access to the variable in the same full expression
  // unsequenced (`x[j++] + x[j]`): the compiler and the adjoint could read
  // different values.  Refuse rather than pick an order.
  std::function<int(const clang::Stmt *)> uses = [&](const clang::Stmt *t) {
    if (!t)
      return 0;
    int n = 0;
    if (const auto *r = dyn_cast<DeclRefExpr>(t))
      n += r->getDecl() == vd;
    for (const clang::Stmt *c : t->children())
      n += uses(c);
    return n;
  };
  if (fullExpr && uses(fullExpr) > 1) {
    error(uo->getExprLoc(),
          "'" + vd->getNameAsString() +
              "' is incremented or decremented and also used elsewhere in "
              "this statement, whose order C leaves unspecified; split the "
              "statement");
    return nullptr;
  }
  ExprP v = lower(uo->getSubExpr());
  if (!v || v->kind != mpiad::Expr::VarRef)
    return nullptr;
  auto st = mkAssign(v, uo->isIncrementOp() ? "+=" : "-=", mkInt(1));
  st->loc = uo->getExprLoc();
  (uo->isPrefix() ? pre : post)->push_back(st);
  return mkVar(v->var);
}

ExprP Lowering::lowerCall(const CallExpr *ce) {
  SourceLocation loc = ce->getExprLoc();
  const FunctionDecl *callee = ce->getDirectCallee();
  CType rt = convertType(ce->getType(), fe.ctx_);
  if (!callee) {
    // Calls through function pointers: fine when nothing floating flows.
    bool floating = rt.isFloatingElem();
    for (const clang::Expr *a : ce->arguments())
      floating |= convertType(a->getType(), fe.ctx_).isFloatingElem();
    if (floating) {
      error(loc, "call through a function pointer with floating-point "
                 "arguments or result cannot be differentiated; call the "
                 "function directly");
      return nullptr;
    }
    std::set<Var *> used;
    for (const clang::Expr *a : ce->arguments())
      if (ExprP x = lower(a))
        collectVars(x, used);
    if (ExprP f = lower(ce->getCallee()))
      collectVars(f, used);
    return mkOpaque(text(ce->getSourceRange()),
                    std::vector<Var *>(used.begin(), used.end()), rt.elem);
  }
  std::string name = callee->getNameAsString();
  if (fe.rules_.comm(name) || name.rfind("MPI_", 0) == 0 ||
      name.rfind("PMPI_", 0) == 0) {
    error(loc, "'" + name + "' used as a value; call MPI functions as "
                            "statements in a differentiated function");
    return nullptr;
  }
  if (name == "setjmp" || name == "longjmp" || name == "_setjmp" ||
      name == "sigsetjmp" || name == "siglongjmp" || name == "__sigsetjmp") {
    error(loc, "'" + name + "' cannot be differentiated (non-local jumps)");
    return nullptr;
  }
  std::vector<ExprP> args;
  for (const clang::Expr *a : ce->arguments()) {
    ExprP x = lower(a);
    if (!x)
      return nullptr;
    args.push_back(x);
  }
  const FunctionDecl *def = callee->getDefinition();
  if (def && def->hasBody() && !fe.rules_.math(name) &&
      SM.isInMainFile(def->getLocation())) {
    if (def->isVariadic()) {
      for (size_t i = 0; i < args.size(); ++i)
        if (i >= def->getNumParams() && args[i]->isFloating()) {
          error(args[i]->loc.isValid() ? args[i]->loc : loc,
                "floating-point argument to variadic function '" + name +
                    "' cannot be differentiated");
          return nullptr;
        }
    }
    Function *cf = fe.lower(def);
    if (!cf) {
      fe.diag_.note(loc, "in the call to '" + name + "'");
      failed = true;
      return nullptr;
    }
    // Floating scalar arguments become variables, so the adjoint of the call
    // can accumulate into their shadows.
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i]->isFloating() && args[i]->kind != mpiad::Expr::VarRef &&
          args[i]->kind != mpiad::Expr::IntLit &&
          args[i]->kind != mpiad::Expr::FloatLit) {
        args[i] = hoistToTemp(args[i], ce->getArg(i)->getType(),
                              ce->getArg(i)->getExprLoc());
      }
    }
    ExprP call = mkCall(name, args, rt.elem, rt.ptrDepth);
    auto c = std::make_shared<mpiad::Expr>(*call);
    c->loc = loc;
    // Inside a larger expression the call becomes a temporary, so that its
    // adjoint is a statement of its own.
    if (ce != directCall && rt.elem != Scalar::Void)
      return hoistToTemp(c, ce->getType(), loc);
    return c;
  }
  auto c = std::make_shared<mpiad::Expr>(
      *mkCall(name, args, rt.elem, rt.ptrDepth));
  c->loc = loc;
  return c;
}

bool Lowering::lowerComm(const CallExpr *ce, Block &out) {
  const FunctionDecl *callee = ce->getDirectCallee();
  std::string name = callee->getNameAsString();
  const CommRule *rule = fe.rules_.comm(name);
  if (!rule) {
    error(ce->getExprLoc(),
          "'" + name + "' is not supported in a differentiated function yet "
                       "(no communication rule for it in rules/)");
    return false;
  }
  if (ce->getNumArgs() != rule->args.size()) {
    error(ce->getExprLoc(), "'" + name + "' called with " +
                                std::to_string(ce->getNumArgs()) +
                                " arguments; its rule expects " +
                                std::to_string(rule->args.size()));
    return false;
  }
  auto s = std::make_shared<Stmt>();
  s->kind = Stmt::Comm;
  s->loc = ce->getExprLoc();
  s->comm.rule = rule;
  s->comm.name = name;
  for (unsigned i = 0; i < ce->getNumArgs(); ++i) {
    const clang::Expr *a = ce->getArg(i);
    CommArg::Role role = rule->args[i].role;
    if (role == CommArg::Op || role == CommArg::Datatype ||
        role == CommArg::Comm) {
      ExprP x = lower(a);
      std::set<Var *> used;
      if (x)
        collectVars(x, used);
      auto op = std::make_shared<mpiad::Expr>(*mkOpaque(
          text(a->getSourceRange()), std::vector<Var *>(used.begin(), used.end())));
      op->loc = a->getExprLoc();
      s->comm.args.push_back(op);
      continue;
    }
    ExprP x = lower(a);
    if (!x)
      return false;
    s->comm.args.push_back(x);
  }
  out.push_back(s);
  return true;
}

StmtP Lowering::lowerLoopPart(const clang::Stmt *s) {
  if (!s)
    return nullptr;
  Block b;
  Block *savedPre = pre;
  pre = nullptr; // calls in loop headers cannot be hoisted
  inCondition = true;
  lowerStmt(s, b);
  inCondition = false;
  pre = savedPre;
  if (b.size() == 1)
    return b[0];
  if (b.empty())
    return nullptr;
  error(s->getBeginLoc(), "this loop header is too complex to differentiate; "
                          "use one initialisation and one increment");
  return nullptr;
}

void Lowering::lowerInto(const clang::Stmt *s, Block &out) {
  if (const auto *cs = dyn_cast_or_null<CompoundStmt>(s)) {
    for (const clang::Stmt *c : cs->body())
      lowerStmt(c, out);
  } else if (s) {
    lowerStmt(s, out);
  }
}

void Lowering::lowerStmt(const clang::Stmt *s, Block &out) {
  if (!s)
    return;
  SourceLocation loc = s->getBeginLoc();
  Block hoisted;
  Block *savedPre = pre;
  if (!inCondition)
    pre = &hoisted;
  auto flushPre = [&]() {
    for (auto &h : hoisted)
      out.push_back(h);
    hoisted.clear();
  };
  struct Restore {
    Block *&p;
    Block *saved;
    ~Restore() { p = saved; }
  } restore{pre, savedPre};
  // Post-increments of this statement (set below for the kinds that allow
  // them), placed right after it.
  Block hoistedPost;
  Restore restorePost{post, post};
  post = nullptr;
  struct RestoreRoot {
    const clang::Stmt *&p;
    const clang::Stmt *saved;
    ~RestoreRoot() { p = saved; }
  } restoreRoot{fullExpr, fullExpr};
  fullExpr = s;
  auto allowPost = [&]() {
    if (!inCondition)
      post = &hoistedPost;
  };
  auto flushPost = [&]() {
    for (auto &h : hoistedPost)
      out.push_back(h);
    hoistedPost.clear();
  };

  if (isa<NullStmt>(s))
    return;
  // `a = 1, b = 2;` as a statement: each operand in turn.
  if (const auto *bo = dyn_cast<BinaryOperator>(s))
    if (bo->getOpcode() == BO_Comma && !inCondition) {
      lowerStmt(bo->getLHS(), out);
      lowerStmt(bo->getRHS(), out);
      return;
    }
  if (const auto *cs = dyn_cast<CompoundStmt>(s)) {
    Block b;
    for (const clang::Stmt *c : cs->body())
      lowerStmt(c, b);
    auto st = mkCompound(std::move(b));
    st->loc = loc;
    out.push_back(st);
    return;
  }
  if (const auto *ds = dyn_cast<DeclStmt>(s)) {
    allowPost();
    for (const Decl *d : ds->decls()) {
      const auto *vd = dyn_cast<VarDecl>(d);
      if (!vd) {
        // Generated functions declare their variables at the top and are
        // placed after the primal: a type defined in the body is not
        // visible there.
        if (const auto *td = dyn_cast<TypeDecl>(d)) {
          std::string what = td->getNameAsString();
          if (const auto *tag = dyn_cast<TagDecl>(td))
            what = std::string(tag->getKindName()) +
                   (what.empty() ? "" : " " + what);
          error(td->getLocation(), "type '" + what +
                                       "' is defined inside a differentiated "
                                       "function; define it at file scope");
        }
        continue;
      }
      // Generated code declares locals at the top of the function and
      // assigns their initial values where they were declared (and the
      // reverse sweep may restore them), so a top-level const (`const
      // double t = ...`, `int *const p = &k`) is dropped.
      CType ct = convertType(vd->getType().getUnqualifiedType(), fe.ctx_);
      Var *v = F.newVar(vd->getNameAsString(), ct, Var::Local);
      v->loc = vd->getLocation();
      vars[vd] = v; // registered even after an error: no follow-up errors
      if (vd->isStaticLocal() && ct.isFloatingElem()) {
        error(vd->getLocation(), "static local variable '" +
                                     vd->getNameAsString() +
                                     "' of floating type in a differentiated "
                                     "function is not supported");
        continue;
      }
      if (vd->getType()->isVariableArrayType()) {
        error(vd->getLocation(),
              "variable-length array '" + vd->getNameAsString() +
                  "' is not supported in a differentiated function; use "
                  "malloc");
        continue;
      }
      if (!ct.dims.empty() && vd->hasInit()) {
        // Initialised by memcpy or element by element: the elements may not
        // be const (`const double t[2]`, `int **const p[1]`).
        std::string &b = v->type.base;
        if (b.rfind("const ", 0) == 0 && b.find('*') == std::string::npos)
          b = b.substr(6);
        if (b.size() > 5 && b.compare(b.size() - 5, 5, "const") == 0 &&
            (b[b.size() - 6] == '*' || b[b.size() - 6] == ' ')) {
          b = b.substr(0, b.size() - 5);
          while (!b.empty() && b.back() == ' ')
            b.pop_back();
        }
        // Clang's own declarator, where it is kept: `int **const @N@[1]`.
        std::string &f = v->type.declFmt;
        size_t at = f.find("@N@");
        if (at != std::string::npos) {
          size_t k = at;
          while (k > 0 && f[k - 1] == ' ')
            --k;
          if (k >= 5 && f.compare(k - 5, 5, "const") == 0)
            f.erase(k - 5, at - (k - 5));
        }
      }
      ExprP init;
      const auto *il = dyn_cast_or_null<InitListExpr>(
          vd->hasInit() ? vd->getInit()->IgnoreParenImpCasts() : nullptr);
      // `struct P p = {2.0, 3};`: the declaration is split into a
      // declaration and an assignment, which assigns a compound literal
      // `(struct P){2.0, 3}`.  Its fields carry no derivatives; values read
      // from variables are assigned field by field by the user.
      if (il && ct.dims.empty() && ct.ptrDepth == 0 &&
          vd->getType()->isRecordType()) {
        // The generated code assigns the initial value after declaring the
        // variable: a struct with a const field cannot be assigned.
        std::string constField;
        std::function<bool(QualType)> hasConst = [&](QualType t) {
          const auto *rd = t->getAsRecordDecl();
          if (!rd)
            return false;
          for (const FieldDecl *fd : rd->fields()) {
            if (fd->getType().isConstQualified() ||
                hasConst(fd->getType())) {
              if (constField.empty())
                constField = fd->getNameAsString();
              return true;
            }
          }
          return false;
        };
        if (hasConst(vd->getType())) {
          error(vd->getLocation(),
                "'" + vd->getNameAsString() + "' has a const field ('" +
                    constField +
                    "'): the generated code assigns a local's initial value "
                    "after declaring it, which such a struct forbids; drop "
                    "the const or declare the variable outside the "
                    "differentiated function");
          continue;
        }
        bool readsVars = false;
        for (const clang::Expr *e : il->inits()) {
          ExprP x = lower(e);
          if (!x)
            return;
          std::set<Var *> vs;
          collectVars(x, vs);
          readsVars |= !vs.empty() || x->kind == mpiad::Expr::Call;
        }
        if (readsVars) {
          error(vd->getLocation(),
                "initialiser list of struct '" + vd->getNameAsString() +
                    "' reads variables; assign its fields after the "
                    "declaration");
          continue;
        }
        PrintingPolicy pp(LO);
        std::string t = text(il->getSourceRange());
        init =
            mkOpaque("(" + vd->getType().getUnqualifiedType().getAsString(pp) +
                         ")" + (t.empty() ? "{0}" : t),
                     {}, ct.elem);
        auto st = mkDecl(v, init);
        st->loc = vd->getLocation();
        flushPre();
        out.push_back(st);
        continue;
      }
      // `double a[2] = {x[0], 2 * x[1]}` with values that may carry
      // derivatives: element assignments (the rest is zero, as in C).
      if (il) {
        bool readsVars = false;
        std::vector<ExprP> elems;
        for (const clang::Expr *e : il->inits()) {
          ExprP x = lower(e);
          if (!x)
            return;
          std::set<Var *> vs;
          collectVars(x, vs);
          readsVars |= !vs.empty() || x->kind == mpiad::Expr::Call;
          elems.push_back(x);
        }
        if (readsVars) {
          if (ct.dims.size() != 1) {
            error(vd->getLocation(), "initialiser list of multi-dimensional "
                                     "array '" + vd->getNameAsString() +
                                     "' reads variables; assign the elements");
            continue;
          }
          flushPre();
          out.push_back(mkDecl(v));
          long long n = std::stoll(ct.dims[0]);
          for (long long k = 0; k < n; ++k) {
            auto a = mkAssign(mkIndex(mkVar(v), mkInt(k)), "=",
                              k < (long long)elems.size() ? elems[k] : mkInt(0));
            a->loc = vd->getLocation();
            out.push_back(a);
          }
          if (v->type.base.rfind("const ", 0) == 0)
            v->type.base = v->type.base.substr(6);
          flushPost();
          continue;
        }
      }
      if (vd->hasInit()) {
        directCall = dyn_cast<CallExpr>(vd->getInit()->IgnoreParenImpCasts());
        init = lower(vd->getInit());
        if (!init)
          continue;
      }
      auto st = mkDecl(v, init);
      st->loc = vd->getLocation();
      flushPre();
      out.push_back(st);
      flushPost();
    }
    return;
  }
  if (const auto *is = dyn_cast<IfStmt>(s)) {
    if (is->getInit() || is->getConditionVariable()) {
      error(loc, "declarations in an if condition are not supported");
      return;
    }
    fullExpr = is->getCond();
    ExprP c = lower(is->getCond());
    if (!c)
      return;
    Block a, b;
    lowerInto(is->getThen(), a);
    lowerInto(is->getElse(), b);
    auto st = mkIf(c, std::move(a), std::move(b));
    st->loc = loc;
    flushPre();
    out.push_back(st);
    return;
  }
  if (const auto *fs = dyn_cast<ForStmt>(s)) {
    auto st = std::make_shared<Stmt>();
    st->kind = Stmt::For;
    st->loc = loc;
    if (fs->getInit()) {
      st->init = lowerLoopPart(fs->getInit());
      if (st->init && st->init->kind == Stmt::Decl)
        st->init->var->declaredInForInit = true;
    }
    if (fs->getCond()) {
      inCondition = true;
      st->cond = lower(fs->getCond());
      inCondition = false;
    }
    st->step = lowerLoopPart(fs->getInc());
    auto ck = checkpointed.find(fs);
    if (ck != checkpointed.end()) {
      st->checkpoint = true;
      st->snapshots = ck->second->snapshots;
      st->checkpointLoc = ck->second->loc;
    }
    st->parallel = parallelLoops.count(fs) || ompParallelFor(fs);
    ++loopDepth;
    lowerInto(fs->getBody(), st->body);
    --loopDepth;
    out.push_back(st);
    return;
  }
  if (const auto *ws = dyn_cast<WhileStmt>(s)) {
    auto st = std::make_shared<Stmt>();
    st->kind = Stmt::While;
    st->loc = loc;
    inCondition = true;
    st->cond = lower(ws->getCond());
    inCondition = false;
    ++loopDepth;
    lowerInto(ws->getBody(), st->body);
    --loopDepth;
    out.push_back(st);
    return;
  }
  if (const auto *dw = dyn_cast<DoStmt>(s)) {
    auto st = std::make_shared<Stmt>();
    st->kind = Stmt::DoWhile;
    st->loc = loc;
    ++loopDepth;
    lowerInto(dw->getBody(), st->body);
    --loopDepth;
    inCondition = true;
    st->cond = lower(dw->getCond());
    inCondition = false;
    out.push_back(st);
    return;
  }
  if (isa<BreakStmt>(s) || isa<ContinueStmt>(s)) {
    auto st = std::make_shared<Stmt>();
    st->kind = isa<BreakStmt>(s) ? Stmt::Break : Stmt::Continue;
    st->loc = loc;
    out.push_back(st);
    return;
  }
  if (const auto *rs = dyn_cast<ReturnStmt>(s)) {
    auto st = std::make_shared<Stmt>();
    st->kind = Stmt::Return;
    st->loc = loc;
    if (rs->getRetValue()) {
      st->rhs = lower(rs->getRetValue());
      if (!st->rhs)
        return;
    }
    flushPre();
    out.push_back(st);
    return;
  }
  if (isa<SwitchStmt>(s)) {
    error(loc, "switch statements are not supported in a differentiated "
               "function yet; use if/else");
    return;
  }
  if (isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s) || isa<LabelStmt>(s)) {
    error(loc, "goto and labels cannot be differentiated; use structured "
               "control flow");
    return;
  }
  if (isa<AsmStmt>(s)) {
    error(loc, "inline assembly cannot be differentiated");
    return;
  }
  if (const auto *bo = dyn_cast<BinaryOperator>(s)) {
    if (bo->isAssignmentOp()) {
      if (bo->getOpcode() == BO_Assign)
        directCall = dyn_cast<CallExpr>(bo->getRHS()->IgnoreParenImpCasts());
      allowPost();
      ExprP l = lower(bo->getLHS());
      ExprP r = lower(bo->getRHS());
      if (!l || !r)
        return;
      std::string op = bo->getOpcodeStr().str();
      if (op == "*=" || op == "/=") { // v *= e  ->  v = v * e
        r = mkBinary(op.substr(0, 1), l, r);
        op = "=";
      } else if (op != "=" && op != "+=" && op != "-=") {
        // %=, <<=, &= ...: integer only.
        if (l->isFloating()) {
          error(bo->getOperatorLoc(), "operator '" + op +
                                          "' on a floating-point value");
          return;
        }
      }
      auto st = mkAssign(l, op, r);
      st->loc = bo->getOperatorLoc();
      flushPre();
      out.push_back(st);
      flushPost();
      return;
    }
  }
  if (const auto *uo = dyn_cast<UnaryOperator>(s)) {
    if (uo->isIncrementDecrementOp()) {
      ExprP l = lower(uo->getSubExpr());
      if (!l)
        return;
      auto st = mkAssign(l, uo->isIncrementOp() ? "+=" : "-=", mkInt(1));
      st->loc = loc;
      out.push_back(st);
      return;
    }
  }
  if (const auto *ce = dyn_cast<CallExpr>(s)) {
    const FunctionDecl *callee = ce->getDirectCallee();
    if (callee) {
      std::string name = callee->getNameAsString();
      // MPI calls, and the user's own wrappers that have a rule.
      if (fe.rules_.comm(name) || name.rfind("MPI_", 0) == 0 ||
          name.rfind("PMPI_", 0) == 0) {
        lowerComm(ce, out);
        return;
      }
    }
    directCall = ce;
    allowPost();
    ExprP c = lower(ce);
    if (!c)
      return;
    auto st = mkExprStmt(c);
    st->loc = loc;
    flushPre();
    out.push_back(st);
    flushPost();
    return;
  }
  if (const auto *e = dyn_cast<clang::Expr>(s)) {
    ExprP x = lower(e);
    if (!x)
      return;
    auto st = mkExprStmt(x);
    st->loc = loc;
    flushPre();
    out.push_back(st);
    return;
  }
  error(loc, std::string("unsupported statement '") + s->getStmtClassName() +
                 "' in a differentiated function");
}

/// The nesting depth of the expression tree under `root`, counted without
/// recursion.
static unsigned exprDepth(const clang::Expr *root) {
  unsigned most = 0;
  std::vector<std::pair<const clang::Stmt *, unsigned>> work{{root, 1}};
  while (!work.empty()) {
    auto [s, d] = work.back();
    work.pop_back();
    most = std::max(most, d);
    for (const clang::Stmt *c : s->children())
      if (c)
        work.push_back({c, d + 1});
  }
  return most;
}

/// Rejects an expression nested deeper than kMaxExprDepth, before any
/// recursive walk over it (the AST is walked with an explicit stack).
bool Lowering::checkExprDepth(const clang::Stmt *body) {
  struct Item {
    const clang::Stmt *s;
    unsigned depth;           // expression nodes from the full expression
    const clang::Expr *full;  // the outermost expression, or null
  };
  std::vector<Item> work{{body, 0, nullptr}};
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    unsigned depth = 0;
    const clang::Expr *full = nullptr;
    if (const auto *e = dyn_cast<clang::Expr>(it.s)) {
      depth = it.depth + 1;
      full = it.full ? it.full : e;
    }
    if (depth > kMaxExprDepth) {
      error(full->getBeginLoc(),
            "expression nested too deeply (" +
                std::to_string(exprDepth(full)) +
                " levels); split it into several statements");
      return false;
    }
    for (const clang::Stmt *c : it.s->children())
      if (c)
        work.push_back({c, depth, full});
  }
  return true;
}

bool Lowering::run() {
  F.name = fd->getNameAsString();
  // A const-qualified return type (`const double f(...)`) qualifies nothing
  // the caller sees, but the generated code assigns mpiad_ret.
  F.ret = convertType(fd->getReturnType().getUnqualifiedType(), fe.ctx_);
  F.loc = fd->getLocation();
  F.isVariadic = fd->isVariadic();
  for (const ParmVarDecl *p : fd->parameters()) {
    if (p->getName().empty()) {
      error(p->getLocation(), "unnamed parameter in a differentiated function");
      continue;
    }
    Var *v = F.newVar(p->getNameAsString(), convertType(p->getType(), fe.ctx_),
                      Var::Param);
    v->loc = p->getLocation();
    vars[p] = v;
    F.params.push_back(v);
  }
  if (F.ret.elem != Scalar::Void || F.ret.ptrDepth) {
    F.retVar = F.newVar("mpiad_ret", F.ret, Var::Synthetic);
    F.retVar->loc = fd->getLocation();
  }
  if (const auto *cs = dyn_cast<CompoundStmt>(fd->getBody()))
    findCheckpointedLoops(cs);
  if (!checkExprDepth(fd->getBody()))
    return false;
  lowerInto(fd->getBody(), F.body);
  // `#pragma mpiad inactive(v)` inside this function's body.
  SourceRange body = fd->getBody()->getSourceRange();
  for (const PragmaRecord &pr : fe.pragmas_) {
    if (pr.kind != PragmaRecord::Inactive ||
        !(SM.isBeforeInTranslationUnit(body.getBegin(), pr.loc) &&
          SM.isBeforeInTranslationUnit(pr.loc, body.getEnd())))
      continue;
    for (const auto &n : pr.names) {
      bool found = false;
      for (auto &v : F.vars)
        if (v->userName == n.first && v->kind != Var::Synthetic) {
          v->userInactive = true;
          found = true;
        }
      if (!found)
        error(n.second, "'" + n.first + "' is not a variable of '" + F.name +
                            "'");
    }
  }
  return !failed;
}

/// Each `#pragma mpiad checkpoint` in the body must come right before a
/// for statement: the first statement that starts after it.
void Lowering::findCheckpointedLoops(const CompoundStmt *body) {
  std::vector<const clang::Stmt *> stmts; // statements of every block, in order
  std::function<void(const clang::Stmt *)> visit = [&](const clang::Stmt *s) {
    if (!s)
      return;
    if (const auto *cs = dyn_cast<CompoundStmt>(s)) {
      for (const clang::Stmt *c : cs->body()) {
        stmts.push_back(c);
        visit(c);
      }
      return;
    }
    if (isa<clang::Expr>(s))
      return;
    for (const clang::Stmt *c : s->children())
      if (c && !isa<clang::Expr>(c)) {
        stmts.push_back(c);
        visit(c);
      }
  };
  visit(body);
  SourceRange range = body->getSourceRange();
  for (const PragmaRecord &pr : fe.pragmas_) {
    if ((pr.kind != PragmaRecord::Checkpoint &&
         pr.kind != PragmaRecord::Parallel) ||
        !pr.valid ||
        !(SM.isBeforeInTranslationUnit(range.getBegin(), pr.loc) &&
          SM.isBeforeInTranslationUnit(pr.loc, range.getEnd())))
      continue;
    const clang::Stmt *next = nullptr;
    for (const clang::Stmt *c : stmts) {
      SourceLocation b = SM.getExpansionLoc(c->getBeginLoc());
      if (SM.isBeforeInTranslationUnit(pr.loc, b) &&
          (!next || SM.isBeforeInTranslationUnit(
                        b, SM.getExpansionLoc(next->getBeginLoc()))))
        next = c;
    }
    const auto *fs = dyn_cast_or_null<ForStmt>(next);
    if (pr.kind == PragmaRecord::Parallel) {
      if (fs)
        parallelLoops.insert(fs);
      else
        error(pr.startLoc, "'#pragma mpiad parallel' must be followed by a "
                           "for loop");
      continue;
    }
    fe.checkpointsUsed_.insert(pr.loc.getRawEncoding());
    if (fs)
      checkpointed[fs] = &pr;
    else
      error(pr.startLoc, "'#pragma mpiad checkpoint' must be followed by a "
                         "for loop");
  }
}

/// `#pragma omp parallel for` (or `omp for`, with clauses) on the line right
/// before the loop: read like `#pragma mpiad parallel`.  Clang drops OpenMP
/// pragmas without -fopenmp, so the source line is read.
bool Lowering::ompParallelFor(const ForStmt *fs) {
  SourceLocation b = SM.getExpansionLoc(fs->getBeginLoc());
  auto [fid, off] = SM.getDecomposedLoc(b);
  StringRef buf = SM.getBufferData(fid);
  size_t lineStart = buf.rfind('\n', off);
  if (lineStart == StringRef::npos || lineStart == 0)
    return false;
  size_t prevStart = buf.rfind('\n', lineStart - 1);
  prevStart = prevStart == StringRef::npos ? 0 : prevStart + 1;
  std::string words;
  for (char c : buf.slice(prevStart, lineStart))
    if (c != ' ' && c != '\t')
      words += c;
  return words.rfind("#pragmaompparallelfor", 0) == 0 ||
         words.rfind("#pragmaompfor", 0) == 0;
}

std::unique_ptr<Function> Frontend::lowerCopy(const FunctionDecl *fd) {
  fd = fd->getDefinition() ? fd->getDefinition() : fd;
  auto fn = std::make_unique<Function>();
  Lowering l(*this, *fn, fd);
  if (!l.run())
    return nullptr;
  return fn;
}

Function *Frontend::lower(const FunctionDecl *fd) {
  fd = fd->getDefinition() ? fd->getDefinition() : fd;
  auto it = done_.find(fd);
  if (it != done_.end())
    return it->second.get();
  for (const FunctionDecl *p : inProgress_)
    if (p == fd) {
      diag_.error(fd->getLocation(),
                  "recursive function '" + fd->getNameAsString() +
                      "' cannot be differentiated yet");
      return nullptr;
    }
  inProgress_.push_back(fd);
  auto fn = std::make_unique<Function>();
  Lowering l(*this, *fn, fd);
  bool ok = l.run();
  inProgress_.pop_back();
  if (!ok)
    return nullptr;
  Function *raw = fn.get();
  byName_[raw->name] = raw;
  decls_[raw] = fd;
  done_[fd] = std::move(fn);
  return raw;
}

} // namespace mpiad
