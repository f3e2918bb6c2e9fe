//===- Cuda.cpp - Kernels, launchers and device calls (--target=cuda) -----===//
#include "Cuda.h"
#include "Analysis.h"
#include "Backend.h"
#include "Transform.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace mpiad {

namespace {

/// Calls a kernel may make: math.h functions with device versions.
const std::set<std::string> kDeviceMath = {
    "sin",   "cos",   "tan",   "asin", "acos",  "atan",  "atan2", "sinh",
    "cosh",  "tanh",  "exp",   "exp2", "expm1", "log",   "log2",  "log10",
    "log1p", "sqrt",  "cbrt",  "pow",  "fabs",  "fmax",  "fmin",  "fmod",
    "hypot", "floor", "ceil",  "erf",  "erfc",  "sinf",  "cosf",  "tanf",
    "expf",  "logf",  "sqrtf", "powf", "fabsf", "tanhf", "fmaxf", "fminf"};

/// Host calls on device memory and their libmpiad_gpu equivalents.
const std::map<std::string, std::string> kHostCalls = {
    {"malloc", "mpiad_gpu_malloc"},
    {"calloc", "mpiad_gpu_calloc"},
    {"free", "mpiad_gpu_free"},
    {"memcpy", "mpiad_gpu_memcpy"},
    {"mpiad_batch_begin", "mpiad_gpu_batch_begin"},
    {"mpiad_batch_add_f64", "mpiad_gpu_batch_add_f64"},
    {"mpiad_batch_add_f32", "mpiad_gpu_batch_add_f32"},
    {"mpiad_batch_allreduce", "mpiad_gpu_batch_allreduce"}};

/// Communication on device buffers: the MPI calls and the libmpiad helpers
/// that libmpiad_gpu provides (mpiad_gpu_<name>).
const std::set<std::string> kDeviceComm = {"allreduce",
                                           "reduce",
                                           "bcast",
                                           "allgather",
                                           "reduce_scatter_block",
                                           "send",
                                           "recv",
                                           "alltoall",
                                           "gather",
                                           "scatter",
                                           "allreduce_fwd",
                                           "allreduce_rev",
                                           "reduce_fwd",
                                           "reduce_rev",
                                           "bcast_rev",
                                           "allgather_rev",
                                           "reduce_scatter_block_rev",
                                           "send_rev",
                                           "recv_rev",
                                           "alltoall_rev",
                                           "gather_rev",
                                           "scatter_rev",
                                           "send_fwd",
                                           "recv_fwd",
                                           "sendrecv",
                                           "sendrecv_fwd",
                                           "sendrecv_rev",
                                           "sendrecv_replace",
                                           "sendrecv_replace_fwd",
                                           "sendrecv_replace_rev",
                                           "allreduce_tan",
                                           "reduce_tan",
                                           "send_tan",
                                           "recv_tan",
                                           "sendrecv_tan",
                                           "sendrecv_replace_tan"};

/// "MPI_Allreduce" -> "allreduce", "mpiad_bcast_rev" -> "bcast_rev", else "".
std::string commKey(const std::string &name) {
  std::string k;
  if (name.rfind("MPI_", 0) == 0)
    k = name.substr(4);
  else if (name.rfind("mpiad_", 0) == 0 && name.rfind("mpiad_gpu_", 0) != 0)
    k = name.substr(6);
  else
    return "";
  std::transform(k.begin(), k.end(), k.begin(),
                 [](unsigned char c) { return (char)std::tolower(c); });
  return k;
}

/// Calls that already take device buffers: NCCL's, and libmpiad_gpu's (the
/// helpers of rules/nccl.rules).  They are left as they are.
bool isDeviceLibraryCall(const std::string &name) {
  return name.rfind("nccl", 0) == 0 || name.rfind("mpiad_gpu_", 0) == 0;
}

bool isDevicePtr(const Var *v) {
  return v && v->type.ptrDepth > 0 && v->type.dims.empty();
}

/// The expressions of one statement, not of its sub-blocks.
void visitOwnExprs(const Stmt &s, const std::function<void(const Expr &)> &fn) {
  visitExpr(s.lhs, fn);
  visitExpr(s.rhs, fn);
  visitExpr(s.cond, fn);
  for (const ExprP &a : s.comm.args)
    visitExpr(a, fn);
  for (const StmtP &p : {s.init, s.step})
    if (p)
      visitOwnExprs(*p, fn);
}

/// Does this expression read or write device memory (an element of a
/// pointer, or a call that gets a pointer)?
bool exprTouchesDevice(const Expr &e) {
  if (e.kind == Expr::Index)
    return isDevicePtr(baseVar(e.ops[0]));
  if (e.kind == Expr::Unary && e.text == "*")
    return true;
  if (e.kind == Expr::Opaque)
    for (Var *v : e.vars)
      if (isDevicePtr(v))
        return true;
  return false;
}

void visitStmts(const Block &b, const std::function<void(const Stmt &)> &fn) {
  for (const StmtP &s : b) {
    fn(*s);
    visitStmts(s->body, fn);
    visitStmts(s->elseBody, fn);
  }
}

bool stmtTouchesDevice(const Stmt &s) {
  bool t = false;
  visitStmts({std::make_shared<Stmt>(s)}, [&](const Stmt &x) {
    visitOwnExprs(x, [&](const Expr &e) { t |= exprTouchesDevice(e); });
  });
  return t;
}

/// Statements that must stay on the host: communication, returns, jumps,
/// calls other than device math.
bool hostOnly(const Stmt &s, std::string *why = nullptr,
              clang::SourceLocation *where = nullptr) {
  bool h = false;
  visitStmts({std::make_shared<Stmt>(s)}, [&](const Stmt &x) {
    if (h)
      return;
    auto mark = [&](const std::string &w) {
      h = true;
      if (why)
        *why = w;
      if (where)
        *where = x.loc;
    };
    if (x.kind == Stmt::Comm)
      return mark("the call to '" + x.comm.name + "'");
    if (x.kind == Stmt::Return || x.kind == Stmt::Break ||
        x.kind == Stmt::Continue)
      return mark(x.kind == Stmt::Return ? "a return" : "a jump");
    if (x.kind == Stmt::For && x.parallel && &x != &s)
      return mark("a nested parallel loop");
    visitOwnExprs(x, [&](const Expr &e) {
      if (!h && e.kind == Expr::Call && !kDeviceMath.count(e.text))
        mark("the call to '" + e.text + "'");
    });
  });
  return h;
}

bool containsParallel(const Stmt &s) {
  bool p = false;
  visitStmts({std::make_shared<Stmt>(s)},
             [&](const Stmt &x) { p |= x.kind == Stmt::For && x.parallel; });
  return p;
}

std::string pad(int n) { return std::string(2 * n, ' '); }

} // namespace

