//===- Activity.cpp - Varied and useful variables -------------------------===//
//
// A variable is active when it depends differentiably on an independent
// (varied) and an output depends on it (useful).  Only active variables get
// adjoints.  Pointer locals that point into an array share its activity.
// The analysis is flow-insensitive: one answer per variable.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Backend.h"
#include "Transform.h"

#include <algorithm>
#include <functional>

namespace mpiad {

/// Where an assignment's value, a floating pointer, points into memory
/// whose origin the function cannot see: a struct's pointer field (`s.p`,
/// `g->u`) or the result of an external function (`get_buf(n)`).  Empty
/// for anything else (a parameter, a local, an allocation, a same-file
/// function).
std::string unknownOrigin(const ExprP &rhs, const Frontend &fe) {
  ExprP r = withoutCasts(rhs);
  if (!r || r->ptrDepth < 1)
    return "";
  if (isFieldLoad(r))
    return "the pointer field '" + printExpr(r) + "'";
  static const std::set<std::string> allocations = {
      "malloc", "calloc", "realloc", "aligned_alloc"};
  if (r->kind == Expr::Call && !fe.callee(r->text) &&
      !allocations.count(r->text))
    return "the external function '" + r->text + "'";
  return "";
}

/// Floating data accessed through a pointer kept in a struct field
/// (`s.p[i]`, `g->u[k]`) is a constant to the analyses: fields carry no
/// derivative.  Where such a field may point into the differentiated array
/// `activeArray`, every path through it would be missed, silently: each
/// such access is an error.  False if any was reported.
bool refusePointerFieldData(Function &F, const std::string &activeArray,
                            Diag &diag, const std::set<const Var *> &inputs) {
  bool ok = true;
  std::set<std::string> reported;
  walk(F.body, [&](Stmt &st, const WalkCtx &) {
    auto check = [&](const Expr &e) {
      if (e.kind != Expr::Index || e.ops.empty())
        return;
      const ExprP &b = e.ops[0];
      if (!isFieldLoad(b) || b->ptrDepth < 1 ||
          !(b->type == Scalar::Float || b->type == Scalar::Double))
        return;
      std::string field = printExpr(b);
      if (!reported.insert(field).second)
        return;
      // The struct the field chain starts from (`s` of s->atoms->r).
      ExprP root = b;
      while (!root->ops.empty() &&
             ((root->kind == Expr::Opaque && root->ops.size() == 1) ||
              root->kind == Expr::Index || root->kind == Expr::Unary ||
              root->kind == Expr::Cast || root->kind == Expr::AddrOf))
        root = root->ops[0];
      const Var *from = root->kind == Expr::VarRef ? root->var : nullptr;
      if (from && inputs.count(from)) {
        diag.error(e.loc.isValid() ? e.loc : st.loc,
                   "'" + field + "' is floating-point data reached through a "
                   "pointer field of '" + from->userName +
                   "', which is differentiated; mpiad follows derivatives "
                   "through pointer fields along fields only (s->atoms->r), "
                   "not through an index or a cast on the way, so this "
                   "data would count as a constant and its derivatives "
                   "would be lost: pass the array as a parameter of its own "
                   "(double *" + b->text.substr(b->text[0] == '.' ? 1 : 2) +
                   ") and list it in wrt(...)/output(...)");
        ok = false;
        return;
      }
      if (activeArray.empty())
        return;
      diag.error(e.loc.isValid() ? e.loc : st.loc,
                 "floating-point data accessed through the pointer field '" +
                     field +
                     "' counts as a constant, which is wrong if it points "
                     "into '" + activeArray +
                     "' or another differentiated array; pass the array as "
                     "a parameter and use it there, or, if it is constant "
                     "data, read it through a local pointer marked so "
                     "(const double *m = " + field +
                     "; #pragma mpiad inactive(m))");
      ok = false;
    };
    for (const ExprP &x : {st.lhs, st.rhs, st.cond})
      visitExpr(x, check);
    for (const ExprP &x : st.comm.args)
      visitExpr(x, check);
  });
  return ok;
}

namespace {

void unite(Function &f, Var *a, Var *b) {
  Var *ra = aliasRoot(f, a), *rb = aliasRoot(f, b);
  if (ra != rb)
    rb->aliasRoot = ra->id;
}

/// Calls to functions that are neither defined here nor math rules, with a
/// varied value flowing in: we know no derivative for them.
void checkExternalCalls(const ExprP &e, Function &f, const Frontend &fe,
                        const RuleSet *rules, Diag &diag,
                        bool resultUsed = true) {
  if (!e)
    return;
  for (const ExprP &o : e->ops)
    checkExternalCalls(o, f, fe, rules, diag);
  if (e->kind != Expr::Call || fe.callee(e->text))
    return;
  if (rules && (rules->math(e->text) || rules->inactive(e->text)))
    return;
  static const std::set<std::string> sizeOnly = {"malloc", "calloc", "free"};
  if (sizeOnly.count(e->text))
    return;
  for (const ExprP &a : e->ops) {
    // A call whose result is discarded (printf("%g", loss)) only reads its
    // by-value arguments: nothing flows back.  Pointers to active data could
    // be written through.
    if (!resultUsed && a->ptrDepth == 0)
      continue;
    std::set<Var *> vs;
    collectVars(a, vs);
    // A struct whose fields, or the data behind its pointer fields, carry
    // derivatives (`average(&previous)`, or `f(s->atoms)` with s->atoms->r
    // carrying them): the function may read them.
    std::string path; // the argument: root, then path ("->atoms")
    const Expr *x = withoutCasts(a).get();
    while (x->kind == Expr::Opaque && x->ops.size() == 1 &&
           (x->text.rfind("->", 0) == 0 || x->text.rfind(".", 0) == 0)) {
      path = x->text + path;
      x = withoutCasts(x->ops[0]).get();
    }
    if (x->kind == Expr::AddrOf)
      x = x->ops[0].get();
    while (x->kind == Expr::Index)
      x = x->ops[0].get();
    Var *v = x->kind == Expr::VarRef ? x->var : nullptr;
    if (v && v->type.elem == Scalar::Other && !v->fieldOf) {
      bool carries = path.empty() && v->varied;
      for (auto &w : f.vars) {
        if (w->fieldOf != v || !w->varied)
          continue;
        std::string wp = viewPath(w.get());
        carries |= path.empty() ||
                   (wp.rfind(path, 0) == 0 && wp.size() > path.size() &&
                    (wp[path.size()] == '-' || wp[path.size()] == '.'));
      }
      if (carries) {
        diag.error(e->loc,
                   "external function '" + e->text + "' is passed '" +
                       v->userName + path +
                       "', a struct whose fields (or the data behind its "
                       "pointer fields) carry derivatives, and mpiad cannot "
                       "see what it reads or writes there: define the "
                       "function in this file, or add a rule "
                       "(docs/rules.md): 'inactive " + e->text +
                       "' if it only reads the data");
        return;
      }
    }
    for (Var *v : vs)
      if (aliasRoot(f, v)->varied && v->type.isFloatingElem()) {
        if (e->text.rfind("nccl", 0) == 0) {
          diag.error(e->loc,
                     "'" + e->text + "' has no rule (its buffer depends on '" +
                         v->userName +
                         "'); the NCCL calls with rules in rules/nccl.rules "
                         "are ncclAllReduce, ncclBroadcast, ncclBcast, "
                         "ncclReduce, ncclAllGather, ncclReduceScatter, and "
                         "ncclSend and ncclRecv in groups; for another, "
                         "add a comm rule (docs/rules.md) or use its MPI "
                         "counterpart on the device buffers");
          return;
        }
        if (e->text == "realloc") {
          diag.error(e->loc,
                     "'realloc' of '" + v->userName +
                         "', whose values carry derivatives, is not "
                         "supported here: assign its result to a pointer "
                         "variable (" + v->userName + " = realloc(" +
                         v->userName + ", n))");
          return;
        }
        if (e->text == "qsort") {
          diag.error(e->loc,
                     "mpiad cannot follow the permutation that 'qsort' "
                     "applies to '" + v->userName +
                         "', whose values carry derivatives: sort with a "
                         "function defined in this file (an insertion sort, "
                         "or a merge of sorted runs) so that the adjoint can "
                         "move each derivative with its value");
          return;
        }
        if (a->ptrDepth > 0) {
          diag.error(e->loc,
                     "external function '" + e->text +
                         "' is passed the data of '" + v->userName +
                         "', whose values carry derivatives, and mpiad "
                         "cannot see what it reads or writes there: define "
                         "the function in this file, or add a rule "
                         "(docs/rules.md): 'inactive " + e->text +
                         "' if it only reads the data (an output "
                         "function), a comm rule for a communication "
                         "wrapper");
          return;
        }
        diag.error(e->loc, "no derivative known for external function '" +
                               e->text + "' (its argument depends on '" +
                               v->userName +
                               "'); add a math rule to rules/ or define the "
                               "function in this file");
        return;
      }
  }
}

/// Argument k of communication call s is the address of one floating
/// number of a struct field (`&p[i].f[k]`, `&p[i].x`, every index given)
/// and the buffer's count is 1.
static bool oneFieldElement(const Stmt &s, size_t k) {
  const ExprP &a = s.comm.args[k];
  if (a->kind != Expr::AddrOf)
    return false;
  int indices = 0;
  ExprP e = a->ops[0];
  while (e->kind == Expr::Index) {
    ++indices;
    e = e->ops[0];
  }
  if (e->kind != Expr::VarRef || !e->var->fieldOf ||
      !e->var->type.isFloatingElem() ||
      indices != (int)e->var->type.dims.size() + e->var->type.ptrDepth)
    return false;
  const CommRule *rule = s.comm.rule;
  if (!rule || k >= rule->args.size() ||
      rule->args[k].role != CommArg::Buffer)
    return false;
  int c = rule->argIndex(rule->args[k].count);
  return c >= 0 && (size_t)c < s.comm.args.size() &&
         isOneLiteral(s.comm.args[c]);
}

/// Why global pointer g, which would carry derivatives, has no shadow.
static std::string unownedGlobal(const Frontend &fe, const Var *g) {
  std::string why;
  if (const GlobalAllocation *a = fe.globalAllocation(g->userName))
    if (!a->why.empty())
      why = " (here " + a->why + ")";
  return "global pointer '" + g->userName +
         "' would carry derivatives; mpiad gives a global pointer a shadow "
         "only when every assignment of it in this file allocates it, with "
         "one size written with names of the file, and its address is never "
         "taken" + why + "; else pass it as a parameter";
}

/// `pot = (LjPotential *)s->pot;`: a pointer to structs set from a pointer
/// field, whose data is a constant (as for `double *m = s.p;`), where no
/// struct of that type carries derivatives, so that it cannot point into
/// one (CoMD reads its potential's parameters so).
static bool constantStructPointer(Function &f, const Var *t, const ExprP &rhs) {
  if (t->type.ptrDepth != 1 || !isFieldLoad(withoutCasts(rhs)))
    return false;
  auto type = [](const Var *v) {
    const std::string &b = v->type.base;
    return b.rfind("const ", 0) == 0 ? b.substr(6) : b;
  };
  for (auto &v : f.vars)
    if (v->fieldOf && v->fieldOf != t && v->varied &&
        type(v->fieldOf) == type(t))
      return false;
  for (auto &v : f.vars)
    if (v->fieldOf == t && v->varied)
      return false;
  return true;
}

/// A struct variable whose fields carry derivatives may be used only
/// through those fields (Frontend's field views), through its integer
/// fields, allocated and freed: any other use (passed whole to a function
/// or to MPI, copied, a pointer into it, a field taken by address) would
/// move derivatives where the analyses do not follow them.
void checkFieldUses(Function &f, Diag &diag) {
  std::set<const Var *> structs;
  for (auto &v : f.vars)
    if (v->fieldOf && (v->varied || v->useful))
      structs.insert(v->fieldOf);
  if (structs.empty())
    return;
  std::set<const Var *> reported;
  auto report = [&](const Var *p, clang::SourceLocation loc,
                    const std::string &what, std::string fix = "") {
    if (!reported.insert(p).second)
      return;
    if (fix.empty())
      fix = ", which mpiad cannot follow: use its fields directly here ('" +
            p->userName + (p->type.isArrayLike() ? "[i]" : "") +
            ".x' for a field x)";
    diag.error(loc, "'" + p->userName +
                        "' is a struct whose float/double fields carry "
                        "derivatives; " + what + fix);
  };
  // The uses of a struct in e; inField: e is the base of a member access
  // (p in p[i].k), where the struct is not used whole.
  std::function<void(const ExprP &, clang::SourceLocation, bool)> scan =
      [&](const ExprP &e, clang::SourceLocation loc, bool inField) {
        if (!e)
          return;
        clang::SourceLocation at = e->loc.isValid() ? e->loc : loc;
        if (e->kind == Expr::AddrOf && inField) { // (&p[i])->k
          scan(e->ops[0], at, true);
          return;
        }
        if (e->kind == Expr::AddrOf) {
          // The address of a field of one struct (`&a.x`) is that of a
          // scalar, as `&t` is; into an array of structs it would be a
          // pointer that strides over doubles, not over structs.
          Var *b = baseVar(e->ops[0]);
          if (b && b->fieldOf && structs.count(b->fieldOf) &&
              b->fieldParentRank > 0) {
            report(b->fieldOf, at,
                   "here the address of its field '" + b->field.substr(1) +
                       "' is taken");
            return;
          }
        }
        if (e->kind == Expr::Opaque && e->ops.size() == 1) {
          // A member access that is not a field view: an integer field is
          // fine; a struct-valued field is a copy of floating data.
          Var *b = baseVar(e->ops[0]);
          if (b && structs.count(b) && e->type == Scalar::Other &&
              e->ptrDepth == 0 && !inField) {
            report(b, at, "here its field '" + e->text.substr(1) +
                              "' is used as a whole struct");
            return;
          }
          scan(e->ops[0], at, true);
          return;
        }
        if (e->kind == Expr::VarRef && structs.count(e->var) && !inField) {
          report(e->var, at, "here it is used as a whole");
          return;
        }
        if (e->kind == Expr::Index && inField) {
          scan(e->ops[0], at, true);
          scan(e->ops[1], at, false);
          return;
        }
        for (const ExprP &o : e->ops)
          scan(o, at, false);
      };
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    // Allocation and release of a pointer to structs are fine.
    Var *t = s.kind == Stmt::Decl ? s.var
             : s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::VarRef
                 ? s.lhs->var
                 : nullptr;
    bool alloc = t && structs.count(t) && s.rhs && allocationCall(s.rhs);
    if (t && structs.count(t) && s.rhs && !alloc &&
        !constantStructPointer(f, t, s.rhs))
      report(t, s.loc, "here it is assigned");
    if (s.kind == Stmt::ExprStmt && s.rhs && s.rhs->kind == Expr::Call &&
        s.rhs->text == "free" && s.rhs->ops.size() == 1 &&
        s.rhs->ops[0]->kind == Expr::VarRef)
      return;
    if (s.kind != Stmt::Decl && s.kind != Stmt::Assign)
      scan(s.lhs, s.loc, false);
    else if (s.lhs && s.lhs->kind != Expr::VarRef)
      scan(s.lhs, s.loc, false);
    if (!alloc)
      scan(s.rhs, s.loc, false);
    scan(s.cond, s.loc, false);
    for (size_t k = 0; k < s.comm.args.size(); ++k) {
      const ExprP &a = s.comm.args[k];
      // An array of structs of double (or float) values only, cast to that
      // element by the frontend, is a buffer of numbers.
      if (a->kind == Expr::Cast && baseVar(a) && structs.count(baseVar(a)))
        continue;
      // One number of one element, `&cells[k].speeds[5]` with a count of 1
      // (a corner of a halo exchange): the address of a scalar.
      if (oneFieldElement(s, k))
        continue;
      Var *b = baseVar(a);
      if (b && structs.count(b)) {
        report(b, a->loc.isValid() ? a->loc : s.loc,
               "here it is a buffer of " + s.comm.name,
               std::string(b->type.isArrayLike()
                               ? ""
                               : ", and a single struct cannot be one: "
                                 "declare an array of one") +
                   "; an array of structs can be a buffer when its fields "
                   "are all double (or all float), without padding, and "
                   "the datatype is MPI_DOUBLE (MPI_FLOAT) or a datatype "
                   "made of it; else send the fields as arrays of double");
        continue;
      }
      scan(a, s.loc, false);
    }
  });
}

} // namespace

