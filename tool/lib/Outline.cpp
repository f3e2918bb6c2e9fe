//===- Outline.cpp - A differentiated block becomes a function ------------===//
//
// See Outline.h.  For each block marked by differentiate pragmas:
//
//   #pragma mpiad differentiate wrt(kappa) output(J) name(solve_b)
//   {                                  static void mpiad_block_L12(...)
//     ... uses kappa, u, n, J ...  =>  { ... (*J) = ...; }
//   }                                  ...
//                                      mpiad_block_L12(kappa, u, n, &J);
//
// The outlined function goes right before the enclosing function, with the
// pragma lines in front of it; the block's lines become the call followed by
// as many newlines, so that the lines after it keep their numbers.
//
//===----------------------------------------------------------------------===//
#include "Outline.h"
#include "Emit.h"
#include "Frontend.h"
#include "Pragma.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <vector>

using namespace clang;

namespace mpiad {

bool mayHaveBlockPragma(llvm::StringRef text) {
  size_t at = 0;
  while ((at = text.find("differentiate", at)) != llvm::StringRef::npos) {
    size_t lineStart = text.rfind('\n', at);
    lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
    llvm::StringRef line = text.slice(lineStart, at).trim();
    at += 13;
    if (!line.starts_with("#") || !line.contains("mpiad"))
      continue;
    // Skip the rest of the pragma (continued lines), then blank lines,
    // comments and other pragmas: is the next thing a '{'?
    size_t p = at;
    for (;;) {
      size_t eol = text.find('\n', p);
      if (eol == llvm::StringRef::npos)
        return false;
      llvm::StringRef l = text.slice(p, eol).rtrim();
      p = eol + 1;
      if (l.ends_with("\\"))
        continue;
      llvm::StringRef next = text.substr(p).ltrim();
      while (next.starts_with("//") || next.starts_with("/*") ||
             next.starts_with("#pragma")) {
        size_t e = next.starts_with("/*") ? next.find("*/") : next.find('\n');
        if (e == llvm::StringRef::npos)
          return false;
        next = next.substr(e + (next.starts_with("/*") ? 2 : 1)).ltrim();
      }
      if (next.starts_with("{"))
        return true;
      break;
    }
  }
  return false;
}

namespace {

/// A variable of the enclosing function that the block uses.
struct Capture {
  const VarDecl *var;
  bool byPointer = false; // the block assigns it or takes its address
  std::vector<SourceRange> uses;
  // An array of the enclosing function becomes a pointer parameter of the
  // outlined function: `&x` and `sizeof x` would change meaning there
  // (the address of the pointer, its size).  These expressions are
  // rewritten as what they were: `((double (*)[4][4])x)`,
  // `sizeof(double[4][4])`.
  std::vector<SourceRange> addressOf, sizeOf;
};

/// Finds the captures of a block, and what the block must not contain.
class BlockScan : public RecursiveASTVisitor<BlockScan> {
public:
  BlockScan(const SourceManager &SM, SourceRange block, Diag &diag)
      : SM(SM), block(block), diag(diag) {}

  std::vector<Capture> captures;
  std::map<const VarDecl *, size_t> index;
  int loops = 0, switches = 0;

  bool inside(SourceLocation l) const {
    l = SM.getExpansionLoc(l);
    return !SM.isBeforeInTranslationUnit(l, SM.getExpansionLoc(block.getBegin())) &&
           !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(block.getEnd()), l);
  }

  bool VisitDeclRefExpr(DeclRefExpr *e) {
    const auto *vd = dyn_cast<VarDecl>(e->getDecl());
    if (!vd || !(vd->hasLocalStorage() || vd->isStaticLocal()) ||
        inside(vd->getLocation()))
      return true;
    if (vd->getType()->isVariablyModifiedType()) {
      if (!reportedVla.insert(vd).second)
        return true;
      diag.error(e->getLocation(),
                 "the differentiated block uses '" + vd->getNameAsString() +
                     "', a variable-length array of the enclosing function; "
                     "allocate it with malloc, or declare it in the block");
      failed = true;
      return true;
    }
    auto it = index.find(vd);
    if (it == index.end()) {
      index[vd] = captures.size();
      captures.push_back({vd, false, {}, {}, {}});
      it = index.find(vd);
    }
    captures[it->second].uses.push_back(e->getSourceRange());
    return true;
  }

