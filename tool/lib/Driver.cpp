//===- Driver.cpp - Command line, generation, compile and link ------------===//
#include "Driver.h"
#include "Outline.h"
#include "Emit.h"

#include "clang/Basic/Version.h"
#include "clang/Driver/Options.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#ifndef MPIAD_VERSION
#define MPIAD_VERSION "0.1.0"
#endif
#ifndef MPIAD_RESOURCE_DIR
#define MPIAD_RESOURCE_DIR ""
#endif
#ifndef MPIAD_MPI_INCLUDES
#define MPIAD_MPI_INCLUDES ""
#endif
#ifndef MPIAD_CUDA_HOME
#define MPIAD_CUDA_HOME "/usr/local/cuda"
#endif
#ifndef MPIAD_DEFAULT_CC
#define MPIAD_DEFAULT_CC "clang-19"
#endif

namespace mpiad {

namespace {

const char *kHelp =
    "usage: mpiad-cc [options] file.c ...\n"
    "\n"
    "Differentiates the functions marked `#pragma mpiad differentiate` in each\n"
    "C file and compiles the result like mpicc (adjoint functions, MPI and\n"
    "libmpiad included).  A file without `#pragma mpiad` goes to the compiler\n"
    "as given.  Diagnostics, __FILE__, __LINE__ and -g line tables name the\n"
    "user's file and lines (docs/driver.md).\n"
    "\n"
    "modes:\n"
    "  (default)            differentiate, compile and link: -o app\n"
    "  -c                   differentiate and compile each file: -o file.o\n"
    "                       (-o - writes the object to stdout)\n"
    "  -S                   differentiate and write assembly: -o file.s\n"
    "  -E                   the preprocessed code that is compiled (-o or "
    "stdout)\n"
    "  -fsyntax-only        differentiate and check that the result compiles\n"
    "  -M, -MM              the dependencies of the user's files (-o or "
    "stdout)\n"
    "  --emit-source        write the generated C (-o out.c, default stdout)\n"
    "  --emit-header        write prototypes of the generated functions\n"
    "                       (-o out.h, default stdout)\n"
    "  --showme[:compile|:link]  the flags mpiad-cc adds (like Open MPI's "
    "mpicc)\n"
    "  --target=cuda        marked functions run on NVIDIA GPUs: CUDA C++ with\n"
    "                       kernels, compiled by nvcc and linked with\n"
    "                       libmpiad_gpu (files without marked functions stay C)\n"
    "options:\n"
    "  --verify             the read verifier: the adjoint checks every value\n"
    "                       its reverse sweep reads against the forward sweep's\n"
    "                       and stops at the first difference (docs/errors.md)\n"
    "  -o FILE              output file\n"
    "  --rules FILE|DIR     load more rule files (see docs/rules.md)\n"
    "  -p DIR               read compile flags from DIR/compile_commands.json\n"
    "  -I -D -U -std= -include -isystem -iquote -idirafter -isysroot\n"
    "  --sysroot -x c       passed to the parser and the compiler\n"
    "  -O -g -W -f -m ...   passed to the compiler\n"
    "  -MD -MMD -MF -MT -MQ -MP   a dependency file naming the user's source,\n"
    "                       object and headers, as the compiler writes it\n"
    "  -l -L -Wl,...        passed to the linker\n"
    "  -w, -Werror, -Wno-mpiad-NAME, -Werror=mpiad-NAME\n"
    "                       also apply to mpiad-cc's own warnings\n"
    "  -save-temps          keep the generated C next to the output "
    "(file.ad.c)\n"
    "  -v, -###             print the commands run (-### runs none)\n"
    "  -dump*, -print-*     without inputs: asked of the compiler\n"
    "  @FILE                read more arguments from FILE; -- ends the "
    "options\n"
    "  --help, --version\n"
    "environment:\n"
    "  MPIAD_CC             C compiler used instead of mpicc\n"
    "  OMPI_CC              compiler behind Open MPI's mpicc (default "
    "clang-19 when unset)\n"
    "  MPIAD_NVCC           nvcc used for --target=cuda\n"
    "  MPIAD_CUDA_ARCH      GPU architecture for nvcc (default sm_80)\n";

struct Input {
  std::string path;
  bool forcedC = false; // after -x c: C whatever the name
};

struct Options {
  enum Mode {
    Link,
    Compile,
    Assemble,
    Preprocess,
    SyntaxOnly,
    Depends, // -M / -MM
    EmitSource,
    EmitHeader
  } mode = Link;
  std::string output;
  std::vector<Input> inputs;        // C files
  std::vector<std::string> objects; // .o .a .so passed through to the link
  std::vector<std::string> parseFlags, compileFlags, linkFlags;
  std::vector<std::string> rules;
  std::string compDbDir;
  bool cuda = false; // --target=cuda
  bool verify = false; // --verify
  bool verbose = false, printOnly = false, saveTemps = false;
  // -MD / -MMD and their -MF, -MT / -MQ (as flag pairs), -MP; -M / -MM.
  bool md = false, mmd = false, mp = false;
  std::string depFile;
  std::vector<std::string> depTargets;
  WarningPolicy warnings;
};

std::string prefixDir(const char *argv0) {
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(argv0, (void *)&anchor);
  llvm::SmallString<256> p(exe);
  llvm::sys::path::remove_filename(p); // bin
  llvm::sys::path::remove_filename(p); // prefix
  return std::string(p);
}

bool endsWith(const std::string &s, const std::string &suf) {
  return s.size() >= suf.size() &&
         s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

int fail(const std::string &msg) {
  llvm::errs() << "mpiad-cc: error: " << msg << "\n";
  return 1;
}

/// A temporary file that SIGINT, SIGTERM or SIGHUP must not leave behind:
/// LLVM's handler removes the registered files, then re-raises the signal
/// with the default action (so the exit status still says "killed by").
/// A signal the driver was started with ignored (nohup, a background job of
/// a shell without job control) stays ignored.
void removeOnSignal(const std::string &path) {
  static bool first = true;
  static bool ignored[3] = {false, false, false};
  const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
  if (first)
    for (int i = 0; i < 3; ++i) {
      struct sigaction sa;
      ignored[i] = sigaction(sigs[i], nullptr, &sa) == 0 &&
                   !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN;
    }
  llvm::sys::RemoveFileOnSignal(path);
  if (first)
    for (int i = 0; i < 3; ++i)
      if (ignored[i])
        signal(sigs[i], SIG_IGN);
  first = false;
}

/// Removes a temporary file (if it is still there) and forgets it.
void removeTemp(const std::string &path) {
  std::remove(path.c_str());
  llvm::sys::DontRemoveFileOnSignal(path);
}

/// Renames a temporary file to its final name; false when that failed (the
/// temporary is removed then).
bool renameTemp(const std::string &tmp, const std::string &path) {
  bool ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok)
    std::remove(tmp.c_str());
  llvm::sys::DontRemoveFileOnSignal(tmp);
  return ok;
}

/// True for an output that exists and is not a regular file (/dev/null, a
/// FIFO): it is written in place, never replaced by renaming a file over it.
bool specialFile(const std::string &path) {
  llvm::sys::fs::file_status st;
  return !llvm::sys::fs::status(path, st) && llvm::sys::fs::exists(st) &&
         st.type() != llvm::sys::fs::file_type::regular_file;
}

/// Writes `text` to `path` atomically: a failed or interrupted run never
/// leaves a partial or clobbered output file.
bool writeAtomically(const std::string &path, const std::string &text) {
  if (path.empty() || path == "-") {
    llvm::outs() << text;
    return true;
  }
  if (specialFile(path)) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    return (bool)out;
  }
  std::string tmp = path + ".mpiad-tmp";
  removeOnSignal(tmp);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out) {
      removeTemp(tmp);
      return false;
    }
  }
  return renameTemp(tmp, path);
}

