//===- Emit.cpp - Parse, attach pragmas, generate, splice -----------------===//
#include "Emit.h"
#include "Frontend.h"
#include "Includes.h"
#include "Pragma.h"
#include "Reverse.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include <algorithm>
#include <cctype>
#include <sys/stat.h>

using namespace clang;

namespace mpiad {

namespace {

/// Marker lines in EmitResult::marked, replaced by renderSource(): the next
/// line is the user's line N ("...user N"), or one mpiad-cc wrote ("...gen").
/// A line of C source cannot begin with the control character.
const char kMarkUser[] = "\x01mpiad-line-user ";
const char kMarkGen[] = "\x01mpiad-line-gen\n";

std::string markUser(unsigned line) {
  return kMarkUser + std::to_string(line) + "\n";
}

const char kIncludes[] =
    "#include \"mpiad.h\"\n#include <stdlib.h>\n#include <string.h>\n";

/// Is `gen` free for the function generated for `pr`?  Not main, nor a name
/// the C library, MPI or mpiad's runtime owns, nor one defined in the
/// translation unit or declared in a system header, nor one generated twice.
/// A prototype of the generated function, in the file or in the user's own
/// header, is fine: the C compiler checks it against the definition.
bool checkGeneratedName(ASTContext &ctx, SourceManager &SM,
                        const std::string &gen, const PragmaRecord &pr,
                        const std::map<std::string, SourceLocation> &seen,
                        Diag &diag) {
  auto refuse = [&](const std::string &why) {
    diag.error(pr.startLoc, "cannot name the generated function '" + gen +
                                "': " + why +
                                "; choose another name with name(...)");
    return false;
  };
  if (gen == "main")
    return refuse("'main' is the program's entry point");
  for (const char *prefix : {"MPI_", "PMPI_", "mpiad_", "nccl", "cuda", "__"})
    if (gen.rfind(prefix, 0) == 0)
      return refuse(std::string("names beginning with '") + prefix +
                    "' belong to MPI, NCCL, CUDA, mpiad or the compiler");
  if (seen.count(gen))
    return refuse("another '#pragma mpiad differentiate' in this file "
                  "generates a function of that name");
  IdentifierInfo &id = ctx.Idents.get(gen);
  if (id.getBuiltinID())
    return refuse("it is a function of the C library or a compiler builtin");
  for (NamedDecl *nd : ctx.getTranslationUnitDecl()->lookup(&id)) {
    auto *fd = dyn_cast<FunctionDecl>(nd);
    if (!fd)
      return refuse("it is already declared here as something other than a "
                    "function");
    for (FunctionDecl *r : fd->redecls()) {
      if (r->isImplicit())
        continue; // called before the generated definition: fine
      if (r->doesThisDeclarationHaveABody())
        return refuse(
            "a function of that name is already defined in this file");
      if (SM.isInSystemHeader(SM.getExpansionLoc(r->getLocation())))
        return refuse("a function of that name is declared in a system "
                      "header");
    }
  }
  return true;
}

/// The functions declared implicitly (called without a declaration), each
/// with its first use, in the order of first use.
struct ImplicitCalls : RecursiveASTVisitor<ImplicitCalls> {
  std::vector<std::pair<const FunctionDecl *, SourceLocation>> first;
  std::set<const FunctionDecl *> seen;
  bool VisitDeclRefExpr(DeclRefExpr *e) {
    auto *fd = dyn_cast<FunctionDecl>(e->getDecl());
    if (fd && fd->isImplicit() && fd->getIdentifier() && seen.insert(fd).second)
      first.push_back({fd, e->getBeginLoc()});
    return true;
  }
};

/// The calls, in the main file, of functions declared implicitly whose
/// names are in `names`.
struct CallsOf : RecursiveASTVisitor<CallsOf> {
  const std::set<std::string> &names;
  std::vector<const CallExpr *> calls;
  explicit CallsOf(const std::set<std::string> &names) : names(names) {}
  bool VisitCallExpr(CallExpr *c) {
    const FunctionDecl *fd = c->getDirectCallee();
    if (fd && fd->isImplicit() && fd->getIdentifier() &&
        names.count(fd->getNameAsString()))
      calls.push_back(c);
    return true;
  }
};

/// Whether the value of `e` is used: it is not a statement of its own (in a
/// block, a branch, a loop's init or increment), nor cast to void, nor the
/// left operand of a comma.
bool valueUsed(ASTContext &ctx, const clang::Expr *e) {
  const clang::Stmt *cur = e;
  for (;;) {
    auto parents = ctx.getParents(*cur);
    if (parents.empty())
      return false;
    if (const auto *p = parents[0].get<clang::Expr>()) {
      if (isa<ParenExpr>(p) || isa<ImplicitCastExpr>(p)) {
        cur = p;
        continue;
      }
      if (const auto *c = dyn_cast<CastExpr>(p))
        return !c->getType()->isVoidType();
      if (const auto *b = dyn_cast<BinaryOperator>(p))
        if (b->getOpcode() == BO_Comma) {
          if (b->getLHS() == cur)
            return false;
          cur = p; // the comma's value is the call's
          continue;
        }
      return true;
    }
    if (const auto *s = parents[0].get<clang::Stmt>()) {
      if (const auto *f = dyn_cast<ForStmt>(s))
        return f->getCond() == cur;
      if (const auto *i = dyn_cast<IfStmt>(s))
        return i->getCond() == cur;
      if (const auto *w = dyn_cast<WhileStmt>(s))
        return w->getCond() == cur;
      if (const auto *d = dyn_cast<DoStmt>(s))
        return d->getCond() == cur;
      if (const auto *sw = dyn_cast<SwitchStmt>(s))
        return sw->getCond() == cur;
      return !(isa<CompoundStmt>(s) || isa<LabelStmt>(s) ||
               isa<SwitchCase>(s));
    }
    return true; // an initializer
  }
}

class Consumer : public ASTConsumer {
public:
  Consumer(CompilerInstance &ci, std::vector<PragmaRecord> &pragmas,
           const RuleSet &rules, EmitResult &result, bool &ok,
           const EmitOptions &options, const IncludeGraph &includes)
      : ci(ci), pragmas(pragmas), rules(rules), result(result), ok(ok),
        cuda(options.cuda), options(options), includes(includes) {}