  /// (Applied by finish: a visitor sees the assignment before its operand.)
  void assigned(const clang::Expr *lhs) {
    const auto *dre = dyn_cast<DeclRefExpr>(lhs->IgnoreParenImpCasts());
    if (const auto *vd = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr)
      written.insert(vd);
  }

  void finish() {
    for (Capture &c : captures)
      if (written.count(c.var) && !c.var->getType()->isArrayType())
        c.byPointer = true;
  }
  std::set<const VarDecl *> written;

  bool VisitBinaryOperator(BinaryOperator *b) {
    if (b->isAssignmentOp())
      assigned(b->getLHS());
    return true;
  }
  bool VisitCompoundAssignOperator(CompoundAssignOperator *b) {
    assigned(b->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *u) {
    if (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf)
      assigned(u->getSubExpr());
    if (u->getOpcode() == UO_AddrOf)
      if (Capture *c = arrayCapture(u->getSubExpr()))
        c->addressOf.push_back(u->getSourceRange());
    return true;
  }
  bool VisitUnaryExprOrTypeTraitExpr(UnaryExprOrTypeTraitExpr *e) {
    if (!e->isArgumentType())
      if (Capture *c = arrayCapture(e->getArgumentExpr()))
        c->sizeOf.push_back(e->getSourceRange());
    return true;
  }
  /// The capture that e names, when it is an array of the enclosing
  /// function.  (A visitor sees `&x` before `x`: the capture is made here.)
  Capture *arrayCapture(const clang::Expr *e) {
    const auto *dre = dyn_cast<DeclRefExpr>(e->IgnoreParens());
    const auto *vd = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
    if (!vd || !vd->getType()->isConstantArrayType() ||
        !(vd->hasLocalStorage() || vd->isStaticLocal()) ||
        inside(vd->getLocation()))
      return nullptr;
    auto it = index.find(vd);
    if (it == index.end()) {
      index[vd] = captures.size();
      captures.push_back({vd, false, {}, {}, {}});
      it = index.find(vd);
    }
    return &captures[it->second];
  }
  bool VisitReturnStmt(ReturnStmt *r) {
    diag.error(r->getReturnLoc(),
               "'return' in a differentiated block: the block becomes a "
               "function of its own, so a return would leave only the block; "
               "end the block instead, or move the pragma to the function");
    failed = true;
    return true;
  }
  bool VisitGotoStmt(GotoStmt *g) {
    diag.error(g->getGotoLoc(), "'goto' in a differentiated block");
    failed = true;
    return true;
  }

  // break / continue must stay inside the block's own loops and switches.
  bool TraverseForStmt(ForStmt *s) { return loop([&] { return RecursiveASTVisitor::TraverseForStmt(s); }); }
  bool TraverseWhileStmt(WhileStmt *s) { return loop([&] { return RecursiveASTVisitor::TraverseWhileStmt(s); }); }
  bool TraverseDoStmt(DoStmt *s) { return loop([&] { return RecursiveASTVisitor::TraverseDoStmt(s); }); }
  bool TraverseSwitchStmt(SwitchStmt *s) {
    ++switches;
    bool r = RecursiveASTVisitor::TraverseSwitchStmt(s);
    --switches;
    return r;
  }
  template <class F> bool loop(F f) {
    ++loops;
    bool r = f();
    --loops;
    return r;
  }
  bool VisitBreakStmt(BreakStmt *b) {
    if (loops == 0 && switches == 0)
      leaves(b->getBreakLoc(), "break");
    return true;
  }
  bool VisitContinueStmt(ContinueStmt *c) {
    if (loops == 0)
      leaves(c->getContinueLoc(), "continue");
    return true;
  }
  void leaves(SourceLocation l, const char *what) {
    diag.error(l, std::string("'") + what +
                      "' leaves the differentiated block; the block becomes "
                      "a function of its own: put the loop it belongs to "
                      "inside the block");
    failed = true;
  }

  bool failed = false;

private:
  const SourceManager &SM;
  SourceRange block;
  Diag &diag;
  std::set<const VarDecl *> reportedVla;
};

/// The references to each variable outside a block, and the declaration
/// statement of each local.
class UseCount : public RecursiveASTVisitor<UseCount> {
public:
  UseCount(const SourceManager &SM, SourceRange block) : SM(SM), block(block) {}
  std::map<const VarDecl *, int> count;
  std::map<const VarDecl *, const DeclStmt *> declOf;

