//===- Reverse.h - Reverse mode: adjoint functions from the IR ------------===//
//
// Stage 3 of the pipeline.  A Module generates, for one translation unit,
// the adjoint of every marked function and the split forward/reverse helpers
// of the callees they need (one specialisation per activity pattern).
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_REVERSE_H
#define MPIAD_REVERSE_H

#include "Analysis.h"
#include "Frontend.h"
#include "Rules.h"
#include <map>
#include <string>

namespace mpiad {

struct Generated {
  std::string text;      // helpers + the adjoint function, C source
  std::string prototype; // "double loss_b(...);"
};

class Module {
public:
  Module(Frontend &fe, const RuleSet &rules, Diag &diag,
         std::set<std::string> tuNames, std::set<std::string> defined)
      : fe_(fe), rules_(rules), diag_(diag), names_(std::move(tuNames)) {
    defined_ = std::move(defined);
  }

  /// Adjoint of a marked function.  False after an error.
  bool generate(const clang::FunctionDecl *fd, const Annotation &ann,
                Generated &out);
  /// One run of the adjoint's pipeline, with the unclassified inputs in
  /// `assume` taken as replicated and the others as varying.
  bool generateOnce(const clang::FunctionDecl *fd, const Annotation &ann,
                    const std::set<std::string> &assume, Generated &out);
  /// The adjoint's text (without its header comment) under an assumption,
  /// reporting nothing and leaving the module as it was; "<error>" when the
  /// run fails.
  std::string trialText(const clang::FunctionDecl *fd, const Annotation &ann,
                        const std::set<std::string> &assume);
  bool trial_ = false; // inside trialText
  /// The MPIAD_CHECK=1 verification of the replicated inputs, or null.
  StmtP replicationCheck(Function &F, const Annotation &ann, const Request &R,
                         const std::string &arrayName);
  /// Tangent (forward mode) of a marked function (Forward.cpp).
  bool generateForward(const clang::FunctionDecl *fd, const Annotation &ann,
                       Generated &out);
  /// Name of the tangent helper of `callee` for an activity pattern.
  const std::string *tangentCallee(const std::string &name,
                                   const std::vector<bool> &activeParams,
                                   bool activeReturn, clang::SourceLocation loc);
  /// Checks the pragma's clauses against the function; false on error.
  bool checkClauses(Function &F, const Annotation &ann);
  /// `kind`: "shadows" (F_b's, F_shadows_new) or "tangents" (F_d's,
  /// F_tangents_new).
  void addShadowsNew(Generated &out, const std::string &fn,
                     const std::string &adjoint,
                     const std::vector<std::pair<Var *, Var *>> &shadows,
                     const std::string &kind = "shadows");
  void notAParameter(const Function &F, const std::string &name,
                     const std::string &clause, clang::SourceLocation at);
  bool lengthName(Function &F,
                  const std::pair<std::string, clang::SourceLocation> &n,
                  const std::string &clause);
  ExprP scratchLength(Function &F, const Annotation &ann, Var *p);
  ExprP zeroedAlloc(const ExprP &len, const std::string &elem,
                    const std::string &fn, const std::string &var,
                    const std::string &comm);
  /// Gives every variable of F a unique printed name.
  void nameVariables(Function &F);
  /// Key of one specialisation of a callee: name and activity pattern.
  static std::string specializationKey(const std::string &name,
                                       const std::vector<bool> &activeParams,
                                       bool activeReturn);
  /// "a, b" from a pragma clause, "(none)" when empty.
  static std::string clauseList(
      const std::vector<std::pair<std::string, clang::SourceLocation>> &l);
  /// Emits a generated top-level function after the pending callee helpers
  /// and keeps its IR alive.
  void finishFunction(Generated &out, const std::string &head,
                      const std::string &sig, const std::string &body,
                      std::unique_ptr<Function> owned);
  /// The primal of a marked function for the GPU (--target=cuda, Cuda.cpp).
  bool generatePrimalCuda(const clang::FunctionDecl *fd, Generated &out);
  bool cuda = false; // --target=cuda: pointers are device pointers
  /// --verify: the read verifier (Verify.cpp); the optimisations that move
  /// a statement's adjoint away from its place are off.
  bool verify = false;
  std::set<std::string> defined_; // names the file defines (not declares)
  std::string pendingHelpers_;
  std::vector<std::unique_ptr<Function>> owned_;

  struct CalleeNames {
    std::string key; // the specialisation (callees_'s key)
    std::string fwd, rev;
    /// Per parameter: does the reverse helper read the data it points to?
    std::vector<bool> readsData;
    /// Per parameter: does the forward helper take its shadow too (after
    /// it)?  So it does when its forward sweep sets a local pointer's shadow
    /// from the parameter's (`q = b + 1; q_b = b_b + 1;`).
    std::vector<bool> fwdShadows;
    std::string text;              // the C source of both helpers
    std::vector<std::string> uses; // keys of the helpers they call
    bool emitted = false;
  };
  /// One call's specialisation: which arguments carry derivatives, which
  /// pointed-to data the helper must restore (Request::restoreParams), and
  /// which arguments are the same pointer (Request::sameAs).
  struct CallPattern {
    std::vector<bool> active;
    bool activeReturn = false;
    std::vector<bool> restore;
    std::vector<int> sameAs;
  };
  /// Names of the split helpers of `callee` for a call pattern, generating
  /// them on first request.  Their text reaches the output only through
  /// emitCallee (a dry run's request may never be used).
  const CalleeNames *callee(const std::string &name, const CallPattern &pat,
                            clang::SourceLocation loc);
  /// Appends the helpers of a specialisation, after those they call, to
  /// pendingHelpers_ (once per file).
  void emitCallee(const std::string &key);

  std::string uniqueName(const std::string &want);
  /// The name of the file-scope shadow (suffix "_b") or tangent ("_d") of
  /// the global `global`: `u_b`, the same in every generated function.
  std::string globalShadow(const std::string &global,
                           const std::string &suffix);
  /// The lines of a generated function's header comment that list the
  /// active globals of F and their shadows ("adjoints" or "tangents"), or
  /// "" when there are none.
  std::string globalsComment(const Function &F, const std::string &suffix,
                             const std::string &what,
                             const std::string &adjoint = "");
  /// A variable of F for that shadow (kind Global, the global's type);
  /// `report`: a local of F with its name is an error.
  Var *globalShadowVar(Function &F, Var *g, const std::string &suffix,
                       bool report);
  const std::set<std::string> &globalNames() const { return names_; }

  Frontend &fe_;
  const RuleSet &rules_;
  Diag &diag_;

private:
  std::set<std::string> names_;
  std::map<std::string, std::string> globalShadows_; // "u_b" -> its name
  /// File-scope float/double scalars and fixed arrays that some pragma of
  /// the file names in wrt(...) or output(...): their shadows are the
  /// caller's (not static, in --emit-header), the same in every generated
  /// function of the file (exposeGlobal, from the pragmas, before any).
  std::set<std::string> exposedGlobals_;
  /// Those of them with external linkage: their shadows are declared
  /// without `static` (a `static` global's shadow stays in its file).
  std::set<std::string> externalShadows_;

public:
  void exposeGlobal(const std::string &name, bool external) {
    exposedGlobals_.insert(name);
    if (external)
      externalShadows_.insert(name);
  }
  const std::set<std::string> &exposedGlobals() const {
    return exposedGlobals_;
  }

private:
  std::map<std::string, CalleeNames> callees_;
  std::map<std::string, std::string> tangentCallees_;
};

} // namespace mpiad

#endif