  void HandleTranslationUnit(ASTContext &ctx) override {
    DiagnosticsEngine &de = ci.getDiagnostics();
    if (de.hasErrorOccurred()) {
      ok = false;
      return;
    }
    SourceManager &SM = ctx.getSourceManager();
    Diag diag(de);
    diag.setPolicy(options.warnings);
    for (const PragmaRecord &pr : pragmas)
      if (SM.isInMainFile(pr.loc))
        result.pragmas++;
    // The user's line number of a location (the parsed text's `#line`
    // directives, see addPreamble, keep the user's numbers).
    auto userLine = [&](SourceLocation loc) {
      return SM.getPresumedLoc(SM.getExpansionLoc(loc)).getLine();
    };
    Frontend fe(ctx, rules, diag, pragmas);

    // Top-level declarations of the main file, in order.
    std::vector<Decl *> decls;
    std::set<std::string> names, defined;
    for (Decl *d : ctx.getTranslationUnitDecl()->decls()) {
      if (auto *nd = dyn_cast<NamedDecl>(d)) {
        names.insert(nd->getNameAsString());
        auto *fd = dyn_cast<FunctionDecl>(d);
        if (!fd || fd->doesThisDeclarationHaveABody())
          defined.insert(nd->getNameAsString());
      }
      if (SM.isInMainFile(SM.getExpansionLoc(d->getBeginLoc())))
        decls.push_back(d);
    }
    // The function each differentiate pragma marks, and the name of what is
    // generated for it.
    auto markedBy = [&](const PragmaRecord &pr) -> FunctionDecl * {
      for (Decl *d : decls)
        if (SM.isBeforeInTranslationUnit(pr.loc, d->getBeginLoc())) {
          auto *fd = dyn_cast<FunctionDecl>(d);
          return fd && fd->doesThisDeclarationHaveABody() ? fd : nullptr;
        }
      return nullptr;
    };
    std::map<std::string, SourceLocation> generatedNames;
    for (const PragmaRecord &pr : pragmas) {
      if (pr.kind != PragmaRecord::Differentiate || !SM.isInMainFile(pr.loc))
        continue;
      FunctionDecl *fd = markedBy(pr);
      if (!fd)
        continue;
      std::string gen = !pr.ann.name.empty() ? pr.ann.name
                        : fd->getNameAsString() + (pr.ann.reverse ? "_b" : "_d");
      if (!checkGeneratedName(ctx, SM, gen, pr, generatedNames, diag))
        continue;
      generatedNames[gen] = pr.startLoc;
      // Paths into a struct parameter: F_s_shadow_new / F_s_shadow_free
      // (StructShadow.h), named after the function or the block's name.
      if (pr.ann.reverse)
        for (const ClausePath &c : pr.ann.paths)
          if (!c.path.empty())
            for (const std::string &f :
                 {fd->getNameAsString(), pr.ann.name})
              for (const char *what : {"_shadow_new", "_shadow_free"})
                if (!f.empty())
                  generatedNames[f + "_" + c.root + what] = pr.startLoc;
      // replicas(...): F_bv / F_dv as well.
      if (!pr.ann.replicas.empty() &&
          checkGeneratedName(ctx, SM, gen + "v", pr, generatedNames, diag))
        generatedNames[gen + "v"] = pr.startLoc;
    }
    // C99 has no implicit declarations.  The parse accepts them only so that
    // code after a marked function may call what is generated for it (the
    // generated definition comes right after the marked function); any other
    // call to an undeclared function is the error the C compiler would give.
    ImplicitCalls calls;
    for (Decl *d : decls)
      calls.TraverseDecl(d);
    for (const auto &[fd, use] : calls.first) {
      if (!SM.isInMainFile(SM.getExpansionLoc(use)))
        continue;
      std::string n = fd->getNameAsString();
      if (n.rfind("__", 0) == 0 || generatedNames.count(n))
        continue;
      if (fd->getBuiltinID())
        diag.error(use,
                   "call to undeclared library function '" + n +
                       "'; ISO C99 and later do not support implicit function "
                       "declarations: include its header (for example "
                       "<math.h>) or declare it");
      else
        diag.error(use,
                   "call to undeclared function '" + n +
                       "'; ISO C99 and later do not support implicit function "
                       "declarations: declare it before its use");
    }
    // Headers that only mpiad's includes bring (Includes.cpp).
    checkOwnIncludes(ctx, decls, includes, diag);
    if (diag.hasErrors()) {
      ok = false;
      return;
    }
    Rewriter rw(SM, ctx.getLangOpts());
    Module module(fe, rules, diag, names, defined);
    module.cuda = cuda;
    module.verify = options.verify;
    // Globals named in a clause (`output(te)`): their shadows are the
    // caller's in every function generated here.
    for (const PragmaRecord &pr : pragmas) {
      if (pr.kind != PragmaRecord::Differentiate || !SM.isInMainFile(pr.loc))
        continue;
      for (const auto *l : {&pr.ann.wrt, &pr.ann.outputs})
        for (const auto &n : *l)
          for (NamedDecl *nd :
               ctx.getTranslationUnitDecl()->lookup(&ctx.Idents.get(n.first)))
            if (const auto *vd = dyn_cast<VarDecl>(nd))
              if (vd->hasGlobalStorage() && !vd->isStaticLocal()) {
                CType t = convertType(vd->getType(), ctx);
                if (t.isFloatingElem() && t.ptrDepth == 0)
                  module.exposeGlobal(n.first,
                                      vd->getStorageClass() != SC_Static);
              }
    }
    std::set<const FunctionDecl *> marked;
    std::set<std::string> voidGenerated; // generated functions returning void
    std::string header;
    // Each generated text and its marked function, in the order of the
    // output, to find their lines once the file is assembled.
    std::vector<std::pair<std::string, GeneratedRegion>> &pieces =
        result.pieces;
    auto piece = [&](const std::string &text, const FunctionDecl *fd) {
      GeneratedRegion g;
      g.function = fd->getNameAsString();
      PresumedLoc pl = SM.getPresumedLoc(SM.getExpansionLoc(fd->getLocation()));
      if (pl.isValid())
        g.userLoc = std::string(pl.getFilename()) + ":" +
                    std::to_string(pl.getLine()) + ":" +
                    std::to_string(pl.getColumn());
      pieces.push_back({text, g});
    };
    for (const PragmaRecord &pr : pragmas) {
      if (!SM.isInMainFile(pr.loc))
        continue;
      // Comment the pragma out in the output.
      auto [fid, off] = SM.getDecomposedLoc(SM.getExpansionLoc(pr.loc));
      StringRef buf = SM.getBufferData(fid);
      size_t lineStart = buf.rfind('\n', off);
      lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
      // (On the CUDA target the marked functions are rewritten whole: only
      // their differentiate pragmas stay in the output, commented out.)
      if (!cuda || pr.kind == PragmaRecord::Differentiate) {
        rw.InsertTextBefore(SM.getComposedLoc(fid, lineStart), "// ");
        // A pragma continued over several lines: comment each line, and
        // drop the backslashes, which would make one multi-line `//`
        // comment (-Wcomment).
        for (size_t eol = buf.find('\n', off); eol != StringRef::npos;
             eol = buf.find('\n', eol + 1)) {
          size_t bs = eol;
          if (bs > 0 && buf[bs - 1] == '\r')
            --bs;
          if (bs == 0 || buf[bs - 1] != '\\')
            break;
          rw.ReplaceText(SM.getComposedLoc(fid, bs - 1), 1, " ");
          rw.InsertTextBefore(SM.getComposedLoc(fid, eol + 1), "// ");
        }
      }

      if (pr.kind != PragmaRecord::Differentiate)
        continue;
      FunctionDecl *fd = nullptr;
      Decl *next = nullptr;
      for (Decl *d : decls)
        if (SM.isBeforeInTranslationUnit(pr.loc, d->getBeginLoc())) {
          next = d;
          break;
        }
      if (next)
        fd = dyn_cast<FunctionDecl>(next);
      if (!fd || !fd->doesThisDeclarationHaveABody()) {
        diag.error(pr.startLoc, "'#pragma mpiad differentiate' must be "
                                "followed by a function definition");
        continue;
      }
      if (cuda && !pr.ann.replicas.empty()) {
        // The replica axis is not mapped onto the grid yet: say so, rather
        // than fail later on what batching made of the parallel loops.
        std::string gen = !pr.ann.name.empty()
                              ? pr.ann.name
                              : fd->getNameAsString() +
                                    (pr.ann.reverse ? "_b" : "_d");
        diag.error(pr.ann.replicas.front().second,
                   "replicas(...) is not supported with --target=cuda yet: " +
                       gen + "v runs on the host only; generate it from a "
                       "file compiled without --target=cuda, or call " + gen +
                       " once per replica");
        continue;
      }
      if (cuda && marked.insert(fd).second) {
        // The primal runs on the GPU too: it replaces the C definition.
        Generated primal;
        if (!module.generatePrimalCuda(fd, primal))
          continue;
        rw.ReplaceText(SourceRange(SM.getExpansionLoc(fd->getBeginLoc()),
                                   SM.getExpansionLoc(fd->getEndLoc())),
                       primal.text);
        piece(primal.text, fd);
        header += primal.prototype + "\n";
      }
      Generated g;
      if (!(pr.ann.reverse ? module.generate(fd, pr.ann, g)
                           : module.generateForward(fd, pr.ann, g)))
        continue;
      if (!pr.ann.replicas.empty()) {
        // The same function for R replicas at once (Replicas.cpp).
        Annotation batched = pr.ann;
        batched.batched = true;
        Generated gb;
        if (!(pr.ann.reverse ? module.generate(fd, batched, gb)
                             : module.generateForward(fd, batched, gb)))
          continue;
        g.text += gb.text;
        g.prototype += "\n" + gb.prototype;
      }
      // The marker lines: the generated text is mpiad-cc's, what follows
      // is the rest of the user's line that ends the function.
      std::string text = g.text;
      if (text.empty() || text.back() != '\n')
        text += "\n";
      rw.InsertTextAfterToken(fd->getEndLoc(),
                              "\n" + std::string(kMarkGen) + text +
                                  markUser(userLine(fd->getEndLoc())));
      piece(g.text, fd);
      header += g.prototype + "\n";
      result.functions++;
      std::string genName =
          pr.ann.name.empty()
              ? fd->getNameAsString() + (pr.ann.reverse ? "_b" : "_d")
              : pr.ann.name;
      if (g.prototype.rfind("void ", 0) == 0)
        voidGenerated.insert(genName);
      if (!pr.ann.replicas.empty())
        voidGenerated.insert(genName + "v"); // F_bv and F_dv return nothing
    }
    // The parse saw calls of the generated functions as calls of implicit
    // `int f()`: one that uses the value of a generated function that returns
    // nothing is the C compiler's error, said here.
    if (!voidGenerated.empty()) {
      CallsOf calls(voidGenerated);
      for (Decl *d : decls)
        calls.TraverseDecl(d);
      for (const CallExpr *c : calls.calls)
        if (valueUsed(ctx, c))
          diag.error(c->getExprLoc(),
                     "the value of a call to '" +
                         c->getDirectCallee()->getNameAsString() +
                         "' is used, but the generated function returns "
                         "void");
    }
    for (const PragmaRecord &pr : pragmas)
      if (pr.kind == PragmaRecord::Checkpoint && SM.isInMainFile(pr.loc) &&
          !fe.checkpointUsed(pr.loc))
        diag.warning(pr.startLoc, "unused-checkpoint",
                     "'#pragma mpiad checkpoint' has no effect: "
                                  "it is not inside a function that is "
                                  "differentiated");
    if (cuda && !marked.empty())
      for (Decl *d : decls) {
        auto *fd = dyn_cast<FunctionDecl>(d);
        if (fd && fd->doesThisDeclarationHaveABody() && !marked.count(fd))
          diag.error(fd->getLocation(),
                     "with --target=cuda a file holds only the functions "
                     "marked '#pragma mpiad differentiate'; move '" +
                         fd->getNameAsString() +
                         "' to a .c file of its own (it is compiled as C "
                         "and linked with the GPU code)");
      }
    if (diag.hasErrors() || de.hasErrorOccurred()) {
      ok = false;
      return;
    }
    FileID main = SM.getMainFileID();
    SourceLocation preambleLoc =
        SM.getComposedLoc(main, (unsigned)options.preamble.offset);
    if (cuda && !marked.empty()) {
      rw.RemoveText(SM.getLocForStartOfFile(main),
                    (unsigned)options.preamble.headLength);
      rw.RemoveText(preambleLoc, (unsigned)options.preamble.length);
      // The helpers of rules/nccl.rules, where the generated code calls
      // them (their header includes nccl.h, which other code need not
      // find).
      const RewriteBuffer *gen = rw.getRewriteBufferFor(main);
      bool nccl = gen && std::string(gen->begin(), gen->end())
                                 .find("mpiad_gpu_nccl_") != std::string::npos;
      rw.InsertTextBefore(SM.getLocForStartOfFile(main),
                          std::string("/* Generated by mpiad-cc --target=cuda: "
                                      "the marked "
                                      "functions of the original source\n   "
                                      "for NVIDIA "
                                      "GPUs (pointers are device pointers), "
                                      "each followed "
                                      "by its\n   adjoint or tangent; kernels "
                                      "and their "
                                      "launchers come before the function\n  "
                                      " that "
                                      "launches them. */\n#include "
                                      "\"mpiad_gpu.h\"\n") +
                              (nccl ? "#include \"mpiad_gpu_nccl.h\"\n" : "") +
                              "#include <stdlib.h>\n#include <string.h>\n");
      const RewriteBuffer *rb = rw.getRewriteBufferFor(main);
      result.marked = std::string(rb->begin(), rb->end());
      result.header = header;
      result.cuda = true;
      return;
    }
    // The comment, then the user's first line; mpiad's includes where the
    // preamble is in the parsed text.
    std::string top = "/* Generated by mpiad-cc: the original source with "
                      "the adjoint of each marked function after it. */\n";
    std::string includes = std::string(kMarkGen) + kIncludes +
                           markUser(options.preamble.line);
    rw.ReplaceText(SM.getLocForStartOfFile(main),
                   (unsigned)options.preamble.headLength, top + markUser(1));
    rw.ReplaceText(preambleLoc, (unsigned)options.preamble.length, includes);
    const RewriteBuffer *rb = rw.getRewriteBufferFor(main);
    result.marked = std::string(rb->begin(), rb->end());
    result.header = header;
  }

private:
  CompilerInstance &ci;
  std::vector<PragmaRecord> &pragmas;
  const RuleSet &rules;
  EmitResult &result;
  bool &ok;
  bool cuda;
  const EmitOptions &options;
  const IncludeGraph &includes;
};

class Action : public ASTFrontendAction {
public:
  Action(const RuleSet &rules, EmitResult &result, bool &ok,
         const EmitOptions &options)
      : rules(rules), result(result), ok(ok), options(options) {}