  bool VisitDeclRefExpr(DeclRefExpr *e) {
    if (const auto *v = dyn_cast<VarDecl>(e->getDecl())) {
      SourceLocation l = SM.getExpansionLoc(e->getLocation());
      bool in = !SM.isBeforeInTranslationUnit(l, block.getBegin()) &&
                !SM.isBeforeInTranslationUnit(block.getEnd(), l);
      if (!in)
        count[v]++;
    }
    return true;
  }
  bool VisitDeclStmt(DeclStmt *d) {
    for (Decl *x : d->decls())
      if (auto *v = dyn_cast<VarDecl>(x))
        declOf[v] = d;
    return true;
  }

private:
  const SourceManager &SM;
  SourceRange block;
};

class OutlineConsumer : public ASTConsumer {
public:
  OutlineConsumer(CompilerInstance &ci, std::vector<PragmaRecord> &pragmas,
                  const std::string &path, std::string &out, bool &ok)
      : ci(ci), pragmas(pragmas), path(path), out(out), ok(ok) {}

  void HandleTranslationUnit(ASTContext &ctx) override {
    SourceManager &SM = ctx.getSourceManager();
    FileID main = SM.getMainFileID();
    out = SM.getBufferData(main).str();
    if (ci.getDiagnostics().hasErrorOccurred()) {
      ok = false;
      return;
    }
    Diag diag(ci.getDiagnostics());
    Rewriter rw(SM, ctx.getLangOpts());
    // The blocks and the pragmas in front of each.
    std::map<const CompoundStmt *, std::vector<const PragmaRecord *>> marks;
    std::map<const CompoundStmt *, const FunctionDecl *> owner;
    std::vector<const CompoundStmt *> order;
    for (const PragmaRecord &pr : pragmas) {
      if (pr.kind != PragmaRecord::Differentiate || !SM.isInMainFile(pr.loc))
        continue;
      const FunctionDecl *fd = enclosing(ctx, SM, pr.loc);
      if (!fd)
        continue; // a pragma on a function: not ours
      const clang::Stmt *next = firstAfter(fd->getBody(), SM, pr.loc);
      const auto *cs = dyn_cast_or_null<CompoundStmt>(next);
      if (!cs) {
        diag.error(pr.startLoc,
                   "'#pragma mpiad differentiate' inside a function must be "
                   "followed by a block { ... }, which becomes a function of "
                   "its own");
        continue;
      }
      if (pr.ann.name.empty()) {
        diag.error(pr.startLoc,
                   "a differentiated block needs name(...): the name of the "
                   "generated function that you call");
        continue;
      }
      if (!marks.count(cs))
        order.push_back(cs);
      marks[cs].push_back(&pr);
      owner[cs] = fd;
    }
    for (const CompoundStmt *cs : order)
      outline(ctx, SM, rw, diag, cs, owner[cs], marks[cs]);
    if (diag.hasErrors()) {
      ok = false;
      return;
    }
    if (const RewriteBuffer *rb = rw.getRewriteBufferFor(main))
      out = std::string(rb->begin(), rb->end());
  }

private:
  CompilerInstance &ci;
  std::vector<PragmaRecord> &pragmas;
  std::string path;
  std::string &out;
  bool &ok;

  static const FunctionDecl *enclosing(ASTContext &ctx, SourceManager &SM,
                                       SourceLocation loc) {
    for (Decl *d : ctx.getTranslationUnitDecl()->decls()) {
      auto *fd = dyn_cast<FunctionDecl>(d);
      if (!fd || !fd->doesThisDeclarationHaveABody())
        continue;
      SourceRange r = fd->getBody()->getSourceRange();
      SourceLocation b = SM.getExpansionLoc(r.getBegin()),
                     e = SM.getExpansionLoc(r.getEnd());
      if (SM.isBeforeInTranslationUnit(b, loc) &&
          SM.isBeforeInTranslationUnit(loc, e))
        return fd;
    }
    return nullptr;
  }

