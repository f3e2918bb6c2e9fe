//===- GlobalHeap.cpp - Global pointers to heap arrays the file allocates -===//
//
// See GlobalHeap.h.  One walk over every function body of the translation
// unit: assignments to the globals, and their addresses taken.
//
//===----------------------------------------------------------------------===//
#include "GlobalHeap.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace mpiad {

namespace {

bool floatingPointer(QualType t) {
  t = t.getCanonicalType();
  if (!t->isPointerType())
    return false;
  QualType p = t->getPointeeType().getCanonicalType();
  return p->isSpecificBuiltinType(BuiltinType::Double) ||
         p->isSpecificBuiltinType(BuiltinType::Float);
}

class Scan : public RecursiveASTVisitor<Scan> {
public:
  Scan(ASTContext &ctx, std::map<std::string, GlobalAllocation> &out)
      : ctx(ctx), out(out) {}

  bool VisitBinaryOperator(BinaryOperator *b) {
    if (b->getOpcode() != BO_Assign)
      return true;
    const VarDecl *g = global(b->getLHS());
    if (!g)
      return true;
    GlobalAllocation &a = out[g->getNameAsString()];
    if (!a.owned)
      return true;
    std::string bytes = allocationSize(b->getRHS(), a);
    if (bytes.empty())
      return true;
    if (!a.bytes.empty() && a.bytes != bytes)
      return refuse(a, b->getBeginLoc(),
                    "it is allocated with two sizes ('" + a.bytes +
                        "' and '" + bytes + "')");
    a.bytes = bytes;
    return true;
  }

  bool VisitUnaryOperator(UnaryOperator *u) {
    if (u->getOpcode() != UO_AddrOf)
      return true;
    if (const VarDecl *g = global(u->getSubExpr()))
      refuse(out[g->getNameAsString()], u->getBeginLoc(),
             "its address is taken");
    return true;
  }

private:
  ASTContext &ctx;
  std::map<std::string, GlobalAllocation> &out;

  const VarDecl *global(const Expr *e) {
    const auto *r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto *v = r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
    if (!v || !v->hasGlobalStorage() || v->isStaticLocal() ||
        !out.count(v->getNameAsString()))
      return nullptr;
    return v;
  }

  bool refuse(GlobalAllocation &a, SourceLocation at, const std::string &why) {
    if (a.owned) {
      a.owned = false;
      a.why = why;
      a.at = at;
    }
    return true;
  }

  std::string text(const Expr *e) {
    const SourceManager &SM = ctx.getSourceManager();
    return Lexer::getSourceText(
               CharSourceRange::getTokenRange(e->getSourceRange()), SM,
               ctx.getLangOpts())
        .str();
  }

  /// Every name in e is of the file (a global, an enumerator, a function):
  /// the size can be evaluated in the generated F_shadows_new().
  bool fileScope(const Stmt *e) {
    if (const auto *r = dyn_cast<DeclRefExpr>(e)) {
      const ValueDecl *d = r->getDecl();
      if (const auto *v = dyn_cast<VarDecl>(d))
        if (!v->hasGlobalStorage() || v->isStaticLocal())
          return false;
    }
    if (isa<UnaryExprOrTypeTraitExpr>(e))
      return true; // sizeof(double), sizeof *state: not evaluated
    for (const Stmt *c : e->children())
      if (c && !fileScope(c))
        return false;
    return true;
  }

  /// The size in bytes `e` allocates, or "" (after refusing `a`).
  std::string allocationSize(const Expr *e, GlobalAllocation &a) {
    const Expr *x = e->IgnoreParenCasts();
    const auto *call = dyn_cast<CallExpr>(x);
    const FunctionDecl *fn = call ? call->getDirectCallee() : nullptr;
    std::string name = fn ? fn->getNameAsString() : "";
    std::string bytes;
    if (name == "malloc" && call->getNumArgs() == 1)
      bytes = "(" + text(call->getArg(0)) + ")";
    else if (name == "calloc" && call->getNumArgs() == 2)
      bytes = "(" + text(call->getArg(0)) + ") * (" + text(call->getArg(1)) +
              ")";
    else if (name == "aligned_alloc" && call->getNumArgs() == 2)
      bytes = "(" + text(call->getArg(1)) + ")";
    else {
      refuse(a, e->getBeginLoc(),
             "it is assigned '" + text(e) +
                 "', not an allocation (malloc, calloc or aligned_alloc)");
      return "";
    }
    for (unsigned k = 0; k < call->getNumArgs(); ++k)
      if (!fileScope(call->getArg(k))) {
        refuse(a, call->getArg(k)->getBeginLoc(),
               "its size '" + text(call->getArg(k)) +
                   "' reads variables of the function that allocates it");
        return "";
      }
    return bytes;
  }
};

} // namespace

std::map<std::string, GlobalAllocation> findGlobalAllocations(ASTContext &ctx) {
  std::map<std::string, GlobalAllocation> out;
  for (Decl *d : ctx.getTranslationUnitDecl()->decls()) {
    auto *v = dyn_cast<VarDecl>(d);
    if (!v || !floatingPointer(v->getType()))
      continue;
    bool seen = out.count(v->getNameAsString());
    GlobalAllocation &a = out[v->getNameAsString()];
    if (!seen)
      a.owned = true;
    if (const Expr *init = v->getInit())
      if (!init->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNull)) {
        a.owned = false;
        a.why = "it is initialised to another address";
        a.at = init->getBeginLoc();
      }
  }
  Scan(ctx, out).TraverseDecl(ctx.getTranslationUnitDecl());
  for (auto &[name, a] : out)
    if (a.owned && a.bytes.empty()) {
      a.owned = false;
      a.why = "this file never allocates it";
    }
  return out;
}

} // namespace mpiad