std::string CudaLowering::deviceDecl(const std::string &decl) {
  if (decl.rfind("mpiad_batch ", 0) == 0)
    return "mpiad_gpu_batch " + decl.substr(12);
  return decl;
}

/// Scalars whose first use in a loop body is a plain assignment at its top
/// level: every iteration computes them before reading them.
static std::set<Var *> firstWritten(const Block &body) {
  std::set<Var *> seen, out;
  for (const StmtP &s : body) {
    if (s->kind == Stmt::Assign && s->op == "=" &&
        s->lhs->kind == Expr::VarRef) {
      std::set<Var *> reads;
      collectVars(s->rhs, reads);
      Var *v = s->lhs->var;
      if (!seen.count(v) && !reads.count(v))
        out.insert(v);
      seen.insert(reads.begin(), reads.end());
      seen.insert(v);
      continue;
    }
    referenced({s}, seen);
  }
  return out;
}

/// Variables the host code references: every statement except the parallel
/// loops still to be outlined.
static void hostRefs(const Block &b, const std::set<const Stmt *> &skip,
                     std::set<Var *> &out) {
  for (const StmtP &s : b) {
    if (skip.count(s.get()))
      continue;
    auto own = std::make_shared<Stmt>(*s);
    own->body.clear();
    own->elseBody.clear();
    referenced({own}, out);
    hostRefs(s->body, skip, out);
    hostRefs(s->elseBody, skip, out);
  }
}