  /// The outermost statement of `body` that begins first after `loc`.
  static const clang::Stmt *firstAfter(const clang::Stmt *body, SourceManager &SM,
                                SourceLocation loc) {
    const clang::Stmt *best = nullptr;
    SourceLocation bestLoc;
    std::vector<const clang::Stmt *> work = {body};
    while (!work.empty()) {
      const clang::Stmt *s = work.back();
      work.pop_back();
      if (!s)
        continue;
      SourceLocation b = SM.getExpansionLoc(s->getBeginLoc());
      if (s != body && SM.isBeforeInTranslationUnit(loc, b)) {
        if (!best || SM.isBeforeInTranslationUnit(b, bestLoc) ||
            (b == bestLoc && !isa<clang::Expr>(s) && isa<clang::Expr>(best))) {
          best = s;
          bestLoc = b;
        }
        continue; // its children begin no earlier
      }
      for (const clang::Stmt *c : s->children())
        work.push_back(c);
    }
    return best;
  }

  static bool mentions(const clang::Stmt *s, const VarDecl *v) {
    if (!s)
      return false;
    if (const auto *d = dyn_cast<DeclRefExpr>(s))
      if (d->getDecl() == v)
        return true;
    for (const clang::Stmt *c : s->children())
      if (mentions(c, v))
        return true;
    return false;
  }

  /// Does the enclosing function take v's address outside the block (where
  /// a pointer made there could reach v while the block runs)?
  static bool addressTakenOutside(const clang::Stmt *s, const VarDecl *v,
                                  const SourceManager &SM, SourceRange block) {
    if (!s)
      return false;
    if (const auto *u = dyn_cast<UnaryOperator>(s))
      if (u->getOpcode() == UO_AddrOf && mentions(u->getSubExpr(), v)) {
        SourceLocation l = SM.getExpansionLoc(u->getBeginLoc());
        if (SM.isBeforeInTranslationUnit(l, block.getBegin()) ||
            SM.isBeforeInTranslationUnit(block.getEnd(), l))
          return true;
      }
    for (const clang::Stmt *c : s->children())
      if (addressTakenOutside(c, v, SM, block))
        return true;
    return false;
  }

  /// Does s certainly assign v (a plain `v = e;`, in every branch)?
  static bool writes(const clang::Stmt *s, const VarDecl *v) {
    if (!s)
      return false;
    if (const auto *e = dyn_cast<clang::Expr>(s)) {
      const auto *bo = dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
      const auto *l = bo && bo->getOpcode() == BO_Assign
                          ? dyn_cast<DeclRefExpr>(bo->getLHS()->IgnoreParens())
                          : nullptr;
      return l && l->getDecl() == v;
    }
    if (const auto *c = dyn_cast<CompoundStmt>(s)) {
      for (const clang::Stmt *x : c->body())
        if (writes(x, v))
          return true;
      return false;
    }
    if (const auto *i = dyn_cast<IfStmt>(s))
      return writes(i->getThen(), v) && writes(i->getElse(), v);
    if (const auto *f = dyn_cast<ForStmt>(s))
      return writes(f->getInit(), v);
    if (const auto *d = dyn_cast<DoStmt>(s))
      return writes(d->getBody(), v);
    return false;
  }