/// An include guard's name for the header of `path`: its file name in
/// capitals, other characters as '_'.
std::string guardName(const std::string &path) {
  std::string g;
  for (char c : llvm::sys::path::filename(path).str())
    g += std::isalnum((unsigned char)c) ? (char)std::toupper((unsigned char)c)
                                        : '_';
  return g + "_H";
}

/// True when `a` and `b` name the same existing file (same device and
/// inode, so `./g.c` and `g.c` are one file).
bool sameFile(const std::string &a, const std::string &b) {
  bool same = false;
  return !llvm::sys::fs::equivalent(a, b, same) && same;
}

/// How -v and -### print a command: each argument quoted, like clang.
void printCommand(const std::vector<std::string> &argv) {
  std::string line;
  for (const std::string &arg : argv) {
    line += " \"";
    for (char c : arg) {
      if (c == '"' || c == '\\' || c == '$')
        line += '\\';
      line += c;
    }
    line += "\"";
  }
  llvm::errs() << line << "\n";
}

/// Runs a command (printing it first under -v); under -### only prints it.
/// `stdoutFile` / `stderrFile` redirect those streams when not empty.
int run(const Options &o, const std::vector<std::string> &argv,
        const std::string &stderrFile = "",
        const std::string &stdoutFile = "") {
  if (o.verbose || o.printOnly)
    printCommand(argv);
  if (o.printOnly)
    return 0;
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::string err;
  auto prog = llvm::sys::findProgramByName(argv[0]);
  if (!prog)
    return -1;
  std::vector<std::optional<llvm::StringRef>> redirects;
  if (!stderrFile.empty() || !stdoutFile.empty()) {
    redirects = {std::nullopt, std::nullopt, std::nullopt};
    if (!stdoutFile.empty())
      redirects[1] = llvm::StringRef(stdoutFile);
    if (!stderrFile.empty())
      redirects[2] = llvm::StringRef(stderrFile);
  }
  return llvm::sys::ExecuteAndWait(*prog, args, std::nullopt, redirects, 0, 0,
                                   &err);
}

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f),
                     std::istreambuf_iterator<char>());
}

/// The C compiler failed on a generated file.  Its errors on lines that
/// mpiad-cc wrote (EmitResult::regions) are a bug of the tool, not of the
/// user's code: say so, at the user's marked function, before the
/// compiler's own messages (which name lines of the temporary file).
/// Returns whether any error was in generated code.
bool reportGeneratedErrors(const std::string &messages, const std::string &gen,
                           const EmitResult &r) {
  std::set<size_t> hit;
  std::string prefix = gen + ":";
  for (size_t b = 0; b < messages.size();) {
    size_t e = messages.find('\n', b);
    if (e == std::string::npos)
      e = messages.size();
    llvm::StringRef line(messages.data() + b, e - b);
    b = e + 1;
    if (!line.consume_front(prefix))
      continue;
    unsigned n = 0;
    if (line.consumeInteger(10, n) || !line.contains(": error: "))
      continue;
    for (size_t k = 0; k < r.regions.size(); ++k)
      if (r.regions[k].first <= n && n <= r.regions[k].last)
        hit.insert(k);
  }
  for (size_t k : hit)
    llvm::errs() << r.regions[k].userLoc
                 << ": error: internal error: the code mpiad-cc generated for '"
                 << r.regions[k].function
                 << "' does not compile; please report this bug with the "
                    "compiler's messages below (they name lines of the "
                    "generated file, see mpiad-cc --emit-source)\n";
  return !hit.empty();
}

