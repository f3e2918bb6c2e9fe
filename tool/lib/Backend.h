//===- Backend.h - Printing IR as readable C ------------------------------===//
//
// Stage 4 of the pipeline.  Keeps the user's names and operator spelling,
// parenthesises by C precedence, indents two spaces (LLVM style).
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_BACKEND_H
#define MPIAD_BACKEND_H

#include "IR.h"
#include <map>
#include <string>

namespace mpiad {

std::string printExpr(const ExprP &e);
/// A declaration `T name[dims]` (without ';'); `dropConst` for shadows.
std::string printDecl(const Var &v, bool dropConst = false);
/// The type of v as a cast / parameter type, e.g. "const double *".
std::string printType(const CType &t, bool dropConst = false);
void printBlock(const Block &b, int indent, std::string &out);
/// `t` (C source text) with each identifier in `ren` replaced, except in
/// string and character literals and after `.` or `->`.
std::string renameIdentifiers(const std::string &t,
                              const std::map<std::string, std::string> &ren);

} // namespace mpiad

#endif
