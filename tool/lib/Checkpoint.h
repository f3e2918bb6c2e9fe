//===- Checkpoint.h - Checkpointed reversal of marked time-step loops -----===//
//
// Part of stage 3.  A for loop under `#pragma mpiad checkpoint` is not
// recorded step by step: the adjoint follows the runtime's binomial schedule
// (runtime/checkpoint.c), which snapshots the loop-carried state, re-runs
// steps from snapshots, and records and reverses one step at a time.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_CHECKPOINT_H
#define MPIAD_CHECKPOINT_H

#include "Analysis.h"
#include "IR.h"

#include <functional>

namespace mpiad {

/// The loop-carried state of a checkpointed loop: every variable or buffer
/// its body writes that outlives one step, as (address, bytes) pairs in the
/// order they are saved and restored (pointer values before the buffers
/// they point to).
struct CheckpointState {
  std::vector<std::pair<ExprP, ExprP>> parts;
};

/// Works out the state of `loop`.  On a construct it cannot snapshot it
/// reports a located error through `diag` (when not null) and returns false.
/// Lengths written in the pragma (`ann`: scratch(w[LEN]), replicated(c[LEN]))
/// size the snapshots of those parameters.
bool checkpointState(Function &F, const Stmt &loop, const Frontend &fe,
                     Diag *diag, CheckpointState &out,
                     const Annotation *ann = nullptr);

/// The variables of a block that the runtime schedule needs: ck, the
/// schedule handle (declared with the function's other variables), and the
/// loop body as recorded (forward sweep) and as reversed.
struct CheckpointParts {
  Var *ck = nullptr;
  Var *action = nullptr; // int, declared in the driver loops
  Block recorded;        // one step, recording what its reverse needs
  Block reversed;        // the reverse of one step
  /// For a statement of the body that assigns an active pointer, the
  /// assignment of its shadow (null otherwise).
  std::function<StmtP(const StmtP &)> shadowCopy;
};

/// The original statements, recording nothing (what a re-run step, or the
/// forward sweep of a loop whose iterations are re-run, executes); with
/// shadowCopy, each active pointer assignment is followed by the same
/// assignment of the shadow pointers.
Block primalCopy(const Block &b,
                 const std::function<StmtP(const StmtP &)> &shadowCopy);

/// The forward-sweep and reverse-sweep code of a checkpointed loop.
std::pair<Block, Block> checkpointDriver(const Stmt &loop,
                                         const CheckpointState &state,
                                         const CheckpointParts &parts);

} // namespace mpiad

#endif