std::vector<std::string> compilerCommand() {
  const char *cc = getenv("MPIAD_CC");
  if (cc && *cc)
    return {cc};
  if (!getenv("OMPI_CC"))
    setenv("OMPI_CC", MPIAD_DEFAULT_CC, 0);
  return {"mpicc"};
}

/// Is the C compiler behind mpicc (or $MPIAD_CC) clang, which takes clang's
/// own options (-Xclang ...)?
bool compilerIsClang() {
  const char *cc = getenv("MPIAD_CC");
  if (!cc || !*cc)
    cc = getenv("OMPI_CC");
  std::string name = cc && *cc ? cc : MPIAD_DEFAULT_CC;
  return llvm::sys::path::filename(name).starts_with("clang");
}

/// Where CUDA is: $CUDA_HOME, else the toolkit found at build time.
std::string cudaHome() {
  const char *h = getenv("CUDA_HOME");
  if (h && *h)
    return h;
  return MPIAD_CUDA_HOME;
}

/// nvcc with the flags every generated .cu needs (MPI headers, the GPU
/// architecture; the file is CUDA C++ whatever its name).
std::vector<std::string> nvccCommand() {
  const char *nv = getenv("MPIAD_NVCC");
  std::string nvcc = nv && *nv ? nv : cudaHome() + "/bin/nvcc";
  const char *arch = getenv("MPIAD_CUDA_ARCH");
  std::vector<std::string> cmd = {
      nvcc, "-x", "cu", "-std=c++17",
      std::string("-arch=") + (arch && *arch ? arch : "sm_80"),
      // C bindings of MPI only (the C++ ones are deprecated and noisy).
      "-DOMPI_SKIP_MPICXX=1", "-DMPICH_SKIP_MPICXX=1"};
  std::string incs = MPIAD_MPI_INCLUDES;
  for (size_t b = 0; b < incs.size();) {
    size_t e = incs.find(':', b);
    if (e == std::string::npos)
      e = incs.size();
    if (e > b)
      cmd.push_back("-I" + incs.substr(b, e - b));
    b = e + 1;
  }
  return cmd;
}

/// -I flags for MPI's headers, found at build time.
std::vector<std::string> mpiIncludeFlags() {
  std::vector<std::string> flags;
  std::string incs = MPIAD_MPI_INCLUDES;
  for (size_t b = 0; b < incs.size();) {
    size_t e = incs.find(':', b);
    if (e == std::string::npos)
      e = incs.size();
    if (e > b)
      flags.push_back("-I" + incs.substr(b, e - b));
    b = e + 1;
  }
  return flags;
}

bool compiling(const Options &o) {
  return o.mode != Options::EmitSource && o.mode != Options::EmitHeader;
}

/// The flags clang's driver does not know, as clang reports them (the
/// tooling library would drop them with a message but without failing).
bool knownToClang(const std::vector<std::string> &flags) {
  std::vector<const char *> argv;
  for (const std::string &f : flags)
    argv.push_back(f.c_str());
  unsigned missingIndex = 0, missingCount = 0;
  llvm::opt::InputArgList args = clang::driver::getDriverOptTable().ParseArgs(
      argv, missingIndex, missingCount,
      llvm::opt::Visibility(clang::driver::options::ClangOption));
  bool ok = true;
  for (const llvm::opt::Arg *a :
       args.filtered(clang::driver::options::OPT_UNKNOWN)) {
    fail("unknown argument: '" + std::string(a->getAsString(args)) + "'");
    ok = false;
  }
  if (missingCount) {
    fail("argument to '" + std::string(argv[missingIndex]) + "' is missing");
    ok = false;
  }
  return ok;
}

/// The preprocessor and language flags of `file`'s entry in the compilation
/// database of -p DIR (-I, -isystem, -iquote, -idirafter, -include, -D, -U,
/// -std=), with relative paths made absolute against the entry's directory:
/// the compile step needs what the parse saw.
std::vector<std::string> databaseFlags(const Options &o,
                                       const std::string &file) {
  std::vector<std::string> out;
  if (o.compDbDir.empty())
    return out;
  std::string e;
  auto db = clang::tooling::CompilationDatabase::loadFromDirectory(o.compDbDir, e);
  if (!db)
    return out;
  llvm::SmallString<256> abs(file);
  llvm::sys::fs::make_absolute(abs);
  std::vector<clang::tooling::CompileCommand> cmds =
      db->getCompileCommands(abs);
  if (cmds.empty())
    return out;
  const clang::tooling::CompileCommand &c = cmds.front();
  auto absolute = [&](const std::string &p) {
    if (llvm::sys::path::is_absolute(p))
      return p;
    llvm::SmallString<256> q(c.Directory);
    llvm::sys::path::append(q, p);
    return std::string(q);
  };
  const std::vector<std::string> &a = c.CommandLine;
  const char *pathFlags[] = {"-I", "-isystem", "-iquote", "-idirafter",
                             "-include"};
  for (size_t i = 1; i < a.size(); ++i) {
    const std::string &s = a[i];
    bool done = false;
    for (const char *f : pathFlags)
      if (s == f && i + 1 < a.size()) {
        out.push_back(f);
        out.push_back(absolute(a[++i]));
        done = true;
        break;
      }
    if (done)
      continue;
    if ((s == "-D" || s == "-U") && i + 1 < a.size()) {
      out.push_back(s);
      out.push_back(a[++i]);
    } else if (s.rfind("-I", 0) == 0) {
      out.push_back("-I" + absolute(s.substr(2)));
    } else if (s.rfind("-D", 0) == 0 || s.rfind("-U", 0) == 0 ||
               s.rfind("-std=", 0) == 0) {
      out.push_back(s);
    }
  }
  return out;
}

