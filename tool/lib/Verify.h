//===- Verify.h - The read verifier of --verify ----------------------------===//
//
// Declares addReadChecks (Verify.cpp): the pushes and checks that make a
// generated adjoint compare every value its reverse sweep reads with the
// forward sweep's.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_VERIFY_H
#define MPIAD_VERIFY_H

#include "IR.h"
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace mpiad {

/// Where a leaf statement is, for the run-time message.
struct VerifySite {
  std::string where;           // "file:line" of the user's statement
  std::vector<Var *> counters; // of the counted loops around it, outermost first
  std::set<Var *> skip;        // values read as the statement left them
};

/// Adds the verifier's pushes to `fwd` (before the statement) and its checks
/// to `rev` (where the adjoint's reads begin), for the values of the
/// program (variables for which `primal` holds) that `rev` reads.
void addReadChecks(Block &fwd, Block &rev, const VerifySite &site,
                   const std::function<bool(Var *)> &primal);

} // namespace mpiad

#endif
