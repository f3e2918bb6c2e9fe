//===- Rerun.h - Iterations of a loop run again in the reverse sweep ------===//
//
// Rerun.cpp: when the forward sweep would record, at every iteration of an
// innermost loop, values that only that iteration uses (CoMD's per-pair
// `dr[3]`, `r2`, `r6`), the forward sweep runs the loop as the program
// does, and the reverse of each iteration first runs the iteration again,
// recording, without its stores into anything that outlives it.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_RERUN_H
#define MPIAD_RERUN_H

#include "IR.h"

#include <set>

namespace mpiad {

class Frontend;

/// A loop whose iterations can be re-run, split: `core` is its body
/// without `tail`, the trailing counter updates (`{ ij++; jOff++; }` of a
/// lowered `for` header), whose reverse restores the counters the core
/// reads before the core runs again.  A counted `for` has no tail.
struct RerunPlan {
  Block core, tail;
  std::set<Var *> privates; // alias roots only the iteration uses
  std::set<Var *> written;  // alias roots the core writes that outlive it
};

/// Is `loop`, a counted `for` loop or a `while` loop ending with counter
/// updates, one whose iterations the reverse sweep can run again (and is
/// it worth it)?  Fills `plan` when it is.
bool rerunPlan(Function &F, const Stmt &loop, const Frontend &fe,
               RerunPlan &plan);

/// The recorded forward code of the core without its stores into what
/// outlives an iteration (`plan.written`), nor into private scalars that
/// nothing reads (neither the slice nor, `needed`, the reverse of the
/// core): what the reverse sweep runs before the reverse of the core.  Its
/// records are the ones the reverse of the core pops.
Block rerunSlice(Function &F, const Block &recordedCore,
                 const RerunPlan &plan, const Frontend &fe,
                 const std::set<Var *> &needed);

} // namespace mpiad

#endif