  bool BeginSourceFileAction(CompilerInstance &ci) override {
    ci.getPreprocessor().AddPragmaHandler(new MpiadPragmaHandler(pragmas));
    includes.preambleBegin = (unsigned)options.preamble.offset;
    includes.preambleEnd =
        (unsigned)(options.preamble.offset + options.preamble.length);
    ci.getPreprocessor().addPPCallbacks(
        makeIncludeRecorder(ci.getSourceManager(), includes));
    return true;
  }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &ci,
                                                 StringRef) override {
    return std::make_unique<Consumer>(ci, pragmas, rules, result, ok,
                                      options, includes);
  }

private:
  const RuleSet &rules;
  EmitResult &result;
  bool &ok;
  const EmitOptions &options;
  std::vector<PragmaRecord> pragmas;
  IncludeGraph includes;
};

class Factory : public tooling::FrontendActionFactory {
public:
  Factory(const std::vector<std::string> &files, EmitResult &result, bool &ok,
          const EmitOptions &options)
      : result(result), ok(ok), options(options) {
    for (const std::string &f : files) {
      struct stat st;
      bool isDir = stat(f.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
      if (!(isDir ? rules.loadDir(f) : rules.loadFile(f)))
        ok = false;
    }
  }
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<Action>(rules, result, ok, options);
  }

private:
  RuleSet rules;
  EmitResult &result;
  bool &ok;
  EmitOptions options;
};

} // namespace

