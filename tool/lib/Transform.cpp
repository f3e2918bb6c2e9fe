//===- Transform.cpp - Small builders shared by reverse and forward mode --===//
#include "Transform.h"
#include "Analysis.h"
#include "Backend.h"

#include <algorithm>

namespace mpiad {

bool named(const std::vector<std::pair<std::string, clang::SourceLocation>> &l,
           const std::string &n) {
  return std::any_of(l.begin(), l.end(),
                     [&](const auto &p) { return p.first == n; });
}

std::string viewPath(const Var *view) {
  if (view->throughPointer)
    return view->field;
  const Var *p = view->fieldOf;
  if (p->type.ptrDepth == 1 && p->type.dims.empty() &&
      view->fieldParentRank == 1)
    return "->" + view->field.substr(1);
  return view->field;
}

bool clauseNamesView(const Annotation &ann, const Var *view, bool wrt) {
  const std::string &root = view->fieldOf->userName;
  if (!named(wrt ? ann.wrt : ann.outputs, root))
    return false;
  std::string path = viewPath(view);
  bool anyPath = false;
  for (const ClausePath &c : ann.paths) {
    if (c.root != root || c.wrt != wrt)
      continue;
    anyPath = true;
    if (c.path.empty() || path == c.path)
      return true;
    if (path.rfind(c.path, 0) == 0 &&
        (path[c.path.size()] == '.' || path[c.path.size()] == '-'))
      return true;
  }
  return !anyPath;
}

void append(Block &to, const Block &from) {
  to.insert(to.end(), from.begin(), from.end());
}

bool isSimple(const ExprP &e) {
  switch (e->kind) {
  case Expr::IntLit:
  case Expr::FloatLit:
  case Expr::VarRef:
  case Expr::Opaque:
    return true;
  case Expr::Index:
    return isSimple(e->ops[0]) && isSimple(e->ops[1]);
  case Expr::Unary:
    return e->text == "-" && isSimple(e->ops[0]);
  default:
    return false;
  }
}

ExprP neg(const ExprP &e) {
  if (e->kind == Expr::Unary && e->text == "-")
    return e->ops[0];
  return mkUnary("-", e);
}

ExprP mul(const ExprP &a, const ExprP &b) {
  if (isOneLiteral(a))
    return b;
  if (isOneLiteral(b))
    return a;
  if (a->kind == Expr::Unary && a->text == "-")
    return neg(mul(a->ops[0], b));
  if (b->kind == Expr::Unary && b->text == "-")
    return neg(mul(a, b->ops[0]));
  return mkBinary("*", a, b);
}

/// Variables referenced anywhere in a block.
/// (Not inside `skip`'s body and branches; without the declared variables
/// of declarations when `decls` is false.)
static void referencedIn(const Block &b, std::set<Var *> &out,
                         const Stmt *skip = nullptr, bool decls = true) {
  for (const StmtP &s : b) {
    if (s->var && (decls || s->kind != Stmt::Decl))
      out.insert(s->var);
    collectVars(s->lhs, out);
    collectVars(s->rhs, out);
    collectVars(s->cond, out);
    for (const ExprP &a : s->comm.args)
      collectVars(a, out);
    if (s.get() == skip)
      continue;
    if (s->init)
      referencedIn({s->init}, out, skip, decls);
    if (s->step)
      referencedIn({s->step}, out, skip, decls);
    referencedIn(s->body, out, skip, decls);
    referencedIn(s->elseBody, out, skip, decls);
  }
}

void referencedOutside(const Block &b, const Stmt *skip,
                       std::set<Var *> &out) {
  referencedIn(b, out, skip, false);
}

void referenced(const Block &b, std::set<Var *> &out) {
  std::set<Var *> found;
  referencedIn(b, found);
  // A field view is printed through its parent, which is what is declared.
  for (Var *v : found)
    if (v->fieldOf)
      out.insert(v->fieldOf);
  out.insert(found.begin(), found.end());
}

Var *copiedInto(const Stmt &s) {
  if (s.kind == Stmt::Assign && s.op == "=" && s.lhs &&
      s.lhs->kind == Expr::VarRef)
    return s.lhs->var;
  if (s.kind == Stmt::Decl && s.rhs)
    return s.var;
  return nullptr;
}

ExprP withoutCasts(ExprP e) {
  while (e && e->kind == Expr::Cast && !e->ops.empty())
    e = e->ops[0];
  return e;
}

bool isFieldLoad(const ExprP &e) {
  return e && e->kind == Expr::Opaque && !e->ops.empty() &&
         (e->text.rfind("->", 0) == 0 || e->text.rfind(".", 0) == 0);
}

/// Is s `x = e;` or `T x = e;` for a pointer x that `candidate` accepts?
static Var *
pointerCopyTarget(const Stmt &s,
                  const std::function<bool(const Var *)> &candidate) {
  Var *t = copiedInto(s);
  if (!t || (t->type.ptrDepth == 0 && !t->type.ptrToArray) || !candidate(t))
    return nullptr;
  return t;
}

/// Every variable read in b: all references but the targets of the pointer
/// copies that `candidate` accepts.
static void readIn(const Block &b,
                   const std::function<bool(const Var *)> &candidate,
                   std::set<Var *> &out) {
  for (const StmtP &s : b) {
    if (pointerCopyTarget(*s, candidate)) {
      collectVars(s->rhs, out);
      continue;
    }
    Block one;
    StmtP shallow = std::make_shared<Stmt>(*s);
    shallow->body.clear();
    shallow->elseBody.clear();
    shallow->init = nullptr;
    shallow->step = nullptr;
    one.push_back(shallow);
    referencedIn(one, out);
    if (s->init)
      readIn({s->init}, candidate, out);
    if (s->step)
      readIn({s->step}, candidate, out);
    readIn(s->body, candidate, out);
    readIn(s->elseBody, candidate, out);
  }
}

void readVars(const Block &b, std::set<Var *> &out) {
  for (const StmtP &s : b) {
    if ((s->kind == Stmt::Assign && s->op == "=" && s->lhs &&
         s->lhs->kind == Expr::VarRef) ||
        s->kind == Stmt::Decl) {
      collectVars(s->rhs, out);
    } else {
      StmtP shallow = std::make_shared<Stmt>(*s);
      shallow->body.clear();
      shallow->elseBody.clear();
      shallow->init = nullptr;
      shallow->step = nullptr;
      referencedIn({shallow}, out);
    }
    if (s->init)
      readVars({s->init}, out);
    if (s->step)
      readVars({s->step}, out);
    readVars(s->body, out);
    readVars(s->elseBody, out);
  }
}

static void dropCopies(Block &b, const std::set<Var *> &dead,
                       const std::function<bool(const Var *)> &candidate) {
  Block out;
  for (StmtP &s : b) {
    Var *t = pointerCopyTarget(*s, candidate);
    if (t && dead.count(t))
      continue;
    dropCopies(s->body, dead, candidate);
    dropCopies(s->elseBody, dead, candidate);
    out.push_back(s);
  }
  b.swap(out);
}

void dropUnreadPointerCopies(const std::vector<Block *> &blocks,
                             const std::function<bool(const Var *)> &candidate) {
  std::set<Var *> read, written;
  for (Block *b : blocks) {
    readIn(*b, candidate, read);
    walk(*b, [&](Stmt &s, const WalkCtx &) {
      if (Var *t = pointerCopyTarget(s, candidate))
        written.insert(t);
    });
  }
  // A copy whose value has a call (a pop from the tape, an allocation)
  // stays, and so do the other copies into its pointer.
  std::set<Var *> impure;
  for (Block *b : blocks)
    walk(*b, [&](Stmt &s, const WalkCtx &) {
      Var *t = pointerCopyTarget(s, candidate);
      bool call = false;
      visitExpr(s.rhs, [&](const Expr &e) { call |= e.kind == Expr::Call; });
      if (t && call)
        impure.insert(t);
    });
  std::set<Var *> dead;
  for (Var *v : written)
    if (!read.count(v) && !impure.count(v))
      dead.insert(v);
  if (dead.empty())
    return;
  for (Block *b : blocks)
    dropCopies(*b, dead, candidate);
}

/// Variables declared by statements inside a block (inline temporaries).
void declaredIn(const Block &b, std::set<Var *> &out) {
  for (const StmtP &s : b) {
    if (s->kind == Stmt::Decl)
      out.insert(s->var);
    if (s->init && s->init->kind == Stmt::Decl)
      out.insert(s->init->var);
    declaredIn(s->body, out);
    declaredIn(s->elseBody, out);
  }
}

StmtP mkOpaqueDecl(const std::string &d) { return mkExprStmt(mkOpaque(d)); }

/// Scalars and pointers are initialised in declarations (the forward sweep
/// may record a variable's value before the primal first assigns it).
bool scalarLike(const Var &v) {
  return v.type.dims.empty() &&
         (v.type.ptrDepth > 0 || v.type.elem == Scalar::Int ||
          v.type.isFloatingElem());
}

/// `(void)p;` for parameters a generated function does not use.
Block unusedParams(const std::vector<Var *> &params, const std::set<Var *> &used) {
  Block b;
  for (Var *p : params)
    if (!used.count(p))
      b.push_back(mkExprStmt(mkOpaque("(void)" + p->name)));
  return b;
}

std::string zeroInit(const Var &v) {
  if (v.type.ptrToArray) // double (*p)[N]: a pointer
    return " = NULL";
  if (!v.type.dims.empty())
    return " = {0}";
  if (v.type.ptrDepth > 0)
    return " = NULL";
  if (v.type.floatingFields) // a struct
    return " = {0}";
  return " = 0";
}

ExprP plusConst(const ExprP &e, long long k) {
  if (k == 0)
    return e;
  if (e->kind == Expr::IntLit)
    return mkInt(std::stoll(e->text, nullptr, 0) + k);
  if (e->kind == Expr::Binary && (e->text == "+" || e->text == "-") &&
      e->ops[1]->kind == Expr::IntLit) {
    long long m = std::stoll(e->ops[1]->text, nullptr, 0);
    long long t = (e->text == "+" ? m : -m) + k;
    if (t == 0)
      return e->ops[0];
    return mkBinary(t > 0 ? "+" : "-", e->ops[0], mkInt(t > 0 ? t : -t));
  }
  return mkBinary(k > 0 ? "+" : "-", e, mkInt(k > 0 ? k : -k));
}

bool splitAffine(const ExprP &idx, const Var *i, ExprP &base, std::string &key,
                 long long &c) {
  std::vector<std::pair<bool, ExprP>> terms; // (negated, operand)
  std::function<void(const ExprP &, bool)> flat = [&](const ExprP &e,
                                                      bool neg) {
    if (e->kind == Expr::Binary && (e->text == "+" || e->text == "-")) {
      flat(e->ops[0], neg);
      flat(e->ops[1], e->text == "-" ? !neg : neg);
      return;
    }
    terms.push_back({neg, e});
  };
  flat(idx, false);
  int seen = 0;
  c = 0;
  base = nullptr;
  key.clear();
  for (auto &[neg, e] : terms) {
    if (e->kind == Expr::VarRef && e->var == i) {
      if (neg || ++seen > 1)
        return false;
      continue;
    }
    if (e->kind == Expr::IntLit) {
      long long v = std::stoll(e->text, nullptr, 0);
      c += neg ? -v : v;
      continue;
    }
    std::set<Var *> vs;
    collectVars(e, vs);
    if (vs.count(const_cast<Var *>(i)))
      return false;
    base = base ? mkBinary(neg ? "-" : "+", base, e)
                : (neg ? mkUnary("-", e) : e);
    key += (neg ? "-" : "+") + printExpr(e);
  }
  return seen == 1;
}

static bool carriesDerivativeUncached(const ExprP &e);

bool carriesDerivative(const ExprP &e) {
  Expr::ActivityCache &c = e->activity;
  if (c.epoch != activityEpoch()) {
    c.value = carriesDerivativeUncached(e);
    c.epoch = activityEpoch();
  }
  return c.value;
}

static bool carriesDerivativeUncached(const ExprP &e) {
  switch (e->kind) {
  case Expr::VarRef:
    return e->var->active && e->isFloating();
  case Expr::Index: {
    Var *b = baseVar(e);
    return e->isFloating() && b && b->active;
  }
  case Expr::Unary:
    return e->text == "-" && carriesDerivative(e->ops[0]);
  case Expr::Binary:
    if (e->type == Scalar::Int || e->ptrDepth)
      return false;
    return carriesDerivative(e->ops[0]) || carriesDerivative(e->ops[1]);
  case Expr::Cond:
    return carriesDerivative(e->ops[1]) || carriesDerivative(e->ops[2]);
  case Expr::Cast:
    return e->isFloating() && carriesDerivative(e->ops[0]);
  case Expr::Call:
    if (!e->isFloating())
      return false;
    for (const ExprP &o : e->ops)
      if (carriesDerivative(o))
        return true;
    return false;
  default:
    return false;
  }
}

ExprP rebase(const ExprP &e, const std::function<Var *(Var *)> &base) {
  switch (e->kind) {
  case Expr::VarRef:
    return mkVar(base(e->var));
  case Expr::Index:
    return mkIndex(rebase(e->ops[0], base), e->ops[1]);
  case Expr::AddrOf:
    return mkAddrOf(rebase(e->ops[0], base));
  case Expr::Cast: {
    std::string t = e->text;
    if (t.rfind("const ", 0) == 0)
      t = t.substr(6);
    return mkCast(t, rebase(e->ops[0], base), e->type, e->ptrDepth);
  }
  case Expr::Binary:
    if (e->ops[0]->ptrDepth > 0)
      return mkBinary(e->text, rebase(e->ops[0], base), e->ops[1]);
    return mkBinary(e->text, e->ops[0], rebase(e->ops[1], base));
  default:
    return e;
  }
}

std::string globalShadowDecls(const std::map<Var *, Var *> &shadows,
                              const std::set<std::string> &exposed) {
  std::string out;
  for (auto &[v, s] : shadows) {
    if (v->kind != Var::Global)
      continue;
    if (isHeapShadow(s)) {
      // The shadow of a global pointer the file allocates: the caller's to
      // see (and to allocate, or F_shadows_new does, recording the size).
      out += printDecl(*s, true) + ";\n";
      out += "static size_t mpiad_bytes_" + s->name + ";\n";
      continue;
    }
    out += (exposed.count(v->userName) ? "" : "static ") +
           printDecl(*s, true) + ";\n";
  }
  return out;
}

bool isHeapShadow(const Var *s) {
  return s->kind == Var::Global && s->type.ptrDepth == 1 &&
         s->type.dims.empty();
}

StmtP zeroGlobal(Var *shadow) {
  if (shadow->type.dims.empty())
    return mkAssign(mkVar(shadow), "=", mkInt(0));
  return mkExprStmt(mkCall(
      "memset",
      {mkVar(shadow), mkInt(0), mkOpaque("sizeof " + shadow->name)},
      Scalar::Void));
}

ExprP allocationCall(const ExprP &e) {
  ExprP c = e;
  if (c && c->kind == Expr::Cast)
    c = c->ops[0];
  if (c && c->kind == Expr::Call && (c->text == "malloc" || c->text == "calloc"))
    return c;
  return nullptr;
}

bool isNullPointer(const ExprP &e) {
  ExprP c = e;
  while (c && c->kind == Expr::Cast)
    c = c->ops[0];
  if (!c)
    return false;
  if (c->kind == Expr::IntLit)
    return c->text == "0";
  return c->kind == Expr::Opaque && c->ops.empty() &&
         (c->text == "NULL" || c->text == "((void *)0)");
}

ExprP bindArgs(const ExprP &e, const std::vector<Var *> &params,
               const std::vector<ExprP> &args) {
  if (e->kind == Expr::VarRef) {
    for (size_t k = 0; k < params.size() && k < args.size(); ++k)
      if (params[k] == e->var)
        return args[k];
    return e;
  }
  if (e->ops.empty())
    return e;
  auto c = std::make_shared<Expr>(*e);
  for (ExprP &o : c->ops)
    o = bindArgs(o, params, args);
  return c;
}

bool sideEffectFree(const ExprP &e,
                    const std::function<bool(const std::string &)> &pure) {
  if (!e)
    return true;
  if (e->kind == Expr::Call && !(pure && pure(e->text)))
    return false;
  if (e->kind == Expr::Unary && (e->text.find("++") != std::string::npos ||
                                 e->text.find("--") != std::string::npos))
    return false;
  if (e->kind == Expr::Opaque && e->text.find('(') != std::string::npos &&
      e->text.rfind("sizeof", 0) != 0)
    return false;
  for (const ExprP &o : e->ops)
    if (!sideEffectFree(o, pure))
      return false;
  return true;
}

ExprP bufferElement(const ExprP &buf, const ExprP &k) {
  if (buf->kind == Expr::AddrOf) {
    const ExprP &x = buf->ops[0];
    if (isZeroLiteral(k))
      return x;
    if (x->kind == Expr::Index)
      return mkIndex(x->ops[0], mkBinary("+", x->ops[1], k));
    return mkIndex(mkUnary("", buf), k);
  }
  if (buf->kind == Expr::Binary && buf->ptrDepth > 0)
    return mkIndex(buf->ops[0], mkBinary("+", buf->ops[1], k));
  return mkIndex(buf, k);
}

Block deepCopy(const Block &b) {
  Block out;
  for (const StmtP &s : b) {
    auto n = std::make_shared<Stmt>(*s);
    n->body = deepCopy(s->body);
    n->elseBody = deepCopy(s->elseBody);
    out.push_back(n);
  }
  return out;
}

StmtP inverseIncrement(const Stmt &s) {
  if (s.kind != Stmt::Assign || (s.op != "+=" && s.op != "-=") || !s.lhs ||
      s.lhs->kind != Expr::VarRef || !s.lhs->var->type.isIntScalar() || !s.rhs)
    return nullptr;
  bool constant = s.rhs->kind == Expr::IntLit ||
                  (s.rhs->kind == Expr::Opaque && s.rhs->intConstant);
  if (!constant)
    return nullptr;
  return mkAssign(s.lhs, s.op == "+=" ? "-=" : "+=", s.rhs);
}

bool mentionsVar(const ExprP &e, const Var *v) {
  if (!e)
    return false;
  if (e->kind == Expr::VarRef && e->var == v)
    return true;
  if (e->kind == Expr::Opaque)
    for (const Var *x : e->vars)
      if (x == v)
        return true;
  for (const ExprP &o : e->ops)
    if (mentionsVar(o, v))
      return true;
  return false;
}

bool namedOutside(const Block &b, const Stmt &except, const Var *v) {
  for (const StmtP &s : b) {
    if (s.get() == &except)
      continue;
    if (s->var == v || s->loopVar == v)
      return true;
    for (const ExprP *e : {&s->lhs, &s->rhs, &s->cond, &s->loopLo, &s->loopHi})
      if (mentionsVar(*e, v))
        return true;
    for (const ExprP &a : s->comm.args)
      if (mentionsVar(a, v))
        return true;
    for (const StmtP *t : {&s->init, &s->step})
      if (*t && namedOutside({*t}, except, v))
        return true;
    if (namedOutside(s->body, except, v) ||
        namedOutside(s->elseBody, except, v))
      return true;
  }
  return false;
}

bool namesVar(const Block &b, const Var *v) {
  static const Stmt none{};
  return namedOutside(b, none, v);
}

namespace {

/// e with v replaced by `by`; null where that cannot be followed.
ExprP substituteIn(const ExprP &e, const Var *v, const ExprP &by) {
  if (!e || !mentionsVar(e, v))
    return e;
  if (e->kind == Expr::VarRef)
    return by;
  if (e->kind == Expr::Opaque || e->kind == Expr::AddrOf)
    return nullptr;
  auto c = std::make_shared<Expr>(*e);
  for (ExprP &o : c->ops)
    if (!(o = substituteIn(o, v, by)))
      return nullptr;
  return c;
}

StmtP substituteStmt(const StmtP &s, const Var *v, const ExprP &by) {
  if (s->var == v || s->loopVar == v)
    return nullptr;
  auto c = std::make_shared<Stmt>(*s);
  for (ExprP *e : {&c->lhs, &c->rhs, &c->cond, &c->loopLo, &c->loopHi})
    if (*e && !(*e = substituteIn(*e, v, by)))
      return nullptr;
  for (ExprP &a : c->comm.args)
    if (!(a = substituteIn(a, v, by)))
      return nullptr;
  for (StmtP *t : {&c->init, &c->step})
    if (*t && !(*t = substituteStmt(*t, v, by)))
      return nullptr;
  return substituteVar(s->body, v, by, c->body) &&
                 substituteVar(s->elseBody, v, by, c->elseBody)
             ? c
             : nullptr;
}

} // namespace

bool substituteVar(const Block &b, const Var *v, const ExprP &by, Block &out) {
  Block r;
  for (const StmtP &s : b) {
    StmtP t = substituteStmt(s, v, by);
    if (!t)
      return false;
    r.push_back(t);
  }
  out = r;
  return true;
}

StmtP swapPointers(Var *a, Var *b, Var *tmp) {
  return mkCompound({mkDecl(tmp, mkVar(a)), mkAssign(mkVar(a), "=", mkVar(b)),
                     mkAssign(mkVar(b), "=", mkVar(tmp))});
}

StmtP arrayInitCopy(const Stmt &decl) {
  Var tmp = *decl.var;
  tmp.name = "";
  std::string ty = printDecl(tmp);
  while (!ty.empty() && ty.back() == ' ')
    ty.pop_back();
  return mkExprStmt(mkCall("memcpy",
                           {mkVar(decl.var),
                            mkOpaque("(" + ty + ")" + decl.rhs->text),
                            mkOpaque("sizeof(" + decl.var->name + ")")},
                           Scalar::Void));
}

/// `posix_memalign(&p, align, n)` (its pointer argument below casts): p,
/// and the byte count n; null if `call` is not such a call.
Var *alignedAllocation(const ExprP &call, ExprP &bytes) {
  if (!call || call->kind != Expr::Call || call->text != "posix_memalign" ||
      call->ops.size() != 3)
    return nullptr;
  ExprP a = call->ops[0];
  while (a->kind == Expr::Cast)
    a = a->ops[0];
  if (a->kind != Expr::AddrOf || a->ops[0]->kind != Expr::VarRef)
    return nullptr;
  bytes = call->ops[2];
  return a->ops[0]->var;
}

/// `malloc(n)`, the allocation that `posix_memalign(&p, align, n)` and
/// `aligned_alloc(align, n)` make: the adjoint needs the storage, not its
/// alignment (the shadow is calloc'd).
ExprP plainAllocation(const ExprP &bytes) {
  return mkCall("malloc", {bytes}, Scalar::Void, 1);
}

/// `p = aligned_alloc(a, n)` (also memalign): `p = malloc(n)`.
ExprP unaligned(const ExprP &rhs) {
  ExprP c = rhs;
  while (c && c->kind == Expr::Cast)
    c = c->ops[0];
  if (!c || c->kind != Expr::Call || c->ops.size() != 2 ||
      (c->text != "aligned_alloc" && c->text != "memalign"))
    return rhs;
  return plainAllocation(c->ops[1]);
}

bool hasJump(const Block &b) {
  bool found = false;
  walk(b, [&](Stmt &s, const WalkCtx &) {
    found |= s.kind == Stmt::Break || s.kind == Stmt::Continue ||
             s.kind == Stmt::Return;
  });
  return found;
}

Var *freedVar(const Stmt &s) {
  if (s.kind != Stmt::ExprStmt || !s.rhs || s.rhs->kind != Expr::Call ||
      s.rhs->text != "free" || s.rhs->ops.size() != 1 ||
      s.rhs->ops[0]->kind != Expr::VarRef)
    return nullptr;
  return s.rhs->ops[0]->var;
}

} // namespace mpiad