/// Data reached through pointer fields (`s->atoms->r`, Frontend's views
/// through pointer fields) has the shadow the caller built: the same path
/// from the struct's shadow.  So a pointer field is never assigned, and a
/// view that carries derivatives must be one the clauses name (the caller
/// then provides its shadow) on a parameter.
static void checkPointerFieldViews(Function &f, const Request &req,
                                   Diag &diag) {
  std::map<const Var *, clang::SourceLocation> firstUse;
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::VarRef &&
        s.lhs->var->throughPointer) {
      const Var *v = s.lhs->var;
      diag.error(s.lhs->loc.isValid() ? s.lhs->loc : s.loc,
                 "the pointer field '" + v->userName +
                     "' is assigned here; mpiad reads data through pointer "
                     "fields as the caller set them up (the shadow's same "
                     "field holds its adjoint): set the field before the "
                     "call, or pass the array as a parameter");
    }
    for (const ExprP &x : {s.lhs, s.rhs, s.cond})
      visitExpr(x, [&](const Expr &e) {
        if (e.kind == Expr::VarRef && e.var->throughPointer)
          firstUse.insert({e.var, e.loc.isValid() ? e.loc : s.loc});
      });
  });
  for (auto &v : f.vars) {
    if (!v->throughPointer || !v->active || v->userInactive)
      continue;
    const Var *root = v->fieldOf;
    clang::SourceLocation at =
        firstUse.count(v.get()) ? firstUse[v.get()] : v->loc;
    if (root->kind != Var::Param) {
      diag.error(at, "'" + v->userName +
                         "' carries derivatives here, but it is reached "
                         "through a pointer field of '" + root->userName +
                         "', which is not a parameter, so it has no "
                         "shadow: pass the struct as a parameter and name "
                         "the path in wrt(...) or output(...)");
      continue;
    }
    // A struct passed by value gets its adjoint in a local accumulator
    // (Signature.cpp), which has no data behind its pointer fields.
    if (root->type.ptrDepth == 0 && root->type.dims.empty()) {
      diag.error(at, "'" + v->userName +
                         "' carries derivatives here, but it is data behind "
                         "a pointer field of '" + root->userName +
                         "', a struct passed by value, which mpiad does not "
                         "shadow yet: pass a pointer to the struct (" +
                         root->type.base + " *" + root->userName +
                         ") and name '" + root->userName + "->" +
                         v->field.substr(v->field[0] == '.' ? 1 : 2) +
                         "' in the clause");
      continue;
    }
    if (!req.topLevel || clauseNamesView(req.ann, v.get(), true) ||
        clauseNamesView(req.ann, v.get(), false))
      continue;
    diag.error(at, "'" + v->userName +
                       "' carries derivatives here, so the adjoint needs '" +
                       root->userName + "_b" + viewPath(v.get()) +
                       "', which the clauses do not ask the caller for: add '" +
                       v->userName + "' to output(...) (the caller's shadow "
                       "then holds its seed, zero if nothing reads it "
                       "after the call) or to wrt(...)");
  }
}