/// Differentiates one file; fills `result`.  The parser reads the user's
/// text with mpiad's includes where the generated file has them
/// (addPreamble), so it sees what the compiler will.
bool generate(const Options &o, const std::string &prefix, const Input &in,
              EmitResult &result) {
  std::string text;
  {
    std::ifstream f(in.path, std::ios::binary);
    if (!f)
      return fail("no such file or directory: '" + in.path + "'") == 0;
    text.assign(std::istreambuf_iterator<char>(f),
                std::istreambuf_iterator<char>());
  }
  // Code after a marked function may call its adjoint, which does not exist
  // yet when we parse: accept implicit declarations here (the C compiler sees
  // the generated definitions), and their int results where the generated
  // function returns a pointer (`S *s_b = F_s_shadow_new(s);`).
  std::vector<std::string> extra = {"-Wno-unknown-pragmas",
                                    "-Wno-implicit-function-declaration",
                                    "-Wno-int-conversion"};
  // When mpiad-cc compiles, the compiler reports the user's own warnings;
  // the parse stays quiet so that they are not printed twice (mpiad's own
  // warnings follow o.warnings, not -w).
  if (compiling(o))
    extra.push_back("-w");
  if (std::string(MPIAD_RESOURCE_DIR).size())
    extra.push_back("-resource-dir=" MPIAD_RESOURCE_DIR);
  for (const std::string &f : mpiIncludeFlags())
    extra.push_back(f);
  extra.push_back("-I" + prefix + "/include");
  // --verify: the program may tell (a test's checks of tape sizes, which
  // the verifier's extra records change).
  if (o.verify)
    extra.push_back("-DMPIAD_VERIFY=1");
  if (o.cuda) // host files may include cuda_runtime.h
    extra.push_back("-I" + cudaHome() + "/include");
  std::unique_ptr<clang::tooling::CompilationDatabase> db;
  if (!o.compDbDir.empty()) {
    std::string e;
    db = clang::tooling::CompilationDatabase::loadFromDirectory(o.compDbDir, e);
    if (!db) {
      llvm::errs() << "mpiad-cc: error: " << e << "\n";
      return false;
    }
  } else {
    // Only writing C, the parse is the only compile: it gets every flag,
    // and rejects those clang does not know, as clang does.
    std::vector<std::string> flags = o.parseFlags;
    if (!compiling(o)) {
      flags.insert(flags.end(), o.compileFlags.begin(), o.compileFlags.end());
      if (!knownToClang(o.compileFlags))
        return false;
    }
    db = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", flags);
  }
  EmitOptions options;
  options.cuda = o.cuda;
  options.verify = o.verify;
  options.warnings = o.warnings;
  llvm::SmallString<256> abs(in.path);
  llvm::sys::fs::make_absolute(abs);
  // A parse of `contents` as the input file, with the flags above.
  auto parse = [&](const std::string &contents,
                   clang::tooling::FrontendActionFactory *factory,
                   bool quiet) {
    clang::tooling::ClangTool tool(*db, {in.path});
    tool.mapVirtualFile(abs, contents);
    std::vector<std::string> args = extra;
    if (quiet) // the warnings come once, from the parse that generates
      args.push_back("-w");
    tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
        args, clang::tooling::ArgumentInsertPosition::END));
    tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
        std::vector<std::string>{"-xc"},
        clang::tooling::ArgumentInsertPosition::BEGIN));
    tool.setPrintErrorMessage(false);
    return tool.run(factory);
  };
  // Differentiated blocks become functions first (Outline.cpp).
  if (mayHaveBlockPragma(text)) {
    std::string outlined;
    bool outlineOk = true;
    auto factory = makeOutlineFactory(in.path, outlined, outlineOk);
    if (parse(text, factory.get(), true) != 0 || !outlineOk)
      return false;
    text = outlined;
  }
  std::string parsed = addPreamble(text, in.path, options.preamble);
  std::vector<std::string> rules = {prefix + "/share/mpiad/rules"};
  rules.insert(rules.end(), o.rules.begin(), o.rules.end());
  bool ok = true;
  auto factory = makeEmitFactory(rules, result, ok, options);
  if (!ok)
    return false;
  int rc = parse(parsed, factory.get(), false);
  return rc == 0 && ok;
}

/// The file name of `path` with its extension replaced by `ext` ("o").
std::string stemWith(const std::string &path, const char *ext) {
  llvm::SmallString<128> p(llvm::sys::path::filename(path));
  llvm::sys::path::replace_extension(p, ext);
  return std::string(p);
}

/// A fresh name in $TMPDIR (the file is created unless under -###).
std::string tempName(const Options &o, const char *prefix, const char *ext) {
  llvm::SmallString<128> p;
  if (o.printOnly)
    llvm::sys::fs::getPotentiallyUniqueTempFileName(prefix, ext, p);
  else
    llvm::sys::fs::createTemporaryFile(prefix, ext, p);
  return std::string(p);
}

/// The names of mpiad's own warnings (docs/errors.md).
bool knownWarning(const std::string &name) {
  return name == "unused-checkpoint" || name == "restored-output" ||
         name == "cuda-serial" || name == "unused-return" ||
         name == "varying-return";
}

/// Captures a command's standard output (--showme asks mpicc).
std::string captureOutput(const Options &o, std::vector<std::string> cmd) {
  std::string out = tempName(o, "mpiad", "out");
  removeOnSignal(out);
  Options quiet;
  int rc = run(quiet, cmd, "", out);
  std::string text = rc == 0 ? readFile(out) : "";
  removeTemp(out);
  return llvm::StringRef(text).trim().str();
}