bool CudaLowering::lower(const std::vector<Block *> &blocks) {
  all_ = blocks;
  // Struct fields that carry derivatives (field views) have no device
  // layout of their own yet.
  for (Block *b : blocks) {
    const Stmt *bad = nullptr;
    const Var *field = nullptr;
    visitStmts(*b, [&](const Stmt &s) {
      if (bad)
        return;
      visitOwnExprs(s, [&](const Expr &e) {
        if (!field && e.kind == Expr::VarRef && e.var->fieldOf) {
          field = e.var;
          bad = &s;
        }
      });
    });
    if (bad) {
      diag_.error(at(bad->loc),
                  (field->throughPointer
                       ? "'" + field->userName + "', data behind a pointer "
                         "field,"
                       : "the struct field '" + field->field.substr(1) +
                             "' of '" + field->fieldOf->userName + "'") +
                      " carries derivatives, which --target=cuda does not "
                      "support yet: keep such data in arrays of float or "
                      "double");
      return false;
    }
  }
  // Row-pointer arrays: their rows are host pointers.
  for (Block *b : blocks) {
    const Stmt *bad = nullptr;
    const Var *rows = nullptr;
    visitStmts(*b, [&](const Stmt &s) {
      visitOwnExprs(s, [&](const Expr &e) {
        if (!rows && e.kind == Expr::VarRef && e.var->active &&
            e.var->type.ptrDepth >= 2) {
          rows = e.var;
          bad = &s;
        }
      });
    });
    if (bad) {
      diag_.error(at(bad->loc),
                  "'" + rows->userName +
                      "' is a row-pointer array (pointer to pointer) that "
                      "carries derivatives, which --target=cuda does not "
                      "support: keep its data in one contiguous array (" +
                      rows->userName + "[i * ny + j])");
      return false;
    }
  }
  for (Block *b : blocks)
    visitStmts(*b, [&](const Stmt &s) {
      if (s.kind == Stmt::For && s.parallel)
        pending_.insert(&s);
    });
  bool ok = true;
  for (Block *b : blocks)
    ok &= lowerBlock(*b);
  return ok;
}

bool CudaLowering::lowerBlock(Block &b) {
  bool ok = true;
  for (size_t k = 0; k < b.size(); ++k) {
    StmtP s = b[k];
    if (s->kind == Stmt::For && s->parallel) {
      ok &= outline(b, k, k, true);
      continue;
    }
    bool dev = stmtTouchesDevice(*s);
    if (dev && !hostOnly(*s) && !containsParallel(*s)) {
      // A run of such statements becomes one single-thread kernel.
      size_t last = k;
      while (last + 1 < b.size() && stmtTouchesDevice(*b[last + 1]) &&
             !hostOnly(*b[last + 1]) && !containsParallel(*b[last + 1]) &&
             !(b[last + 1]->kind == Stmt::For && b[last + 1]->parallel))
        ++last;
      ok &= outline(b, k, last, false);
      continue;
    }
    bool ownDev = false;
    visitOwnExprs(*s, [&](const Expr &e) { ownDev |= exprTouchesDevice(e); });
    bool control = s->kind == Stmt::For || s->kind == Stmt::While ||
                   s->kind == Stmt::DoWhile || s->kind == Stmt::If ||
                   s->kind == Stmt::Compound;
    if (control && !ownDev) {
      ok &= lowerBlock(s->body);
      ok &= lowerBlock(s->elseBody);
      continue;
    }
    if (s->kind == Stmt::Comm) {
      ok &= rewriteComm(b[k]);
      continue;
    }
    if (s->kind == Stmt::ExprStmt || s->kind == Stmt::Assign ||
        s->kind == Stmt::Decl) {
      if (!rewriteHostCalls(b[k]))
        ok = false;
      continue;
    }
    if (dev) {
      std::string why;
      hostOnly(*s, &why);
      diag_.error(at(s->loc),
                  "on the CUDA target this statement must run on the "
                  "host (it contains " +
                      why +
                      ") but it reads or writes device memory; move the "
                      "element accesses into a '#pragma mpiad parallel' "
                      "loop or a separate statement");
      ok = false;
    }
  }
  return ok;
}

