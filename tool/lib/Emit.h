//===- Emit.h - One translation unit in, generated C out ------------------===//
//
// Ties the stages together for one file: parse with Clang (recording
// pragmas), attach each `#pragma mpiad differentiate` to the function that
// follows it, generate the adjoints, and splice them into the source right
// after their primal functions.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_EMIT_H
#define MPIAD_EMIT_H

#include "clang/Tooling/Tooling.h"
#include <string>
#include <vector>

namespace mpiad {

/// Lines [first, last] (1-based) of EmitResult::source that hold the code
/// generated for one marked function, and where that function is in the
/// user's file ("f.c:12:8").  The driver maps the C compiler's errors in
/// generated code back to the user's source with them.
struct GeneratedRegion {
  unsigned first = 0, last = 0;
  std::string function; // the marked function's name
  std::string userLoc;
};

struct EmitResult {
  std::string source;     // the rewritten file
  std::string header;     // prototypes of the generated functions
  int functions = 0;      // number of marked functions
  bool cuda = false;      // source is CUDA C++ (--target=cuda)
  std::vector<GeneratedRegion> regions;
};

/// A FrontendActionFactory whose actions fill `result` for the main file.
std::unique_ptr<clang::tooling::FrontendActionFactory>
makeEmitFactory(const std::vector<std::string> &ruleFiles, EmitResult &result,
                bool &ok, bool cuda = false);

} // namespace mpiad

#endif