  /// Can s read v before assigning it, on some path?  (Anything but the
  /// statements below, and any expression naming v other than `v = e`,
  /// counts as a read: `MPI_Recv(&v, ...)` too.)
  static bool exposed(const clang::Stmt *s, const VarDecl *v) {
    if (!s)
      return false;
    if (const auto *e = dyn_cast<clang::Expr>(s)) {
      const auto *bo = dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
      if (writes(s, v))
        return mentions(bo->getRHS(), v);
      return mentions(s, v);
    }
    if (const auto *c = dyn_cast<CompoundStmt>(s)) {
      for (const clang::Stmt *x : c->body()) {
        if (exposed(x, v))
          return true;
        if (writes(x, v))
          return false;
      }
      return false;
    }
    if (const auto *i = dyn_cast<IfStmt>(s))
      return mentions(i->getCond(), v) || exposed(i->getThen(), v) ||
             exposed(i->getElse(), v) || mentions(i->getInit(), v) ||
             mentions(i->getConditionVariableDeclStmt(), v);
    if (const auto *f = dyn_cast<ForStmt>(s))
      return exposed(f->getInit(), v) ||
             (!writes(f->getInit(), v) &&
              (mentions(f->getCond(), v) || exposed(f->getBody(), v) ||
               mentions(f->getInc(), v)));
    if (const auto *w = dyn_cast<WhileStmt>(s))
      return mentions(w->getCond(), v) || exposed(w->getBody(), v);
    if (const auto *d = dyn_cast<DoStmt>(s))
      return exposed(d->getBody(), v) ||
             (!writes(d->getBody(), v) && mentions(d->getCond(), v));
    return mentions(s, v);
  }

  /// Does the block give v a value before anything can read it?  Then a
  /// block that runs in a loop does not carry v's value from one run to the
  /// next (`local_norm = 0.0;` at the top of a block in a driver's loop).
  static bool assignedFirst(const CompoundStmt *cs, const VarDecl *v) {
    return !exposed(cs, v);
  }

  /// Does s name v outside the source range r?
  static bool mentionsOutside(const clang::Stmt *s, const VarDecl *v,
                              const SourceManager &SM, SourceRange r) {
    if (!s)
      return false;
    if (const auto *d = dyn_cast<DeclRefExpr>(s))
      if (d->getDecl() == v) {
        SourceLocation l = SM.getExpansionLoc(d->getLocation());
        return SM.isBeforeInTranslationUnit(l, r.getBegin()) ||
               SM.isBeforeInTranslationUnit(r.getEnd(), l);
      }
    for (const clang::Stmt *c : s->children())
      if (mentionsOutside(c, v, SM, r))
        return true;
    return false;
  }

  /// Is v's value at the end of the block dead: do the statements that
  /// follow it, outward to the end of the function, assign v before any
  /// read, with no goto after the block?  A loop left on the way must not
  /// name v outside the block (its next iteration reaches the block, which
  /// assigns v first).  (PRK's p2p.c:
  /// `corner_val`, sent inside the time loop, then set to the expected value
  /// after it.)
  static bool deadAfter(ASTContext &ctx, const SourceManager &SM,
                        const CompoundStmt *cs, const FunctionDecl *fd,
                        const VarDecl *v) {
    struct Gotos : RecursiveASTVisitor<Gotos> {
      const SourceManager &SM;
      SourceLocation from;
      bool any = false;
      explicit Gotos(const SourceManager &SM) : SM(SM) {}
      bool VisitGotoStmt(GotoStmt *g) {
        any |= !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(g->getGotoLoc()),
                                             from);
        return true;
      }
    } gotos(SM);
    gotos.from = SM.getExpansionLoc(cs->getLBracLoc());
    gotos.TraverseStmt(fd->getBody());
    if (gotos.any)
      return false;
    const clang::Stmt *child = cs;
    for (DynTypedNodeList ps = ctx.getParents(*child); !ps.empty();
         ps = ctx.getParents(*child)) {
      const clang::Stmt *p = ps[0].get<clang::Stmt>();
      if (!p)
        return true; // the function's body ends
      if (isa<ForStmt>(p) || isa<WhileStmt>(p) || isa<DoStmt>(p)) {
        SourceRange br(SM.getExpansionLoc(cs->getLBracLoc()),
                       SM.getExpansionLoc(cs->getRBracLoc()));
        if (mentionsOutside(p, v, SM, br))
          return false;
      } else if (const auto *c = dyn_cast<CompoundStmt>(p)) {
        bool after = false;
        for (const clang::Stmt *s : c->body()) {
          if (s == child) {
            after = true;
            continue;
          }
          if (!after)
            continue;
          if (exposed(s, v))
            return false;
          if (writes(s, v))
            return true;
        }
      }
      child = p;
    }
    return true;
  }

