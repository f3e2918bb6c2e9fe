//===- Pragma.h - Records `#pragma mpiad ...` annotations while parsing ---===//
//
// The handler only parses and records; later stages attach each record to
// the function or loop that follows it.  Malformed pragmas are reported at
// the offending token with PP.Diag.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_PRAGMA_H
#define MPIAD_PRAGMA_H

#include "IR.h"
#include "clang/Lex/Pragma.h"
#include <vector>

namespace mpiad {

struct PragmaRecord {
  enum Kind { Differentiate, Parallel, Checkpoint, Inactive } kind;
  clang::SourceLocation loc;      // the '#' of the pragma
  clang::SourceLocation startLoc; // the 'mpiad' token
  Annotation ann;                 // Differentiate
  std::vector<std::pair<std::string, clang::SourceLocation>> names; // Inactive
  std::string snapshots; // Checkpoint: K of snapshots=K, empty by default
  bool valid = true;
};

class MpiadPragmaHandler : public clang::PragmaHandler {
public:
  explicit MpiadPragmaHandler(std::vector<PragmaRecord> &out)
      : clang::PragmaHandler("mpiad"), records_(out) {}
  void HandlePragma(clang::Preprocessor &PP, clang::PragmaIntroducer intro,
                    clang::Token &tok) override;

private:
  std::vector<PragmaRecord> &records_;
};

} // namespace mpiad

#endif