std::unique_ptr<tooling::FrontendActionFactory>
makeEmitFactory(const std::vector<std::string> &ruleFiles, EmitResult &result,
                bool &ok, const EmitOptions &options) {
  return std::make_unique<Factory>(ruleFiles, result, ok, options);
}

std::string quoted(const std::string &name) {
  std::string q = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\')
      q += '\\';
    q += c;
  }
  return q + "\"";
}

std::string addPreamble(llvm::StringRef text, const std::string &name,
                        Preamble &where) {
  // Scan logical lines (backslash-newline joins physical ones) while they
  // are blank, comments, #define / #undef / #include / null directives, or
  // conditionals around such lines (a project header may set feature-test
  // macros before its own system includes, as the Parallel Research
  // Kernels' par-res-kern_general.h does with _POSIX_C_SOURCE); `safe` is the end of the last such line
  // outside any conditional and comment.
  size_t safe = 0, pos = 0;
  int depth = 0;
  bool inComment = false;
  while (pos < text.size()) {
    size_t end = pos;
    for (;;) {
      size_t nl = text.find('\n', end);
      if (nl == llvm::StringRef::npos) {
        end = text.size();
        break;
      }
      size_t k = nl;
      if (k > end && text[k - 1] == '\r')
        --k;
      end = nl + 1;
      if (k == 0 || text[k - 1] != '\\')
        break;
    }
    llvm::StringRef line = text.slice(pos, end);
    std::string code; // the line without its comments
    for (size_t i = 0; i < line.size();) {
      if (inComment) {
        size_t c = line.find("*/", i);
        if (c == llvm::StringRef::npos) {
          i = line.size();
        } else {
          inComment = false;
          i = c + 2;
          code += ' ';
        }
        continue;
      }
      llvm::StringRef rest = line.substr(i);
      if (rest.starts_with("/*")) {
        inComment = true;
        i += 2;
        continue;
      }
      if (rest.starts_with("//"))
        break;
      if (line[i] == '"' || line[i] == '\'') {
        code += rest.str(); // a literal: the line is code or a directive
        break;
      }
      code += line[i++];
    }
    llvm::StringRef c = llvm::StringRef(code).trim();
    bool keep = true;
    if (!c.empty()) {
      if (!c.starts_with("#")) {
        keep = false;
      } else {
        llvm::StringRef d = c.drop_front().ltrim();
        llvm::StringRef name = d.take_while(
            [](char ch) { return std::isalpha((unsigned char)ch) || ch == '_'; });
        if (name == "if" || name == "ifdef" || name == "ifndef")
          ++depth;
        else if (name == "endif")
          keep = --depth >= 0;
        else if (!(name.empty() || name == "define" || name == "undef" ||
                   name == "include" || name == "else" || name == "elif" ||
                   name == "elifdef" || name == "elifndef"))
          keep = false; // #pragma, #line, #error, ...
      }
    }
    if (!keep)
      break;
    pos = end;
    // (Blank lines after the last directive stay after mpiad's includes.)
    if (depth == 0 && !inComment && text[end - 1] == '\n' &&
        !line.trim().empty())
      safe = pos;
  }
  std::string head = "#line 1 " + quoted(name) + "\n";
  where.headLength = head.size();
  where.offset = head.size() + safe;
  where.line = 1 + (unsigned)std::count(text.begin(), text.begin() + safe, '\n');
  std::string pre =
      std::string(kIncludes) + "#line " + std::to_string(where.line) + "\n";
  where.length = pre.size();
  return head + text.substr(0, safe).str() + pre + text.substr(safe).str();
}

