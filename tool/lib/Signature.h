//===- Signature.h - What the generated signatures add around the body ---===//
//
// The parts of F_b (and F_d) that the signature and the calling convention
// ask for, apart from the sweeps: the adjoint of a struct passed by value
// (`t_param *params_b`), a share of a gradient summed over ranks at the end
// of F_b, the generated F_shadows_new / F_tangents_new of the global
// pointers, and the header comment's lines about globals.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_SIGNATURE_H
#define MPIAD_SIGNATURE_H

#include "IR.h"
#include <functional>
#include <string>
#include <vector>

namespace mpiad {

/// One rank's share of a gradient, summed over ranks at the end of F_b
/// (mpiad_batch_add_*): `len` elements from `part` added into `dest`;
/// `owned` is freed afterwards.
struct PartialSum {
  ExprP part, dest, len;
  Scalar elem = Scalar::Double;
  Var *owned = nullptr;
};

/// The prefix of F_shadows_new(): the function's name, or for a
/// differentiated block the name(...) of its adjoint.
std::string shadowsPrefix(const Function &F, const std::string &adjoint);

/// A struct passed by value in wrt(...), as parameter blocks are
/// (`const t_param params`): F_b takes `S *p_b`, the function accumulates
/// the adjoints of its fields in the local `S p_b_acc` (acc), and each
/// floating field it reads is added into `p_b` at the end, after a sum over
/// ranks where the field is equal on all ranks but read by rank-varying code.
void addStructParamAdjoint(Function &F, Var *p, Var *acc, Var *sig,
                           bool perRank,
                           const std::function<Var *()> &newCounter,
                           Block &epilogue, std::vector<PartialSum> &partials);

/// The entry of F_b (F_d) for the shadow `sv` (tangent) of a global pointer
/// the file allocates: `check(sv, "F_b", "state", "F_shadows_new")` that it
/// exists (check: mpiad_need_shadow or mpiad_need_tangent), then its zeroing
/// unless it is the caller's (`callers`), put at the front of `entry`.
void heapShadowEntry(Block &entry, Var *sv, const std::string &global,
                     const std::string &fn, const std::string &make,
                     const std::string &check, bool callers);

} // namespace mpiad

#endif