/// Host calls with device pointers: allocation, copies and the batched sum
/// of replicated gradients go to libmpiad_gpu; communication helpers too.
bool CudaLowering::rewriteHostCalls(StmtP &s) {
  bool ok = true;
  std::function<ExprP(const ExprP &)> map = [&](const ExprP &e) -> ExprP {
    if (!e)
      return e;
    std::vector<ExprP> ops;
    bool changed = false;
    for (const ExprP &o : e->ops) {
      ops.push_back(map(o));
      changed |= ops.back() != o;
    }
    std::string name = e->text;
    if (e->kind == Expr::Call) {
      bool devArg = false;
      for (const ExprP &o : e->ops) {
        Var *v = baseVar(o);
        devArg |= isDevicePtr(v);
      }
      auto h = kHostCalls.find(name);
      std::string key = commKey(name);
      if (name == "memset") {
        if (e->ops.size() != 3 || !isZeroLiteral(e->ops[1])) {
          diag_.error(at(s->loc), "memset of device memory with a value other "
                                  "than 0 is not supported on the CUDA target");
          ok = false;
        } else {
          return mkCall("mpiad_gpu_memset0", {ops[0], ops[2]}, e->type,
                        e->ptrDepth);
        }
      } else if (isDeviceLibraryCall(name)) {
        // Already a device call: NCCL, or a libmpiad_gpu helper.
      } else if (h != kHostCalls.end()) {
        name = h->second;
        // The adjoint of a scalar parameter is a host value.
        if (name.rfind("mpiad_gpu_batch_add_", 0) == 0 && e->ops.size() > 1 &&
            !isDevicePtr(baseVar(e->ops[1])))
          name = "mpiad_gpu_batch_add_host_" + name.substr(20);
        changed = true;
      } else if (devArg && kDeviceComm.count(key)) {
        name = "mpiad_gpu_" + key;
        changed = true;
      } else if (devArg && !kDeviceMath.count(name) &&
                 name.rfind("mpiad_push_ptr", 0) != 0 &&
                 name.rfind("mpiad_pop_ptr", 0) != 0) {
        // (The tape records pointer values on the host, whatever they
        // point to.)
        diag_.error(at(s->loc), "'" + name +
                                    "' gets device pointers on the CUDA "
                                    "target and has no device version");
        ok = false;
      }
    }
    if (!changed)
      return e;
    auto n = std::make_shared<Expr>(*e);
    n->ops = ops;
    n->text = name;
    return n;
  };
  auto n = std::make_shared<Stmt>(*s);
  n->lhs = map(s->lhs);
  n->rhs = map(s->rhs);
  // CUDA C++ converts no void * implicitly: cast the device allocations and
  // the pointers popped from the tape.
  Var *target = s->kind == Stmt::Decl                    ? s->var
                : s->lhs && s->lhs->kind == Expr::VarRef ? s->lhs->var
                                                         : nullptr;
  if (target && target->type.ptrDepth > 0 && n->rhs &&
      n->rhs->kind == Expr::Call &&
      (n->rhs->text == "mpiad_gpu_malloc" ||
       n->rhs->text == "mpiad_gpu_calloc" || n->rhs->text == "mpiad_pop_ptr"))
    n->rhs = mkCast(printType(target->type), n->rhs, target->type.elem,
                    target->type.ptrDepth);
  s = n;
  return ok;
}

/// Communication: on host scalars it stays MPI; on device buffers it calls
/// the libmpiad_gpu version (NCCL or staged through the host).
bool CudaLowering::rewriteComm(StmtP &s) {
  bool dev = false;
  for (const ExprP &a : s->comm.args)
    dev |= isDevicePtr(baseVar(a));
  if (!dev || isDeviceLibraryCall(s->comm.name))
    return true;
  for (const ExprP &a : s->comm.args)
    if (a->derivedDatatype) {
      diag_.error(at(a->loc),
                  "derived datatype '" + a->text + "' in '" + s->comm.name +
                      "' on device buffers is not supported on the CUDA "
                      "target (libmpiad_gpu moves contiguous MPI_DOUBLE / "
                      "MPI_FLOAT data); copy the elements into a contiguous "
                      "device buffer first");
      return false;
    }
  std::string key = commKey(s->comm.name);
  if (!kDeviceComm.count(key)) {
    diag_.error(at(s->loc),
                "'" + s->comm.name +
                    "' on device buffers is not "
                    "supported on the CUDA target yet (libmpiad_gpu has "
                    "no device version of it)");
    return false;
  }
  auto n = std::make_shared<Stmt>(*s);
  n->comm.name = "mpiad_gpu_" + key;
  s = n;
  return true;
}

