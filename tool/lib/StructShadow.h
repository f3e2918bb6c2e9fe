//===- StructShadow.h - Clause paths into structs and their deep shadows --===//
//
// Simulation codes keep their state behind pointer fields (CoMD's
// `s->atoms->r`).  A clause names such data by its path from a struct
// parameter, `wrt(s->atoms->r[LEN])`; F_b takes `S *s_b`, a shadow of the
// same shape whose same path holds the adjoint.  This stage checks the
// paths against the function (each names float or double data the
// function reaches through fields, from a struct parameter) and writes
// F_s_shadow_new(const S *s) / F_s_shadow_free(S *s_b), which build that
// shadow zeroed, sharing nothing with `s`, when every path has a length.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_STRUCTSHADOW_H
#define MPIAD_STRUCTSHADOW_H

#include "IR.h"
#include <functional>
#include <string>

namespace mpiad {

class Diag;

/// Checks the clauses' paths: the root a struct parameter (one struct, by
/// pointer or by value), the path one the function reads or writes, a
/// length written with the root's fields and the file's constants
/// (`constant` checks any other name, with an error of its own).  False
/// after an error.
bool checkClausePaths(
    const Function &F, const Annotation &ann, Diag &diag,
    const std::function<bool(const std::pair<std::string, clang::SourceLocation> &,
                             const std::string &)> &constant);

/// After inlining, before the analyses: data behind the pointer fields of
/// a struct that no clause names (a parameter block, a struct local) is
/// read as before, an opaque load whose checks say where it may alias a
/// differentiated array; the views of a struct the clauses name stay, and
/// each path must name one of them (else an error at the path, when
/// `checkPaths`: after the inlining that may bring the views).  Run before
/// the clause checks, and again after inlining.  False after an error.
bool resolveClausePaths(Function &F, const Annotation &ann, Diag &diag,
                        bool checkPaths);

/// Does a clause name a path from the parameter `name`
/// (so its wrt/output type checks are the paths')?
bool hasClausePath(const Annotation &ann, const std::string &name);

/// The names wrt(...) (wrt true) or output(...) lists, paths as written
/// ("x, s->atoms->r"), for F_b's header comment; "(none)" if empty.
std::string clauseNames(const Annotation &ann, bool wrt);

/// The deep shadows' constructors and destructors of F_b (`prefix` is the
/// name F_s_shadow_new starts with): their C text, appended to `text`, and
/// their prototypes, appended to `prototypes`; `comment` gets the lines of
/// F_b's header comment that say how to build `s_b`.
void addStructShadows(const Function &F, const Annotation &ann,
                      const std::string &prefix, std::string &text,
                      std::string &prototypes, std::string &comment);

} // namespace mpiad

#endif