std::string renderSource(EmitResult &r, bool lineDirectives,
                         const std::string &userFile,
                         const std::string &genFile) {
  std::string out;
  out.reserve(r.marked.size() + 1024);
  unsigned lines = 0; // lines of `out` so far
  const std::string &m = r.marked;
  const size_t userLen = sizeof(kMarkUser) - 1;
  for (size_t b = 0; b < m.size();) {
    size_t e = m.find('\n', b);
    e = e == std::string::npos ? m.size() : e + 1;
    llvm::StringRef line(m.data() + b, e - b);
    b = e;
    if (line.starts_with(kMarkGen)) {
      if (lineDirectives) {
        ++lines; // this directive; the next line is lines + 1
        out += "#line " + std::to_string(lines + 1) + " " + quoted(genFile) +
               "\n";
      }
      continue;
    }
    if (line.starts_with(llvm::StringRef(kMarkUser, userLen))) {
      if (lineDirectives) {
        ++lines;
        out += "#line " + line.drop_front(userLen).trim().str() + " " +
               quoted(userFile) + "\n";
      }
      continue;
    }
    out += line.str();
    if (line.ends_with("\n"))
      ++lines;
  }
  // Each generated text holds its generated function's name, so it occurs
  // once; one not found verbatim is skipped rather than guessed.
  r.regions.clear();
  for (const auto &[text, region] : r.pieces) {
    size_t at = text.empty() ? std::string::npos : out.find(text);
    if (at == std::string::npos)
      continue;
    GeneratedRegion g = region;
    g.first = 1 + (unsigned)std::count(out.begin(), out.begin() + at, '\n');
    g.last = g.first + (unsigned)std::count(text.begin(), text.end(), '\n');
    r.regions.push_back(g);
  }
  return out;
}

} // namespace mpiad