/// Statements b[first..last] become one kernel: a grid-stride loop when
/// `parallel` (b[first] is the loop), else a single thread.
bool CudaLowering::outline(Block &b, size_t first, size_t last, bool parallel) {
  Block region(b.begin() + first, b.begin() + last + 1);
  const Stmt &head = *region[0];
  clang::SourceLocation loc = head.loc;
  Var *iv = parallel ? head.loopVar : nullptr;
  if (parallel && (head.loopStep == 0 || !iv || !head.loopLo || !head.loopHi)) {
    diag_.error(at(loc),
                "a '#pragma mpiad parallel' loop must be counted on the "
                "CUDA target: for (i = lo; i < hi; i++) or i-- down to a "
                "bound");
    return false;
  }
  const Block &body = parallel ? head.body : region;
  for (const StmtP &s : body) {
    std::string why;
    clang::SourceLocation where;
    if (hostOnly(*s, &why, &where)) {
      diag_.error(at(where.isValid() ? where : s->loc),
                  why + " cannot run in a kernel on the CUDA target");
      return false;
    }
  }

  // Which variables live where: references outside the region (the host
  // code and the launchers of other kernels).
  std::string name = prefix_ + "_k" + std::to_string(count_++);
  auto placeholder = mkComment("kernel " + name);
  b.erase(b.begin() + first, b.begin() + last + 1);
  b.insert(b.begin() + first, placeholder);
  // A variable is seen outside when the host code uses it, or another
  // parallel loop uses it without computing it first in every iteration.
  pending_.erase(&head);
  std::set<Var *> outside, inside, declared;
  std::set<Var *> boundsOnly; // read by the loop bounds only: the launcher's
  for (Block *blk : all_)
    hostRefs(*blk, pending_, outside);
  for (Block *blk : all_)
    visitStmts(*blk, [&](const Stmt &s) {
      if (!pending_.count(&s))
        return;
      std::set<Var *> refs;
      referenced({std::make_shared<Stmt>(s)}, refs);
      std::set<Var *> fw = firstWritten(s.body);
      for (Var *v : refs)
        if (!fw.count(v))
          outside.insert(v);
    });
  referenced(body, inside);
  declaredIn(body, declared);
  if (parallel) {
    std::set<Var *> hdr;
    for (const StmtP &p : {head.init, head.step})
      if (p)
        referenced({p}, hdr);
    if (head.cond)
      collectVars(head.cond, hdr);
    collectVars(head.loopLo, hdr);
    collectVars(head.loopHi, hdr);
    hdr.erase(iv);
    for (Var *v : hdr)
      if (!inside.count(v))
        boundsOnly.insert(v);
    inside.insert(hdr.begin(), hdr.end());
    if (outside.count(iv) && !iv->declaredInForInit) {
      diag_.error(at(loc),
                  "the counter '" + iv->name +
                      "' of a parallel loop is "
                      "used after the loop; declare it in the loop header");
      return false;
    }
  }

  // Writes in the region, by variable.
  struct Use {
    bool plainWrite = false, sumWrite = false, read = false;
  };
  std::map<Var *, Use> uses;
  std::function<void(const Block &)> scan = [&](const Block &blk) {
    for (const StmtP &s : blk) {
      if (s->kind == Stmt::Assign && s->lhs->kind == Expr::VarRef) {
        std::set<Var *> reads;
        collectVars(s->rhs, reads);
        for (Var *v : reads)
          uses[v].read = true;
        Use &u = uses[s->lhs->var];
        if (s->op == "+=" || s->op == "-=")
          u.sumWrite = true;
        else
          u.plainWrite = true;
        continue;
      }
      // Statement-level references only (sub-blocks are scanned below).
      std::set<Var *> r;
      auto own = std::make_shared<Stmt>(*s);
      own->body.clear();
      own->elseBody.clear();
      referenced({own}, r);
      for (Var *v : r)
        uses[v].read = true;
      if (s->kind == Stmt::Decl)
        uses[s->var].plainWrite = true;
      for (const StmtP &p : {s->init, s->step}) // a loop's counter
        if (p && p->kind == Stmt::Assign && p->lhs->kind == Expr::VarRef)
          uses[p->lhs->var].plainWrite = true;
      scan(s->body);
      scan(s->elseBody);
    }
  };
  scan(body);

  std::vector<Var *> params; // by value or device pointers
  std::vector<Var *> locals; // declared per iteration / per thread
  std::vector<Var *> sums;   // host scalars summed in a parallel loop
  std::vector<Var *> outs;   // host scalars a single thread writes
  for (Var *v : inside) {
    if (v == iv || declared.count(v))
      continue;
    bool isScalar = v->type.ptrDepth == 0 && v->type.dims.empty();
    if (!v->type.dims.empty()) {
      diag_.error(at(loc),
                  "the array '" + v->name +
                      "' is host memory and is "
                      "used in a kernel; on the CUDA target arrays must be "
                      "device pointers");
      return false;
    }
    if (!isScalar) {
      if (uses[v].plainWrite || uses[v].sumWrite) {
        diag_.error(at(loc), "the pointer '" + v->name +
                                 "' is assigned inside "
                                 "a kernel on the CUDA target");
        return false;
      }
      params.push_back(v);
      continue;
    }
    if (v->type.elem == Scalar::Other) {
      diag_.error(at(loc), "'" + v->name + "' (of type " + v->type.base +
                               ") cannot be used inside a kernel");
      return false;
    }
    const Use &u = uses[v];
    bool written = u.plainWrite || u.sumWrite;
    if (!written) {
      params.push_back(v);
    } else if (!outside.count(v)) {
      locals.push_back(v); // private: nothing outside the kernel sees it
    } else if (parallel && !u.plainWrite && !u.read) {
      sums.push_back(v);
    } else if (!parallel) {
      params.push_back(v);
      outs.push_back(v);
    } else {
      diag_.error(at(loc),
                  "'" + v->name +
                      "' is assigned in this parallel loop "
                      "and used outside it; on the CUDA target a scalar "
                      "written in a kernel must be a sum (" +
                      v->name + " += ...)");
      return false;
    }
  }
  auto byId = [](Var *a, Var *c) { return a->id < c->id; };
  std::sort(params.begin(), params.end(), byId);
  std::sort(locals.begin(), locals.end(), byId);
  std::sort(sums.begin(), sums.end(), byId);

  // Element accumulations of the parallel body: plain where indexed by the
  // loop counter, a block reduction where the index does not change in the
  // loop, atomics otherwise.
  std::set<Var *> changing = {iv};
  for (Var *v : locals)
    changing.insert(v);
  for (Var *v : declared)
    changing.insert(v);
  std::vector<ExprP> elemSums; // the elements reduced, in slot order
  std::map<std::string, int> elemSlot;
  if (parallel) {
    std::set<Var *> readBases; // pointers read anywhere in the body
    visitStmts(body, [&](const Stmt &s) {
      auto own = [&](const ExprP &e) {
        visitExpr(e, [&](const Expr &x) {
          if (x.kind == Expr::Index)
            if (Var *v = baseVar(x.ops[0]))
              readBases.insert(v);
        });
      };
      own(s.rhs);
      own(s.cond);
      if (s.lhs && s.lhs->kind == Expr::Index)
        own(s.lhs->ops[1]);
    });
    // Arrays that an iteration accumulates into at an element other than
    // its own (a stencil's adjoint adds into its neighbours): there another
    // thread may add to this iteration's element at the same time, so its
    // own accumulation must be atomic too, or one of the two is lost.
    std::set<Var *> crossBases;
    visitStmts(body, [&](const Stmt &s) {
      if (s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::Index &&
          (s.op == "+=" || s.op == "-=")) {
        const ExprP &idx = s.lhs->ops[1];
        if (!(idx->kind == Expr::VarRef && idx->var == iv))
          if (Var *v = baseVar(s.lhs->ops[0]))
            crossBases.insert(v);
      }
    });
    // Such an array may then be neither assigned nor read in the loop: the
    // value would depend on the order in which threads run.
    Var *racy = nullptr;
    visitStmts(body, [&](const Stmt &s) {
      if (s.kind == Stmt::Assign && s.lhs && s.lhs->kind == Expr::Index &&
          s.op != "+=" && s.op != "-=")
        if (Var *v = baseVar(s.lhs->ops[0]))
          if (crossBases.count(v))
            racy = racy ? racy : v;
    });
    for (Var *v : readBases)
      if (crossBases.count(v))
        racy = racy ? racy : v;
    if (racy) {
      diag_.error(at(loc),
                  "on the CUDA target the iterations of this parallel loop "
                  "add into elements of '" +
                      racy->name +
                      "' that other iterations own, and the loop also reads "
                      "or assigns '" +
                      racy->name +
                      "': the result would depend on the order in which "
                      "threads run; split the loop in two, or drop "
                      "'#pragma mpiad parallel'");
      return false;
    }
    std::function<void(Block &)> rewrite = [&](Block &blk) {
      for (StmtP &s : blk) {
        if (s->kind == Stmt::Assign && s->lhs->kind == Expr::Index &&
            (s->op == "+=" || s->op == "-=")) {
          const ExprP &idx = s->lhs->ops[1];
          Var *base = baseVar(s->lhs->ops[0]);
          if (idx->kind == Expr::VarRef && idx->var == iv &&
              !crossBases.count(base))
            continue; // this iteration's own element, nobody else's
          std::set<Var *> iv2;
          collectVars(idx, iv2);
          bool invariant = true;
          for (Var *v : iv2)
            invariant &=
                !changing.count(v) && !uses[v].plainWrite && !uses[v].sumWrite;
          ExprP val = s->op == "-=" ? neg(s->rhs) : s->rhs;
          if (invariant && !readBases.count(base) &&
              s->lhs->ops[0]->kind == Expr::VarRef) {
            std::string key = printExpr(s->lhs);
            auto it = elemSlot.find(key);
            int slot;
            if (it == elemSlot.end()) {
              slot = (int)(sums.size() + elemSums.size());
              elemSlot[key] = slot;
              elemSums.push_back(s->lhs);
            } else {
              slot = it->second;
            }
            s = mkAssign(mkOpaque("mpiad_acc" + std::to_string(slot)),
                         "+=", val);
          } else {
            s = mkExprStmt(
                mkCall("atomicAdd", {mkAddrOf(s->lhs), val}, s->lhs->type));
          }
          continue;
        }
        rewrite(s->body);
        rewrite(s->elseBody);
      }
    };
    Block copy = deepCopy(body);
    rewrite(copy);
    region = copy;
  }
  if (sums.size() + elemSums.size() > 16) {
    diag_.error(at(loc), "more than 16 sums in one parallel loop on the CUDA "
                         "target");
    return false;
  }

  // The kernel.
  std::string k, sig, args, lsig;
  for (Var *v : params) {
    std::string d = printDecl(*v);
    lsig += (lsig.empty() ? "" : ", ") + d;
    if (boundsOnly.count(v))
      continue;
    sig += (sig.empty() ? "" : ", ") + d;
    args += (args.empty() ? "" : ", ") + v->name;
  }
  if (parallel) {
    sig += std::string(sig.empty() ? "" : ", ") + "long mpiad_lo, long mpiad_n";
    args += std::string(args.empty() ? "" : ", ") + "mpiad_lo, mpiad_n";
  }
  bool partials =
      parallel ? !(sums.empty() && elemSums.empty()) : !outs.empty();
  if (partials) {
    sig += std::string(sig.empty() ? "" : ", ") + "double *mpiad_red";
    args += std::string(args.empty() ? "" : ", ") + "mpiad_red";
  }
  k += "/* mpiad: " + what_ + ", " +
       (parallel ? "the parallel loop" : "statements run by one thread") +
       " (" + name + ") */\n";
  k += "static __global__ void " + name + "(" + sig + ") {\n";
  if (parallel) {
    for (Var *v : sums)
      k += pad(1) + printType(v->type, true) + " " + v->name + " = 0;\n";
    for (size_t j = 0; j < elemSums.size(); ++j)
      k += pad(1) + "double mpiad_acc" + std::to_string(sums.size() + j) +
           " = 0;\n";
    k += pad(1) +
         "for (long mpiad_t = blockIdx.x * (long)blockDim.x + "
         "threadIdx.x; mpiad_t < mpiad_n;\n" +
         pad(1) + "     mpiad_t += (long)gridDim.x * blockDim.x) {\n";
    k += pad(2) + printType(iv->type, true) + " " + iv->name + " = (" +
         printType(iv->type, true) + ")(mpiad_lo " +
         (head.loopStep > 0 ? "+" : "-") + " mpiad_t);\n";
    for (Var *v : locals)
      k += pad(2) + printDecl(*v, true) + zeroInit(*v) + ";\n";
    printBlock(region, 2, k);
    k += pad(1) + "}\n";
    for (size_t j = 0; j < sums.size(); ++j)
      k += pad(1) + "mpiad_gpu_block_sum(" + sums[j]->name + ", mpiad_red + " +
           std::to_string(j) + " * gridDim.x);\n";
    for (size_t j = 0; j < elemSums.size(); ++j) {
      std::string s = std::to_string(sums.size() + j);
      k += pad(1) + "mpiad_gpu_block_sum(mpiad_acc" + s + ", mpiad_red + " + s +
           " * gridDim.x);\n";
    }
  } else {
    for (Var *v : locals)
      k += pad(1) + printDecl(*v, true) + zeroInit(*v) + ";\n";
    printBlock(region, 1, k);
    for (size_t j = 0; j < outs.size(); ++j)
      k += pad(1) + "mpiad_red[" + std::to_string(j) + "] = " + outs[j]->name +
           ";\n";
  }
  k += "}\n\n";

  // The launcher.
  std::string call = name + "_launch(", lbody;
  for (Var *v : params)
    call += std::string(call.back() == '(' ? "" : ", ") + v->name;
  std::vector<Var *> hostPtrs = sums;
  hostPtrs.insert(hostPtrs.end(), outs.begin(), outs.end());
  for (Var *v : hostPtrs) {
    CType pt = v->type;
    pt.ptrDepth = 1;
    lsig += std::string(lsig.empty() ? "" : ", ") + printType(pt, true) +
            "mpiad_host_" + v->name;
    call += std::string(call.back() == '(' ? "" : ", ") + "&" + v->name;
  }
  call += ")";
  if (parallel) {
    const ExprP &lo = head.loopLo, &hi = head.loopHi;
    std::string n;
    if (head.loopStep > 0)
      n = "(long)(" + printExpr(hi) + ") - (long)(" + printExpr(lo) + ")" +
          (head.loopCmp == "<=" ? " + 1" : "");
    else
      n = "(long)(" + printExpr(lo) + ") - (long)(" + printExpr(hi) + ")" +
          (head.loopCmp == ">=" ? " + 1" : "");
    lbody += pad(1) + "long mpiad_lo = " + printExpr(lo) + ";\n";
    lbody += pad(1) + "long mpiad_n = " + n + ";\n";
    lbody += pad(1) + "if (mpiad_n <= 0)\n" + pad(2) + "return;\n";
    lbody += pad(1) + "int mpiad_nb = mpiad_gpu_blocks(mpiad_n);\n";
    size_t nred = sums.size() + elemSums.size();
    if (nred)
      lbody += pad(1) + "double *mpiad_red = mpiad_gpu_partials(0, " +
               std::to_string(nred) + " * mpiad_nb);\n";
    lbody +=
        pad(1) + name + "<<<mpiad_nb, MPIAD_GPU_THREADS>>>(" + args + ");\n";
    lbody += pad(1) + "MPIAD_GPU_CHECK(cudaGetLastError());\n";
    for (size_t j = 0; j < sums.size(); ++j)
      lbody += pad(1) + "*mpiad_host_" + sums[j]->name + " += (" +
               printType(sums[j]->type, true) +
               ")mpiad_gpu_sum_partials(mpiad_red + " + std::to_string(j) +
               " * mpiad_nb, mpiad_nb);\n";
    for (size_t j = 0; j < elemSums.size(); ++j)
      lbody += pad(1) + "mpiad_gpu_add_partials(mpiad_red + " +
               std::to_string(sums.size() + j) + " * mpiad_nb, mpiad_nb, &" +
               printExpr(elemSums[j]) + ");\n";
  } else {
    if (!outs.empty())
      lbody += pad(1) + "double *mpiad_red = mpiad_gpu_partials(0, " +
               std::to_string(outs.size()) + ");\n";
    lbody += pad(1) + name + "<<<1, 1>>>(" + args + ");\n";
    lbody += pad(1) + "MPIAD_GPU_CHECK(cudaGetLastError());\n";
    for (size_t j = 0; j < outs.size(); ++j)
      lbody += pad(1) + "*mpiad_host_" + outs[j]->name + " = (" +
               printType(outs[j]->type, true) +
               ")mpiad_gpu_sum_partials(mpiad_red + " + std::to_string(j) +
               ", 1);\n";
    if (warnSerial_)
      diag_.warning(at(loc), "cuda-serial",
                    "on the CUDA target this statement reads or writes "
                    "device memory outside a '#pragma mpiad parallel' "
                    "loop: it runs in a single-thread kernel (correct, "
                    "slow)");
  }
  k += "static void " + name + "_launch(" + lsig + ") {\n" + lbody + "}\n\n";
  kernels_ += k;

  // The host calls the launcher.
  std::vector<Var *> vars = params;
  vars.insert(vars.end(), hostPtrs.begin(), hostPtrs.end());
  b[first] = mkExprStmt(mkOpaque(call, vars, Scalar::Void));
  b[first]->loc = loc;
  return true;
}

} // namespace mpiad

