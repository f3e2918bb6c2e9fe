//===- Signature.cpp - What the generated signatures add around the body -===//
//
// See Signature.h.
//
//===----------------------------------------------------------------------===//
#include "Signature.h"
#include "Backend.h"
#include "Emit.h"
#include "Frontend.h"
#include "GlobalHeap.h"
#include "Reverse.h"
#include "Transform.h"

namespace mpiad {

std::string shadowsPrefix(const Function &F, const std::string &adjoint) {
  return F.outlinedBlock() ? adjoint : F.name;
}

std::string Module::globalsComment(const Function &F,
                                   const std::string &suffix,
                                   const std::string &what,
                                   const std::string &adjoint) {
  std::string globals, heap, exposed;
  std::set<std::string> listed;
  for (auto &v : F.vars) {
    if (v->kind != Var::Global || !v->active ||
        !listed.insert(v->userName).second)
      continue;
    std::string one = v->userName + " (" + globalShadow(v->name, suffix) + ")";
    std::string &list = fe_.ownedGlobal(v.get())          ? heap
                        : exposedGlobals_.count(v->userName) ? exposed
                                                             : globals;
    list += (list.empty() ? "" : ", ") + one;
  }
  std::string out;
  if (!exposed.empty())
    out += " *   globals in clauses: " + exposed + "\n *     " + what +
           " at file scope, the caller's (declared in --emit-header): one\n"
           " *     in wrt/output is read and left as a parameter's shadow "
           "would be,\n *     another function's is zeroed on entry\n";
  if (!globals.empty())
    out += " *   globals:      " + globals + "\n *     " + what +
           " at file scope, zeroed on entry; a global is neither\n"
           " *     input nor output (pass it as a parameter to make it one)\n";
  if (!heap.empty())
    out += " *   global pointers: " + heap + "\n *     " + what +
           " at file scope, from " + shadowsPrefix(F, adjoint) +
           (suffix == "_d" ? "_tangents_new" : "_shadows_new") +
           "(); as for a parameter, one in\n *     wrt/output "
           "is the caller's, the others are zeroed on entry\n";
  return out;
}

/// F_shadows_new() and F_shadows_free() for the shadows of the global
/// pointers F_b uses (GlobalHeap.h): each allocated zeroed with the size of
/// the file's allocation of its global, evaluated when called, and
/// recorded for F_b, which zeroes the work arrays' shadows on entry.
void Module::addShadowsNew(Generated &out, const std::string &fn,
                           const std::string &adjoint,
                           const std::vector<std::pair<Var *, Var *>> &shadows,
                           const std::string &kind) {
  std::string make = fn + "_" + kind + "_new", drop = fn + "_" + kind + "_free";
  std::string news, frees, externs;
  for (auto &[g, s] : shadows) {
    const GlobalAllocation *a = fe_.globalAllocation(g->userName);
    std::string bytes = "mpiad_bytes_" + s->name;
    news += "  free(" + s->name + ");\n  " + bytes + " = " + a->bytes +
            ";\n  " + s->name + " = calloc(1, " + bytes + " ? " + bytes +
            " : 1);\n";
    frees += "  free(" + s->name + ");\n  " + s->name + " = NULL;\n  " +
             bytes + " = 0;\n";
    externs += "extern " + printDecl(*s, true) + ";\n";
  }
  out.text += "\n/* mpiad: the " + kind + " of the global pointers " + adjoint +
              " uses, allocated zeroed\n * with the sizes this file allocates "
              "them with (evaluated now), and freed */\nvoid " + make +
              "(void) {\n" + news + "}\nvoid " + drop + "(void) {\n" + frees +
              "}\n";
  out.prototype += "\n" + externs + "void " + make + "(void);\nvoid " + drop +
                   "(void);";
}

void addStructParamAdjoint(Function &F, Var *p, Var *acc, Var *sig,
                           bool perRank,
                           const std::function<Var *()> &newCounter,
                           Block &epilogue, std::vector<PartialSum> &partials) {
  std::vector<Var *> fields;
  for (auto &v : F.vars)
    if (v->fieldOf == p && v->active)
      fields.push_back(v.get());
  for (Var *v : fields) {
    std::string from = acc->name + v->field, to = sig->name + "->" +
                                                 v->field.substr(1);
    if (v->replicated && v->partial && !perRank) {
      std::string elem = v->type.elem == Scalar::Float ? "float" : "double";
      std::string n = "1";
      for (const std::string &d : v->type.dims)
        n += " * " + d;
      auto first = [&](const std::string &lv, Var *root, bool isConst) {
        return v->type.dims.empty()
                   ? mkAddrOf(mkOpaque(lv, {root}, v->type.elem))
                   : mkCast((isConst ? "const " : "") + elem + " *",
                            mkOpaque(lv, {root}), v->type.elem, 1);
      };
      partials.push_back({first(from, acc, true), first(to, sig, false),
                          v->type.dims.empty() ? mkInt(1) : mkOpaque(n.substr(4)),
                          v->type.elem, nullptr});
      continue;
    }
    // p_b->f[k0][k1] += p_b_acc.f[k0][k1], over the field's dimensions.
    std::vector<Var *> ks;
    std::string idx;
    for (size_t d = 0; d < v->type.dims.size(); ++d) {
      ks.push_back(newCounter());
      idx += "[" + ks.back()->name + "]";
    }
    std::vector<Var *> reads = ks;
    reads.push_back(acc);
    StmtP add = mkAssign(mkOpaque(to + idx, {sig}, v->type.elem), "+=",
                         mkOpaque(from + idx, reads, v->type.elem));
    for (size_t d = ks.size(); d-- > 0;)
      add = mkCountedLoop(ks[d], mkInt(0), mkIntText(v->type.dims[d]), false,
                          "<", {add});
    epilogue.push_back(add);
  }
}

void heapShadowEntry(Block &entry, Var *sv, const std::string &global,
                     const std::string &fn, const std::string &make,
                     const std::string &check, bool callers) {
  if (!callers)
    entry.insert(entry.begin(),
                 mkExprStmt(mkCall("memset",
                                   {mkVar(sv), mkInt(0),
                                    mkOpaque("mpiad_bytes_" + sv->name)},
                                   Scalar::Void)));
  entry.insert(entry.begin(),
               mkExprStmt(mkCall(check,
                                 {mkVar(sv), mkOpaque(quoted(fn)),
                                  mkOpaque(quoted(global)),
                                  mkOpaque(quoted(make))},
                                 Scalar::Void)));
}

} // namespace mpiad
