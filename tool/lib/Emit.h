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

#include "Frontend.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <utility>
#include <vector>

namespace mpiad {

/// Lines [first, last] (1-based) of the rendered source that hold the code
/// generated for one marked function, and where that function is in the
/// user's file ("f.c:12:8").  The driver maps the C compiler's errors in
/// generated code back to the user's source with them.
struct GeneratedRegion {
  unsigned first = 0, last = 0;
  std::string function; // the marked function's name
  std::string userLoc;
};

struct EmitResult {
  /// The rewritten file, with a marker line wherever renderSource() puts a
  /// `#line` directive (or nothing): read it through renderSource().
  std::string marked;
  std::string header;     // prototypes of the generated functions
  int functions = 0;      // number of marked functions
  int pragmas = 0;        // `#pragma mpiad` lines in the main file
  bool cuda = false;      // source is CUDA C++ (--target=cuda)
  /// Each generated text and its marked function (renderSource() finds
  /// their lines for `regions`).
  std::vector<std::pair<std::string, GeneratedRegion>> pieces;
  std::vector<GeneratedRegion> regions; // filled by renderSource()
};

/// Where mpiad's includes go in the parsed text (addPreamble).
struct Preamble {
  size_t headLength = 0; // bytes of the first line, `#line 1 "NAME"`
  size_t offset = 0;   // byte offset of the includes in the parsed text
  size_t length = 0;   // bytes of the inserted lines
  unsigned line = 1;   // the user's line that follows them
};

/// The text mpiad-cc parses (and rewrites) for the user's `text`: mpiad's
/// includes (mpiad.h, stdlib.h, string.h) go after the leading comments,
/// blank lines and macro definitions, and so after feature-test macros such
/// as _GNU_SOURCE or _POSIX_C_SOURCE, which must precede every header:
/// before the first `#include`, `#pragma`, other directive or declaration
/// (outside conditionals: a leading `#ifndef` block that includes a header
/// gets them before it).  `#line` directives, first and after them, keep the
/// numbers of the user's lines and name the file `name` (as the user spelled
/// it, as the compiler names it).
/// `name` as a C string literal (for `#line` directives).
std::string quoted(const std::string &name);

std::string addPreamble(llvm::StringRef text, const std::string &name,
                        Preamble &where);

struct EmitOptions {
  bool cuda = false;       // --target=cuda
  bool verify = false;     // --verify (the read verifier)
  Preamble preamble;       // where addPreamble() put the includes
  WarningPolicy warnings;  // -w, -Werror, -Wno-mpiad-NAME
};

/// A FrontendActionFactory whose actions fill `result` for the main file,
/// which must be the text addPreamble() returned.
std::unique_ptr<clang::tooling::FrontendActionFactory>
makeEmitFactory(const std::vector<std::string> &ruleFiles, EmitResult &result,
                bool &ok, const EmitOptions &options);

/// The generated C of `r`, and r.regions for it.  With `lineDirectives`,
/// `#line` directives name `userFile` (spelled as the user gave it) on the
/// user's lines, so that diagnostics, __FILE__, __LINE__ and debug line
/// tables of the user's code name the user's file and line; the lines
/// mpiad-cc wrote (its includes, the generated functions) are attributed to
/// `genFile` itself, at their own line numbers there, so that the compiler's
/// messages on them still name the generated file (where the driver tells
/// them from errors in the user's code).  Without, the file reads as plain
/// C (--emit-source).
std::string renderSource(EmitResult &r, bool lineDirectives,
                         const std::string &userFile,
                         const std::string &genFile);

} // namespace mpiad

#endif