#include "Reverse.h"

namespace mpiad {

bool Module::generatePrimalCuda(const clang::FunctionDecl *fd, Generated &out) {
  std::unique_ptr<Function> owned = fe_.lowerCopy(fd);
  if (!owned)
    return false;
  Function &F = *owned;
  if (!normalize(F, fe_, diag_))
    return false;
  nameVariables(F);
  CudaLowering cl(diag_, F.name, F.name, true);
  cl.setFallbackLocation(F.loc);
  if (!cl.lower({&F.body}))
    return false;
  std::string sig = printType(F.ret) + " " + F.name + "(";
  for (size_t i = 0; i < F.params.size(); ++i)
    sig += (i ? ", " : "") + printDecl(*F.params[i]);
  if (F.params.empty())
    sig += "void";
  sig += ")";
  // Variables normalization introduced (the return value, flags of early
  // returns) are declared at the top.
  std::string body;
  std::set<Var *> used, inline_;
  referenced(F.body, used);
  declaredIn(F.body, inline_);
  if (F.retVar)
    used.insert(F.retVar);
  for (auto &v : F.vars)
    if (used.count(v.get()) && !inline_.count(v.get()) &&
        v->kind != Var::Param && v->kind != Var::Global && v->kind != Var::Field &&
        !v->declaredInForInit)
      body +=
          "  " + printDecl(*v) + (scalarLike(*v) ? zeroInit(*v) : "") + ";\n";
  printBlock(F.body, 1, body);
  if (F.retVar)
    body += "  return " + F.retVar->name + ";\n";
  out.text = cl.kernels() + "/* mpiad: " + F.name +
             " for the GPU (pointers are device pointers) */\nextern \"C\" " +
             sig + " {\n" + body + "}";
  out.prototype = sig + ";";
  owned_.push_back(std::move(owned));
  return true;
}

} // namespace mpiad
