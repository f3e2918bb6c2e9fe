//===- Includes.cpp - The headers the user's file includes itself ---------===//
#include "Includes.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace clang;

namespace mpiad {

namespace {

class Recorder : public PPCallbacks {
public:
  Recorder(SourceManager &SM, IncludeGraph &g) : SM(SM), g(g) {}

  void InclusionDirective(SourceLocation hash, const Token &, StringRef name,
                          bool, CharSourceRange, OptionalFileEntryRef file,
                          StringRef, StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind) override {
    if (!file)
      return;
    FileID fid = SM.getFileID(hash);
    OptionalFileEntryRef parent = SM.getFileEntryRefForID(fid);
    IncludeGraph::Edge e;
    e.parent = parent ? parent->getName().str() : "";
    e.child = file->getName().str();
    e.spelled = name.str();
    if (fid == SM.getMainFileID()) {
      unsigned off = SM.getFileOffset(hash);
      e.ours = off >= g.preambleBegin && off < g.preambleEnd;
    }
    g.edges.push_back(e);
  }

private:
  SourceManager &SM;
  IncludeGraph &g;
};

/// The declarations a use refers to: variables, functions, enumerators,
/// typedef names and tags.
class Uses : public RecursiveASTVisitor<Uses> {
public:
  std::vector<std::pair<const NamedDecl *, SourceLocation>> uses;
  bool VisitDeclRefExpr(DeclRefExpr *e) {
    uses.push_back({e->getDecl(), e->getLocation()});
    return true;
  }
  bool VisitTypedefTypeLoc(TypedefTypeLoc t) {
    uses.push_back({t.getTypedefNameDecl(), t.getNameLoc()});
    return true;
  }
  bool VisitTagTypeLoc(TagTypeLoc t) {
    uses.push_back({t.getDecl(), t.getNameLoc()});
    return true;
  }
};

} // namespace

std::unique_ptr<PPCallbacks> makeIncludeRecorder(SourceManager &SM,
                                                 IncludeGraph &g) {
  return std::make_unique<Recorder>(SM, g);
}

void checkOwnIncludes(ASTContext &ctx, const std::vector<Decl *> &decls,
                      const IncludeGraph &g, Diag &diag) {
  SourceManager &SM = ctx.getSourceManager();
  OptionalFileEntryRef mainEntry = SM.getFileEntryRefForID(SM.getMainFileID());
  std::string main = mainEntry ? mainEntry->getName().str() : "";
  // The files the user's own #include lines reach, and for the others the
  // header of mpiad's include chain that brings them (<mpi.h>, <stdlib.h>).
  std::set<std::string> reached = {main};
  for (bool grew = true; grew;) {
    grew = false;
    for (const IncludeGraph::Edge &e : g.edges)
      if (!e.ours && reached.count(e.parent) && reached.insert(e.child).second)
        grew = true;
  }
  std::map<std::string, std::string> via; // file -> header to include
  std::set<std::string> mpiadHeaders;
  for (const IncludeGraph::Edge &e : g.edges)
    if (e.ours) {
      via[e.child] = e.spelled;
      if (llvm::sys::path::filename(e.child) == "mpiad.h")
        mpiadHeaders.insert(e.child);
    }
  for (bool grew = true; grew;) {
    grew = false;
    for (const IncludeGraph::Edge &e : g.edges) {
      if (e.ours || via.count(e.child) || !via.count(e.parent))
        continue;
      // Below mpiad.h, name the header mpiad.h includes (<mpi.h>).
      via[e.child] = mpiadHeaders.count(e.parent) ? e.spelled : via[e.parent];
      grew = true;
    }
  }
  Uses u;
  for (Decl *d : decls)
    u.TraverseDecl(d);
  std::set<std::string> reported;
  for (const auto &[d, loc] : u.uses) {
    SourceLocation use = SM.getExpansionLoc(loc);
    if (!SM.isInMainFile(use))
      continue;
    // A declaration that a header the user includes repeats is theirs
    // (`va_list` from <stdarg.h>, which <stdio.h> declares again when
    // mpiad's includes come after the user's).
    std::string header;
    bool own = false;
    for (const Decl *r : d->redecls()) {
      SourceLocation at = SM.getExpansionLoc(r->getLocation());
      OptionalFileEntryRef f = SM.getFileEntryRefForID(SM.getFileID(at));
      if (!f) {
        own = true;
        break;
      }
      std::string file = f->getName().str();
      if (reached.count(file) || mpiadHeaders.count(file) || !via.count(file)) {
        own = true;
        break;
      }
      if (header.empty())
        header = via[file];
    }
    if (own || header.empty())
      continue;
    if (!reported.insert(header).second)
      continue;
    diag.error(use, "'" + d->getNameAsString() + "' is declared in <" +
                        header +
                        ">, which this file does not include: add #include <" +
                        header + "> (the file must compile on its own, as "
                                 "with mpicc)");
  }
}

} // namespace mpiad