void analyzeActivity(Function &f, const Request &req, const Frontend &fe,
                     Diag &diag) {
  for (auto &v : f.vars)
    v->aliasRoot = v->id;

  struct Flow {
    Effect e;
    Stmt *s;
  };
  std::vector<Flow> flows;
  // An array of structs that is a communication buffer is written and read
  // whole, as numbers: its fields' views are one alias class with it.
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind != Stmt::Comm)
      return;
    for (const ExprP &a : s.comm.args) {
      Var *b = a->kind == Expr::Cast ? baseVar(a) : nullptr;
      if (!b || !b->type.floatingFields)
        continue;
      for (auto &kv : f.fieldViews)
        if (kv.first.first == b)
          unite(f, b, kv.second);
    }
  });
  // Floating pointers set from memory whose origin the function cannot see
  // (`u = s.p; m = g->q; w = get_buf(n);`) may point to the same memory:
  // one alias class, so that data written through one and read through
  // another is followed.
  std::map<Var *, std::pair<std::string, clang::SourceLocation>> unknown;
  Var *loaded = nullptr;
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    Var *t = copiedInto(s);
    if (!t || t->type.ptrDepth < 1 || !t->type.isFloatingElem())
      return;
    std::string origin = unknownOrigin(s.rhs, fe);
    if (origin.empty())
      return;
    unknown.insert({t, {origin, s.loc}});
    if (loaded)
      unite(f, loaded, t);
    else
      loaded = t;
  });
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    for (Effect &e : effectsOf(s, fe)) {
      if ((e.pointerCopy || e.rowPointer) && e.target)
        for (Var *d : e.data)
          if (d->type.ptrDepth > 0 || !d->type.dims.empty())
            unite(f, e.target, d);
      flows.push_back({e, &s});
    }
  });

  // Point-to-point messages carry data from one rank's send buffer to
  // another rank's receive buffer, written by a different statement: every
  // receive buffer of the function depends on every send buffer.
  {
    std::set<Var *> sends, recvs;
    walk(f.body, [&](Stmt &s, const WalkCtx &) {
      if (s.kind != Stmt::Comm || !s.comm.rule->pointToPoint)
        return;
      const CommRule &r = *s.comm.rule;
      for (size_t i = 0; i < r.args.size(); ++i)
        if (r.args[i].role == CommArg::Buffer)
          if (Var *b = baseVar(s.comm.args[i])) {
            if (r.args[i].read)
              sends.insert(b);
            if (r.args[i].write)
              recvs.insert(b);
          }
    });
    for (Var *rv : recvs) {
      Effect e;
      e.target = rv;
      e.data = sends;
      e.elementWrite = true;
      flows.push_back({e, nullptr});
    }
  }

  // Seeds.
  for (size_t k = 0; k < f.params.size(); ++k) {
    Var *p = f.params[k];
    if (req.topLevel) {
      p->varied = named(req.ann.wrt, p->userName);
      p->useful = named(req.ann.outputs, p->userName);
    } else {
      bool on = k < req.activeParams.size() && req.activeParams[k];
      p->varied = on;
      p->useful = on && p->type.ptrDepth > 0 && !p->type.isConst;
    }
  }
  // A global pointer the file allocates may be named like a parameter
  // (GlobalHeap.h): its shadow is the file-scope NAME_b.
  // So may a float/double global scalar or fixed array: its shadow NAME_b.
  if (req.topLevel)
    for (auto &v : f.vars)
      if (fe.ownedGlobal(v.get()) ||
          (v->kind == Var::Global && v->type.isFloatingElem() &&
           v->type.ptrDepth == 0)) {
        v->varied |= named(req.ann.wrt, v->userName);
        v->useful |= named(req.ann.outputs, v->userName);
      }
  // The fields of a struct parameter are seeded as the parameter is, or
  // as the clauses' paths to them say (wrt(s->atoms->r)).
  for (auto &v : f.vars)
    if (v->fieldOf && v->fieldOf->kind == Var::Param && req.topLevel) {
      v->varied |= clauseNamesView(req.ann, v.get(), true);
      v->useful |= clauseNamesView(req.ann, v.get(), false);
    }
  if (f.retVar) {
    if (req.topLevel)
      f.retVar->useful = req.ann.outputs.empty()
                             ? f.ret.isFloatingScalar()
                             : named(req.ann.outputs, "return");
    else
      f.retVar->useful = req.activeReturn;
  }
  auto root = [&](Var *v) { return aliasRoot(f, v); };
  for (auto &v : f.vars) {
    Var *r = root(v.get());
    r->varied |= v->varied;
    r->useful |= v->useful;
  }
  // Fixpoints: varied forward, useful backward.
  bool changed = true;
  while (changed) {
    changed = false;
    for (const Flow &fl : flows) {
      Var *t = fl.e.target ? root(fl.e.target) : nullptr;
      bool anyVaried = false;
      for (Var *d : fl.e.data)
        anyVaried |= root(d)->varied && !d->userInactive;
      if (t && anyVaried && !t->varied && !fl.e.target->userInactive) {
        t->varied = changed = true;
      }
      if (t && t->useful && !fl.e.target->userInactive)
        for (Var *d : fl.e.data)
          if (!root(d)->useful) {
            root(d)->useful = changed = true;
          }
    }
  }
  newActivityEpoch(); // the `active` flags change: drop cached answers
  for (auto &v : f.vars) {
    Var *r = root(v.get());
    v->varied = r->varied;
    v->useful = r->useful;
    v->active = v->varied && v->useful && v->type.isFloatingElem() &&
                !v->userInactive;
    if (v->active && (v->type.ptrDepth > 2 ||
                      (v->type.ptrDepth > 0 && !v->type.dims.empty() &&
                       !v->type.ptrToArray))) {
      diag.error(v->loc, "'" + v->userName +
                             "' holds pointers to values that carry "
                             "derivatives (" +
                             (v->type.dims.empty()
                                  ? "a pointer to pointer to pointer"
                                  : "an array of pointers") +
                             "); not supported: use a row-pointer array "
                             "(double **" + v->userName +
                             " with rows from malloc), or the arrays "
                             "themselves");
      v->active = false;
    }
  }

  // A struct whose fields carry derivatives is active itself: it gets the
  // shadow that its fields' shadows are views of.
  for (auto &v : f.vars)
    if (v->fieldOf && v->active)
      v->fieldOf->active = true;
  checkFieldUses(f, diag);
  checkPointerFieldViews(f, req, diag);

  // Errors that activity reveals.
  std::set<const Var *> reportedGlobals;
  for (const Flow &fl : flows) {
    if (!fl.s)
      continue; // cross-rank message flows
    bool anyVaried = false;
    for (Var *d : fl.e.data)
      anyVaried |= d->varied && d->type.isFloatingElem();
    if (!fl.e.target && anyVaried && fl.s->kind == Stmt::Assign)
      diag.error(fl.s->loc, "assignment of a value that carries derivatives "
                            "to a struct field or other opaque location is "
                            "not supported");
    // A global scalar or fixed-size array carries derivatives through a
    // file-scope shadow (Reverse.cpp, Forward.cpp); a global pointer's data
    // has no length the tool can see.
    if (fl.e.target && fl.e.target->kind == Var::Global && anyVaried &&
        fl.e.target->type.ptrDepth > 0 && !fe.ownedGlobal(fl.e.target) &&
        reportedGlobals.insert(fl.e.target).second)
      diag.error(fl.s->lhs && fl.s->lhs->loc.isValid() ? fl.s->lhs->loc
                                                       : fl.s->loc,
                 unownedGlobal(fe, fl.e.target));
  }
  // A global pointer's data has no shadow: a global pointer that would
  // carry derivatives (a local copy of it written with input-dependent
  // values) is an error, and so is reading through one (it may point into
  // an array of the function whose values depend on the inputs).
  const Var *variedArray = nullptr;
  for (auto &v : f.vars)
    if (!variedArray && v->kind != Var::Global && v->kind != Var::Synthetic &&
        !v->fieldOf && v->varied && v->type.isFloatingElem() &&
        (v->type.ptrDepth > 0 || !v->type.dims.empty()))
      variedArray = v.get();
  // A struct's pointer field read directly (`s.p[i]`) where such an array
  // exists: a local array whose values depend on the inputs may be what the
  // field points to (`double *u = s.p;` then `u[i] = theta * i`); the wrt
  // and output arrays are checked before (Module::checkClauses).
  if (variedArray)
    refusePointerFieldData(f, variedArray->userName, diag);
  // The same for a local pointer set from a struct's field or an external
  // function: its data is a constant unless it is one with an array whose
  // values depend on the inputs (then Reverse.cpp says it has no shadow).
  // `#pragma mpiad inactive(m)` says that its data is constant.
  for (auto &entry : unknown) {
    Var *v = entry.first;
    const auto &at = entry.second;
    if (!variedArray || v->userInactive || aliasRoot(f, v)->varied)
      continue;
    bool dereferenced = false;
    walk(f.body, [&](Stmt &s, const WalkCtx &) {
      for (const ExprP &x : {s.lhs, s.rhs, s.cond})
        visitExpr(x, [&](const Expr &e) {
          dereferenced |= e.kind == Expr::Index && !e.ops.empty() &&
                          e.ops[0]->kind == Expr::VarRef && e.ops[0]->var == v;
        });
    });
    if (dereferenced)
      diag.error(at.second,
                 "pointer '" + v->userName + "' is set from " + at.first +
                     ", whose data mpiad counts as a constant; that is "
                     "wrong if it points into '" + variedArray->userName +
                     "' or another array whose values depend on the inputs: "
                     "pass the array as a parameter, or, if its data is "
                     "constant, say so with #pragma mpiad inactive(" +
                     v->userName + ")");
  }
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    auto check = [&](const Expr &e) {
      if (e.kind != Expr::VarRef || !e.var || e.var->kind != Var::Global ||
          e.var->type.ptrDepth == 0 || !e.var->type.isFloatingElem() ||
          reportedGlobals.count(e.var) || fe.ownedGlobal(e.var))
        return;
      Var *g = e.var;
      clang::SourceLocation at = e.loc.isValid() ? e.loc : s.loc;
      if (aliasRoot(f, g)->varied) {
        reportedGlobals.insert(g);
        diag.error(at, unownedGlobal(fe, g));
      } else if (variedArray) {
        reportedGlobals.insert(g);
        diag.error(at, "floating-point data read through the global pointer '" +
                           g->userName +
                           "' counts as a constant, which is wrong if it "
                           "points into '" + variedArray->userName +
                           "' or another array whose values depend on the "
                           "inputs; pass the array as a parameter and use it "
                           "there, or, if it is constant data, copy it into "
                           "a global array of fixed size");
      }
    };
    for (const ExprP &x : {s.lhs, s.rhs, s.cond})
      visitExpr(x, check);
    for (const ExprP &x : s.comm.args)
      visitExpr(x, check);
  });
  // A pointer of another type (`char *raw = (char *)u;`, `void *p = u;`)
  // holding the address of an array whose values depend on the inputs: data
  // read back through it (`*(double *)(raw + k)`) would be a constant.
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    Var *t = copiedInto(s);
    if (!t || t->type.ptrDepth == 0 || t->type.isFloatingElem() ||
        t->type.floatingFields)
      return;
    ExprP r = withoutCasts(s.rhs);
    Var *from = baseVar(r);
    if (!from || r->ptrDepth == 0 || !from->type.isFloatingElem() ||
        (from->type.ptrDepth == 0 && from->type.dims.empty()) ||
        !aliasRoot(f, from)->varied)
      return;
    diag.error(s.loc, "pointer '" + t->userName + "' holds the address of '" +
                          from->userName +
                          "', whose values depend on the inputs, as another "
                          "type; mpiad does not follow data through it: "
                          "index '" + from->userName + "' itself");
  });
  // A pointer variable holding the address of a floating scalar (`double *v
  // = &s;`) would be a second name for s that the analyses do not follow
  // (they follow pointers into arrays, not into scalars): refuse.
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    Var *t = s.kind == Stmt::Decl ? s.var
             : s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::VarRef
                 ? s.lhs->var
                 : nullptr;
    if (!t || t->type.ptrDepth == 0 || !s.rhs)
      return;
    const Var *addr = nullptr;
    visitExpr(s.rhs, [&](const Expr &e) {
      if (!addr && e.kind == Expr::AddrOf && e.ops[0]->kind == Expr::VarRef &&
          e.ops[0]->var->type.isFloatingScalar())
        addr = e.ops[0]->var;
    });
    if (addr)
      diag.error(s.loc, "pointer '" + t->userName + "' is set to the address "
                        "of the scalar '" + addr->userName +
                        "'; the analyses do not follow pointers to scalars: "
                        "use '" + addr->userName + "' directly, or make it a "
                        "one-element array (double " + addr->userName +
                        "[1])");
  });
  // A call that stays a call (not inlined: recursion, an array parameter)
  // of a function that uses a float/double global: the helper would not
  // know the global's derivatives.
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (!s.rhs || s.rhs->kind != Expr::Call)
      return;
    const Function *cf = fe.callee(s.rhs->text);
    if (!cf)
      return;
    std::string g = floatingGlobalOf(*cf);
    if (!g.empty())
      diag.error(s.rhs->loc.isValid() ? s.rhs->loc : s.loc,
                 "'" + s.rhs->text + "' uses the global '" + g +
                     "', whose derivatives mpiad follows only through "
                     "functions it can inline, and '" + s.rhs->text +
                     "' cannot be (recursive, nested too deep, or with an "
                     "array parameter): pass the global as a parameter");
  });
  // A struct whose fields carry derivatives, passed by value to a function
  // of the file (`helper(*p, x)`): the callee's copy has no shadow, so the
  // fields' derivatives were lost silently.
  auto carries = [&](Var *b) {
    if (!b || !b->type.floatingFields)
      return false;
    if (b->active || b->varied || named(req.ann.wrt, b->userName))
      return true;
    for (auto &v : f.vars)
      if (v->fieldOf == b && v->active)
        return true;
    return false;
  };
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind != Stmt::Assign && s.kind != Stmt::ExprStmt &&
        s.kind != Stmt::Decl)
      return;
    const ExprP &c = s.rhs;
    Function *cf = c && c->kind == Expr::Call ? fe.callee(c->text) : nullptr;
    if (!cf)
      return;
    for (size_t k = 0; k < c->ops.size() && k < cf->params.size(); ++k) {
      const CType &pt = cf->params[k]->type;
      Var *b = baseVar(c->ops[k]);
      if (!pt.floatingFields || pt.ptrDepth != 0 || !pt.dims.empty() ||
          !carries(b))
        continue;
      std::string base = pt.base;
      if (base.rfind("const ", 0) == 0)
        base = base.substr(6);
      const ExprP &a = c->ops[k];
      bool deref = a->kind == Expr::Index && a->ops[0]->kind == Expr::VarRef &&
                   a->ops[1]->kind == Expr::IntLit && a->ops[1]->text == "0";
      diag.error(a->loc.isValid() ? a->loc : s.loc,
                 "'" + (deref ? "*" + b->userName : printExpr(a)) +
                     "' passes the struct '" +
                     b->userName + "', whose fields carry derivatives, by "
                     "value to '" + c->text + "': the derivatives of its "
                     "fields cannot come back through the copy; make the "
                     "parameter '" + cf->params[k]->userName + "' of '" +
                     c->text + "' a pointer (const " + base + " *" +
                     cf->params[k]->userName + ") and pass the struct's "
                     "address");
    }
  });
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    // A condition's value carries nothing: the pointers its calls are
    // passed are checked.
    if (s.cond)
      checkExternalCalls(s.cond, f, fe, fe.rules(), diag, false);
    if (s.kind == Stmt::Assign || s.kind == Stmt::ExprStmt ||
        s.kind == Stmt::Decl) {
      Var *t = s.kind == Stmt::Assign ? baseVar(s.lhs) : s.var;
      // A result that carries nothing (`int rc = write(u, n);`) is a
      // discarded one: the pointers passed are still checked.
      if (s.kind == Stmt::ExprStmt || !t || !t->active)
        checkExternalCalls(s.rhs, f, fe, fe.rules(), diag, false);
      else
        checkExternalCalls(s.rhs, f, fe, fe.rules(), diag);
    }
  });
  if (!req.topLevel)
    return;
  for (Var *p : f.params) {
    if (p->active && p->type.ptrDepth > 0 &&
        !named(req.ann.wrt, p->userName) &&
        !named(req.ann.outputs, p->userName) &&
        !named(req.ann.scratch, p->userName))
      diag.error(p->loc, (f.outlinedBlock()
                              ? "'" + p->userName + "', used in the block,"
                              : "parameter '" + p->userName + "'") +
                             " carries derivatives but has no shadow; add it "
                             "to wrt(...) or output(...), or to scratch(...) "
                             "if it is a work array whose contents on entry "
                             "and exit do not matter");
  }
  // wrt parameters written by the function must also be outputs, and so
  // must global pointers in wrt (also written through a helper's copy).
  for (const Flow &fl : flows) {
    Var *t = fl.e.target;
    if (t && t->kind != Var::Param && fe.ownedGlobal(aliasRoot(f, t)))
      t = aliasRoot(f, t);
    bool global = t && fe.ownedGlobal(t);
    if (fl.s && t && (t->kind == Var::Param || global) &&
        t->type.ptrDepth > 0 && t->active && fl.e.elementWrite &&
        named(req.ann.wrt, t->userName) &&
        !named(req.ann.outputs, t->userName)) {
      diag.error(fl.s->loc, std::string(global ? "wrt global pointer '"
                                               : "wrt parameter '") +
                                t->userName +
                                "' is overwritten here; list it in "
                                "output(...) as well (updated in place)");
      break;
    }
  }
}

} // namespace mpiad
