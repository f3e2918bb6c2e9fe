//===- Frontend.h - Lowering marked C functions from the Clang AST to IR --===//
//
// Stage 1 of the pipeline.  Every construct is either lowered faithfully or
// reported as a located error; nothing is dropped silently.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_FRONTEND_H
#define MPIAD_FRONTEND_H

#include "GlobalHeap.h"
#include "IR.h"
#include "Pragma.h"
#include "Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include <map>
#include <set>

namespace mpiad {

/// The deepest expression (nested Clang AST expression nodes) the frontend
/// lowers; deeper ones are a located error.  The stages after it recurse once
/// per level, on the driver's 1 GiB stack (tool/main.cpp): a sum of 200,000
/// terms still works, so this leaves a wide margin.
constexpr unsigned kMaxExprDepth = 100000;

/// What the compiler switches say about mpiad's own warnings: `-w` silences
/// them, `-Werror` makes them errors, `-Wno-mpiad-NAME` silences one,
/// `-Werror=mpiad-NAME` makes one an error (docs/errors.md lists the names).
struct WarningPolicy {
  bool none = false;  // -w
  bool error = false; // -Werror (undone by -Wno-error)
  std::set<std::string> disabled;  // -Wno-mpiad-NAME
  std::set<std::string> errors;    // -Werror=mpiad-NAME
  std::set<std::string> noErrors;  // -Wno-error=mpiad-NAME
};

/// Reports errors and warnings through Clang's DiagnosticsEngine, so they
/// carry file:line:col and follow -fcolor settings.  Clang cannot map custom
/// diagnostics, so mpiad's warnings follow the WarningPolicy here.
class Diag {
public:
  explicit Diag(clang::DiagnosticsEngine &d) : diags_(d) {}
  void setPolicy(const WarningPolicy &p) { policy_ = p; }
  void error(clang::SourceLocation loc, const std::string &msg);
  /// A warning named `name` (printed as [-Wmpiad-NAME]).
  void warning(clang::SourceLocation loc, const std::string &name,
               const std::string &msg);
  void note(clang::SourceLocation loc, const std::string &msg);
  bool hasErrors() const { return errors_ > 0; }
  /// "file:line" of loc as the user wrote it (#line honoured), for
  /// messages of the generated code at run time.
  std::string where(clang::SourceLocation loc) const;

  /// While one lives, nothing is reported; errors count from zero until it
  /// ends, and then the count is as before (trial runs of the pipeline).
  class Quiet {
  public:
    explicit Quiet(Diag &d) : d_(d), errors_(d.errors_), was_(d.quiet_) {
      d.quiet_ = true;
      d.errors_ = 0;
    }
    ~Quiet() {
      d_.errors_ = errors_;
      d_.quiet_ = was_;
    }
    Quiet(const Quiet &) = delete;
    Quiet &operator=(const Quiet &) = delete;

  private:
    Diag &d_;
    int errors_;
    bool was_;
  };

  /// While one lives, hasErrors() counts only the errors reported since it
  /// began (one function's pipeline); afterwards they add to the total.
  class Scope {
  public:
    explicit Scope(Diag &d) : d_(d), before_(d.errors_) { d.errors_ = 0; }
    ~Scope() { d_.errors_ += before_; }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    Diag &d_;
    int before_;
  };

private:
  clang::DiagnosticsEngine &diags_;
  WarningPolicy policy_;
  int errors_ = 0;
  bool quiet_ = false;
  std::set<std::pair<unsigned, std::string>> reported_; // errors printed
};

/// Lowers functions on demand; callees are lowered when first called.
class Frontend {
public:
  Frontend(clang::ASTContext &ctx, const RuleSet &rules, Diag &diag,
           const std::vector<PragmaRecord> &pragmas)
      : ctx_(ctx), rules_(rules), diag_(diag), pragmas_(pragmas) {}

  /// Lowers `fd` (and records its callees).  Returns null after an error.
  Function *lower(const clang::FunctionDecl *fd);
  /// The lowered function for a user callee named `name`, or null.
  Function *callee(const std::string &name) const {
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : it->second;
  }
  const RuleSet *rules() const { return &rules_; }
  clang::ASTContext &context() const { return ctx_; }
  /// What the file says about the global pointer to float/double `name`
  /// (GlobalHeap.cpp); null for any other name.
  const GlobalAllocation *globalAllocation(const std::string &name) const {
    if (!globalsScanned_) {
      globalAllocs_ = findGlobalAllocations(ctx_);
      globalsScanned_ = true;
    }
    auto it = globalAllocs_.find(name);
    return it == globalAllocs_.end() ? nullptr : &it->second;
  }
  /// A global pointer the file allocates, which gets a shadow.
  bool ownedGlobal(const Var *v) const {
    if (v->kind != Var::Global || v->type.ptrDepth != 1 ||
        !v->type.dims.empty())
      return false;
    const GlobalAllocation *a = globalAllocation(v->userName);
    return a && a->owned;
  }
  /// A fresh, uncached lowering of `fd`: each differentiation request owns
  /// its copy, since the analyses annotate the IR.
  std::unique_ptr<Function> lowerCopy(const clang::FunctionDecl *fd);
  /// Checkpoint pragmas attached to a loop of some lowered function.
  bool checkpointUsed(clang::SourceLocation pragmaLoc) const {
    return checkpointsUsed_.count(pragmaLoc.getRawEncoding()) > 0;
  }
  const clang::FunctionDecl *decl(const Function *f) const {
    auto it = decls_.find(f);
    return it == decls_.end() ? nullptr : it->second;
  }

private:
  clang::ASTContext &ctx_;
  mutable std::map<std::string, GlobalAllocation> globalAllocs_;
  mutable bool globalsScanned_ = false;
  const RuleSet &rules_;
  Diag &diag_;
  const std::vector<PragmaRecord> &pragmas_;
  std::map<const clang::FunctionDecl *, std::unique_ptr<Function>> done_;
  std::map<std::string, Function *> byName_;
  std::map<const Function *, const clang::FunctionDecl *> decls_;
  std::vector<const clang::FunctionDecl *> inProgress_;
  std::set<unsigned> checkpointsUsed_;
  friend class Lowering;
};

CType convertType(clang::QualType t, const clang::ASTContext &ctx);

} // namespace mpiad

#endif
