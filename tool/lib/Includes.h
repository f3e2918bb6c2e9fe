//===- Includes.h - The headers the user's file includes itself -----------===//
//
// mpiad-cc parses a marked file with its own includes added (mpiad.h, which
// brings <mpi.h>, and <stdlib.h>, <string.h>; see addPreamble).  A file that
// uses MPI_Allreduce or malloc without including their headers would then
// be accepted here, yet it is not C that a compiler takes on its own.  The
// include graph recorded while parsing tells which headers the user's own
// #include lines reach; a use of a declaration from a header that only
// mpiad's includes reach is the error a compiler would give, at the use.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_INCLUDES_H
#define MPIAD_INCLUDES_H

#include "Frontend.h"
#include "clang/AST/ASTContext.h"
#include "clang/Lex/PPCallbacks.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mpiad {

/// Every #include seen while parsing: the including file, the included
/// file, the name as written, and whether the directive is one of mpiad's
/// (in the main file, between `preambleBegin` and `preambleEnd`).
struct IncludeGraph {
  struct Edge {
    std::string parent, child, spelled;
    bool ours = false;
  };
  std::vector<Edge> edges;
  unsigned preambleBegin = 0, preambleEnd = 0; // offsets in the main file
};

/// The callbacks that fill `g` (give them to the Preprocessor).
std::unique_ptr<clang::PPCallbacks>
makeIncludeRecorder(clang::SourceManager &SM, IncludeGraph &g);

/// Reports, at its first use in `decls`, each declaration of a header that
/// only mpiad's includes reach (mpiad.h's own declarations excepted).
void checkOwnIncludes(clang::ASTContext &ctx,
                      const std::vector<clang::Decl *> &decls,
                      const IncludeGraph &g, Diag &diag);

} // namespace mpiad

#endif