/// --showme, --showme:compile, --showme:link: what mpiad-cc adds to a
/// compile and to a link, with what mpicc adds (Open MPI's wrappers).
int showme(const Options &o, const std::string &prefix,
           const std::string &what) {
  std::vector<std::string> cc = compilerCommand();
  bool mpicc = cc[0] == "mpicc";
  std::string compile = "-I" + prefix + "/include";
  std::string link = prefix + "/lib/libmpiad.a";
  std::string mpiCompile, mpiLink, command = cc[0];
  if (mpicc) {
    mpiCompile = captureOutput(o, {"mpicc", "--showme:compile"});
    mpiLink = captureOutput(o, {"mpicc", "--showme:link"});
    command = captureOutput(o, {"mpicc", "--showme:command"});
    if (command.empty())
      return fail("cannot run 'mpicc --showme'");
  }
  auto join = [](std::vector<std::string> parts) {
    std::string s;
    for (const std::string &p : parts)
      if (!p.empty())
        s += (s.empty() ? "" : " ") + p;
    return s;
  };
  if (what == "compile")
    llvm::outs() << join({compile, mpiCompile}) << "\n";
  else if (what == "link")
    llvm::outs() << join({link, mpiLink, "-lm"}) << "\n";
  else if (what.empty())
    llvm::outs() << join({command, compile, mpiCompile, link, mpiLink, "-lm"})
                 << "\n";
  else
    return fail("unknown argument: '--showme:" + what +
                "' (--showme, --showme:compile or --showme:link)");
  return 0;
}

/// -MD / -MMD: the dependency file of `in` as the compiler writes it for the
/// user's own file (not the generated one): the preprocessor runs on it with
/// the same flags.  The defaults are clang's: FILE.d beside the -o output
/// (else the input's name .d in the working directory), naming the output
/// (else the input's name .o).
bool writeDeps(const Options &o, const std::string &prefix, const Input &in,
               std::vector<std::string> &temps) {
  bool named = !o.output.empty() && o.output != "-";
  std::string target = named ? o.output : stemWith(in.path, "o");
  std::string mf = o.depFile;
  if (mf.empty()) {
    llvm::SmallString<256> p(named ? o.output : stemWith(in.path, "d"));
    llvm::sys::path::replace_extension(p, "d");
    mf = std::string(p);
  }
  std::vector<std::string> cmd = compilerCommand();
  cmd.insert(cmd.end(), o.compileFlags.begin(), o.compileFlags.end());
  for (const std::string &f : databaseFlags(o, in.path))
    cmd.push_back(f);
  cmd.push_back("-I" + prefix + "/include");
  cmd.push_back("-E");
  cmd.push_back(o.mmd ? "-MMD" : "-MD");
  cmd.push_back("-MF");
  cmd.push_back(mf);
  if (o.depTargets.empty()) {
    cmd.push_back("-MQ");
    cmd.push_back(target);
  }
  cmd.insert(cmd.end(), o.depTargets.begin(), o.depTargets.end());
  if (o.mp)
    cmd.push_back("-MP");
  if (in.forcedC) {
    cmd.push_back("-x");
    cmd.push_back("c");
  }
  cmd.push_back(in.path);
  cmd.push_back("-o");
  cmd.push_back("/dev/null");
  // The compile printed the preprocessor's warnings already.
  std::string errFile = tempName(o, "mpiad", "err");
  removeOnSignal(errFile);
  temps.push_back(errFile);
  int rc = run(o, cmd, errFile);
  if (rc != 0) {
    llvm::errs() << readFile(errFile);
    return fail("writing the dependency file '" + mf + "' failed") == 0;
  }
  return true;
}

} // namespace

