//===- GlobalHeap.h - Global pointers to heap arrays the file allocates ---===//
//
// Mini-apps keep their state in global pointers allocated once at start-up
// (miniWeather's `state = malloc(...)` in init()).  Such a pointer gets a
// file-scope shadow when the file shows where it points: every assignment
// of it in the file allocates, with one size, written with file-scope
// names only, and its address is never taken.  It then points to memory of
// its own, which no parameter can alias, and the size tells the generated
// F_shadows_new() how much to allocate.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_GLOBALHEAP_H
#define MPIAD_GLOBALHEAP_H

#include "clang/AST/ASTContext.h"
#include <map>
#include <string>

namespace mpiad {

/// What the file says about one global pointer to float/double.
struct GlobalAllocation {
  bool owned = false;  // every assignment allocates, one size, address not taken
  std::string bytes;   // the size in bytes, as C text over file-scope names
  std::string why;     // when not owned: what the file does instead
  clang::SourceLocation at; // where it does it
};

/// Every file-scope pointer to float or double of the translation unit, by
/// name.
std::map<std::string, GlobalAllocation> findGlobalAllocations(
    clang::ASTContext &ctx);

} // namespace mpiad

#endif
