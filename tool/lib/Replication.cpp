//===- Replication.cpp - Replicated or varying over the communicator ------===//
//
// DESIGN.md section 2.  A value is replicated when it is provably equal on
// every rank: constants, replicated(...) inputs, results of rules marked
// `result ... replicated` over the function's communicator (Allreduce,
// Bcast, Allgather), and values computed only from replicated values under
// replicated control.  Everything else varies.
//
// The analysis is flow-sensitive: every definition of a scalar is a version
// (reaching definitions over the structured IR); versions that reach a
// common use are joined into a web.  So `MPI_Allreduce(MPI_IN_PLACE, &loss,
// ...)` makes the later `loss` replicated although the earlier one varied.
// Arrays and pointers have one web per variable.
//
// The adjoint of a replicated web is kept in one of two forms:
//   exact:   every rank holds dJ/dv (all contributions came from replicated
//            code, computed identically everywhere);
//   partial: every rank holds its own share; dJ/dv is the sum over ranks.
// A replicated value read by rank-varying code (or sent by communication)
// gets partial contributions, so its web is partial; partial-ness flows back
// through replicated assignments and calls.  Partial adjoints are summed
// over ranks only where an exact value is needed (the adjoint of an
// Allreduce, the gradient of a replicated input), in one fused call.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"

#include <algorithm>
#include <functional>

namespace mpiad {

namespace {

using State = std::map<Var *, std::set<int>>;

class Replication {
public:
  Replication(Function &f, const Request &req, const Frontend &fe)
      : f(f), req(req), fe(fe), main(mainComm(f)) {}

  std::shared_ptr<ReplicationResult> run(Diag &diag);

private:
  Function &f;
  const Request &req;
  const Frontend &fe;
  std::string main;

  // The reference communicator, by identity: the parameter mainComm names,
  // and locals that are assigned only a copy of it (`MPI_Comm c = comm;`, an
  // inlined helper's communicator parameter).  Names are not enough: an
  // inlined helper may have a local of the same name that holds a
  // sub-communicator.
  std::map<const Var *, ExprP> copyOf; // local -> its only assigned value
  std::set<const Var *> disqualified;  // written otherwise (or twice)
  // NCCL communicators made by a `joins` rule (ncclCommInitRank) -> the
  // unique id they were made from; values written as the replicated result
  // of a collective (MPI_Bcast of the id) -> its communicators.
  std::map<const Var *, const Var *> joinedBy;
  std::map<const Var *, std::vector<ExprP>> sharedBy;

  std::map<const Var *, int> writes; // assignments, and joins calls

  void findCommCopies() {
    walk(f.body, [&](Stmt &s, const WalkCtx &) {
      if (s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::VarRef) {
        const Var *v = s.lhs->var;
        if (++writes[v] == 1 && s.op == "=")
          copyOf[v] = s.rhs;
        else
          disqualified.insert(v);
      } else if (s.kind == Stmt::Decl && s.rhs) {
        if (++writes[s.var] == 1)
          copyOf[s.var] = s.rhs;
        else
          disqualified.insert(s.var);
      } else if (s.kind == Stmt::Comm) {
        const CommRule &r = *s.comm.rule;
        for (size_t i = 0; i < s.comm.args.size(); ++i) {
          if (!r.args[i].write)
            continue;
          Var *b = baseVar(s.comm.args[i]);
          if (!b)
            continue;
          // ncclCommInitRank(&nc, size, id, rank): nc joins the ranks of id.
          int ji = r.argIndex(r.joinsId);
          if (r.args[i].name == r.joinsComm && ji >= 0 &&
              s.comm.args[i]->kind == Expr::AddrOf && ++writes[b] == 1) {
            if (Var *id = baseVar(s.comm.args[ji]))
              joinedBy[b] = id;
            continue;
          }
          disqualified.insert(b);
          // A broadcast (a replicated result) of the value an NCCL
          // communicator is made from: over which communicator?
          auto rep = r.resultReplication.find(r.args[i].name);
          if (rep != r.resultReplication.end() && rep->second == "replicated")
            for (size_t j = 0; j < s.comm.args.size(); ++j)
              if (r.args[j].role == CommArg::Comm)
                sharedBy[b].push_back(s.comm.args[j]);
        }
      }
      // Any address taken (`&c` to a call) may write it.
      auto addr = [&](const ExprP &e) {
        if (e)
          visitExpr(e, [&](const Expr &x) {
            if (x.kind == Expr::AddrOf && x.ops[0]->kind == Expr::VarRef)
              disqualified.insert(x.ops[0]->var);
          });
      };
      addr(s.rhs);
      addr(s.lhs);
    });
  }