int runDriver(int argc, const char **argv) {
  Options o;
  // @FILE arguments expand in place, like clang's (GNU quoting).
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char *, 64> expanded(argv, argv + argc);
  if (!llvm::cl::ExpandResponseFiles(saver, llvm::cl::TokenizeGNUCommandLine,
                                     expanded))
    return fail("cannot expand the response files");
  std::vector<std::string> a(expanded.begin() + 1, expanded.end());
  bool forcedC = false, showmeAsked = false, onlyInputs = false;
  std::string showmeWhat, depsOnlyFlag;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string &s = a[i];
    auto value = [&](const char *flag) -> std::string {
      if (i + 1 >= a.size()) {
        fail(std::string("missing value after ") + flag);
        exit(1);
      }
      return a[++i];
    };
    auto starts = [&](const char *p) { return s.rfind(p, 0) == 0; };
    // A flag with its value joined (-MFfile) or next (-MF file).
    auto joinedOrNext = [&](const char *flag) -> std::string {
      size_t n = std::string(flag).size();
      return s.size() > n ? s.substr(n) : value(flag);
    };
    if (onlyInputs || s.empty() || s[0] != '-' || s == "-") {
      bool c = forcedC || endsWith(s, ".c");
      if (c)
        o.inputs.push_back({s, forcedC && !endsWith(s, ".c")});
      else if (endsWith(s, ".o") || endsWith(s, ".a") || endsWith(s, ".so"))
        o.objects.push_back(s);
      else
        return fail("unknown input '" + s + "' (expected .c, .o, .a or .so)");
      continue;
    }
    if (s == "--") {
      onlyInputs = true;
      continue;
    }
    if (s == "--help" || s == "-help" || s == "-h") {
      llvm::outs() << kHelp;
      return 0;
    }
    if (s == "--version") {
      llvm::outs() << "mpiad-cc " << MPIAD_VERSION
                   << " (source-to-source AD for MPI programs in C; Clang "
                   << CLANG_VERSION_STRING << ")\n";
      return 0;
    }
    if (s == "--showme" || starts("--showme:")) {
      showmeAsked = true;
      showmeWhat = s == "--showme" ? "" : s.substr(9);
    } else if (s == "--emit-source")
      o.mode = Options::EmitSource;
    else if (s == "--emit-header")
      o.mode = Options::EmitHeader;
    else if (s == "-c")
      o.mode = Options::Compile;
    else if (s == "-S")
      o.mode = Options::Assemble;
    else if (s == "-E")
      o.mode = Options::Preprocess;
    else if (s == "-fsyntax-only")
      o.mode = Options::SyntaxOnly;
    else if (s == "-M" || s == "-MM") {
      o.mode = Options::Depends;
      depsOnlyFlag = s;
    } else if (s == "-MD")
      o.md = true;
    else if (s == "-MMD")
      o.mmd = true;
    else if (s == "-MP")
      o.mp = true;
    else if (starts("-MF"))
      o.depFile = joinedOrNext("-MF");
    else if (starts("-MT") || starts("-MQ")) {
      std::string flag = s.substr(0, 3);
      std::string v = joinedOrNext(flag.c_str());
      o.depTargets.push_back(flag);
      o.depTargets.push_back(v);
    } else if (s == "-v")
      o.verbose = true;
    else if (s == "-###")
      o.printOnly = true;
    else if (s == "-save-temps" || s == "--save-temps" ||
             s == "-save-temps=obj" || s == "-save-temps=cwd")
      o.saveTemps = true;
    else if (s == "-o")
      o.output = value("-o");
    else if (s == "-x" || starts("-x")) {
      std::string lang = s == "-x" ? value("-x") : s.substr(2);
      if (lang == "c")
        forcedC = true;
      else if (lang == "none")
        forcedC = false;
      else
        return fail("language '" + lang +
                    "' is not supported: mpiad-cc compiles C (-x c)");
    } else if (s == "--rules")
      o.rules.push_back(value("--rules"));
    else if (starts("--rules="))
      o.rules.push_back(s.substr(8));
    else if (s == "-p")
      o.compDbDir = value("-p");
    else if (s == "--verify")
      o.verify = true;
    else if (s == "--target=cuda")
      o.cuda = true;
    else if (s == "--target=cpu")
      o.cuda = false;
    else if (starts("--target=")) {
      return fail("'" + s + "': unknown target (cpu or cuda)");
    } else if (starts("-Wno-mpiad-") || starts("-Wmpiad-") ||
               starts("-Werror=mpiad-") || starts("-Wno-error=mpiad-")) {
      std::string name = s.substr(s.find("mpiad-") + 6);
      if (!knownWarning(name)) {
        llvm::errs() << "mpiad-cc: warning: unknown warning option '" << s
                     << "'\n";
        continue;
      }
      if (starts("-Wno-mpiad-"))
        o.warnings.disabled.insert(name);
      else if (starts("-Wmpiad-"))
        o.warnings.disabled.erase(name);
      else if (starts("-Werror=")) {
        o.warnings.errors.insert(name);
        o.warnings.noErrors.erase(name);
      } else {
        o.warnings.noErrors.insert(name);
        o.warnings.errors.erase(name);
      }
    } else if (s == "-w" || s == "-Werror" || s == "-Wno-error") {
      if (s == "-w")
        o.warnings.none = true;
      else
        o.warnings.error = s == "-Werror";
      o.compileFlags.push_back(s);
    } else if (s == "-I" || s == "-D" || s == "-U" || s == "-include" ||
               s == "-imacros" || s == "-isystem" || s == "-iquote" ||
               s == "-idirafter" || s == "-isysroot" || s == "--sysroot") {
      std::string v = value(s.c_str());
      for (auto *flags : {&o.parseFlags, &o.compileFlags}) {
        flags->push_back(s);
        flags->push_back(v);
      }
      if (s == "--sysroot") {
        o.linkFlags.push_back(s);
        o.linkFlags.push_back(v);
      }
    } else if (starts("-I") || starts("-D") || starts("-U") ||
               starts("-std=") || starts("-include") || starts("-imacros") ||
               starts("-isystem") || starts("-iquote") ||
               starts("-idirafter") || starts("-isysroot") ||
               starts("--sysroot=")) {
      o.parseFlags.push_back(s);
      o.compileFlags.push_back(s);
      if (starts("--sysroot="))
        o.linkFlags.push_back(s);
    } else if (starts("-l") || starts("-L") || starts("-Wl,")) {
      o.linkFlags.push_back(s);
    } else if (starts("-fsanitize") || s == "-pthread" || s == "-fopenmp") {
      o.compileFlags.push_back(s);
      o.linkFlags.push_back(s);
    } else {
      o.compileFlags.push_back(s); // -O2 -g -Wall -fno-... -m...
    }
  }
  std::string prefix = prefixDir(argv[0]);
  if (showmeAsked)
    return showme(o, prefix, showmeWhat);
  if (o.verbose || o.printOnly)
    llvm::errs() << "mpiad-cc version " << MPIAD_VERSION << " (Clang "
                 << CLANG_VERSION_STRING << ")\n";
  if (o.inputs.empty() && o.objects.empty()) {
    // Queries of the compiler (libtool and configure scripts ask them):
    // -dumpversion, -dumpmachine, -print-search-dirs, -print-prog-name=ld...
    bool query = false;
    for (const std::string &f : o.compileFlags)
      query = query || f.rfind("-dump", 0) == 0 || f.rfind("-print-", 0) == 0;
    if (query) {
      std::vector<std::string> cmd = compilerCommand();
      cmd.insert(cmd.end(), o.compileFlags.begin(), o.compileFlags.end());
      int rc = run(o, cmd);
      return rc < 0 ? fail("cannot run '" + cmd[0] + "'") : rc;
    }
  }
  if (o.inputs.empty() && (o.verbose || o.printOnly) && o.objects.empty())
    return 0; // like clang -v
  if (o.inputs.empty() && (o.mode != Options::Link || o.objects.empty()))
    return fail("no input files (try --help)");
  bool oneOutputPerInput = o.mode != Options::Link &&
                           o.mode != Options::SyntaxOnly &&
                           o.mode != Options::Preprocess &&
                           o.mode != Options::Depends;
  if (oneOutputPerInput && o.inputs.size() > 1 && !o.output.empty() &&
      o.output != "-")
    return fail("-o with several inputs needs link mode");

  // Like gcc (clang-19 overwrites): never write over an input.
  if (!o.output.empty() && o.output != "-") {
    std::vector<std::string> all;
    for (const Input &in : o.inputs)
      all.push_back(in.path);
    all.insert(all.end(), o.objects.begin(), o.objects.end());
    for (const std::string &in : all)
      if (sameFile(in, o.output))
        return fail("input file '" + in + "' is the same as output file");
  }

  if (o.mode == Options::EmitSource || o.mode == Options::EmitHeader) {
    for (const Input &in : o.inputs) {
      EmitResult r;
      if (!generate(o, prefix, in, r))
        return 1;
      std::string text =
          o.mode == Options::EmitSource
              ? renderSource(r, false, in.path, "")
              : "/* Generated by mpiad-cc from " + in.path +
                    " */\n#ifndef MPIAD_GENERATED_" + guardName(in.path) +
                    "\n#define MPIAD_GENERATED_" + guardName(in.path) +
                    "\n/* mpiad.h first: from C++ it keeps mpi.h to MPI's C "
                    "API */\n#include \"mpiad.h\"\n#include <mpi.h>\n"
                    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n" +
                    r.header + "#ifdef __cplusplus\n}\n#endif\n#endif\n";
      if (!writeAtomically(o.output, text))
        return fail("cannot write '" + o.output + "'");
    }
    return 0;
  }

  if (o.mode == Options::Depends) {
    // -M / -MM: the user's files' dependencies, as the compiler gives them.
    std::vector<std::string> cmd = compilerCommand();
    cmd.insert(cmd.end(), o.compileFlags.begin(), o.compileFlags.end());
    cmd.push_back("-I" + prefix + "/include");
    cmd.push_back("-E"); // implied; mpicc then adds no link flags
    cmd.push_back(depsOnlyFlag);
    if (!o.depFile.empty()) {
      cmd.push_back("-MF");
      cmd.push_back(o.depFile);
    }
    cmd.insert(cmd.end(), o.depTargets.begin(), o.depTargets.end());
    if (o.mp)
      cmd.push_back("-MP");
    for (const Input &in : o.inputs) {
      if (in.forcedC) {
        cmd.push_back("-x");
        cmd.push_back("c");
      }
      cmd.push_back(in.path);
    }
    if (!o.output.empty()) {
      cmd.push_back("-o");
      cmd.push_back(o.output);
    }
    int rc = run(o, cmd);
    return rc < 0 ? fail("cannot run '" + cmd[0] + "'") : rc != 0;
  }

  // Compile (and link) through mpicc.
  std::vector<std::string> objects;
  std::vector<std::string> temps;
  bool usedCuda = false;
  auto cleanup = [&]() {
    for (const std::string &t : temps)
      removeTemp(t);
  };
  for (const Input &in : o.inputs) {
    // A file that does not mention mpiad is compiled as given; so is one
    // whose parse finds no `#pragma mpiad`.
    EmitResult r;
    bool generated = false;
    {
      std::ifstream f(in.path, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(f)),
                       std::istreambuf_iterator<char>());
      if (f.is_open() && text.find("mpiad") != std::string::npos) {
        if (!generate(o, prefix, in, r)) {
          cleanup();
          return 1;
        }
        generated = r.pragmas > 0;
      }
    }
    std::string src = in.path, gen;
    if (generated) {
      if (o.saveTemps) {
        // -save-temps: FILE.ad.c beside the output (in the working
        // directory without one).
        llvm::SmallString<256> dir;
        if (!o.output.empty() && o.output != "-")
          dir = llvm::sys::path::parent_path(o.output);
        llvm::sys::path::append(dir,
                                stemWith(in.path, r.cuda ? "ad.cu" : "ad.c"));
        gen = std::string(dir);
      } else {
        gen = tempName(o, "mpiad", r.cuda ? "cu" : "c");
        removeOnSignal(gen);
        temps.push_back(gen);
      }
      std::string text = renderSource(r, !r.cuda, in.path, gen);
      if (o.verbose || o.printOnly)
        llvm::errs() << "mpiad-cc: differentiated '" << in.path << "' into '"
                     << gen << "'\n";
      if (!o.printOnly) {
        std::ofstream f(gen, std::ios::binary);
        f << text;
        if (!f) {
          cleanup();
          return fail("cannot write '" + gen + "'");
        }
      }
      src = gen;
    }
    llvm::SmallString<256> srcDir(in.path);
    llvm::sys::path::remove_filename(srcDir);
    if (srcDir.empty())
      srcDir = ".";
    std::vector<std::string> cmd = compilerCommand();
    if (r.cuda) {
      cmd = nvccCommand();
      cmd.push_back("-I" + std::string(srcDir));
      for (const std::string &f : o.compileFlags)
        if (f.rfind("-O", 0) == 0 || f == "-g" || f.rfind("-D", 0) == 0 ||
            f.rfind("-I", 0) == 0 || f.rfind("-U", 0) == 0)
          cmd.push_back(f);
      for (const std::string &f : databaseFlags(o, in.path))
        if (f.rfind("-std=", 0) != 0) // nvcc compiles CUDA C++ (-std=c++17)
          cmd.push_back(f);
      usedCuda = true;
    } else {
      // The generated file is elsewhere: "..." includes are looked for in
      // the user's directory first, as for the user's file.
      if (generated) {
        cmd.push_back("-iquote");
        cmd.push_back(std::string(srcDir));
      }
      cmd.insert(cmd.end(), o.compileFlags.begin(), o.compileFlags.end());
      for (const std::string &f : databaseFlags(o, in.path))
        cmd.push_back(f);
      if (o.verify)
        cmd.push_back("-DMPIAD_VERIFY=1");
      // With -g, the compile unit is named after the user's file, not the
      // temporary one (its line table already is, through #line): clang
      // takes the name itself, gcc a map from the generated file's path.
      if (generated &&
          std::any_of(o.compileFlags.begin(), o.compileFlags.end(),
                      [](const std::string &f) { return f.rfind("-g", 0) == 0; })) {
        llvm::SmallString<256> abs(in.path), genAbs(gen);
        llvm::sys::fs::make_absolute(abs);
        llvm::sys::fs::make_absolute(genAbs);
        if (compilerIsClang()) {
          for (const char *a : {"-Xclang", "-main-file-name", "-Xclang"})
            cmd.push_back(a);
          cmd.push_back(std::string(abs));
        } else {
          for (const std::string &from : {std::string(genAbs), gen})
            cmd.push_back("-fdebug-prefix-map=" + from + "=" +
                          std::string(abs));
          if (std::string(genAbs) == gen)
            cmd.pop_back();
        }
      }
      if (o.cuda) // host code may call the CUDA runtime (mpiad_gpu.h)
        cmd.push_back("-I" + cudaHome() + "/include");
    }
    cmd.push_back("-I" + prefix + "/include");
    std::string out, ext = "o";
    switch (o.mode) {
    case Options::Compile:
      cmd.push_back("-c");
      out = o.output.empty() ? stemWith(in.path, "o") : o.output;
      break;
    case Options::Assemble:
      cmd.push_back("-S");
      out = o.output.empty() ? stemWith(in.path, "s") : o.output;
      ext = "s";
      break;
    case Options::Preprocess:
      cmd.push_back("-E");
      out = o.output; // empty: stdout
      ext = "i";
      break;
    case Options::SyntaxOnly:
      // With -c, mpicc adds no link flags (it does not know -fsyntax-only).
      cmd.push_back("-c");
      cmd.push_back("-fsyntax-only");
      break;
    default: // Link
      cmd.push_back("-c");
      out = tempName(o, "mpiad", "o");
      removeOnSignal(out);
      temps.push_back(out);
      break;
    }
    if (!generated && in.forcedC) {
      cmd.push_back("-x");
      cmd.push_back("c");
    }
    cmd.push_back(src);
    // A named output is written under a temporary name and renamed once
    // complete (stdout and the link's temporaries directly).
    std::string tmpOut;
    if (!out.empty()) {
      cmd.push_back("-o");
      if (out == "-" || o.mode == Options::Link || specialFile(out)) {
        cmd.push_back(out);
      } else {
        tmpOut = out + ".mpiad-tmp." + ext;
        removeOnSignal(tmpOut);
        cmd.push_back(tmpOut);
      }
    }
    // The compiler's messages go through a file, so that errors in
    // generated code can be told from errors in the user's code.
    std::string errFile = tempName(o, "mpiad", "err");
    removeOnSignal(errFile);
    temps.push_back(errFile);
    int rc = run(o, cmd, errFile);
    std::string messages = o.printOnly ? "" : readFile(errFile);
    bool internal =
        rc > 0 && generated && reportGeneratedErrors(messages, gen, r);
    llvm::errs() << messages;
    if (rc != 0) {
      if (!tmpOut.empty())
        removeTemp(tmpOut);
      cleanup();
      if (internal)
        return 1;
      if (rc < 0)
        return fail("cannot run '" + cmd[0] + "'");
      if (generated)
        return fail("compiling the generated code of '" + in.path +
                    "' failed");
      return 1; // the compiler said why
    }
    if (!tmpOut.empty() && !o.printOnly)
      renameTemp(tmpOut, out);
    if (o.mode == Options::Link)
      objects.push_back(out);
    if ((o.md || o.mmd) && !writeDeps(o, prefix, in, temps)) {
      cleanup();
      return 1;
    }
  }
  if (o.mode == Options::Link) {
    std::string out = o.output.empty() ? "a.out" : o.output;
    std::vector<std::string> cmd = compilerCommand();
    for (const std::string &f : o.compileFlags)
      if (f.rfind("-O", 0) == 0 || f == "-g" || f.rfind("-f", 0) == 0)
        cmd.push_back(f);
    cmd.insert(cmd.end(), objects.begin(), objects.end());
    cmd.insert(cmd.end(), o.objects.begin(), o.objects.end());
    if (usedCuda || o.cuda) {
      cmd.push_back(prefix + "/lib/libmpiad_gpu.a");
      cmd.push_back(prefix + "/lib/libmpiad.a");
      cmd.push_back("-L" + cudaHome() + "/lib64");
      cmd.push_back("-Wl,-rpath," + cudaHome() + "/lib64");
      cmd.push_back("-lnccl");
      cmd.push_back("-lcudart");
      cmd.push_back("-lstdc++");
    } else {
      cmd.push_back(prefix + "/lib/libmpiad.a");
    }
    cmd.insert(cmd.end(), o.linkFlags.begin(), o.linkFlags.end());
    cmd.push_back("-lm");
    std::string tmpOut = specialFile(out) ? "" : out + ".mpiad-tmp";
    cmd.push_back("-o");
    if (tmpOut.empty()) {
      cmd.push_back(out);
    } else {
      removeOnSignal(tmpOut);
      cmd.push_back(tmpOut);
    }
    int rc = run(o, cmd);
    cleanup();
    if (rc != 0) {
      if (!tmpOut.empty())
        removeTemp(tmpOut);
      return fail("linking '" + out + "' failed");
    }
    if (!o.printOnly && !tmpOut.empty())
      renameTemp(tmpOut, out);
  } else {
    cleanup();
  }
  return 0;
}

} // namespace mpiad
