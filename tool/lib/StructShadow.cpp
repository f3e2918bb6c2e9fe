//===- StructShadow.cpp - Clause paths into structs and their deep shadows ===//
//
// See StructShadow.h.  A view through pointer fields (IR.h, Frontend's
// lowerPointerField) is the data at one path; the shadow built here
// allocates, for each active path, the structs on the way (once each) and
// the data at its end, with the length the clause gives.
//
//===----------------------------------------------------------------------===//
#include "StructShadow.h"
#include "Backend.h"
#include "Frontend.h"
#include "Transform.h"
#include <set>

namespace mpiad {

bool hasClausePath(const Annotation &ann, const std::string &name) {
  for (const ClausePath &c : ann.paths)
    if (c.root == name && !c.path.empty())
      return true;
  return false;
}

std::string clauseNames(const Annotation &ann, bool wrt) {
  std::string out;
  for (const auto &n : wrt ? ann.wrt : ann.outputs) {
    bool paths = false;
    for (const ClausePath &c : ann.paths)
      if (c.root == n.first && c.wrt == wrt && !c.path.empty()) {
        out += (out.empty() ? "" : ", ") + c.root + c.path;
        paths = true;
      }
    if (!paths)
      out += (out.empty() ? "" : ", ") + n.first;
  }
  return out.empty() ? "(none)" : out;
}

/// The views of F whose path starts at `root`.
static std::vector<const Var *> viewsOf(const Function &F, const Var *root) {
  std::vector<const Var *> out;
  for (const auto &v : F.vars)
    if (v->fieldOf == root)
      out.push_back(v.get());
  return out;
}

bool checkClausePaths(
    const Function &F, const Annotation &ann, Diag &diag,
    const std::function<bool(const std::pair<std::string, clang::SourceLocation> &,
                             const std::string &)> &constant) {
  bool ok = true;
  for (const ClausePath &c : ann.paths) {
    if (c.path.empty())
      continue;
    std::string clause = std::string(c.wrt ? "wrt" : "output") + "(" +
                         c.root + c.path + ")";
    const Var *p = nullptr;
    for (const Var *q : F.params)
      if (q->userName == c.root)
        p = q;
    bool arrow = c.path.rfind("->", 0) == 0;
    if (!p || p->type.elem != Scalar::Other || !p->type.dims.empty() ||
        p->type.ptrDepth != (arrow ? 1 : 0)) {
      diag.error(c.loc, "'" + c.root + "' in " + clause +
                            " must be a parameter of '" + F.name +
                            "' that is " +
                            (arrow ? "a pointer to one struct (S *" + c.root +
                                         ")"
                                   : "a struct (S " + c.root + ")") +
                            ", whose fields the path follows");
      ok = false;
      continue;
    }
    for (const auto &n : c.lenNames) {
      if (n.first == c.root)
        continue;
      bool isParam = false;
      for (const Var *q : F.params)
        isParam |= q->userName == n.first;
      if (isParam) {
        diag.error(n.second,
                   "'" + n.first + "' in the length of " + clause +
                       ": the length is evaluated by " + F.name + "_" +
                       c.root + "_shadow_new(" + c.root +
                       "), where only '" + c.root +
                       "' and the file's constants are known; write it with "
                       "the fields of '" + c.root + "'");
        ok = false;
      } else if (!constant(n, clause)) {
        ok = false;
      }
    }
  }
  return ok;
}

/// `s->atoms->r` as the opaque loads the frontend makes for fields that
/// are not views: `->r` of `->atoms` of s.
static ExprP opaqueLoad(const Var *view) {
  ExprP e = mkVar(view->fieldOf);
  const std::string &path = view->field;
  size_t k = 0;
  while (k < path.size()) {
    size_t len = path[k] == '.' ? 1 : 2;
    size_t next = k + len;
    while (next < path.size() && path[next] != '.' &&
           path.compare(next, 2, "->") != 0)
      ++next;
    bool last = next >= path.size();
    ExprP m = mkOpaque(path.substr(k, next - k), {view->fieldOf},
                       last ? view->type.elem : Scalar::Other);
    auto c = std::make_shared<Expr>(*m);
    c->ops = {e};
    c->ptrDepth = last ? view->type.ptrDepth : 1;
    c->loc = view->loc;
    e = c;
    k = next;
  }
  return e;
}

/// e with the views of `demoted` replaced by their opaque loads.
static ExprP demote(const ExprP &e, const std::set<const Var *> &demoted) {
  if (!e)
    return e;
  if (e->kind == Expr::VarRef && demoted.count(e->var)) {
    auto c = std::make_shared<Expr>(*opaqueLoad(e->var));
    c->loc = e->loc;
    return c;
  }
  std::shared_ptr<Expr> c;
  for (size_t k = 0; k < e->ops.size(); ++k) {
    ExprP o = demote(e->ops[k], demoted);
    if (o != e->ops[k]) {
      if (!c)
        c = std::make_shared<Expr>(*e);
      c->ops[k] = o;
    }
  }
  for (size_t k = 0; k < e->vars.size(); ++k)
    if (demoted.count(e->vars[k])) {
      if (!c)
        c = std::make_shared<Expr>(*e);
      c->vars[k] = e->vars[k]->fieldOf;
    }
  return c ? c : e;
}

static void demoteBlock(Block &b, const std::set<const Var *> &demoted) {
  for (StmtP &s : b) {
    auto c = std::make_shared<Stmt>(*s);
    for (ExprP *e : {&c->lhs, &c->rhs, &c->cond, &c->loopLo, &c->loopHi})
      *e = demote(*e, demoted);
    for (ExprP &a : c->comm.args)
      a = demote(a, demoted);
    for (StmtP *t : {&c->init, &c->step})
      if (*t) {
        Block one = {*t};
        demoteBlock(one, demoted);
        *t = one.front();
      }
    demoteBlock(c->body, demoted);
    demoteBlock(c->elseBody, demoted);
    s = c;
  }
}

bool resolveClausePaths(Function &F, const Annotation &ann, Diag &diag,
                        bool checkPaths) {
  std::set<const Var *> demoted;
  for (const auto &v : F.vars)
    if (v->throughPointer && !named(ann.wrt, v->fieldOf->userName) &&
        !named(ann.outputs, v->fieldOf->userName))
      demoted.insert(v.get());
  if (!demoted.empty())
    demoteBlock(F.body, demoted);
  if (!checkPaths)
    return true;
  bool ok = true;
  for (const ClausePath &c : ann.paths) {
    if (c.path.empty())
      continue;
    const Var *p = nullptr;
    for (const Var *q : F.params)
      if (q->userName == c.root)
        p = q;
    if (!p)
      continue; // checkClausePaths said so
    std::string clause = std::string(c.wrt ? "wrt" : "output") + "(" +
                         c.root + c.path + ")";
    bool found = false;
    for (const Var *v : viewsOf(F, p)) {
      std::string path = viewPath(v);
      found |= path == c.path ||
               (path.rfind(c.path, 0) == 0 &&
                (path[c.path.size()] == '.' || path[c.path.size()] == '-'));
    }
    if (!found) {
      diag.error(c.loc, "'" + c.root + c.path + "' in " + clause +
                            " is not float or double data that '" + F.name +
                            "' reads or writes through the fields of '" +
                            c.root + "' (a path names a float or double "
                            "field, or a pointer field to such data)");
      ok = false;
    }
  }
  return ok;
}

/// The clause path with a length that names exactly the data of `v`.
static const ClausePath *lengthOf(const Annotation &ann, const Var *v) {
  for (const ClausePath &c : ann.paths)
    if (c.root == v->fieldOf->userName && c.path == viewPath(v) &&
        !c.len.empty())
      return &c;
  return nullptr;
}

/// The prefixes of `path` that are pointers to structs on the way:
/// "->atoms" in "->atoms->r" (each followed by "->").
static std::vector<std::string> structsOnTheWay(const std::string &path) {
  std::vector<std::string> out;
  for (size_t k = 1; k < path.size(); ++k)
    if (path.compare(k, 2, "->") == 0)
      out.push_back(path.substr(0, k));
  return out;
}

void addStructShadows(const Function &F, const Annotation &ann,
                      const std::string &prefix, std::string &text,
                      std::string &prototypes, std::string &comment) {
  for (const Var *p : F.params) {
    if (p->type.elem != Scalar::Other || p->type.ptrDepth != 1)
      continue;
    std::vector<const Var *> data;
    for (const Var *v : viewsOf(F, p))
      if (v->throughPointer && v->active)
        data.push_back(v);
    if (data.empty())
      continue;
    std::string sb = p->userName + "_b";
    std::string make = prefix + "_" + p->userName + "_shadow_new";
    std::string drop = prefix + "_" + p->userName + "_shadow_free";
    std::string missing, example;
    for (const Var *v : data)
      if (v->type.ptrDepth > 0 && !lengthOf(ann, v)) {
        missing += (missing.empty() ? "" : ", ") + v->userName;
        if (example.empty())
          example = v->userName;
      }
    if (!missing.empty()) {
      comment += " *   " + sb + ": the same shape as " + p->userName +
                 ", zeroed where it holds seeds; " + make +
                 "()\n *     is generated when each path has its length in "
                 "the clause, as\n *     wrt(" + example +
                 "[LEN]) (missing for " + missing + ")\n";
      continue;
    }
    CType t = p->type;
    std::string type = printType(t, true);
    std::string constType = "const " + type;
    if (!t.declFmt.empty() || type.rfind("const ", 0) == 0)
      constType = type;
    std::string what = "\"" + sb + "\"";
    std::string news = "  " + type + sb + " = mpiad_alloc_zeroed(1, sizeof *" +
                       sb + ", \"" + make + "\", " + what +
                       ", MPI_COMM_WORLD);\n";
    std::string frees;
    std::set<std::string> made;
    for (const Var *v : data) {
      for (const std::string &s : structsOnTheWay(v->field)) {
        if (!made.insert(s).second)
          continue;
        news += "  " + sb + s + " = mpiad_alloc_zeroed(1, sizeof *" + sb + s +
                ", \"" + make + "\", \"" + sb + s + "\", MPI_COMM_WORLD);\n";
        frees = "  free(" + sb + s + ");\n" + frees;
      }
      const ClausePath *c = lengthOf(ann, v);
      if (v->type.ptrDepth == 0) // in the struct allocated on the way
        continue;
      news += "  " + sb + v->field + " = mpiad_alloc_zeroed(" + c->len +
              ", sizeof *" + sb + v->field + ", \"" + make + "\", \"" + sb +
              v->field + "\", MPI_COMM_WORLD);\n";
      frees = "  free(" + sb + v->field + ");\n" + frees;
    }
    frees += "  free(" + sb + ");\n";
    text += "\n/* mpiad: the shadow of '" + p->userName + "' for " + prefix +
            "_b: the same shape, zeroed, sharing\n * nothing with " +
            p->userName + " (its integer and other fields are read from " +
            p->userName + "), and its release */\n" + type + make + "(" +
            constType + p->userName + ") {\n  (void)" + p->userName + ";\n" +
            news + "  return " + sb + ";\n}\nvoid " + drop + "(" + type + sb +
            ") {\n  if (!" + sb + ")\n    return;\n" + frees + "}\n";
    prototypes += "\n" + type + make + "(" + constType + p->userName +
                  ");\nvoid " + drop + "(" + type + sb + ");";
    comment += " *   " + sb + ": the same shape as " + p->userName + "; " +
               make + "(" + p->userName + ") builds it zeroed,\n *     " +
               drop + "(" + sb + ") releases it\n";
  }
}

} // namespace mpiad