  /// Is the communicator expression `a` the reference communicator?
  bool isReference(const ExprP &a, int depth = 0) const {
    if (!a || depth > 32)
      return false;
    std::set<Var *> vars;
    collectVars(a, vars);
    if (vars.empty())
      return a->text == main; // MPI_COMM_WORLD with no MPI_Comm parameter
    if (vars.size() != 1)
      return false;
    const Var *v = *vars.begin();
    if (a->kind != Expr::VarRef && a->text != v->userName)
      return false; // an expression, not the variable itself
    if (v->kind == Var::Param)
      return v->name == main && v->type.ptrDepth == 0;
    if (disqualified.count(v))
      return false;
    // An NCCL communicator made from an id that one broadcast over the
    // reference communicator gave every rank (and no assignment changed):
    // the same ranks.
    auto j = joinedBy.find(v);
    if (j != joinedBy.end()) {
      auto b = sharedBy.find(j->second);
      return !copyOf.count(v) && !writes.count(j->second) &&
             b != sharedBy.end() && b->second.size() == 1 &&
             isReference(b->second[0], depth + 1);
    }
    auto it = copyOf.find(v);
    return it != copyOf.end() && isReference(it->second, depth + 1);
  }

  /// Is `s`, a communication call, over the reference communicator?
  bool overReference(const Stmt &s) const {
    for (size_t i = 0; i < s.comm.args.size(); ++i)
      if (s.comm.rule->args[i].role == CommArg::Comm)
        return isReference(s.comm.args[i]);
    return true; // no communicator argument (MPI_Wait...): not a collective
  }

  struct Def {
    Var *v = nullptr;
    const Stmt *s = nullptr; // null: value on entry
    Effect e;                // the effect that defines it
    std::vector<const Stmt *> control;
    bool isCall = false;
  };
  std::vector<Def> defs;
  std::vector<int> parent;
  std::map<std::pair<const Stmt *, Var *>, int> defAt;
  std::map<std::pair<const Stmt *, Var *>, std::set<int>> useAt;
  std::map<std::pair<const Stmt *, Var *>, int> weakAt;
  std::map<Var *, int> wholeVar; // the single def of arrays / pointers
  std::map<Var *, int> entry;