  void outline(ASTContext &ctx, SourceManager &SM, Rewriter &rw, Diag &diag,
               const CompoundStmt *cs, const FunctionDecl *fd,
               const std::vector<const PragmaRecord *> &prs) {
    SourceRange br(SM.getExpansionLoc(cs->getLBracLoc()),
                   SM.getExpansionLoc(cs->getRBracLoc()));
    BlockScan scan(SM, br, diag);
    scan.TraverseStmt(const_cast<CompoundStmt *>(cs));
    scan.finish();
    if (scan.failed)
      return;
    unsigned line = SM.getPresumedLoc(br.getBegin()).getLine();
    std::string fn = "mpiad_block_L" + std::to_string(line);
    PrintingPolicy pp = ctx.getPrintingPolicy();
    // A variable of the enclosing function that only the block uses (work
    // space declared at the top of main) is declared in the outlined
    // function instead, and its declaration in the enclosing function goes.
    UseCount others(SM, br);
    others.TraverseStmt(const_cast<clang::Stmt *>(fd->getBody()));
    // (Not when the block runs in a loop, where the variable would keep its
    // value from one run of the block to the next, unless the block assigns
    // it before any read: assignedFirst.)
    bool inLoop = false;
    for (DynTypedNodeList ps = ctx.getParents(*cs); !ps.empty() && !inLoop;
         ps = ctx.getParents(ps[0])) {
      const clang::Stmt *p = ps[0].get<clang::Stmt>();
      if (!p)
        break;
      inLoop = isa<ForStmt>(p) || isa<WhileStmt>(p) || isa<DoStmt>(p);
    }
    std::set<std::string> named; // in a clause: stays a parameter
    for (const PragmaRecord *pr : prs)
      for (const auto *l : {&pr->ann.wrt, &pr->ann.outputs, &pr->ann.replicated,
                            &pr->ann.varying, &pr->ann.scratch,
                            &pr->ann.replicas})
        for (const auto &n : *l)
          named.insert(n.first);
    std::string locals, unusedAfter;
    // `double x` / `int a[4]`: the declaration of v, without initializer.
    auto declText = [&](const VarDecl *v) {
      std::string d;
      llvm::raw_string_ostream os(d);
      v->getType().print(os, pp, v->getNameAsString());
      os.flush();
      return d;
    };
    std::vector<Capture> params_;
    for (const Capture &c : scan.captures) {
      const VarDecl *v = c.var;
      const clang::Expr *init = v->getInit();
      bool movable = (!inLoop || assignedFirst(cs, v)) &&
                     !named.count(v->getNameAsString()) &&
                     !isa<ParmVarDecl>(v) && !v->isStaticLocal() &&
                     !others.count[v] &&
                     (!init || init->isConstantInitializer(ctx, false));
      const DeclStmt *ds = movable ? others.declOf[v] : nullptr;
      // A variable the enclosing function also uses, whose value neither
      // enters nor leaves the block: the block gets a local of its own.
      if (!ds && !named.count(v->getNameAsString()) &&
          !isa<ParmVarDecl>(v) && !v->isStaticLocal() &&
          !v->getType()->isArrayType() && assignedFirst(cs, v) &&
          deadAfter(ctx, SM, cs, fd, v)) {
        locals += " " + declText(v) + ";";
        continue;
      }
      if (!ds) {
        params_.push_back(c);
        continue;
      }
      std::string d = declText(v);
      if (init)
        d += " = " + Lexer::getSourceText(CharSourceRange::getTokenRange(
                                              init->getSourceRange()),
                                          SM, ctx.getLangOpts())
                         .str();
      locals += " " + d + ";";
      if (!ds->isSingleDecl()) {
        // `double kappa[N], u[N + 2];`: the declaration stays, unused.
        unusedAfter += " (void)" + v->getNameAsString() + ";";
        continue;
      }
      SourceRange dr(SM.getExpansionLoc(ds->getBeginLoc()),
                     SM.getExpansionLoc(ds->getEndLoc()));
      std::string text =
          Lexer::getSourceText(CharSourceRange::getTokenRange(dr), SM,
                               ctx.getLangOpts())
              .str();
      rw.ReplaceText(CharSourceRange::getTokenRange(dr),
                     std::string(std::count(text.begin(), text.end(), '\n'),
                                 '\n'));
    }
    // A variable the block assigns and uses through a macro (`ARRAY(i, j)`
    // with the enclosing function's counter j) cannot have those uses
    // rewritten as `(*j)`: the outlined function takes `int *mpiad_j`,
    // copies it into a local `j` on entry and back on exit.  Not for a
    // variable a clause names (its parameter keeps the user's name) or one
    // whose address the enclosing function takes elsewhere (a pointer made
    // there could reach it while the block runs).
    std::set<const VarDecl *> copied;
    for (const Capture &c : params_) {
      bool viaMacro = false;
      for (SourceRange u : c.uses)
        viaMacro |= SM.isMacroArgExpansion(u.getBegin()) ||
                    !u.getBegin().isFileID();
      if (c.byPointer && viaMacro &&
          !named.count(c.var->getNameAsString()) &&
          !addressTakenOutside(fd->getBody(), c.var, SM, br))
        copied.insert(c.var);
    }
    std::string params, args, copyIn, copyOut;
    for (const Capture &c : params_) {
      std::string n = c.var->getNameAsString();
      QualType t = c.var->getType();
      std::string decl;
      llvm::raw_string_ostream os(decl);
      if (copied.count(c.var)) {
        ctx.getPointerType(t).print(os, pp, "mpiad_" + n);
        std::string local;
        llvm::raw_string_ostream ls(local);
        t.print(ls, pp, n);
        ls.flush();
        copyIn += " " + local + " = *mpiad_" + n + ";";
        copyOut += " *mpiad_" + n + " = " + n + ";";
      } else if (c.byPointer)
        ctx.getPointerType(t).print(os, pp, n);
      else
        t.print(os, pp, n);
      os.flush();
      params += (params.empty() ? "" : ", ") + decl;
      args += (args.empty() ? "" : ", ") + (c.byPointer ? "&" + n : n);
    }
    if (params.empty())
      params = "void";
    // The block's text, with the uses of pointer captures dereferenced.
    std::string body = Lexer::getSourceText(
                           CharSourceRange::getTokenRange(br), SM,
                           ctx.getLangOpts())
                           .str();
    // Edits of the block's text: offset, length replaced, new text.
    struct Edit {
      unsigned off, len;
      std::string text;
    };
    std::vector<Edit> edits;
    unsigned base = SM.getFileOffset(br.getBegin());
    for (const Capture &c : params_) {
      QualType t = c.var->getType();
      std::string ptr, whole;
      llvm::raw_string_ostream ps(ptr), ws(whole);
      ctx.getPointerType(t).print(ps, pp);
      t.print(ws, pp);
      ps.flush();
      ws.flush();
      std::string n = c.var->getNameAsString();
      for (const auto *list : {&c.addressOf, &c.sizeOf})
        for (SourceRange r : *list) {
          if (!r.getBegin().isFileID() || !r.getEnd().isFileID()) {
            diag.error(r.getBegin(),
                       "the differentiated block takes the address or size "
                       "of the array '" + n + "' through a macro; write it "
                       "out, or declare the array in the block");
            return;
          }
          CharSourceRange cr = CharSourceRange::getTokenRange(r);
          unsigned from = SM.getFileOffset(cr.getBegin());
          unsigned to = SM.getFileOffset(
              Lexer::getLocForEndOfToken(r.getEnd(), 0, SM, ctx.getLangOpts()));
          edits.push_back({from - base, to - from,
                           list == &c.addressOf
                               ? "((" + ptr + ")" + n + ")"
                               : "sizeof(" + whole + ")"});
        }
    }
    for (const Capture &c : params_)
      if (c.byPointer && !copied.count(c.var))
        for (SourceRange u : c.uses) {
          SourceLocation l = SM.getExpansionLoc(u.getBegin());
          if (SM.isMacroArgExpansion(u.getBegin()) ||
              !u.getBegin().isFileID()) {
            diag.error(u.getBegin(),
                       "the differentiated block assigns '" +
                           c.var->getNameAsString() +
                           "', which it uses through a macro; write the use "
                           "out, or declare the variable in the block");
            return;
          }
          std::string n = c.var->getNameAsString();
          edits.push_back({SM.getFileOffset(l) - base, (unsigned)n.size(),
                           "(*" + n + ")"});
        }
    std::sort(edits.begin(), edits.end(),
              [](const Edit &a, const Edit &b) { return a.off > b.off; });
    for (const Edit &e : edits)
      body.replace(e.off, e.len, e.text);
    if (!copyOut.empty()) // before the closing '}', on its line
      body.insert(body.size() - 1, copyOut + " ");
    if (!locals.empty() || !copyIn.empty())
      body.insert(1, copyIn + locals); // after the '{', on its line

    // The outlined function, before the enclosing one.
    std::string file = quoted(path);
    std::string text;
    for (const PragmaRecord *pr : prs) {
      auto [fid, off] = SM.getDecomposedLoc(SM.getExpansionLoc(pr->loc));
      llvm::StringRef buf = SM.getBufferData(fid);
      size_t s = buf.rfind('\n', off);
      s = s == llvm::StringRef::npos ? 0 : s + 1;
      size_t e = off;
      for (;;) { // through continued lines
        e = buf.find('\n', e);
        if (e == llvm::StringRef::npos) {
          e = buf.size();
          break;
        }
        size_t k = e;
        if (k > s && buf[k - 1] == '\r')
          --k;
        if (k == 0 || buf[k - 1] != '\\')
          break;
        ++e;
      }
      text += "#line " + std::to_string(SM.getPresumedLoc(pr->loc).getLine()) +
              " " + file + "\n" + buf.slice(s, e).str() + "\n";
      // In the enclosing function the pragma's lines become blank.
      std::string blanks(std::count(buf.begin() + s, buf.begin() + e, '\n'),
                         '\n');
      rw.ReplaceText(SM.getComposedLoc(fid, s), e - s, blanks);
    }
    text += "static void " + fn + "(" + params + ")\n";
    text += "#line " + std::to_string(line) + " " + file + "\n";
    text += body + "\n";
    SourceLocation fstart = SM.getExpansionLoc(fd->getBeginLoc());
    auto [ffid, foff] = SM.getDecomposedLoc(fstart);
    llvm::StringRef fbuf = SM.getBufferData(ffid);
    size_t ls = fbuf.rfind('\n', foff);
    ls = ls == llvm::StringRef::npos ? 0 : ls + 1;
    text += "#line " +
            std::to_string(SM.getPresumedLoc(SM.getComposedLoc(ffid, ls))
                               .getLine()) +
            " " + file + "\n";
    rw.InsertTextBefore(SM.getComposedLoc(ffid, ls), text);
    // The block becomes the call, then as many newlines as it had.
    std::string call = fn + "(" + args + ");" + unusedAfter +
                       std::string(std::count(body.begin(), body.end(), '\n'),
                                   '\n');
    rw.ReplaceText(CharSourceRange::getTokenRange(br), call);
  }
};

class OutlineAction : public ASTFrontendAction {
public:
  OutlineAction(const std::string &path, std::string &out, bool &ok)
      : path(path), out(out), ok(ok) {}
  bool BeginSourceFileAction(CompilerInstance &ci) override {
    ci.getPreprocessor().AddPragmaHandler(new MpiadPragmaHandler(pragmas));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci,
                                                 llvm::StringRef) override {
    return std::make_unique<OutlineConsumer>(ci, pragmas, path, out, ok);
  }

private:
  std::string path;
  std::string &out;
  bool &ok;
  std::vector<PragmaRecord> pragmas;
};

class OutlineFactory : public tooling::FrontendActionFactory {
public:
  OutlineFactory(const std::string &path, std::string &out, bool &ok)
      : path(path), out(out), ok(ok) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<OutlineAction>(path, out, ok);
  }

private:
  std::string path;
  std::string &out;
  bool &ok;
};

} // namespace

std::unique_ptr<tooling::FrontendActionFactory>
makeOutlineFactory(const std::string &path, std::string &out, bool &ok) {
  return std::make_unique<OutlineFactory>(path, out, ok);
}

} // namespace mpiad
