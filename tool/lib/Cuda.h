//===- Cuda.h - The CUDA target: kernels and device calls from host IR ----===//
//
// Stage 4b of the pipeline (--target=cuda).  Takes the blocks of one
// generated host function (primal, adjoint or tangent) whose pointers are
// device pointers and whose scalars are host values, and rewrites them:
//   - each `#pragma mpiad parallel` loop becomes a named kernel with a grid-
//     stride loop and a launcher beside it; scalar sums (`s += e`) become
//     block reductions (one value per block), accumulations into array
//     elements indexed by the loop variable are plain stores, other
//     accumulations are reductions (loop-invariant index) or atomics;
//   - other statements that touch device memory run in a single-thread
//     kernel (correct, slow; the primal warns);
//   - allocation, copies and communication on device buffers call
//     libmpiad_gpu (runtime/gpu/include/mpiad_gpu.h).
// Anything else that touches device memory is a located error.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_CUDA_H
#define MPIAD_CUDA_H

#include "Frontend.h"
#include "IR.h"
#include <set>
#include <string>
#include <vector>

namespace mpiad {

class CudaLowering {
public:
  /// `prefix` names the kernels (`<prefix>_k0`, ...); `what` says which
  /// function they belong to in comments ("primal", "adjoint", "tangent").
  /// `warnSerial`: warn where a statement runs in a single-thread kernel.
  CudaLowering(Diag &diag, std::string prefix, std::string what,
               bool warnSerial)
      : diag_(diag), prefix_(std::move(prefix)), what_(std::move(what)),
        warnSerial_(warnSerial) {}

  /// Where errors about generated statements (which have no location of
  /// their own) point: the function.
  void setFallbackLocation(clang::SourceLocation l) { fallback_ = l; }
  /// Rewrites the blocks (all the blocks of one host function, in order)
  /// in place.  False after an error.
  bool lower(const std::vector<Block *> &blocks);
  /// The kernels and launchers, to print before the host function.
  const std::string &kernels() const { return kernels_; }
  /// A declaration of a host function with a libmpiad_gpu equivalent
  /// (`mpiad_batch b;` -> `mpiad_gpu_batch b;`).
  static std::string deviceDecl(const std::string &decl);

private:
  struct Region;
  bool lowerBlock(Block &b);
  bool outline(Block &b, size_t first, size_t last, bool parallel);
  bool rewriteHostCalls(StmtP &s);
  bool rewriteComm(StmtP &s);

  Diag &diag_;
  std::string prefix_, what_;
  bool warnSerial_;
  std::string kernels_;
  int count_ = 0;
  std::vector<Block *> all_;       // every block of the function
  std::set<const Stmt *> pending_; // parallel loops not outlined yet
  clang::SourceLocation fallback_;
  clang::SourceLocation at(clang::SourceLocation l) const {
    return l.isValid() ? l : fallback_;
  }
};

} // namespace mpiad

#endif
