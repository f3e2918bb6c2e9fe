//===- Outline.h - A differentiated block becomes a function --------------===//
//
// `#pragma mpiad differentiate ...` in front of a compound statement `{ ... }`
// inside a function (main included) outlines the block before anything else
// happens: the block becomes a static function of its own, placed before the
// enclosing function and marked with the same pragmas, and the block is
// replaced by a call to it.  The variables of the enclosing function that the
// block uses become its parameters, in the order of their first use: arrays
// as arrays, variables the block assigns (or takes the address of) by
// pointer, the others by value.  The rest of the pipeline then sees a marked
// function like any other.  `#line` directives keep the user's line numbers.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_OUTLINE_H
#define MPIAD_OUTLINE_H

#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <string>

namespace mpiad {

/// Whether `text` may hold a differentiate pragma in front of a block: a
/// textual test, so that files without one are parsed only once.
bool mayHaveBlockPragma(llvm::StringRef text);

/// The action that outlines the blocks of the main file.  `path` names the
/// file in the `#line` directives; `out` receives the rewritten text (the
/// text unchanged when nothing is outlined); `ok` turns false on an error,
/// which is reported located.
std::unique_ptr<clang::tooling::FrontendActionFactory>
makeOutlineFactory(const std::string &path, std::string &out, bool &ok);

} // namespace mpiad

#endif