  int find(int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(int a, int b) { parent[find(a)] = find(b); }

  static bool scalar(const Var *v) {
    return v->type.dims.empty() && v->type.ptrDepth == 0;
  }
  int newDef(Var *v, const Stmt *s) {
    defs.push_back({v, s, {}, {}, false});
    parent.push_back((int)parent.size());
    return (int)defs.size() - 1;
  }
  int whole(Var *v) {
    Var *r = aliasRoot(f, v);
    auto it = wholeVar.find(r);
    if (it != wholeVar.end())
      return it->second;
    return wholeVar[r] = newDef(r, nullptr);
  }
  /// The one cell that every pointer of v's alias class points to: a local
  /// scalar (`double *te = &t;`), a one-element array (`t_ref[1]`, where
  /// the inliner keeps a scalar whose address a helper takes), or the one
  /// value a pointer parameter names (cellParam); or null.
  std::map<Var *, Var *> scalarOf;
  Var *pointedScalar(Var *v) {
    Var *r = aliasRoot(f, v);
    auto it = scalarOf.find(r);
    if (it != scalarOf.end())
      return it->second;
    // A class holding a parameter (its root may be an inlined helper's
    // copy of it): the parameter's one value, if it names only one.
    Var *param = nullptr;
    int params = 0;
    for (auto &m : f.vars)
      if (m->kind == Var::Param && aliasRoot(f, m.get()) == r) {
        param = m.get();
        ++params;
      }
    if (params) // semantics(per_rank): nothing is shared
      return scalarOf[r] = params == 1 && !req.perRank && cellParam(r, param)
                               ? param
                               : nullptr;
    Var *one = nullptr;
    bool ok = true;
    for (auto &m : f.vars) {
      if (aliasRoot(f, m.get()) != r)
        continue;
      bool local = m->kind == Var::Local || m->kind == Var::Synthetic;
      bool cell = m->type.dims.empty() ||
                  (m->type.dims.size() == 1 && m->type.dims[0] == "1");
      if (!local || !cell || m->type.ptrToArray || m->type.ptrDepth > 1 ||
          m->fieldOf || (m->type.ptrDepth == 1 && !m->type.dims.empty()))
        ok = false;
      else if (m->type.ptrDepth == 0) {
        ok &= one == nullptr;
        one = m.get();
      }
    }
    return scalarOf[r] = ok ? one : nullptr;
  }
  /// A pointer parameter that only ever names one value, as outputs written
  /// through a pointer are (`double *te` used as `*te` and `te[0]`, also
  /// through copies, or as the buffer of one element of a communication
  /// call): that value is tracked as a scalar, so that the last store
  /// decides its replication on exit (`*te = loc; ...; *te = glob;` with
  /// glob an Allreduce result is equal on all ranks).
  bool cellParam(Var *r, const Var *param) {
    if (param->type.ptrDepth != 1 || !param->type.dims.empty() ||
        param->type.ptrToArray || !param->type.isFloatingElem())
      return false;
    auto inClass = [&](const ExprP &e) {
      return e && e->kind == Expr::VarRef && aliasRoot(f, e->var) == r;
    };
    bool ok = true;
    // Every use of the class: p[0], or a copy into a pointer of the class.
    std::function<void(const ExprP &)> scan = [&](const ExprP &e) {
      if (!e || !ok)
        return;
      if (e->kind == Expr::Index && inClass(e->ops[0])) {
        ok &= e->ops[1]->kind == Expr::IntLit && e->ops[1]->text == "0";
        return;
      }
      if (inClass(e)) {
        ok = false;
        return;
      }
      if (e->kind == Expr::Opaque &&
          std::any_of(e->vars.begin(), e->vars.end(),
                      [&](Var *v) { return aliasRoot(f, v) == r; }))
        ok = false;
      for (const ExprP &o : e->ops)
        scan(o);
    };
    walk(f.body, [&](Stmt &st, const WalkCtx &) {
      Var *t = st.kind == Stmt::Decl ? st.var
               : st.kind == Stmt::Assign && st.lhs->kind == Expr::VarRef
                   ? st.lhs->var
                   : nullptr;
      if (t && aliasRoot(f, t) == r) {
        // A copy of the pointer: `double *q = te;`, or `q = &te[0]` (a
        // block's by-pointer variable passed on as `&(*te)`).
        ExprP from = st.rhs;
        if (from && from->kind == Expr::AddrOf &&
            from->ops[0]->kind == Expr::Index &&
            isZeroLiteral(from->ops[0]->ops[1]))
          from = from->ops[0]->ops[0];
        ok &= st.op == "=" || st.kind == Stmt::Decl;
        ok &= !from || inClass(from);
        return;
      }
      if (st.kind == Stmt::Comm) {
        const CommRule &rule = *st.comm.rule;
        for (size_t i = 0; i < st.comm.args.size(); ++i) {
          const ExprP &a = st.comm.args[i];
          if (!inClass(a)) {
            scan(a);
            continue;
          }
          // A buffer of one element.
          const CommArg *arg = i < rule.args.size() ? &rule.args[i] : nullptr;
          int c = arg && arg->role == CommArg::Buffer && arg->exactCount
                      ? rule.argIndex(arg->count)
                      : -1;
          ok &= c >= 0 && (size_t)c < st.comm.args.size() &&
                isOneLiteral(st.comm.args[c]);
        }
        return;
      }
      scan(st.lhs);
      scan(st.rhs);
      scan(st.cond);
    });
    return ok;
  }

  /// `*p = e` (p[0]) through a pointer to one scalar: a whole new value of
  /// that scalar, defined here, as `t = e` would be.
  bool storesPointedScalar(const Stmt &s, Var *t) {
    return s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::Index &&
           s.lhs->ops[0]->kind == Expr::VarRef && s.lhs->ops[0]->var == t &&
           s.lhs->ops[1]->kind == Expr::IntLit && s.lhs->ops[1]->text == "0" &&
           pointedScalar(t);
  }
  /// Arrays are tracked per alias class; scalars per variable, also when
  /// written and read through a pointer to them.
  Var *key(Var *v) {
    if (scalar(v))
      return v;
    if (Var *sv = pointedScalar(v))
      return sv;
    return aliasRoot(f, v);
  }
  std::set<int> reaching(State &st, Var *v) {
    auto it = st.find(key(v));
    if (it == st.end() || it->second.empty()) {
      Var *sv = scalar(v) ? v : pointedScalar(v);
      if (!sv)
        return {whole(v)};
      auto e = entry.find(sv);
      if (e == entry.end())
        e = entry.emplace(sv, newDef(sv, nullptr)).first;
      return {e->second};
    }
    return it->second;
  }
  void use(const Stmt *s, Var *v, State &st) {
    std::set<int> r = reaching(st, v);
    auto &u = useAt[{s, v}];
    u.insert(r.begin(), r.end());
    // Versions that meet at a use share one adjoint: one web.
    for (int d : u)
      unite(d, *u.begin());
  }

  void leaf(Stmt &s, State &st, const std::vector<const Stmt *> &control) {
    std::vector<Effect> effs = effectsOf(s, fe);
    std::set<Var *> reads;
    for (const Effect &e : effs) {
      reads.insert(e.reads.begin(), e.reads.end());
      reads.insert(e.data.begin(), e.data.end());
    }
    if (effs.empty() && s.rhs)
      collectVars(s.rhs, reads);
    for (Var *r : reads)
      use(&s, r, st);
    bool isCall = (s.kind == Stmt::ExprStmt || s.kind == Stmt::Assign) &&
                  s.rhs && s.rhs->kind == Expr::Call && fe.callee(s.rhs->text);
    for (const Effect &e : effs) {
      Var *t = e.target;
      if (!t)
        continue;
      bool strong = (scalar(t) && !e.elementWrite) || e.wholeWrite ||
                    (e.elementWrite && storesPointedScalar(s, t));
      // One definition per (statement, variable), however often loops are
      // walked.
      auto known = defAt.find({&s, t});
      int d = strong ? (known != defAt.end() ? known->second : newDef(t, &s))
                     : -1;
      if (strong) {
        defs[d].e = e;
        defs[d].control = control;
        defs[d].isCall = isCall;
        defAt[{&s, t}] = d;
        // `s += e` keeps the old adjoint: same web as the old version.
        if (s.kind == Stmt::Assign && s.op != "=" && useAt.count({&s, t}))
          for (int o : useAt[{&s, t}])
            unite(d, o);
        st[key(t)] = {d};
      } else {
        // A weak update (an element): joins the version it updates.
        auto wk = weakAt.find({&s, t});
        int w = wk != weakAt.end() ? wk->second : (weakAt[{&s, t}] = newDef(t, &s));
        defs[w].e = e;
        defs[w].control = control;
        defs[w].isCall = isCall;
        for (int o : reaching(st, t))
          unite(w, o);
        st[key(t)] = {w};
        defAt[{&s, t}] = w;
      }
    }
  }

  /// A loop's entry state and head state (the fixpoint) after a walk.
  struct LoopWalk {
    State entry, head;
  };
  std::map<const Stmt *, LoopWalk> headState;
  /// Is every definition of `small` also in `big`?  A variable absent from a
  /// state holds its value on entry, implicitly.
  static bool includes(const State &big, const State &small) {
    for (const auto &kv : small) {
      if (kv.second.empty())
        continue;
      auto it = big.find(kv.first);
      if (it == big.end() ||
          !std::includes(it->second.begin(), it->second.end(),
                         kv.second.begin(), kv.second.end()))
        return false;
    }
    return true;
  }

  static void join(State &into, const State &from) {
    for (auto &kv : from)
      into[kv.first].insert(kv.second.begin(), kv.second.end());
  }

  void block(const Block &b, State &st, std::vector<const Stmt *> &control) {
    for (const StmtP &s : b)
      stmt(*s, st, control);
  }

  void condUses(Stmt &s, State &st) {
    std::set<Var *> vs;
    collectVars(s.cond, vs);
    for (Var *v : vs)
      use(&s, v, st);
  }

  void stmt(Stmt &s, State &st, std::vector<const Stmt *> &control) {
    switch (s.kind) {
    case Stmt::Assign:
    case Stmt::ExprStmt:
    case Stmt::Comm:
    case Stmt::Decl:
      if (s.kind != Stmt::Decl || s.rhs)
        leaf(s, st, control);
      return;
    case Stmt::If: {
      condUses(s, st);
      control.push_back(&s);
      State a = st, b = st;
      block(s.body, a, control);
      block(s.elseBody, b, control);
      control.pop_back();
      join(a, b);
      st = a;
      return;
    }
    case Stmt::For:
    case Stmt::While:
    case Stmt::DoWhile: {
      if (s.init)
        leaf(*s.init, st, control);
      // The head state is the least fixpoint above the entry state (the
      // transfer functions are monotone).  A later walk of the same loop (in
      // a later pass over an enclosing loop) whose entry includes the earlier
      // entry has a fixpoint that includes the earlier one: start from their
      // join, which is below it, and the iteration usually ends after one
      // pass.  Uses are unions over all passes, so they come out the same;
      // nested loops are then walked a number of times about linear in their
      // depth, not exponential.
      State entryState = st;
      auto done = headState.find(&s);
      if (done != headState.end() && includes(st, done->second.entry))
        join(st, done->second.head);
      control.push_back(&s);
      // Iterate to a fixpoint: a later iteration sees earlier definitions.
      for (int iter = 0; iter < 64; ++iter) {
        State before = st;
        condUses(s, st);
        block(s.body, st, control);
        if (s.step)
          leaf(*s.step, st, control);
        join(st, before);
        if (st == before)
          break;
      }
      condUses(s, st);
      headState[&s] = {entryState, st};
      // A loop over the replicas runs at least once: it is left after a
      // walk of its body, so a store into every element (Stmt::replicaFill)
      // replaces what came before the loop.
      if (s.replicaLoop) {
        block(s.body, st, control);
        if (s.step)
          leaf(*s.step, st, control);
      }
      control.pop_back();
      return;
    }
    case Stmt::Compound:
      block(s.body, st, control);
      return;
    default:
      return;
    }
  }

  bool webVarying(int web, const std::vector<char> &varying) {
    return varying[find(web)];
  }

  /// A returned value that varies only because rank-varying control decides
  /// where a collective's result is assigned (an Allreduce result returned
  /// under `if (s > tol)` with s this rank's): under semantics(global) the
  /// objective is its sum over the ranks, P times what every rank returns
  /// if they all return the same, which is rarely what was meant.  Said as
  /// a warning at the condition.
  template <class CondVarying>
  void warnControlOnlyReturn(int exitRet, const std::vector<char> &varying,
                             const CondVarying &condVarying, Diag &diag) {
    if (exitRet < 0 || !f.retVar || !f.retVar->active || !req.topLevel ||
        req.perRank || !varying[find(exitRet)])
      return;
    std::map<int, bool> memo;
    clang::SourceLocation where;
    bool whereIsIf = false;
    bool collectiveUnder = false; // a reduced value assigned under it
    std::function<bool(int)> controlOnly = [&](int w) -> bool {
      w = find(w);
      if (!varying[w])
        return true;
      auto it = memo.find(w);
      if (it != memo.end())
        return it->second;
      memo[w] = false; // a cycle: not shown
      bool ok = true;
      for (size_t d = 0; d < defs.size() && ok; ++d) {
        if (find((int)d) != w)
          continue;
        const Def &df = defs[d];
        if (!df.s) {
          // On entry: a local holds nothing yet; an input or a global may
          // vary by itself.
          if (df.v->kind != Var::Local && df.v->kind != Var::Synthetic)
            ok = false;
          continue;
        }
        // The innermost such condition, an `if` rather than a loop's.
        for (auto it = df.control.rbegin(); it != df.control.rend(); ++it)
          if ((*it)->loc.isValid() && condVarying(*it)) {
            bool isIf = (*it)->kind == Stmt::If;
            if (!where.isValid() || (isIf && !whereIsIf)) {
              where = (*it)->loc;
              whereIsIf = isIf;
            }
          }
        if (df.e.commResult) {
          ok = std::string(df.e.commResult) != "varying" &&
               overReference(*df.s);
          for (const Stmt *c : df.control)
            collectiveUnder |= ok && condVarying(c);
          continue;
        }
        std::set<Var *> reads = df.e.reads;
        reads.insert(df.e.data.begin(), df.e.data.end());
        for (Var *r : reads)
          if (useAt.count({df.s, r}))
            for (int u : useAt[{df.s, r}])
              ok = ok && controlOnly(u);
      }
      return memo[find(w)] = ok;
    };
    // Only where a collective's result (equal on all ranks) is chosen by
    // the varying condition: a per-rank choice between replicated values
    // (`v = a; if (mode) v = a * a;` with mode varying) is the sum meant.
    if (controlOnly(exitRet) && collectiveUnder && where.isValid())
      diag.warning(where, "varying-return",
                   "the value '" + f.name + "' returns counts as varying "
                   "over the ranks only because this condition, which "
                   "varies, decides where it is assigned; the objective is "
                   "then its sum over the ranks (P times the value if all "
                   "return the same); if they do, make the condition equal "
                   "on all ranks (test a value reduced over them)");
  }
};

std::shared_ptr<ReplicationResult> Replication::run(Diag &diag) {
  findCommCopies();
  for (Var *p : f.params)
    entry[p] = scalar(p) || pointedScalar(p) == p ? newDef(p, nullptr) : whole(p);
  State st;
  std::vector<const Stmt *> control;
  block(f.body, st, control);

  int exitRet = -1;
  if (f.retVar) {
    std::set<int> r = reaching(st, f.retVar);
    for (int d : r)
      unite(d, *r.begin());
    exitRet = *r.begin();
  }

  // Replication: a web varies when any of its definitions does.
  size_t n = defs.size();
  std::vector<char> varying(n, 0);
  auto mark = [&](int d) {
    int w = find(d);
    if (!varying[w]) {
      varying[w] = 1;
      return true;
    }
    return false;
  };
  // What an output-only parameter holds on entry is no input: its
  // replication is that of what the function writes into it.
  auto named = [&](const auto &l, const Var *v) {
    return std::any_of(l.begin(), l.end(),
                       [&](const auto &r) { return r.first == v->userName; });
  };
  auto outputOnly = [&](const Var *v) {
    return req.topLevel && named(req.ann.outputs, v) && !named(req.ann.wrt, v);
  };
  auto listed = [&](const Var *v) {
    return named(req.ann.replicated, v) ||
           req.assumeReplicated.count(v->userName) > 0;
  };
  for (size_t d = 0; d < n; ++d) {
    const Def &df = defs[d];
    if (df.s)
      continue;
    Var *v = df.v->fieldOf ? df.v->fieldOf : df.v; // a field as its struct
    bool rep = !(v->kind == Var::Param && !listed(v) && !outputOnly(v)) &&
               v->kind != Var::Global;
    if (req.perRank || !req.topLevel)
      rep = false;
    if (!rep)
      mark((int)d);
  }
  for (Var *p : f.params) // pointer classes follow their parameter
    if (!listed(p) && !outputOnly(p))
      mark(entry[p]);
  // Pointer aliases: a pointer param's class follows the param.
  bool changed = true;
  auto condVarying = [&](const Stmt *c) {
    std::set<Var *> vs;
    collectVars(c->cond, vs);
    for (Var *v : vs)
      if (useAt.count({c, v}))
        for (int d : useAt[{c, v}])
          if (varying[find(d)])
            return true;
    return false;
  };
  while (changed) {
    changed = false;
    for (size_t d = 0; d < n; ++d) {
      const Def &df = defs[d];
      if (!df.s || varying[find((int)d)])
        continue;
      bool v = false;
      for (const Stmt *c : df.control)
        v |= condVarying(c);
      if (df.e.commResult) {
        v |= std::string(df.e.commResult) == "varying" || !overReference(*df.s);
      } else {
        std::set<Var *> reads = df.e.reads;
        reads.insert(df.e.data.begin(), df.e.data.end());
        for (Var *r : reads)
          if (useAt.count({df.s, r}))
            for (int u : useAt[{df.s, r}])
              v |= varying[find(u)] != 0;
      }
      if (v)
        changed |= mark((int)d);
    }
  }

  warnControlOnlyReturn(exitRet, varying, condVarying, diag);

  // Adjoint forms.
  std::vector<char> partial(n, 0);
  auto active = [&](int d) { return defs[d].v->active; };
  auto markPartial = [&](int d) {
    int w = find(d);
    if (!varying[w] && active(d) && !partial[w]) {
      partial[w] = 1;
      return true;
    }
    return false;
  };
  auto useWebs = [&](const Stmt *s, Var *v) {
    std::set<int> out;
    if (useAt.count({s, v}))
      for (int d : useAt[{s, v}])
        out.insert(d);
    return out;
  };
  changed = true;
  // Whatever a communication call sends is a per-rank contribution.
  walk(f.body, [&](Stmt &s, const WalkCtx &) {
    if (s.kind != Stmt::Comm)
      return;
    for (const Effect &e : effectsOf(s, fe))
      for (Var *d : e.data)
        for (int u : useWebs(&s, d))
          markPartial(u);
    for (size_t i = 0; i < s.comm.args.size(); ++i)
      if (s.comm.rule->args[i].role == CommArg::Buffer &&
          s.comm.rule->args[i].read)
        if (Var *b = baseVar(s.comm.args[i]))
          for (int u : useWebs(&s, b))
            markPartial(u);
  });
  while (changed) {
    changed = false;
    for (size_t d = 0; d < n; ++d) {
      const Def &df = defs[d];
      if (!df.s || !df.v->active || df.e.commResult)
        continue;
      int w = find((int)d);
      std::set<int> srcs;
      for (Var *x : df.e.data)
        for (int u : useWebs(df.s, x))
          srcs.insert(u);
      if (df.isCall) {
        // One call: all replicated arguments share one form.
        bool any = varying[w] || partial[w];
        for (int u : srcs)
          any |= partial[find(u)] != 0;
        if (any) {
          changed |= markPartial((int)d);
          for (int u : srcs)
            changed |= markPartial(u);
        }
        continue;
      }
      if (varying[w] || partial[w])
        for (int u : srcs)
          changed |= markPartial(u);
    }
  }

  auto res = std::make_shared<ReplicationResult>();
  for (auto &kv : defAt)
    res->defWeb[{kv.first.first, kv.first.second}] = find(kv.second);
  for (auto &kv : useAt)
    if (!kv.second.empty())
      res->useWeb[{kv.first.first, kv.first.second}] =
          find(*kv.second.begin());
  res->replicated.resize(n);
  res->partial.resize(n);
  for (size_t d = 0; d < n; ++d) {
    res->replicated[d] = !varying[find((int)d)];
    res->partial[d] = partial[find((int)d)];
  }
  // Per-variable summaries: parameters on entry, the result on exit, other
  // variables conservatively (varying if any version varies).
  for (auto &v : f.vars) {
    v->replicated = true;
    v->partial = false;
  }
  for (size_t d = 0; d < n; ++d) {
    Var *v = defs[d].v;
    if (varying[find((int)d)])
      v->replicated = false;
    if (partial[find((int)d)])
      v->partial = true;
  }
  for (Var *p : f.params) {
    int w = find(entry[p]);
    p->replicated = !varying[w];
    p->partial = partial[w];
    // A replicated input whose web varies later (reassigned under
    // rank-varying control: `b = b - 1` in a loop that a varying value may
    // leave early) is still equal on all ranks on entry.  Each rank's
    // adjoint is then its own share of dJ/db, and the gradient is their
    // sum over ranks: the partial form.
    if (varying[w] && listed(p) && !outputOnly(p) && !req.perRank &&
        req.topLevel && p->active) {
      p->replicated = true;
      p->partial = true;
    }
  }
  if (f.retVar && exitRet >= 0) {
    int w = find(exitRet);
    f.retVar->replicated = !varying[w];
    f.retVar->partial = partial[w];
  }

  return res;
}

} // namespace

std::shared_ptr<ReplicationResult>
analyzeReplication(Function &f, const Request &req, const Frontend &fe,
                   Diag &diag) {
  return Replication(f, req, fe).run(diag);
}

} // namespace mpiad
