//===- Frontend.cpp - Clang AST to IR -------------------------------------===//
#include "Frontend.h"
#include "Analysis.h"
#include "Transform.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <functional>

using namespace clang;

namespace mpiad {

std::string Diag::where(SourceLocation loc) const {
  if (loc.isInvalid() || !diags_.hasSourceManager())
    return "?";
  const SourceManager &SM = diags_.getSourceManager();
  PresumedLoc p = SM.getPresumedLoc(SM.getExpansionLoc(loc));
  if (p.isInvalid())
    return "?";
  return std::string(p.getFilename()) + ":" + std::to_string(p.getLine());
}

void Diag::error(SourceLocation loc, const std::string &msg) {
  ++errors_;
  if (quiet_)
    return;
  // The same error at the same place once (two pragmas, reverse and
  // forward, on one function find it twice).
  if (!reported_.insert({loc.getRawEncoding(), msg}).second)
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

/// Does a struct or union type have a float or double field, directly or in
/// a nested struct or array of them?
/// The name of a const-qualified field of struct type t, looked for in its
/// nested structs too ("" when none): such a struct cannot be assigned, and
/// the generated code assigns locals and the returned value.
static std::string constFieldOf(QualType t) {
  const auto *rd = t->getAsRecordDecl();
  if (!rd)
    return "";
  for (const FieldDecl *f : rd->fields()) {
    if (f->getType().isConstQualified())
      return f->getNameAsString();
    std::string in = constFieldOf(f->getType());
    if (!in.empty())
      return in;
  }
  return "";
}

static bool isIdentifier(const std::string &s);

static bool hasFloatingFields(QualType t) {
  t = t.getCanonicalType();
  while (const auto *at = dyn_cast<ArrayType>(t.getTypePtr()))
    t = at->getElementType().getCanonicalType();
  const auto *rt = t->getAs<RecordType>();
  if (!rt || !rt->getDecl()->getDefinition())
    return false;
  for (const FieldDecl *fd : rt->getDecl()->getDefinition()->fields()) {
    // A field of floating type, an array of them (double speeds[9]), or a
    // struct holding either.
    QualType ft = fd->getType().getCanonicalType();
    while (const auto *at = dyn_cast<ArrayType>(ft.getTypePtr()))
      ft = at->getElementType().getCanonicalType();
    Scalar s = classify(ft);
    if (s == Scalar::Float || s == Scalar::Double || hasFloatingFields(ft))
      return true;
  }
  return false;
}

/// The element of a struct made only of float (or only of double) values,
/// without padding, so that an array of it is an array of that element;
/// Other for any other type.
static Scalar flatElem(QualType t, const ASTContext &ctx) {
  t = t.getCanonicalType();
  const auto *rt = t->getAs<RecordType>();
  if (!rt || !rt->getDecl()->getDefinition() || rt->getDecl()->isUnion())
    return Scalar::Other;
  Scalar found = Scalar::Other;
  uint64_t leaves = 0;
  std::function<bool(QualType, uint64_t)> visit = [&](QualType ft,
                                                      uint64_t times) {
    ft = ft.getCanonicalType();
    while (const auto *at = ctx.getAsConstantArrayType(ft)) {
      times *= at->getSize().getZExtValue();
      ft = at->getElementType().getCanonicalType();
    }
    if (const auto *r = ft->getAs<RecordType>()) {
      const RecordDecl *rd = r->getDecl()->getDefinition();
      if (!rd || rd->isUnion())
        return false;
      for (const FieldDecl *fd : rd->fields())
        if (fd->isBitField() || !visit(fd->getType(), times))
          return false;
      return true;
    }
    Scalar s = classify(ft);
    if (s != Scalar::Float && s != Scalar::Double)
      return false;
    if (found != Scalar::Other && found != s)
      return false;
    found = s;
    leaves += times;
    return true;
  };
  if (!visit(t, 1) || found == Scalar::Other)
    return Scalar::Other;
  uint64_t elem = found == Scalar::Double ? 8 : 4;
  if ((uint64_t)ctx.getTypeSizeInChars(t).getQuantity() != leaves * elem)
    return Scalar::Other;
  return found;
}

CType convertType(QualType t, const ASTContext &ctx) {
  CType r;
  PrintingPolicy pp(ctx.getLangOpts());
  pp.SuppressTagKeyword = false;
  QualType cur = t;
  while (true) {
    if (const auto *at = ctx.getAsConstantArrayType(cur)) {
      if (r.dims.empty() && r.ptrDepth == 1)
        r.ptrToArray = true;
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
  r.isUnsigned = cur.getCanonicalType()->isUnsignedIntegerType();
  r.floatingFields = r.elem == Scalar::Other && hasFloatingFields(cur);
  if (r.floatingFields)
    r.flatElem = flatElem(cur, ctx);
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

/// The first reference to `d` in `s`, in source order, or null.
static const clang::Expr *firstUse(const clang::Stmt *s,
                                   const ValueDecl *d) {
  if (!s)
    return nullptr;
  if (const auto *r = dyn_cast<DeclRefExpr>(s))
    if (r->getDecl() == d)
      return r;
  for (const clang::Stmt *c : s->children())
    if (const clang::Expr *u = firstUse(c, d))
      return u;
  return nullptr;
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
  /// The innermost object-like macro that a whole macro expansion `outer`
  /// stands for when each level's body is one name: `#define COMM
  /// MPI_COMM_WORLD` gives MPI_COMM_WORLD, so that the communicator is
  /// recognised as the one the function runs on.
  std::string innermostMacro(SourceLocation b, const std::string &outer) {
    std::vector<SourceLocation> levels; // innermost first
    for (SourceLocation l = b; l.isMacroID() && levels.size() < 32;) {
      l = SM.getImmediateExpansionRange(l).getBegin();
      levels.push_back(l);
    }
    std::string name = outer;
    // levels.back() is the name in the file; walk inwards from the level
    // below it while each is the single token of the level above.
    for (size_t k = levels.size(); k-- > 1;) {
      SourceLocation tok = levels[k - 1];
      if (!tok.isMacroID() || !Lexer::isAtStartOfMacroExpansion(tok, SM, LO) ||
          !Lexer::isAtEndOfMacroExpansion(tok, SM, LO))
        break;
      std::string inner = Lexer::getSourceText(
          CharSourceRange::getTokenRange(SM.getSpellingLoc(tok)), SM, LO).str();
      if (!isIdentifier(inner))
        break;
      name = inner;
    }
    return name;
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
  ExprP lowerFieldView(const MemberExpr *me);
  ExprP lowerPointerField(const MemberExpr *me);
  // `particle *pi = &p[i];` (or `p + i`, or `p`): a local pointer into an
  // array of structs with float/double fields, never changed, whose index
  // does not change in its scope.  Each use of pi is lowered as its
  // initialiser, so that `pi->x` is `p[i].x` (findStructAliases).
  std::map<const VarDecl *, const clang::Expr *> structAliases;
  void findStructAliases(const clang::Stmt *body);
  bool initFields(Var *v, ExprP whole, const std::string &path, QualType t,
                  const InitListExpr *il, Block &out, SourceLocation loc);
  ExprP lower(const clang::Expr *e);
  bool isIntConstant(const clang::Expr *e) const;
  ExprP lowerOperand(const clang::Expr *e, Block &into);
  ExprP lowerConditional(const ConditionalOperator *co);
  ExprP lowerShortCircuit(const BinaryOperator *bo);
  ExprP constant(ExprP x, const clang::Expr *e) const;
  ExprP lowerCall(const CallExpr *ce);
  ExprP lowerIncrement(const clang::UnaryOperator *uo);
  ExprP hoistToTemp(ExprP value, QualType t, SourceLocation loc);
  void lowerStmt(const clang::Stmt *s, Block &out);
  void lowerInto(const clang::Stmt *s, Block &out);
  bool lowerComm(const CallExpr *ce, Block &out);
  void lowerSwitch(const SwitchStmt *ss, Block &out);
  void emitContinue(Block &out, SourceLocation loc, size_t level);
  bool lowerLoopCond(const clang::Expr *c, ExprP &cond, Block &condPre);
  bool lowerAssignInExpr(const BinaryOperator *bo, Block &into, ExprP &value);
  ExprP mpiHandle(const clang::Expr *a, int depth = 0);
  bool contiguousType(const clang::Expr *a, ExprP &base, ExprP &blocks);
  int lowerMemCall(const CallExpr *ce, StmtP &loop);
  ExprP elementCount(const clang::Expr *bytes, const CType &elem);
  bool elementAt(const clang::Expr *p, ExprP &base, ExprP &offset);
  bool unchanged(const VarDecl *vd, const std::set<std::string> &allowedCalls,
                 const CallExpr **definer);
  Var *newInt(const std::string &prefix, SourceLocation loc);

  // What a `break` or `continue` belongs to: a loop, or a switch (lowered to
  // if/else: `plain`, where every break ends a section; or inside a one-trip
  // `do { } while (0)` whose break is the switch's, `wrapped`).
  struct Breakable {
    enum Kind { Loop, SwitchPlain, SwitchWrapped } kind;
    Var *contFlag = nullptr; // wrapped: a continue of an enclosing loop
    size_t vlaBase = 0;      // vlaScopes inside it start here
  };
  std::vector<Breakable> breakables;
  struct PushBreakable {
    std::vector<Breakable> &v;
    PushBreakable(std::vector<Breakable> &v, Breakable::Kind k, size_t vlaBase)
        : v(v) {
      v.push_back({k, nullptr, vlaBase});
    }
    ~PushBreakable() { v.pop_back(); }
  };
  // Variable-length arrays (`double t[n];`), lowered to pointers that the
  // generated code mallocs at the declaration and frees where C ends their
  // lifetime: at the end of their compound statement, and before a return,
  // break or continue that leaves it.  One entry per enclosing compound.
  std::vector<std::vector<Var *>> vlaScopes;
  void freeVlas(size_t from, Block &out, SourceLocation loc);
  void lowerCompound(const CompoundStmt *cs, Block &out);
  bool lowerVla(const VarDecl *vd, Var *v, Block &out);
  int switchCount = 0;
  // Locals holding an MPI handle that calls now name directly (mpiHandle):
  // their declaration goes when nothing else reads them.
  std::set<Var *> handleVars;
  void dropUnusedHandles();
};

void Lowering::dropUnusedHandles() {
  if (handleVars.empty())
    return;
  std::set<Var *> read;
  std::function<void(const Block &)> scan = [&](const Block &b) {
    for (const StmtP &st : b) {
      if (!st)
        continue;
      // (a handle local is never assigned: a store is no read)
      if (st->lhs && st->lhs->kind != mpiad::Expr::VarRef)
        collectVars(st->lhs, read);
      for (const ExprP &e : {st->rhs, st->cond})
        if (e)
          collectVars(e, read);
      for (const ExprP &e : st->comm.args)
        if (e)
          collectVars(e, read);
      scan(st->body);
      scan(st->elseBody);
      if (st->init)
        scan({st->init});
      if (st->step)
        scan({st->step});
    }
  };
  scan(F.body);
  std::set<Var *> drop;
  for (Var *v : handleVars)
    if (!read.count(v))
      drop.insert(v);
  std::function<void(Block &)> strip = [&](Block &b) {
    b.erase(std::remove_if(b.begin(), b.end(),
                           [&](const StmtP &st) {
                             return st && st->kind == Stmt::Decl &&
                                    drop.count(st->var);
                           }),
            b.end());
    for (StmtP &st : b)
      if (st) {
        strip(st->body);
        strip(st->elseBody);
      }
  };
  strip(F.body);
}

Var *Lowering::newInt(const std::string &prefix, SourceLocation loc) {
  CType t;
  t.elem = Scalar::Int;
  t.base = "int";
  Var *v = F.newVar(prefix + std::to_string(++switchCount), t, Var::Synthetic);
  v->loc = loc;
  return v;
}

/// The statements that a `break` in `s` leaves: those of the switch or loop
/// `s` is in, not of loops or switches nested in `s`.
static void ownBreaks(const clang::Stmt *s,
                      std::vector<const BreakStmt *> &out) {
  if (!s)
    return;
  if (const auto *b = dyn_cast<BreakStmt>(s)) {
    out.push_back(b);
    return;
  }
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) ||
      isa<SwitchStmt>(s) || isa<clang::Expr>(s))
    return;
  for (const clang::Stmt *c : s->children())
    ownBreaks(c, out);
}

/// `continue` at breakable level `level` (the entries below it): a loop's
/// own continue, or, from inside a wrapped switch, a flag and the wrapper's
/// break (the flag is turned into a continue after the wrapper).
void Lowering::emitContinue(Block &out, SourceLocation loc, size_t level) {
  for (size_t k = level; k-- > 0;)
    if (breakables[k].kind == Breakable::Loop) {
      freeVlas(breakables[k].vlaBase, out, loc);
      break;
    }
  for (size_t k = level; k-- > 0;) {
    Breakable &b = breakables[k];
    if (b.kind == Breakable::SwitchPlain)
      continue;
    auto st = std::make_shared<Stmt>();
    st->loc = loc;
    if (b.kind == Breakable::Loop) {
      st->kind = Stmt::Continue;
      out.push_back(st);
      return;
    }
    if (!b.contFlag)
      b.contFlag = newInt("mpiad_swcont", loc);
    auto set = mkAssign(mkVar(b.contFlag), "=", mkInt(1));
    set->loc = loc;
    out.push_back(set);
    st->kind = Stmt::Break;
    out.push_back(st);
    return;
  }
  error(loc, "continue outside a loop");
}

/// switch (e) { case 1: A; case 2: B; break; default: C; }  becomes
///   mpiad_sw1 = e;
///   if (mpiad_sw1 == 1 || ...) { ... } else if ... else { default }
/// when every section but the last ends with a `break` of its own; else,
/// with a fall-through flag,
///   mpiad_ft1 = 0;
///   if (mpiad_ft1 || mpiad_sw1 == 1) { mpiad_ft1 = 1; A }
///   if (mpiad_ft1 || mpiad_sw1 == 2) { mpiad_ft1 = 0; B }
///   if (mpiad_ft1 || !(mpiad_sw1 == 1 || mpiad_sw1 == 2)) { ... C }
/// and where a break sits elsewhere (inside an if), the sections go into a
/// one-trip `do { ... } while (0)` whose break is the switch's.  A continue
/// in a wrapped switch sets a flag, breaks, and continues after the wrapper.
void Lowering::lowerSwitch(const SwitchStmt *ss, Block &out) {
  SourceLocation loc = ss->getBeginLoc();
  if (ss->getInit() || ss->getConditionVariable()) {
    error(loc, "declarations in a switch condition are not supported");
    return;
  }
  struct Section {
    std::vector<const clang::Expr *> labels;
    bool isDefault = false;
    std::vector<const clang::Stmt *> stmts;
    SourceLocation loc;
  };
  std::vector<Section> sections;
  std::set<const SwitchCase *> seen;
  const auto *body = dyn_cast_or_null<CompoundStmt>(ss->getBody());
  std::vector<const clang::Stmt *> items;
  if (body)
    items.assign(body->body_begin(), body->body_end());
  else if (ss->getBody())
    items.push_back(ss->getBody());
  for (const clang::Stmt *c : items) {
    if (const auto *sc = dyn_cast<SwitchCase>(c)) {
      Section sec;
      sec.loc = sc->getBeginLoc();
      const clang::Stmt *sub = sc;
      while (const auto *k = dyn_cast<SwitchCase>(sub)) {
        seen.insert(k);
        if (const auto *cs = dyn_cast<CaseStmt>(k)) {
          if (cs->caseStmtIsGNURange()) {
            error(cs->getBeginLoc(), "case ranges (case a ... b) are not "
                                     "supported in a differentiated "
                                     "function; list the values");
            return;
          }
          sec.labels.push_back(cs->getLHS());
        } else {
          sec.isDefault = true;
        }
        sub = k->getSubStmt();
      }
      // `case 1: case 2: ...` with nothing in between: one section.
      if (!sections.empty() && sections.back().stmts.empty()) {
        for (auto *l : sec.labels)
          sections.back().labels.push_back(l);
        sections.back().isDefault |= sec.isDefault;
      } else {
        sections.push_back(sec);
      }
      if (sub && !isa<NullStmt>(sub))
        sections.back().stmts.push_back(sub);
      continue;
    }
    if (sections.empty()) {
      if (isa<DeclStmt>(c) || isa<NullStmt>(c))
        continue;
      error(c->getBeginLoc(), "statement before the first case label of a "
                              "switch (it never runs); remove it");
      return;
    }
    sections.back().stmts.push_back(c);
  }
  for (const SwitchCase *sc = ss->getSwitchCaseList(); sc;
       sc = sc->getNextSwitchCase())
    if (!seen.count(sc)) {
      error(sc->getBeginLoc(), "case label inside a nested statement of a "
                               "switch (as in Duff's device) cannot be "
                               "differentiated; put every label at the top "
                               "level of the switch body");
      return;
    }
  // Where each section's own breaks are.
  bool plain = true;
  std::vector<bool> endsInBreak(sections.size(), false),
      popped(sections.size(), false);
  for (size_t k = 0; k < sections.size(); ++k) {
    auto &st = sections[k].stmts;
    std::vector<const BreakStmt *> br;
    for (const clang::Stmt *c : st)
      ownBreaks(c, br);
    if (!st.empty() && isa<BreakStmt>(st.back())) {
      endsInBreak[k] = true;
      if (br.size() > 1)
        plain = false;
    } else if (!br.empty()) {
      plain = false;
    }
    // A break that is not last in its section ends nothing after it.
    if (endsInBreak[k] && br.size() == 1) {
      st.pop_back();
      popped[k] = true;
    }
  }
  if (!plain) // the breaks are lowered as the wrapper's
    for (size_t k = 0; k < sections.size(); ++k)
      if (popped[k])
        sections[k].stmts.push_back(nullptr); // marker: the trailing break
  // A section that ends with a break, return or continue never falls
  // through into the next one.
  bool fallsThrough = false;
  for (size_t k = 0; k + 1 < sections.size(); ++k) {
    const auto &st = sections[k].stmts;
    bool ends = endsInBreak[k] ||
                (!st.empty() && st.back() &&
                 (isa<ReturnStmt>(st.back()) || isa<ContinueStmt>(st.back())));
    fallsThrough |= !ends;
  }

  // The selector, evaluated once.
  fullExpr = ss->getCond();
  ExprP sel = lower(ss->getCond());
  if (!sel)
    return;
  Var *sw = newInt("mpiad_sw", loc);
  out.push_back(mkDecl(sw));
  {
    auto a = mkAssign(mkVar(sw), "=", sel);
    a->loc = ss->getCond()->getExprLoc();
    // the caller's pre-statements (calls in the selector) come first
    if (pre)
      for (auto &h : *pre)
        out.push_back(h);
    if (pre)
      pre->clear();
    out.push_back(a);
  }
  auto labelValue = [&](const clang::Expr *l) -> ExprP {
    clang::Expr::EvalResult r;
    if (!l->EvaluateAsInt(r, fe.ctx_)) {
      error(l->getExprLoc(), "case label is not an integer constant");
      return nullptr;
    }
    return mkIntText(std::to_string(r.Val.getInt().getSExtValue()));
  };
  std::vector<ExprP> allLabels;
  std::vector<ExprP> match(sections.size());
  for (size_t k = 0; k < sections.size(); ++k) {
    ExprP m;
    for (const clang::Expr *l : sections[k].labels) {
      ExprP v = labelValue(l);
      if (!v)
        return;
      allLabels.push_back(v);
      ExprP eq = mkBinary("==", mkVar(sw), v);
      m = m ? mkBinary("||", m, eq) : eq;
    }
    match[k] = m;
  }
  ExprP anyLabel;
  for (const ExprP &v : allLabels) {
    ExprP eq = mkBinary("==", mkVar(sw), v);
    anyLabel = anyLabel ? mkBinary("||", anyLabel, eq) : eq;
  }
  for (size_t k = 0; k < sections.size(); ++k)
    if (sections[k].isDefault)
      match[k] = anyLabel ? mkUnary("!", anyLabel) : mkInt(1);

  PushBreakable pb(breakables,
                   plain ? Breakable::SwitchPlain : Breakable::SwitchWrapped,
                   vlaScopes.size());
  size_t level = breakables.size() - 1;
  auto lowerSection = [&](size_t k, Block &b) {
    for (const clang::Stmt *c : sections[k].stmts) {
      if (!c) { // the trailing break of a wrapped switch
        auto br = std::make_shared<Stmt>();
        br->kind = Stmt::Break;
        br->loc = sections[k].loc;
        b.push_back(br);
        continue;
      }
      lowerStmt(c, b);
    }
  };
  Block chain;
  if (plain && !fallsThrough) {
    // if (m1) {...} else if (m2) {...} ... else {default}
    std::vector<size_t> order;
    for (size_t k = 0; k < sections.size(); ++k)
      if (!sections[k].isDefault)
        order.push_back(k);
    for (size_t k = 0; k < sections.size(); ++k)
      if (sections[k].isDefault)
        order.push_back(k);
    StmtP first, last;
    for (size_t k : order) {
      Block b;
      lowerSection(k, b);
      if (sections[k].isDefault && last) {
        last->elseBody = std::move(b);
        break;
      }
      auto st = mkIf(match[k], std::move(b));
      st->loc = sections[k].loc;
      if (last)
        last->elseBody.push_back(st);
      else
        first = st;
      last = st;
    }
    if (first)
      chain.push_back(first);
  } else {
    Var *ft = newInt("mpiad_ft", loc);
    out.push_back(mkDecl(ft));
    out.push_back(mkAssign(mkVar(ft), "=", mkInt(0)));
    for (size_t k = 0; k < sections.size(); ++k) {
      Block b;
      b.push_back(mkAssign(mkVar(ft), "=",
                           mkInt(plain && endsInBreak[k] ? 0 : 1)));
      lowerSection(k, b);
      auto st = mkIf(mkBinary("||", mkVar(ft), match[k]), std::move(b));
      st->loc = sections[k].loc;
      chain.push_back(st);
    }
  }
  if (plain) {
    for (auto &c : chain)
      out.push_back(c);
    return;
  }
  Var *cont = breakables[level].contFlag;
  if (cont)
    out.push_back(mkAssign(mkVar(cont), "=", mkInt(0)));
  auto dw = std::make_shared<Stmt>();
  dw->kind = Stmt::DoWhile;
  dw->loc = loc;
  dw->body = std::move(chain);
  dw->cond = mkInt(0);
  out.push_back(dw);
  if (cont) {
    Block b;
    emitContinue(b, loc, level);
    out.push_back(mkIf(mkVar(cont), std::move(b)));
  }
}

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

/// Finds the pointer aliases into arrays of structs (see structAliases):
/// `T *q = &A[e];`, `T *q = A + e;` or `T *q = A;`, A a local or parameter
/// array or pointer of T (a struct with float/double fields), where the
/// function never assigns q, A or takes their address, nor changes a
/// variable of e between q's declaration and the end of its block.
void Lowering::findStructAliases(const clang::Stmt *body) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const VarDecl *> cands;
    std::map<const VarDecl *, std::vector<SourceLocation>> changed;
    void change(const clang::Expr *e, SourceLocation at) {
      e = e->IgnoreParenImpCasts();
      if (const auto *d = dyn_cast<DeclRefExpr>(e))
        if (const auto *v = dyn_cast<VarDecl>(d->getDecl()))
          changed[v].push_back(at);
    }
    // Fields assigned or whose address is taken, by name (`s->atoms = a`).
    std::set<std::string> members;
    void member(const clang::Expr *e) {
      if (const auto *m = dyn_cast<MemberExpr>(e->IgnoreParenImpCasts()))
        members.insert(m->getMemberNameInfo().getAsString());
    }
    bool VisitBinaryOperator(BinaryOperator *bo) {
      if (bo->isAssignmentOp()) {
        change(bo->getLHS(), bo->getOperatorLoc());
        member(bo->getLHS());
      }
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *uo) {
      if (uo->isIncrementDecrementOp() || uo->getOpcode() == UO_AddrOf) {
        change(uo->getSubExpr(), uo->getOperatorLoc());
        member(uo->getSubExpr());
      }
      return true;
    }
    bool VisitVarDecl(VarDecl *vd) {
      if (vd->hasInit() && !vd->hasGlobalStorage())
        cands.push_back(vd);
      return true;
    }
  } f;
  f.TraverseStmt(const_cast<clang::Stmt *>(body));
  for (const VarDecl *q : f.cands) {
    CType qt = convertType(q->getType(), fe.ctx_);
    // `Atoms *atoms = s->atoms;`: a struct pointer read from a chain of
    // fields of a variable, none of them ever assigned, nor q: each use is
    // the chain, so that `atoms->r` is the path `s->atoms->r`.
    if (qt.ptrDepth == 1 && qt.dims.empty() && qt.elem == Scalar::Other &&
        qt.declFmt.empty() && !f.changed.count(q)) {
      const clang::Expr *b = q->getInit()->IgnoreParenImpCasts();
      bool chain = isa<MemberExpr>(b);
      while (const auto *m = dyn_cast<MemberExpr>(b)) {
        chain &= !f.members.count(m->getMemberNameInfo().getAsString());
        b = m->getBase()->IgnoreParenImpCasts();
      }
      const auto *d = dyn_cast<DeclRefExpr>(b);
      const auto *root = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
      if (chain && root && !f.changed.count(root) &&
          (!root->hasGlobalStorage() || root->isStaticLocal())) {
        structAliases[q] = q->getInit();
        continue;
      }
    }
    if (qt.ptrDepth != 1 || !qt.dims.empty() || !qt.floatingFields ||
        f.changed.count(q))
      continue;
    const clang::Expr *init = q->getInit()->IgnoreParenImpCasts();
    const clang::Expr *arr = init, *idx = nullptr;
    if (const auto *uo = dyn_cast<UnaryOperator>(init);
        uo && uo->getOpcode() == UO_AddrOf)
      if (const auto *ase = dyn_cast<ArraySubscriptExpr>(
              uo->getSubExpr()->IgnoreParenImpCasts())) {
        arr = ase->getBase()->IgnoreParenImpCasts();
        idx = ase->getIdx();
      }
    if (const auto *bo = dyn_cast<BinaryOperator>(init);
        bo && bo->getOpcode() == BO_Add) {
      bool left = bo->getLHS()->getType()->isPointerType();
      arr = (left ? bo->getLHS() : bo->getRHS())->IgnoreParenImpCasts();
      idx = left ? bo->getRHS() : bo->getLHS();
    }
    const auto *ad = dyn_cast<DeclRefExpr>(arr);
    const auto *av = ad ? dyn_cast<VarDecl>(ad->getDecl()) : nullptr;
    if (!av || (av->hasGlobalStorage() && !av->isStaticLocal()) ||
        f.changed.count(av))
      continue;
    CType at = convertType(av->getType(), fe.ctx_);
    if (!at.floatingFields || at.ptrDepth + at.dims.size() != 1)
      continue;
    // The index's variables keep their values in q's block after q.
    const clang::Stmt *scope = nullptr;
    for (auto parents = fe.ctx_.getParents(*q); !parents.empty();) {
      if (const auto *cs = parents[0].get<CompoundStmt>()) {
        scope = cs;
        break;
      }
      if (const auto *st = parents[0].get<clang::Stmt>())
        parents = fe.ctx_.getParents(*st);
      else if (const auto *d = parents[0].get<Decl>())
        parents = fe.ctx_.getParents(*d);
      else
        break;
    }
    if (!scope)
      continue;
    std::set<const VarDecl *> reads;
    if (idx) {
      struct Reads : RecursiveASTVisitor<Reads> {
        std::set<const VarDecl *> &out;
        bool calls = false; // evaluated again at each use: no calls
        explicit Reads(std::set<const VarDecl *> &o) : out(o) {}
        bool VisitDeclRefExpr(DeclRefExpr *d) {
          if (const auto *v = dyn_cast<VarDecl>(d->getDecl()))
            out.insert(v);
          return true;
        }
        bool VisitCallExpr(CallExpr *) {
          calls = true;
          return true;
        }
      } r(reads);
      r.TraverseStmt(const_cast<clang::Expr *>(idx));
      if (r.calls)
        continue;
    }
    bool ok = true;
    for (const VarDecl *v : reads)
      for (SourceLocation at : f.changed[v])
        if (SM.isBeforeInTranslationUnit(q->getLocation(), at) &&
            SM.isBeforeInTranslationUnit(at, scope->getEndLoc()))
          ok = false;
    if (ok)
      structAliases[q] = q->getInit();
  }
}

/// A floating field of a struct variable of this function, reached
/// directly: `a.x`, `p->x`, `p[i].x`, `u[i][j].pos.x`, `(*p).x`.  It becomes
/// an element (or the value) of the variable's field view (IR.h), so that
/// it can carry derivatives.  Null for anything else (fields of globals, of
/// structs reached through a pointer field or a call, integer fields),
/// which stays an opaque read.
ExprP Lowering::lowerFieldView(const MemberExpr *me) {
  // The field's type: float or double, or a fixed array of them.
  CType ft;
  QualType elemT = me->getType();
  while (const auto *at = fe.ctx_.getAsConstantArrayType(elemT)) {
    ft.dims.push_back(std::to_string(at->getSize().getZExtValue()));
    elemT = at->getElementType();
  }
  Scalar fs = classify(elemT);
  if (fs != Scalar::Float && fs != Scalar::Double)
    return nullptr;
  std::string path = "." + me->getMemberNameInfo().getAsString();
  bool arrow = me->isArrow();
  const clang::Expr *b = me->getBase()->IgnoreParenImpCasts();
  while (!arrow) {
    const auto *inner = dyn_cast<MemberExpr>(b);
    if (!inner)
      break;
    path = "." + inner->getMemberNameInfo().getAsString() + path;
    arrow = inner->isArrow();
    b = inner->getBase()->IgnoreParenImpCasts();
  }
  // The base must be rooted at a variable of this function, indexed fully.
  const clang::Expr *root = b;
  while (true) {
    if (const auto *ase = dyn_cast<ArraySubscriptExpr>(root))
      root = ase->getBase()->IgnoreParenImpCasts();
    else if (const auto *uo = dyn_cast<UnaryOperator>(root);
             uo && uo->getOpcode() == UO_Deref)
      root = uo->getSubExpr()->IgnoreParenImpCasts();
    else
      break;
  }
  const auto *dre = dyn_cast<DeclRefExpr>(root);
  const auto *vd = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  if (!vd || (vd->hasGlobalStorage() && !vd->isStaticLocal()))
    return nullptr;
  ExprP base = lower(b);
  if (!base)
    return nullptr;
  if (arrow)
    base = mkIndex(base, mkInt(0));
  // Through a pointer alias (`pi->x` with pi = &p[i] or p + i): p[i + 0].
  std::function<ExprP(const ExprP &)> fold = [&](const ExprP &x) -> ExprP {
    if (x->kind != Expr::Index)
      return x;
    ExprP in = fold(x->ops[0]);
    const ExprP &j = x->ops[1];
    auto plus = [&](const ExprP &k) {
      return isZeroLiteral(j) ? k : isZeroLiteral(k) ? j : mkBinary("+", k, j);
    };
    if (in->kind == Expr::AddrOf && in->ops[0]->kind == Expr::Index)
      return mkIndex(in->ops[0]->ops[0], plus(in->ops[0]->ops[1]));
    if (in->kind == Expr::Binary && in->text == "+" && in->ptrDepth > 0) {
      bool left = in->ops[0]->ptrDepth > 0;
      return mkIndex(in->ops[left ? 0 : 1], plus(in->ops[left ? 1 : 0]));
    }
    return in == x->ops[0] ? x : mkIndex(in, j);
  };
  base = fold(base);
  // Replace the variable at the root of the index chain by its view.
  std::vector<ExprP> idx;
  ExprP r = base;
  while (r->kind == Expr::Index) {
    idx.push_back(r->ops[1]);
    r = r->ops[0];
  }
  if (r->kind != Expr::VarRef || !r->var->type.floatingFields)
    return nullptr;
  Var *parent = r->var;
  size_t rank = parent->type.ptrDepth + parent->type.dims.size();
  if (idx.size() != rank)
    return nullptr;
  ft.elem = fs;
  Var *view = F.fieldView(parent, path, ft);
  ExprP out = mkVar(view);
  for (auto it = idx.rbegin(); it != idx.rend(); ++it)
    out = mkIndex(out, *it);
  return out;
}

/// A pointer field to float or double data (or to rows of them, `real3 *r`)
/// reached from a struct variable of this function through fields only:
/// `s->atoms->r`, `s.f`.  It becomes a view through pointer fields (IR.h),
/// a variable of its own whose shadow is the same path from the struct's
/// shadow (`s_b->atoms->r`).  Null for anything else (a cast, an index or
/// a call on the way, a global), which stays an opaque read.
ExprP Lowering::lowerPointerField(const MemberExpr *me) {
  CType ft = convertType(me->getType(), fe.ctx_);
  if (!ft.isFloatingElem() || ft.ptrDepth > 1 || ft.floatingFields)
    return nullptr;
  std::string path;
  const clang::Expr *b = me;
  int pointers = 0; // pointer fields followed on the way
  // A local struct pointer read from a chain of fields (findStructAliases)
  // continues the chain: `atoms->r` with `atoms = s->atoms`.
  auto follow = [&](const clang::Expr *e) {
    if (const auto *d = dyn_cast<DeclRefExpr>(e))
      if (const auto *v = dyn_cast<VarDecl>(d->getDecl())) {
        auto a = structAliases.find(v);
        if (a != structAliases.end() &&
            isa<MemberExpr>(a->second->IgnoreParenImpCasts()))
          return a->second->IgnoreParenImpCasts();
      }
    return e;
  };
  while (const auto *m = dyn_cast<MemberExpr>(b)) {
    path = (m->isArrow() ? "->" : ".") + m->getMemberNameInfo().getAsString() +
           path;
    b = follow(m->getBase()->IgnoreParenImpCasts());
    pointers += m->isArrow() && isa<MemberExpr>(b);
  }
  // A float/double field (`s->prm->k`, `s->cell.pos[3]`) is a view of its
  // own only behind a pointer field; `s->e` and `s.a.b` are field views.
  if (ft.ptrDepth == 0 && pointers == 0)
    return nullptr;
  const auto *dre = dyn_cast<DeclRefExpr>(b);
  const auto *vd = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  if (!vd || (vd->hasGlobalStorage() && !vd->isStaticLocal()) ||
      structAliases.count(vd))
    return nullptr;
  ExprP root = lower(b);
  if (!root || root->kind != Expr::VarRef)
    return nullptr;
  Var *parent = root->var;
  // The root is one struct: `s` or `s->`, not an array of them.
  if (!parent->type.dims.empty() ||
      parent->type.ptrDepth != (path.rfind("->", 0) == 0 ? 1 : 0))
    return nullptr;
  return mkVar(F.pointerFieldView(parent, path, ft));
}

/// `struct P v = {...}` for a struct with float/double fields: every field
/// assigned in order (those the list leaves out are zero, as in C), the
/// floating ones through v's field views.  `whole` is the struct (or the
/// nested struct at `path`) as an expression, for the other fields.
bool Lowering::initFields(Var *v, ExprP whole, const std::string &path,
                          QualType t, const InitListExpr *il, Block &out,
                          SourceLocation loc) {
  const RecordDecl *rd = t->getAsRecordDecl();
  if (!rd || rd->isUnion()) {
    error(loc, "initialiser list of '" + v->userName +
                   "': a union with float/double fields cannot be "
                   "initialised in a differentiated function; assign the "
                   "member after the declaration");
    return false;
  }
  unsigned k = 0;
  for (const FieldDecl *fd : rd->fields()) {
    const clang::Expr *e =
        il && k < il->getNumInits() ? il->getInit(k) : nullptr;
    ++k;
    if (fd->isUnnamedBitField())
      continue;
    std::string name = fd->getNameAsString();
    QualType ft = fd->getType();
    const auto *sub =
        e ? dyn_cast<InitListExpr>(e->IgnoreParenImpCasts()) : nullptr;
    if (ft->isRecordType() && hasFloatingFields(ft)) {
      auto m = std::make_shared<mpiad::Expr>(
          *mkOpaque("." + name, {}, Scalar::Other));
      m->ops = {whole};
      if (!initFields(v, m, path + "." + name, ft, sub, out, loc))
        return false;
      continue;
    }
    if (ft->isArrayType()) {
      const auto *at1 = fe.ctx_.getAsConstantArrayType(ft);
      Scalar es1 = at1 ? classify(at1->getElementType()) : Scalar::Other;
      if (sub && (es1 == Scalar::Float || es1 == Scalar::Double)) {
        // `{a, b}` for `double r[3]`: r[0] = a, r[1] = b, r[2] = 0.
        CType et;
        et.elem = es1;
        et.dims.push_back(std::to_string(at1->getSize().getZExtValue()));
        Var *view = F.fieldView(v, path + "." + name, et);
        for (uint64_t j = 0; j < at1->getSize().getZExtValue(); ++j) {
          const clang::Expr *ej = j < sub->getNumInits() ? sub->getInit(j)
                                                         : nullptr;
          ExprP val = !ej || isa<ImplicitValueInitExpr>(ej->IgnoreParenImpCasts())
                          ? mkInt(0)
                          : lower(ej);
          if (!val)
            return false;
          auto a = mkAssign(mkIndex(mkVar(view), mkInt((long long)j)), "=",
                            val);
          a->loc = ej ? ej->getExprLoc() : loc;
          out.push_back(a);
        }
        continue;
      }
      if (e && !isa<ImplicitValueInitExpr>(e->IgnoreParenImpCasts())) {
        error(e->getExprLoc(),
              "initialiser list of '" + v->userName + "' sets the array "
              "field '" + name + "'; assign its elements after the "
              "declaration");
        return false;
      }
      // C zeroes it; so does this, element by element for a 1-D array of
      // float/double (each element is part of a field view), with memset
      // for any other array.
      const auto *at = fe.ctx_.getAsConstantArrayType(ft);
      Scalar es = at ? classify(at->getElementType()) : Scalar::Other;
      if (at && (es == Scalar::Float || es == Scalar::Double)) {
        CType et;
        et.elem = es;
        et.dims.push_back(std::to_string(at->getSize().getZExtValue()));
        Var *view = F.fieldView(v, path + "." + name, et);
        for (uint64_t j = 0; j < at->getSize().getZExtValue(); ++j) {
          auto a = mkAssign(mkIndex(mkVar(view), mkInt((long long)j)), "=",
                            mkInt(0));
          a->loc = loc;
          out.push_back(a);
        }
        continue;
      }
      if (hasFloatingFields(ft)) {
        error(loc, "'" + v->userName + "' has the field '" + name +
                       "', a multi-dimensional array or an array of structs "
                       "with float/double values, which a differentiated "
                       "function cannot initialise from a list; declare "
                       "the variable without an initialiser and assign "
                       "its fields");
        return false;
      }
      auto z = mkExprStmt(mkOpaque("memset(&" + v->name + path + "." + name +
                                       ", 0, sizeof " + v->name + path + "." +
                                       name + ")",
                                   {v}));
      z->loc = loc;
      out.push_back(z);
      continue;
    }
    ExprP val;
    if (!e || isa<ImplicitValueInitExpr>(e->IgnoreParenImpCasts()))
      val = mkInt(0);
    else
      val = lower(e);
    if (!val)
      return false;
    Scalar fs = classify(ft);
    ExprP lhs;
    if (fs == Scalar::Float || fs == Scalar::Double) {
      CType et;
      et.elem = fs;
      lhs = mkVar(F.fieldView(v, path + "." + name, et));
    } else {
      CType fct = convertType(ft, fe.ctx_);
      auto m = std::make_shared<mpiad::Expr>(*mkOpaque("." + name, {}, fct.elem));
      m->ops = {whole};
      m->ptrDepth = fct.ptrDepth;
      lhs = m;
    }
    auto a = mkAssign(lhs, "=", val);
    a->loc = e ? e->getExprLoc() : loc;
    out.push_back(a);
  }
  return true;
}

/// Calls after which the program does not go on: such a path needs no
/// adjoint, and the call stays as written in every sweep that runs the
/// primal.
static bool endsProgram(const std::string &name) {
  return name == "MPI_Abort" || name == "PMPI_Abort" || name == "exit" ||
         name == "_Exit" || name == "abort" || name == "quick_exit";
}

/// Is `s` (a call of MPI_Finalize) the statement just before a call that
/// ends the program, in the same block (`MPI_Finalize(); exit(1);`, the
/// error exit of Pacheco's Check_for_error)?  Then it is part of a path
/// that needs no adjoint and stays a call.
static bool finalizeBeforeExit(const clang::Stmt *s, clang::ASTContext &ctx) {
  auto parents = ctx.getParents(*s);
  if (parents.size() != 1)
    return false;
  const auto *cs = parents[0].get<clang::CompoundStmt>();
  if (!cs)
    return false;
  bool next = false;
  for (const clang::Stmt *x : cs->body()) {
    if (next) {
      const auto *e = dyn_cast<clang::Expr>(x);
      const auto *ce = e ? dyn_cast<CallExpr>(e->IgnoreImplicit()) : nullptr;
      return ce && ce->getDirectCallee() &&
             endsProgram(ce->getDirectCallee()->getNameAsString());
    }
    next = x == s;
  }
  return false;
}

/// `pre...; if (!cond) break;`: a loop condition that needs statements of
/// its own, tested at the top of an iteration.
static Block breakUnless(const Block &pre, const ExprP &cond,
                         SourceLocation loc) {
  Block b = pre;
  auto br = std::make_shared<Stmt>();
  br->kind = Stmt::Break;
  br->loc = loc;
  b.push_back(mkIf(mkUnary("!", cond), {br}));
  return b;
}

static bool isIdentifier(const std::string &s) {
  if (s.empty() || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

/// Does e read a variable of the program (a parameter, a local or a global
/// declared outside system headers)?  An object-like macro naming one
/// (`#define XX x`, `#define KAPPA kappa`) is lowered as its expansion, so
/// that the variable carries its derivative; only macros of constants and
/// library objects (N, M_PI, MPI_COMM_WORLD) print as their name.
static bool namesProgramVariable(const clang::Stmt *e, const SourceManager &SM) {
  if (!e)
    return false;
  if (const auto *dre = dyn_cast<DeclRefExpr>(e))
    if (const auto *vd = dyn_cast<VarDecl>(dre->getDecl())) {
      SourceLocation at = SM.getExpansionLoc(vd->getLocation());
      if (SM.isInMainFile(at))
        return true;
      // A header's floating data (`extern double *state;`), not a library's
      // object (Open MPI's ompi_mpi_comm_world behind MPI_COMM_WORLD).
      const clang::Type *t = vd->getType().getCanonicalType().getTypePtr();
      while (t->isPointerType() || t->isArrayType())
        t = t->getPointeeOrArrayElementType()->getCanonicalTypeInternal().getTypePtr();
      if (!SM.isInSystemHeader(at) && t->isFloatingType())
        return true;
    }
  for (const clang::Stmt *c : e->children())
    if (namesProgramVariable(c, SM))
      return true;
  return false;
}

/// An operand that C may skip, lowered into a block of its own: the
/// statements its calls need (a same-file function's result, an MPI call
/// used as a value) run only where C would evaluate it.
/// (An increment there stays an error: its update would have to follow the
/// operand's use, and `post` is the whole statement's.)
ExprP Lowering::lowerOperand(const clang::Expr *e, Block &into) {
  Block *savedPre = pre, *savedPost = post;
  int savedGuarded = guarded;
  pre = &into;
  post = nullptr;
  guarded = 0;
  ExprP x = lower(e);
  pre = savedPre;
  post = savedPost;
  guarded = savedGuarded;
  return x;
}

/// `c ? a : b` whose operands need statements: `T t; if (c) { ...; t = a; }
/// else { ...; t = b; }`; otherwise the expression as it is.
ExprP Lowering::lowerConditional(const ConditionalOperator *co) {
  ExprP c = lower(co->getCond());
  Block pa, pb;
  ExprP a = lowerOperand(co->getTrueExpr(), pa);
  ExprP b = lowerOperand(co->getFalseExpr(), pb);
  if (!c || !a || !b)
    return nullptr;
  if (pa.empty() && pb.empty())
    return mkCond(c, a, b);
  Var *t = F.newVar("mpiad_c" + std::to_string(++tempCount),
                    convertType(co->getType(), fe.ctx_), Var::Synthetic);
  t->loc = co->getExprLoc();
  pre->push_back(mkDecl(t));
  pa.push_back(mkAssign(mkVar(t), "=", a));
  pb.push_back(mkAssign(mkVar(t), "=", b));
  StmtP branch = mkIf(c, pa, pb);
  branch->loc = co->getExprLoc();
  pre->push_back(branch);
  return mkVar(t);
}

/// `a && b` / `a || b` whose right operand needs statements: `int t = 0;
/// if (a) { ...; t = b != 0; }` (for ||, t = 1 and `if (!(a))`).
ExprP Lowering::lowerShortCircuit(const BinaryOperator *bo) {
  bool conj = bo->getOpcode() == BO_LAnd;
  ExprP a = lower(bo->getLHS());
  Block pb;
  ExprP b = lowerOperand(bo->getRHS(), pb);
  if (!a || !b)
    return nullptr;
  if (pb.empty())
    return mkBinary(conj ? "&&" : "||", a, b);
  Var *t = F.newVar("mpiad_c" + std::to_string(++tempCount),
                    convertType(bo->getType(), fe.ctx_), Var::Synthetic);
  t->loc = bo->getExprLoc();
  pre->push_back(mkDecl(t));
  pre->push_back(mkAssign(mkVar(t), "=", mkInt(conj ? 0 : 1)));
  static const std::set<std::string> boolOps = {"<",  "<=", ">", ">=",
                                                 "==", "!=", "&&", "||"};
  bool isBool = (b->kind == mpiad::Expr::Binary && boolOps.count(b->text)) ||
                (b->kind == mpiad::Expr::Unary && b->text == "!");
  pb.push_back(
      mkAssign(mkVar(t), "=", isBool ? b : mkBinary("!=", b, mkInt(0))));
  StmtP branch = mkIf(conj ? a : mkUnary("!", a), pb);
  branch->loc = bo->getExprLoc();
  pre->push_back(branch);
  return mkVar(t);
}

ExprP Lowering::hoistToTemp(ExprP value, QualType t, SourceLocation loc) {
  if (!pre || inCondition) {
    error(loc, "internal: a call to a same-file function where no statement "
               "can be placed before it; assign it to a variable first");
    return value;
  }
  if (guarded) {
    error(loc, "a call to a same-file function inside an operand of &&, || "
               "or ?: is not supported in a differentiated function (it is "
               "evaluated before the test, but C may skip it); assign it to "
               "a variable under an if first");
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
  if (std::optional<llvm::APSInt> v = e->getIntegerConstantExpr(fe.ctx_)) {
    c->hasIntValue = true;
    c->intValue = v->getExtValue();
  }
  return c;
}

ExprP Lowering::lower(const clang::Expr *e) {
  // A whole object-like macro whose body is parenthesised
  // (MPI_STATUS_IGNORE is `((MPI_Status *) 0)`) prints as its name.
  if (isa<ParenExpr>(e) && e->getBeginLoc().isMacroID() &&
      !namesProgramVariable(e, SM) &&
      Lexer::isAtStartOfMacroExpansion(e->getBeginLoc(), SM, LO) &&
      Lexer::isAtEndOfMacroExpansion(e->getEndLoc(), SM, LO)) {
    std::string t = text(e->getSourceRange());
    if (isIdentifier(t) && !SM.isMacroArgExpansion(e->getBeginLoc())) {
      CType ct = convertType(e->getType(), fe.ctx_);
      auto x = std::make_shared<mpiad::Expr>(
          *mkOpaque(innermostMacro(e->getBeginLoc(), t), {}, ct.elem));
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
      !namesProgramVariable(e, SM) &&
      Lexer::isAtStartOfMacroExpansion(beginLoc(e), SM, LO) &&
      Lexer::isAtEndOfMacroExpansion(e->getEndLoc(), SM, LO)) {
    std::string t = text(e->getSourceRange());
    if (isIdentifier(t) && !SM.isMacroArgExpansion(e->getBeginLoc()))
      return constant(
          typed(mkOpaque(innermostMacro(beginLoc(e), t), {}, ct.elem)), e);
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
  // A literal from a macro argument (assert(n > 0 && "message")) is
  // printed as spelled, not as the whole macro call.
  if ((isa<CharacterLiteral>(e) || isa<StringLiteral>(e)) &&
      e->getBeginLoc().isMacroID() && e->getBeginLoc() == e->getEndLoc())
    return constant(
        typed(mkOpaque(spelling(e->getSourceRange()), {}, ct.elem)), e);
  if (isa<CharacterLiteral>(e) || isa<StringLiteral>(e) ||
      isa<UnaryExprOrTypeTraitExpr>(e) || isa<OffsetOfExpr>(e))
    return constant(typed(mkOpaque(text(e->getSourceRange()), {}, ct.elem)), e);
  if (const auto *dre = dyn_cast<DeclRefExpr>(e)) {
    if (const auto *vd = dyn_cast<VarDecl>(dre->getDecl())) {
      auto alias = structAliases.find(vd);
      if (alias != structAliases.end())
        return lower(alias->second);
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
    if (ExprP v = lowerFieldView(me))
      return typed(v);
    if (failed)
      return nullptr;
    if (ExprP v = lowerPointerField(me))
      return typed(v);
    // Other struct fields are read as opaque values (never active).  The base is
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
                     "differentiated function (an operand of &&, || or ?:, "
                     "or on a value that is not an integer variable); write "
                     "it as a separate statement");
      return nullptr;
    }
  }
  if (const auto *bo = dyn_cast<BinaryOperator>(e)) {
    if (bo->isAssignmentOp()) {
      if (pre && !inCondition && !guarded) {
        ExprP v;
        return lowerAssignInExpr(bo, *pre, v) ? v : nullptr;
      }
      error(loc, "assignment inside an operand of &&, || or ?: is not "
                 "supported in a differentiated function (it may not run); "
                 "write it as a separate statement");
      return nullptr;
    }
    if (bo->getOpcode() == BO_Comma) {
      if (pre && !inCondition && !guarded) {
        // (a, b): a runs as a statement first, with its own increments.
        lowerStmt(bo->getLHS(), *pre);
        if (failed)
          return nullptr;
        return lower(bo->getRHS());
      }
      error(loc, "the comma operator inside an operand of &&, || or ?: is "
                 "not supported in a differentiated function (its left side "
                 "may not run); write it as separate statements");
      return nullptr;
    }
    bool shortCircuit = bo->getOpcode() == BO_LAnd || bo->getOpcode() == BO_LOr;
    if (shortCircuit && pre && !inCondition) {
      ExprP r = lowerShortCircuit(bo);
      return r ? typed(r) : nullptr;
    }
    ExprP a = lower(bo->getLHS());
    guarded += shortCircuit;
    ExprP b = lower(bo->getRHS());
    guarded -= shortCircuit;
    if (!a || !b)
      return nullptr;
    return typed(mkBinary(bo->getOpcodeStr().str(), a, b));
  }
  if (const auto *co = dyn_cast<ConditionalOperator>(e);
      co && pre && !inCondition) {
    ExprP r = lowerConditional(co);
    return r ? typed(r) : nullptr;
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
  bool isMpi = fe.rules_.comm(name) || name.rfind("MPI_", 0) == 0 ||
               name.rfind("PMPI_", 0) == 0;
  // Clocks are constants for derivatives: an ordinary external call.
  bool clock = name == "MPI_Wtime" || name == "MPI_Wtick" ||
               name == "PMPI_Wtime" || name == "PMPI_Wtick";
  if (isMpi && !clock && !endsProgram(name) &&
      !(name == "MPI_Finalize" && finalizeBeforeExit(ce, fe.ctx_))) {
    // `if (MPI_Comm_rank(comm, &r) != MPI_SUCCESS)`, `int err =
    // MPI_Allreduce(...)`: the call stays a statement, before this one, and
    // its value is MPI_SUCCESS (under the default error handler a failing
    // call does not return).
    // NCCL calls return an ncclResult_t: ncclSuccess.
    bool nccl = name.rfind("nccl", 0) == 0;
    if (pre && !inCondition && !guarded && (rt.elem == Scalar::Int || nccl)) {
      if (!lowerComm(ce, *pre))
        return nullptr;
      auto v = std::make_shared<mpiad::Expr>(*mkOpaque(
          nccl ? "ncclSuccess" : "MPI_SUCCESS", {}, nccl ? rt.elem : Scalar::Int));
      v->intConstant = !nccl;
      v->loc = loc;
      return v;
    }
    error(loc, "'" + name + "' used as a value inside an operand of &&, || "
                            "or ?:; call it as a statement (its return code "
                            "is " +
                                std::string(nccl ? "ncclSuccess" : "MPI_SUCCESS") +
                                " here) in a differentiated function");
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
  // A function of this file, or a static one of a project header that
  // calls nothing (CoMD's `static void zeroReal3(real3 a)` in mytype.h):
  // part of this translation unit, so it is differentiated as the file's
  // own.  Header functions that call others (a library's emulation layer,
  // wrappers) stay external, with rules.
  auto ownFunction = [&](const FunctionDecl *d) {
    SourceLocation at = SM.getExpansionLoc(d->getLocation());
    if (SM.isInMainFile(at))
      return true;
    if (d->getStorageClass() != SC_Static || SM.isInSystemHeader(at))
      return false;
    struct Calls : RecursiveASTVisitor<Calls> {
      bool any = false;
      bool VisitCallExpr(CallExpr *) {
        any = true;
        return false;
      }
    } calls;
    calls.TraverseStmt(d->getBody());
    return !calls.any;
  };
  if (def && def->hasBody() && !fe.rules_.math(name) && ownFunction(def)) {
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
  std::map<std::string, ExprP> multiplier; // datatype arg -> elements per item
  std::set<int> scaled;
  for (unsigned i = 0; i < ce->getNumArgs(); ++i) {
    const clang::Expr *a = ce->getArg(i);
    CommArg::Role role = rule->args[i].role;
    if (role == CommArg::Op || role == CommArg::Datatype) {
      // What the handle is (MPI_DOUBLE, MPI_SUM), seen through macros
      // (#define MPI_DTYPE MPI_DOUBLE) and locals assigned once.
      if (ExprP h = mpiHandle(a)) {
        s->comm.args.push_back(h);
        continue;
      }
      // A type made by MPI_Type_contiguous(k, MPI_DOUBLE, &t): the call
      // moves count * k elements of MPI_DOUBLE.
      ExprP base, blocks;
      if (role == CommArg::Datatype && contiguousType(a, base, blocks)) {
        s->comm.args.push_back(base);
        multiplier[rule->args[i].name] = blocks;
        continue;
      }
    }
    if (role == CommArg::Op || role == CommArg::Datatype ||
        role == CommArg::Comm) {
      ExprP x = lower(a);
      std::set<Var *> used;
      if (x)
        collectVars(x, used);
      // A macro standing for a library handle is printed as the handle
      // (`#define COMM MPI_COMM_WORLD`: the function's communicator).
      std::string t = text(a->getSourceRange());
      if (x && x->kind == mpiad::Expr::Opaque && used.empty() &&
          isIdentifier(t) && isIdentifier(x->text))
        t = x->text;
      // ... and one standing for a variable as the variable (`#define MC
      // comm`), which the replication analysis then recognises.
      if (x && x->kind == mpiad::Expr::VarRef && isIdentifier(t))
        t = x->var->userName;
      auto op = std::make_shared<mpiad::Expr>(
          *mkOpaque(t, std::vector<Var *>(used.begin(), used.end())));
      op->loc = a->getExprLoc();
      // An MPI_Datatype that is neither a predefined handle nor a local
      // contiguous type: a derived datatype, whatever made it.  (NCCL's
      // datatypes are an enum.)
      op->derivedDatatype =
          role == CommArg::Datatype &&
          a->IgnoreParenImpCasts()->getType().getAsString() == "MPI_Datatype" &&
          datatypeElem(op->text) == Scalar::Other;
      s->comm.args.push_back(op);
      continue;
    }
    ExprP x = lower(a);
    if (!x)
      return false;
    s->comm.args.push_back(x);
  }
  // An array of structs made only of double (or float) values, sent as
  // MPI_DOUBLE (MPI_FLOAT) or a derived datatype (whose elements libmpiad
  // checks at run time): the buffer is that array of elements, cast to it,
  // so that the adjoint and the recording see numbers.  Its fields'
  // views share its alias class (Activity.cpp).  A single struct (`&c`) is
  // not: the analyses follow scalars one by one, and Activity.cpp reports
  // it.
  for (size_t i = 0; i < rule->args.size(); ++i) {
    const CommArg &b = rule->args[i];
    int dt = rule->argIndex(b.datatype);
    if (b.role != CommArg::Buffer || dt < 0)
      continue;
    ExprP &x = s->comm.args[i];
    Var *v = baseVar(x);
    if (!v || !v->type.floatingFields || x->ptrDepth < 1 ||
        !v->type.isArrayLike() || v->type.flatElem == Scalar::Other ||
        (datatypeElem(s->comm.args[dt]->text) != v->type.flatElem &&
         !s->comm.args[dt]->derivedDatatype))
      continue;
    std::string elem = v->type.flatElem == Scalar::Float ? "float" : "double";
    auto c = std::make_shared<mpiad::Expr>(
        *mkCast((v->type.isConst ? "const " : "") + elem + " *", x,
                v->type.flatElem, 1));
    c->loc = x->loc;
    x = c;
  }
  // The counts that go with a contiguous type count its blocks' elements.
  for (size_t i = 0; i < rule->args.size(); ++i) {
    const CommArg &b = rule->args[i];
    auto m = multiplier.find(b.datatype);
    if (b.role != CommArg::Buffer || m == multiplier.end())
      continue;
    int ci = rule->argIndex(b.count);
    if (ci < 0 || scaled.count(ci))
      continue;
    scaled.insert(ci);
    s->comm.args[ci] = mkBinary("*", s->comm.args[ci], m->second);
  }
  out.push_back(s);
  return true;
}

/// `memcpy(dst, src, BYTES)`, `memmove(dst, src, BYTES)` and
/// `memset(dst, 0, BYTES)` written as statements on float or double data
/// become element loops, so that derivatives flow through them:
///   for (int mpiad_m1 = 0; mpiad_m1 < COUNT; mpiad_m1 += 1)
///     dst[mpiad_m1] = src[mpiad_m1];        (or = 0)
/// BYTES must say how many elements it is: `N * sizeof(double)`,
/// `sizeof(double) * N`, or `sizeof a` of a fixed array.  `dst` and `src`
/// are an array or pointer, `&a[k]`, or `a + k`.  memmove of one array onto
/// itself is an error (the loop's direction would matter).  Returns 0 when
/// the call is not such a call (left as an ordinary call), 1 when it was
/// lowered or reported.
int Lowering::lowerMemCall(const CallExpr *ce, StmtP &result) {
  std::string name = ce->getDirectCallee()->getNameAsString();
  bool set = name == "memset" || name == "__builtin_memset";
  bool copy = name == "memcpy" || name == "memmove" ||
              name == "__builtin_memcpy" || name == "__builtin_memmove";
  if ((!set && !copy) || ce->getNumArgs() != 3)
    return 0;
  auto pointee = [&](const clang::Expr *e) {
    QualType t = e->IgnoreParenImpCasts()->getType();
    if (t->isArrayType())
      return convertType(QualType(t->getPointeeOrArrayElementType(), 0),
                         fe.ctx_);
    if (t->isPointerType())
      return convertType(t->getPointeeType(), fe.ctx_);
    return CType();
  };
  CType de = pointee(ce->getArg(0));
  if (!de.isFloatingScalar())
    return 0; // not floating data: an ordinary call
  SourceLocation loc = ce->getExprLoc();
  if (copy) {
    CType se = pointee(ce->getArg(1));
    if (se.elem != de.elem || !se.isFloatingScalar()) {
      error(loc, "'" + name + "' between arrays of different types; copy "
                             "the elements in a loop");
      return 1;
    }
  } else {
    clang::Expr::EvalResult v;
    if (!ce->getArg(1)->EvaluateAsInt(v, fe.ctx_) || !v.Val.getInt().isZero()) {
      error(ce->getArg(1)->getExprLoc(),
            "memset of float or double data to a byte other than 0 is not "
            "supported in a differentiated function; assign the values in a "
            "loop");
      return 1;
    }
  }
  ExprP dst, doff, src, soff;
  if (!elementAt(ce->getArg(0), dst, doff) ||
      (copy && !elementAt(ce->getArg(1), src, soff))) {
    error(loc, "'" + name + "' on float or double data needs its pointers "
                           "written as an array, a pointer, '&a[k]' or "
                           "'a + k'");
    return 1;
  }
  ExprP count = elementCount(ce->getArg(2), de);
  if (!count) {
    error(ce->getArg(2)->getExprLoc(),
          "the size of '" + name + "' on " + de.elemName() +
              " data must be written as 'N * sizeof(" + de.elemName() +
              ")' or 'sizeof array', so that mpiad can count its elements");
    return 1;
  }
  if (name.find("memmove") != std::string::npos && baseVar(dst) &&
      baseVar(dst) == baseVar(src)) {
    error(loc, "memmove within one array is not supported in a "
               "differentiated function; copy through a second array");
    return 1;
  }
  CType it;
  it.elem = Scalar::Int;
  it.base = "int";
  Var *k = F.newVar("mpiad_m" + std::to_string(++tempCount), it,
                    Var::Synthetic);
  k->loc = loc;
  k->declaredInForInit = true;
  auto at = [&](const ExprP &base, const ExprP &off) {
    ExprP idx = off ? mkBinary("+", off, mkVar(k)) : mkVar(k);
    return mkIndex(base, idx);
  };
  auto loop = std::make_shared<Stmt>();
  loop->kind = Stmt::For;
  loop->loc = loc;
  loop->init = mkDecl(k, mkInt(0));
  loop->init->loc = loc;
  loop->cond = mkBinary("<", mkVar(k), count);
  loop->step = mkAssign(mkVar(k), "+=", mkInt(1));
  loop->step->loc = loc;
  StmtP body = mkAssign(at(dst, doff), "=",
                        copy ? at(src, soff)
                             : (de.elem == Scalar::Float ? mkFloat("0.0f")
                                                         : mkFloat("0.0")));
  body->loc = loc;
  loop->body.push_back(body);
  result = loop;
  return 1;
}

/// The number of elements of type `elem` in the byte count `bytes`, or null.
ExprP Lowering::elementCount(const clang::Expr *bytes, const CType &elem) {
  const clang::Expr *b = bytes->IgnoreParenImpCasts();
  auto isSizeofElem = [&](const clang::Expr *x) {
    const auto *u = dyn_cast<UnaryExprOrTypeTraitExpr>(x->IgnoreParenImpCasts());
    if (!u || u->getKind() != UETT_SizeOf)
      return false;
    QualType t = u->isArgumentType() ? u->getArgumentType()
                                     : u->getArgumentExpr()->getType();
    CType c = convertType(t, fe.ctx_);
    return c.isFloatingScalar() && c.elem == elem.elem;
  };
  if (const auto *bo = dyn_cast<BinaryOperator>(b))
    if (bo->getOpcode() == BO_Mul) {
      const clang::Expr *n = isSizeofElem(bo->getRHS())   ? bo->getLHS()
                             : isSizeofElem(bo->getLHS()) ? bo->getRHS()
                                                          : nullptr;
      if (n && n->getType()->isIntegerType()) {
        ExprP c = lower(n);
        if (c && c->ptrDepth == 0) {
          auto ci = std::make_shared<mpiad::Expr>(*c);
          ci->type = Scalar::Int; // size_t arithmetic as a loop bound
          return ci;
        }
      }
    }
  // sizeof a, a fixed array of elem
  if (const auto *u = dyn_cast<UnaryExprOrTypeTraitExpr>(b))
    if (u->getKind() == UETT_SizeOf) {
      QualType t = u->isArgumentType() ? u->getArgumentType()
                                       : u->getArgumentExpr()->getType();
      if (const auto *at = fe.ctx_.getAsConstantArrayType(t)) {
        CType c = convertType(t, fe.ctx_);
        if (c.elem == elem.elem && c.ptrDepth == 0) {
          (void)at;
          clang::Expr::EvalResult v;
          if (b->EvaluateAsInt(v, fe.ctx_)) {
            uint64_t bytesN = v.Val.getInt().getZExtValue();
            uint64_t esz = elem.elem == Scalar::Float ? 4 : 8;
            if (bytesN % esz == 0)
              return mkInt((long long)(bytesN / esz));
          }
        }
      }
    }
  return nullptr;
}

/// `p` as the base array and element offset of a memcpy/memset pointer:
/// `a` (array or pointer; no offset), `&a[k]`, `a + k`.
bool Lowering::elementAt(const clang::Expr *p, ExprP &base, ExprP &offset) {
  const clang::Expr *e = p->IgnoreParenImpCasts();
  offset = nullptr;
  // An array or pointer variable, or a row of a row-pointer array (`a[i]`
  // with `double **a`) whose index has no side effects.
  auto isArray = [&](const clang::Expr *x) {
    x = x->IgnoreParenImpCasts();
    if (isa<DeclRefExpr>(x))
      return true;
    const auto *row = dyn_cast<ArraySubscriptExpr>(x);
    return row && row->getType()->isPointerType() &&
           isa<DeclRefExpr>(row->getBase()->IgnoreParenImpCasts()) &&
           !row->getIdx()->HasSideEffects(fe.ctx_);
  };
  if (const auto *uo = dyn_cast<UnaryOperator>(e))
    if (uo->getOpcode() == UO_AddrOf)
      if (const auto *as = dyn_cast<ArraySubscriptExpr>(
              uo->getSubExpr()->IgnoreParenImpCasts())) {
        if (!isArray(as->getBase()))
          return false;
        base = lower(as->getBase());
        offset = lower(as->getIdx());
        return base && offset && baseVar(base);
      }
  if (const auto *bo = dyn_cast<BinaryOperator>(e))
    if (bo->getOpcode() == BO_Add &&
        bo->getLHS()->getType()->isPointerType() &&
        bo->getRHS()->getType()->isIntegerType()) {
      if (!isArray(bo->getLHS()))
        return false;
      base = lower(bo->getLHS());
      offset = lower(bo->getRHS());
      return base && offset && baseVar(base);
    }
  if (isArray(e)) {
    base = lower(e);
    return base && baseVar(base);
  }
  return false;
}

/// Is `vd` (a local of this function) changed nowhere but, at most, by one
/// call of a function in `allowedCalls` through `&vd` (its `*definer`), and
/// by calls of MPI_Type_commit / MPI_Type_free, which do not change what a
/// datatype describes?
bool Lowering::unchanged(const VarDecl *vd,
                         const std::set<std::string> &allowedCalls,
                         const CallExpr **definer) {
  bool changed = false;
  int defs = 0;
  std::function<void(const clang::Stmt *)> scan = [&](const clang::Stmt *t) {
    if (!t || changed)
      return;
    auto refersTo = [&](const clang::Expr *x) {
      const auto *r = dyn_cast<DeclRefExpr>(x->IgnoreParenImpCasts());
      return r && r->getDecl() == vd;
    };
    if (const auto *ce = dyn_cast<CallExpr>(t)) {
      const FunctionDecl *callee = ce->getDirectCallee();
      std::string n = callee ? callee->getNameAsString() : "";
      for (const clang::Expr *arg : ce->arguments()) {
        const auto *uo = dyn_cast<UnaryOperator>(arg->IgnoreParenImpCasts());
        if (!uo || uo->getOpcode() != UO_AddrOf || !refersTo(uo->getSubExpr()))
          continue;
        if (n == "MPI_Type_commit" || n == "MPI_Type_free")
          continue;
        if (allowedCalls.count(n) && definer) {
          ++defs;
          *definer = ce;
          continue;
        }
        changed = true;
      }
      for (const clang::Expr *arg : ce->arguments())
        if (!isa<UnaryOperator>(arg->IgnoreParenImpCasts()))
          scan(arg);
      return;
    }
    if (const auto *bo = dyn_cast<BinaryOperator>(t))
      if (bo->isAssignmentOp() && refersTo(bo->getLHS()))
        changed = true;
    if (const auto *uo = dyn_cast<UnaryOperator>(t))
      if ((uo->getOpcode() == UO_AddrOf || uo->isIncrementDecrementOp()) &&
          refersTo(uo->getSubExpr()))
        changed = true;
    for (const clang::Stmt *c : t->children())
      scan(c);
  };
  scan(fd->getBody());
  return !changed && (!definer || defs == 1);
}

/// A datatype argument that is a local made once by
/// MPI_Type_contiguous(k, OLD, &t), OLD resolving to a handle (MPI_DOUBLE)
/// and k an integer literal or a parameter or local the function never
/// changes: `base` is OLD, `blocks` is k.
bool Lowering::contiguousType(const clang::Expr *a, ExprP &base,
                              ExprP &blocks) {
  const auto *dre = dyn_cast<DeclRefExpr>(a->IgnoreParenImpCasts());
  const auto *vd = dre ? dyn_cast<VarDecl>(dre->getDecl()) : nullptr;
  if (!vd || !vd->hasLocalStorage() || vd->getInit() ||
      vd->getDeclContext() != fd)
    return false;
  const CallExpr *def = nullptr;
  if (!unchanged(vd, {"MPI_Type_contiguous"}, &def) || !def ||
      def->getNumArgs() != 3)
    return false;
  base = mpiHandle(def->getArg(1));
  if (!base)
    return false;
  const clang::Expr *k = def->getArg(0)->IgnoreParenImpCasts();
  if (isa<IntegerLiteral>(k)) {
    blocks = mkIntText(text(k->getSourceRange()));
    return true;
  }
  const auto *kr = dyn_cast<DeclRefExpr>(k);
  const auto *kv = kr ? dyn_cast<VarDecl>(kr->getDecl()) : nullptr;
  if (!kv || !kv->getType()->isIntegerType() || !unchanged(kv, {}, nullptr))
    return false;
  blocks = lower(def->getArg(0));
  return blocks != nullptr;
}

/// A loop condition.  Where it needs statements of its own (a call to a
/// same-file function, an assignment, a comma, an increment), they go to
/// `condPre`, to run before each test, and `cond` reads what they computed.
bool Lowering::lowerLoopCond(const clang::Expr *c, ExprP &cond,
                             Block &condPre) {
  Block condPost;
  Block *savedPre = pre, *savedPost = post;
  bool savedIn = inCondition;
  const clang::Stmt *savedFull = fullExpr;
  int savedGuarded = guarded;
  pre = &condPre;
  post = &condPost;
  inCondition = false;
  fullExpr = c;
  guarded = 0;
  cond = lower(c);
  pre = savedPre;
  post = savedPost;
  inCondition = savedIn;
  fullExpr = savedFull;
  guarded = savedGuarded;
  if (!cond)
    return false;
  if (!condPost.empty()) {
    // `while (k-- > 0)`: the test's value, then the decrement.
    Var *t = newInt("mpiad_cond", c->getExprLoc());
    condPre.push_back(mkDecl(t));
    bool truth = (cond->kind == mpiad::Expr::Binary &&
                  (cond->text == "<" || cond->text == ">" ||
                   cond->text == "<=" || cond->text == ">=" ||
                   cond->text == "==" || cond->text == "!=" ||
                   cond->text == "&&" || cond->text == "||")) ||
                 (cond->kind == mpiad::Expr::Unary && cond->text == "!");
    condPre.push_back(mkAssign(
        mkVar(t), "=", truth ? cond : mkBinary("!=", cond, mkInt(0))));
    for (auto &x : condPost)
      condPre.push_back(x);
    cond = mkVar(t);
  }
  return true;
}

/// `y = e` used as a value (`x = y = 0.0`, `if ((p = malloc(n)) == NULL)`,
/// `z = 2 * (y = x * x)`): the assignment becomes a statement before the
/// current one, and the value is its target, read after it.
bool Lowering::lowerAssignInExpr(const BinaryOperator *bo, Block &into,
                                 ExprP &value) {
  if (bo->getOpcode() == BO_Assign)
    directCall = dyn_cast<CallExpr>(bo->getRHS()->IgnoreParenImpCasts());
  ExprP l = lower(bo->getLHS());
  ExprP r = lower(bo->getRHS());
  if (!l || !r)
    return false;
  std::string op = bo->getOpcodeStr().str();
  if (op == "*=" || op == "/=") {
    r = mkBinary(op.substr(0, 1), l, r);
    op = "=";
  } else if (op != "=" && op != "+=" && op != "-=") {
    if (l->isFloating()) {
      error(bo->getOperatorLoc(), "operator '" + op +
                                      "' on a floating-point value");
      return false;
    }
  }
  auto st = mkAssign(l, op, r);
  st->loc = bo->getOperatorLoc();
  into.push_back(st);
  value = l;
  return true;
}

/// The predefined MPI handle an argument names, as `MPI_DOUBLE`: the
/// innermost macro named MPI_* that the argument's expansion comes from
/// (MPI_DTYPE -> MPI_DOUBLE -> the implementation's own spelling), or the
/// initialiser of a local variable (MPI_Datatype t = MPI_DOUBLE;) that the
/// function never assigns again and whose address it never takes.  Null if
/// neither applies.
ExprP Lowering::mpiHandle(const clang::Expr *a, int depth) {
  if (depth > 8)
    return nullptr;
  const clang::Expr *e = a->IgnoreParenImpCasts();
  if (const auto *dre = dyn_cast<DeclRefExpr>(e)) {
    const auto *vd = dyn_cast<VarDecl>(dre->getDecl());
    if (!vd || !vd->hasLocalStorage() || !vd->getInit() ||
        vd->getDeclContext() != fd)
      return nullptr;
    if (!unchanged(vd, {}, nullptr))
      return nullptr;
    ExprP h = mpiHandle(vd->getInit(), depth + 1);
    if (h)
      if (Var *v = varFor(vd, dre->getLocation()))
        handleVars.insert(v);
    return h;
  }
  // Only an argument that is one macro name as written (MPI_DTYPE).
  if (!isIdentifier(text(a->getSourceRange())))
    return nullptr;
  SourceLocation loc = a->getBeginLoc();
  std::string found;
  // From the token outwards: the first macro named MPI_*.
  for (int k = 0; loc.isMacroID() && k < 16; ++k) {
    if (SM.isMacroArgExpansion(loc)) {
      loc = SM.getImmediateSpellingLoc(loc);
      continue;
    }
    std::string n = Lexer::getImmediateMacroName(loc, SM, LO).str();
    if (n.rfind("MPI_", 0) == 0 && isIdentifier(n)) {
      found = n;
      break;
    }
    loc = SM.getImmediateMacroCallerLoc(loc);
  }
  if (found.empty())
    return nullptr;
  auto op = std::make_shared<mpiad::Expr>(*mkOpaque(found));
  op->loc = a->getExprLoc();
  return op;
}

void Lowering::lowerInto(const clang::Stmt *s, Block &out) {
  if (const auto *cs = dyn_cast_or_null<CompoundStmt>(s)) {
    lowerCompound(cs, out);
  } else if (s) {
    lowerStmt(s, out);
  }
}

/// The statements of `cs` into `out`, with its variable-length arrays freed
/// at its end (unless it ends by leaving: the frees came before that).
void Lowering::lowerCompound(const CompoundStmt *cs, Block &out) {
  vlaScopes.emplace_back();
  size_t first = out.size();
  for (const clang::Stmt *c : cs->body())
    lowerStmt(c, out);
  bool leaves = out.size() > first &&
                (out.back()->kind == Stmt::Return ||
                 out.back()->kind == Stmt::Break ||
                 out.back()->kind == Stmt::Continue);
  if (!leaves)
    freeVlas(vlaScopes.size() - 1, out, cs->getRBracLoc());
  vlaScopes.pop_back();
}

/// `free(t);` for the variable-length arrays of scopes `from` and inward,
/// the innermost (latest declared) first.
void Lowering::freeVlas(size_t from, Block &out, SourceLocation loc) {
  for (size_t k = vlaScopes.size(); k-- > from;)
    for (auto it = vlaScopes[k].rbegin(); it != vlaScopes[k].rend(); ++it) {
      auto st = mkExprStmt(mkCall("free", {mkVar(*it)}, Scalar::Void));
      st->loc = loc;
      out.push_back(st);
    }
}

/// `double t[n];` as `t = malloc((n) * sizeof(double));`, t a pointer (its
/// CType already is one), freed by freeVlas.  One dimension, a size without
/// side effects, and no `sizeof t` or `&t` (which would see a pointer).
bool Lowering::lowerVla(const VarDecl *vd, Var *v, Block &out) {
  const VariableArrayType *vat = fe.ctx_.getAsVariableArrayType(vd->getType());
  std::string name = vd->getNameAsString();
  auto refuse = [&](SourceLocation at, const std::string &why) {
    error(at, "variable-length array '" + name + "' " + why +
                  " in a differentiated function; use malloc");
    return false;
  };
  if (!vat || vat->getElementType()->isArrayType())
    return refuse(vd->getLocation(), "with more than one dimension is not "
                                     "supported");
  if (vlaScopes.empty())
    return refuse(vd->getLocation(), "outside a compound statement is not "
                                     "supported");
  const clang::Expr *size = vat->getSizeExpr();
  if (!size || size->HasSideEffects(fe.ctx_))
    return refuse(vd->getLocation(), "whose size has side effects is not "
                                     "supported");
  // `sizeof t` and `&t` see the array's type, which the pointer has not.
  SourceLocation whole;
  std::function<void(const clang::Stmt *)> scan = [&](const clang::Stmt *x) {
    if (!x || whole.isValid())
      return;
    auto refersTo = [&](const clang::Expr *e) {
      const auto *dr = dyn_cast<DeclRefExpr>(e->IgnoreParens());
      return dr && dr->getDecl() == vd;
    };
    if (const auto *u = dyn_cast<UnaryExprOrTypeTraitExpr>(x))
      if (!u->isArgumentType() && refersTo(u->getArgumentExpr()))
        whole = u->getBeginLoc();
    if (const auto *uo = dyn_cast<clang::UnaryOperator>(x))
      if (uo->getOpcode() == UO_AddrOf && refersTo(uo->getSubExpr()))
        whole = uo->getBeginLoc();
    for (const clang::Stmt *c : x->children())
      scan(c);
  };
  scan(fd->getBody());
  if (whole.isValid())
    return refuse(whole, "used whole (sizeof or &) is not supported");
  ExprP n = lower(size);
  if (!n)
    return false;
  std::string elem =
      vat->getElementType().getUnqualifiedType().getAsString(
          fe.ctx_.getPrintingPolicy());
  ExprP bytes = mkBinary("*", n, mkOpaque("sizeof(" + elem + ")", {},
                                           Scalar::Int));
  // A plain pointer to the element (its type prints as `double *t`).
  v->type.declFmt.clear();
  v->type.dims.clear();
  v->type.ptrDepth = 1;
  v->type.ptrToArray = false;
  if (pre) { // statements the size needs
    append(out, *pre);
    pre->clear();
  }
  auto d = mkDecl(v);
  d->loc = vd->getLocation();
  out.push_back(d);
  auto a = mkAssign(mkVar(v), "=",
                    mkCall("malloc", {bytes}, v->type.elem, 1));
  a->loc = vd->getLocation();
  out.push_back(a);
  vlaScopes.back().push_back(v);
  return true;
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
  // assert(c): glibc expands it to a comma, a statement expression and a
  // call of __assert_fail.  It carries no derivative: it stays assert(c) in
  // every generated sweep that runs the primal (the forward sweep of F_b,
  // F_d), with c lowered like any condition.
  if (const auto *ae = dyn_cast<clang::Expr>(s)) {
    SourceLocation b = ae->getBeginLoc();
    if (b.isMacroID() && Lexer::getImmediateMacroName(b, SM, LO) == "assert") {
      const clang::Expr *cond = nullptr;
      std::function<void(const clang::Stmt *)> find =
          [&](const clang::Stmt *t) {
            if (!t || cond)
              return;
            if (const auto *is = dyn_cast<IfStmt>(t)) {
              cond = is->getCond();
              return;
            }
            if (const auto *co = dyn_cast<ConditionalOperator>(t)) {
              const auto *fc = dyn_cast<CallExpr>(
                  co->getFalseExpr()->IgnoreParenCasts());
              if (fc && fc->getDirectCallee() &&
                  fc->getDirectCallee()->getName().contains("assert")) {
                cond = co->getCond();
                return;
              }
            }
            if (const auto *se = dyn_cast<StmtExpr>(t)) {
              find(se->getSubStmt());
              return;
            }
            for (const clang::Stmt *c : t->children())
              if (c && !isa<UnaryExprOrTypeTraitExpr>(c))
                find(c);
          };
      find(ae);
      if (cond) {
        fullExpr = cond;
        ExprP c = lower(cond);
        if (!c)
          return;
        auto st = mkExprStmt(mkCall("assert", {c}, Scalar::Void));
        st->loc = SM.getExpansionLoc(b);
        flushPre();
        out.push_back(st);
        return;
      }
    }
  }
  // `a = 1, b = 2;` as a statement: each operand in turn.
  if (const auto *bo = dyn_cast<BinaryOperator>(s))
    if (bo->getOpcode() == BO_Comma && !inCondition) {
      lowerStmt(bo->getLHS(), out);
      lowerStmt(bo->getRHS(), out);
      return;
    }
  if (const auto *cs = dyn_cast<CompoundStmt>(s)) {
    Block b;
    lowerCompound(cs, b);
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
      if (structAliases.count(vd))
        continue; // each use is its initialiser
      // Generated code declares locals at the top of the function and
      // assigns their initial values where they were declared (and the
      // reverse sweep may restore them), so a top-level const (`const
      // double t = ...`, `int *const p = &k`) is dropped.
      CType ct = convertType(vd->getType().getUnqualifiedType(), fe.ctx_);
      Var *v = F.newVar(vd->getNameAsString(), ct, Var::Local);
      v->loc = vd->getLocation();
      vars[vd] = v; // registered even after an error: no follow-up errors
      if (vd->isStaticLocal() && ct.isFloatingElem()) {
        error(vd->getLocation(),
              "static local variable '" + vd->getNameAsString() +
                  "' of floating type in a differentiated function is not "
                  "supported: the generated functions cannot reach it; "
                  "declare it 'static' at file scope, before the function, "
                  "where its derivatives are followed like a global's");
        continue;
      }
      if (vd->getType()->isVariableArrayType()) {
        lowerVla(vd, v, out);
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
        std::string constField = constFieldOf(vd->getType());
        if (!constField.empty()) {
          error(vd->getLocation(),
                "'" + vd->getNameAsString() + "' has a const field ('" +
                    constField +
                    "'): the generated code assigns a local's initial value "
                    "after declaring it, which such a struct forbids; drop "
                    "the const or declare the variable outside the "
                    "differentiated function");
          continue;
        }
        // A struct with float/double fields: a declaration, then one
        // assignment per field (its fields can carry derivatives, and each
        // is a variable of its own to the analyses).
        if (ct.floatingFields) {
          flushPre();
          auto d = mkDecl(v);
          d->loc = vd->getLocation();
          out.push_back(d);
          if (!initFields(v, mkVar(v), "", vd->getType(), il, out,
                          vd->getLocation()))
            return;
          flushPost();
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
      // `for (k = 0, j = a; ...)`, `for (int i = 0, j = 1; ...)`: the parts
      // before the last run before the loop, the last is the loop's own.
      Block initB;
      lowerStmt(fs->getInit(), initB);
      if (!initB.empty()) {
        st->init = initB.back();
        initB.pop_back();
        for (auto &x : initB)
          out.push_back(x);
      }
      if (st->init && st->init->kind == Stmt::Decl)
        st->init->var->declaredInForInit = true;
    }
    Block condPre;
    if (fs->getCond() && !lowerLoopCond(fs->getCond(), st->cond, condPre))
      return;
    if (fs->getInc()) {
      // `i++, j--`: a step of several statements is a block.
      Block stepB;
      lowerStmt(fs->getInc(), stepB);
      if (stepB.size() == 1)
        st->step = stepB[0];
      else if (!stepB.empty())
        st->step = mkCompound(std::move(stepB));
    }
    auto ck = checkpointed.find(fs);
    if (ck != checkpointed.end()) {
      st->checkpoint = true;
      st->snapshots = ck->second->snapshots;
      st->checkpointLoc = ck->second->loc;
    }
    st->parallel = parallelLoops.count(fs) || ompParallelFor(fs);
    ++loopDepth;
    {
      PushBreakable pl(breakables, Breakable::Loop, vlaScopes.size());
      if (!condPre.empty()) {
        // The condition needs statements: they run at the top of each
        // iteration, then `if (!cond) break;`.
        append(st->body, breakUnless(condPre, st->cond,
                                     st->cond->loc.isValid() ? st->cond->loc
                                                             : loc));
        st->cond = nullptr;
      }
      lowerInto(fs->getBody(), st->body);
    }
    --loopDepth;
    out.push_back(st);
    return;
  }
  if (const auto *ws = dyn_cast<WhileStmt>(s)) {
    auto st = std::make_shared<Stmt>();
    st->kind = Stmt::While;
    st->loc = loc;
    Block condPre;
    if (!lowerLoopCond(ws->getCond(), st->cond, condPre))
      return;
    ++loopDepth;
    {
      PushBreakable pl(breakables, Breakable::Loop, vlaScopes.size());
      if (!condPre.empty()) {
        // while (1) { condPre; if (!cond) break; body }
        append(st->body, breakUnless(condPre, st->cond, loc));
        st->cond = mkInt(1);
      }
      lowerInto(ws->getBody(), st->body);
    }
    --loopDepth;
    out.push_back(st);
    return;
  }
  if (const auto *dw = dyn_cast<DoStmt>(s)) {
    auto st = std::make_shared<Stmt>();
    st->kind = Stmt::DoWhile;
    st->loc = loc;
    Block condPre;
    ExprP cond;
    if (!lowerLoopCond(dw->getCond(), cond, condPre))
      return;
    ++loopDepth;
    {
      PushBreakable pl(breakables, Breakable::Loop, vlaScopes.size());
      if (!condPre.empty()) {
        // mpiad_first = 1;
        // while (1) {
        //   if (!mpiad_first) { condPre; if (!cond) break; }
        //   mpiad_first = 0; body
        // }
        // (a continue in the body skips to the condition, as in C).
        Var *first = newInt("mpiad_first", loc);
        out.push_back(mkDecl(first));
        out.push_back(mkAssign(mkVar(first), "=", mkInt(1)));
        st->kind = Stmt::While;
        st->cond = mkInt(1);
        st->body.push_back(
            mkIf(mkUnary("!", mkVar(first)), breakUnless(condPre, cond, loc)));
        st->body.push_back(mkAssign(mkVar(first), "=", mkInt(0)));
      } else {
        st->cond = cond;
      }
      lowerInto(dw->getBody(), st->body);
    }
    --loopDepth;
    out.push_back(st);
    return;
  }
  if (isa<ContinueStmt>(s)) {
    emitContinue(out, loc, breakables.size());
    return;
  }
  if (isa<BreakStmt>(s)) {
    if (!breakables.empty())
      freeVlas(breakables.back().vlaBase, out, loc);
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
    bool vlas = false;
    for (const auto &sc : vlaScopes)
      vlas |= !sc.empty();
    if (vlas) {
      // The value first (it may read an array), then the frees.
      if (st->rhs) {
        Var *t = F.newVar("mpiad_retval", F.ret, Var::Synthetic);
        t->loc = loc;
        out.push_back(mkDecl(t));
        auto set = mkAssign(mkVar(t), "=", st->rhs);
        set->loc = loc;
        out.push_back(set);
        st->rhs = mkVar(t);
      }
      freeVlas(0, out, loc);
    }
    out.push_back(st);
    return;
  }
  if (const auto *ss = dyn_cast<SwitchStmt>(s)) {
    lowerSwitch(ss, out);
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
      bool pointer = bo->getLHS()->getType()->isPointerType();
      if (op == "*=" || op == "/=" ||
          (pointer && (op == "+=" || op == "-="))) {
        // v *= e  ->  v = v * e; a pointer moved, p += k  ->  p = p + k (a
        // new address, which its shadow follows as for any pointer copy)
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
      std::string op = uo->isIncrementOp() ? "+=" : "-=";
      auto st = mkAssign(l, op, mkInt(1));
      if (uo->getSubExpr()->getType()->isPointerType()) // q++: q = q + 1
        st = mkAssign(l, "=", mkBinary(op.substr(0, 1), l, mkInt(1)));
      st->loc = loc;
      out.push_back(st);
      return;
    }
  }
  if (const auto *ce = dyn_cast<CallExpr>(s)) {
    const FunctionDecl *callee = ce->getDirectCallee();
    if (callee) {
      std::string name = callee->getNameAsString();
      // MPI calls, and the user's own wrappers that have a rule.  MPI_Abort
      // ends the program: it needs no adjoint, and stays a call.
      if ((fe.rules_.comm(name) || name.rfind("MPI_", 0) == 0 ||
           name.rfind("PMPI_", 0) == 0) &&
          !endsProgram(name) && name != "MPI_Wtime" && name != "MPI_Wtick" &&
          !(name == "MPI_Finalize" && finalizeBeforeExit(ce, fe.ctx_))) {
        lowerComm(ce, out);
        return;
      }
      // memcpy / memmove / memset on float or double data: element loops.
      StmtP memLoop;
      if (lowerMemCall(ce, memLoop)) {
        if (memLoop) {
          flushPre();
          out.push_back(memLoop);
          flushPost();
        }
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
  // The generated code keeps the value in mpiad_ret and assigns it: a
  // struct with a const field cannot be assigned.
  {
    std::string cf = constFieldOf(fd->getReturnType());
    if (!cf.empty()) {
      error(fd->getLocation(),
            "'" + fd->getNameAsString() + "' returns a struct with a const "
            "field ('" + cf + "'): the generated code keeps the returned "
            "value in a variable and assigns it, which such a struct "
            "forbids; drop the const, or return the struct through a "
            "pointer parameter");
      return false;
    }
  }
  F.isVariadic = fd->isVariadic();
  for (const ParmVarDecl *p : fd->parameters()) {
    if (p->getName().empty()) {
      error(p->getLocation(), "unnamed parameter in a differentiated function");
      continue;
    }
    Var *v = F.newVar(p->getNameAsString(), convertType(p->getType(), fe.ctx_),
                      Var::Param);
    v->loc = p->getLocation();
    if (fd->getName().starts_with("mpiad_block_L")) {
      if (const auto *ca =
              fe.ctx_.getAsConstantArrayType(p->getOriginalType()))
        v->outlinedExtent = (long long)ca->getSize().getZExtValue();
      // The signature is the tool's: messages point at the block's first
      // use of the variable, in the user's text.
      if (const clang::Expr *use = firstUse(fd->getBody(), p))
        v->loc = use->getBeginLoc();
    }
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
  findStructAliases(fd->getBody());
  lowerInto(fd->getBody(), F.body);
  dropUnusedHandles();
  if (!failed && !lowerReallocs(F, fe.diag_, [&](const std::string &n) {
        return static_cast<const Function *>(fe.callee(n));
      }))
    failed = true;
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
