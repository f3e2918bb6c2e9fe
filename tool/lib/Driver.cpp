//===- Driver.cpp - Command line, generation, compile and link ------------===//
#include "Driver.h"
#include "Emit.h"

#include "clang/Basic/Version.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
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
    "libmpiad included).\n"
    "\n"
    "modes:\n"
    "  (default)            differentiate, compile and link: -o app\n"
    "  -c                   differentiate and compile each file: -o file.o\n"
    "  --emit-source        write the generated C (-o out.c, default stdout)\n"
    "  --emit-header        write prototypes of the generated functions\n"
    "                       (-o out.h, default stdout)\n"
    "  --target=cuda        marked functions run on NVIDIA GPUs: CUDA C++ with\n"
    "                       kernels, compiled by nvcc and linked with\n"
    "                       libmpiad_gpu (files without marked functions stay C)\n"
    "options:\n"
    "  -o FILE              output file\n"
    "  --rules FILE|DIR     load more rule files (see docs/rules.md)\n"
    "  -p DIR               read compile flags from DIR/compile_commands.json\n"
    "  -I -D -U -std= -include -isystem   passed to the parser and the "
    "compiler\n"
    "  -O -g -W -f -m ...   passed to the compiler\n"
    "  -l -L -Wl,...        passed to the linker\n"
    "  --help, --version\n"
    "environment:\n"
    "  MPIAD_CC             C compiler used instead of mpicc\n"
    "  OMPI_CC              compiler behind Open MPI's mpicc (default "
    "clang-19 when unset)\n"
    "  MPIAD_NVCC           nvcc used for --target=cuda\n"
    "  MPIAD_CUDA_ARCH      GPU architecture for nvcc (default sm_80)\n";

struct Options {
  enum Mode { Link, Compile, EmitSource, EmitHeader } mode = Link;
  std::string output;
  std::vector<std::string> inputs;  // .c files
  std::vector<std::string> objects; // .o .a .so passed through to the link
  std::vector<std::string> parseFlags, compileFlags, linkFlags;
  std::vector<std::string> rules;
  std::string compDbDir;
  bool cuda = false; // --target=cuda
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

/// Writes `text` to `path` atomically: a failed or interrupted run never
/// leaves a partial or clobbered output file.
bool writeAtomically(const std::string &path, const std::string &text) {
  if (path.empty() || path == "-") {
    llvm::outs() << text;
    return true;
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

/// True when `a` and `b` name the same existing file (same device and
/// inode, so `./g.c` and `g.c` are one file).
bool sameFile(const std::string &a, const std::string &b) {
  bool same = false;
  return !llvm::sys::fs::equivalent(a, b, same) && same;
}

int run(const std::vector<std::string> &argv,
        const std::string &stderrFile = "") {
  std::vector<llvm::StringRef> args(argv.begin(), argv.end());
  std::string err;
  auto prog = llvm::sys::findProgramByName(argv[0]);
  if (!prog)
    return -1;
  std::vector<std::optional<llvm::StringRef>> redirects;
  if (!stderrFile.empty())
    redirects = {std::nullopt, std::nullopt, llvm::StringRef(stderrFile)};
  return llvm::sys::ExecuteAndWait(*prog, args, std::nullopt, redirects, 0, 0,
                                   &err);
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

/// Differentiates one file; fills `result`.
bool generate(const Options &o, const std::string &prefix,
              const std::string &file, EmitResult &result) {
  // Code after a marked function may call its adjoint, which does not exist
  // yet when we parse: accept implicit declarations here (the C compiler sees
  // the generated definitions).
  std::vector<std::string> extra = {"-Wno-unknown-pragmas",
                                    "-Wno-implicit-function-declaration"};
  if (std::string(MPIAD_RESOURCE_DIR).size())
    extra.push_back("-resource-dir=" MPIAD_RESOURCE_DIR);
  std::string incs = MPIAD_MPI_INCLUDES;
  for (size_t b = 0; b < incs.size();) {
    size_t e = incs.find(':', b);
    if (e == std::string::npos)
      e = incs.size();
    if (e > b)
      extra.push_back("-I" + incs.substr(b, e - b));
    b = e + 1;
  }
  extra.push_back("-I" + prefix + "/include");
  if (o.cuda) // host files may include cuda_runtime.h
    extra.push_back("-I" + cudaHome() + "/include");
  // The generated file includes mpiad.h first; parse with the same view.
  extra.push_back("-include");
  extra.push_back(prefix + "/include/mpiad.h");
  std::unique_ptr<clang::tooling::CompilationDatabase> db;
  if (!o.compDbDir.empty()) {
    std::string e;
    db = clang::tooling::CompilationDatabase::loadFromDirectory(o.compDbDir, e);
    if (!db) {
      llvm::errs() << "mpiad-cc: error: " << e << "\n";
      return false;
    }
  } else {
    std::vector<std::string> flags = o.parseFlags;
    db = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", flags);
  }
  clang::tooling::ClangTool tool(*db, {file});
  tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      extra, clang::tooling::ArgumentInsertPosition::END));
  tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      std::vector<std::string>{"-xc"},
      clang::tooling::ArgumentInsertPosition::BEGIN));
  tool.setPrintErrorMessage(false);
  std::vector<std::string> rules = {prefix + "/share/mpiad/rules"};
  rules.insert(rules.end(), o.rules.begin(), o.rules.end());
  bool ok = true;
  auto factory = makeEmitFactory(rules, result, ok, o.cuda);
  if (!ok)
    return false;
  int rc = tool.run(factory.get());
  return rc == 0 && ok;
}

} // namespace

int runDriver(int argc, const char **argv) {
  Options o;
  std::vector<std::string> a(argv + 1, argv + argc);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string &s = a[i];
    auto value = [&](const char *flag) -> std::string {
      if (i + 1 >= a.size()) {
        fail(std::string("missing value after ") + flag);
        exit(1);
      }
      return a[++i];
    };
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
    if (s == "--emit-source")
      o.mode = Options::EmitSource;
    else if (s == "--emit-header")
      o.mode = Options::EmitHeader;
    else if (s == "-c")
      o.mode = Options::Compile;
    else if (s == "-o")
      o.output = value("-o");
    else if (s == "--rules")
      o.rules.push_back(value("--rules"));
    else if (s.rfind("--rules=", 0) == 0)
      o.rules.push_back(s.substr(8));
    else if (s == "-p")
      o.compDbDir = value("-p");
    else if (s == "--target=cuda")
      o.cuda = true;
    else if (s == "--target=cpu")
      o.cuda = false;
    else if (s.rfind("--target=", 0) == 0) {
      return fail("'" + s + "': unknown target (cpu or cuda)");
    } else if (s == "-I" || s == "-D" || s == "-U" || s == "-include" ||
               s == "-isystem") {
      std::string v = value(s.c_str());
      o.parseFlags.push_back(s);
      o.parseFlags.push_back(v);
      o.compileFlags.push_back(s);
      o.compileFlags.push_back(v);
    } else if (s.rfind("-I", 0) == 0 || s.rfind("-D", 0) == 0 ||
               s.rfind("-U", 0) == 0 || s.rfind("-std=", 0) == 0) {
      o.parseFlags.push_back(s);
      o.compileFlags.push_back(s);
    } else if (s.rfind("-l", 0) == 0 || s.rfind("-L", 0) == 0 ||
               s.rfind("-Wl,", 0) == 0) {
      o.linkFlags.push_back(s);
    } else if (s.rfind("-fsanitize", 0) == 0 || s == "-pthread" ||
               s == "-fopenmp") {
      o.compileFlags.push_back(s);
      o.linkFlags.push_back(s);
    } else if (!s.empty() && s[0] == '-') {
      o.compileFlags.push_back(s); // -O2 -g -Wall -fno-... -m...
    } else if (endsWith(s, ".c")) {
      o.inputs.push_back(s);
    } else if (endsWith(s, ".o") || endsWith(s, ".a") || endsWith(s, ".so")) {
      o.objects.push_back(s);
    } else {
      return fail("unknown input '" + s + "' (expected .c, .o, .a or .so)");
    }
  }
  if (o.inputs.empty() && (o.mode != Options::Link || o.objects.empty()))
    return fail("no input files (try --help)");
  if ((o.mode == Options::EmitSource || o.mode == Options::EmitHeader ||
       o.mode == Options::Compile) &&
      o.inputs.size() > 1 && !o.output.empty())
    return fail("-o with several inputs needs link mode");

  // Like gcc (clang-19 overwrites): never write over an input.
  if (!o.output.empty() && o.output != "-") {
    std::vector<std::string> all = o.inputs;
    all.insert(all.end(), o.objects.begin(), o.objects.end());
    for (const std::string &in : all)
      if (sameFile(in, o.output))
        return fail("input file '" + in + "' is the same as output file");
  }

  std::string prefix = prefixDir(argv[0]);
  if (o.mode == Options::EmitSource || o.mode == Options::EmitHeader) {
    for (const std::string &in : o.inputs) {
      EmitResult r;
      if (!generate(o, prefix, in, r))
        return 1;
      std::string text = o.mode == Options::EmitSource
                             ? r.source
                             : "/* Generated by mpiad-cc from " + in +
                                   " */\n#pragma once\n#include <mpi.h>\n" +
                                   r.header;
      if (!writeAtomically(o.output, text))
        return fail("cannot write '" + o.output + "'");
    }
    return 0;
  }

  // Compile (and link) through mpicc.
  std::vector<std::string> objects;
  std::vector<std::string> temps;
  bool usedCuda = false;
  auto cleanup = [&]() {
    for (const std::string &t : temps)
      removeTemp(t);
  };
  for (const std::string &in : o.inputs) {
    EmitResult r;
    if (!generate(o, prefix, in, r)) {
      cleanup();
      return 1;
    }
    llvm::SmallString<128> gen, obj;
    llvm::sys::fs::createTemporaryFile("mpiad", r.cuda ? "cu" : "c", gen);
    removeOnSignal(std::string(gen));
    temps.push_back(std::string(gen));
    {
      std::ofstream f(std::string(gen), std::ios::binary);
      f << r.source;
    }
    std::string outObj;
    if (o.mode == Options::Compile) {
      if (!o.output.empty()) {
        outObj = o.output;
      } else {
        llvm::SmallString<128> p(llvm::sys::path::filename(in));
        llvm::sys::path::replace_extension(p, "o");
        outObj = std::string(p);
      }
    } else {
      llvm::sys::fs::createTemporaryFile("mpiad", "o", obj);
      outObj = std::string(obj);
      removeOnSignal(outObj);
      temps.push_back(outObj);
    }
    llvm::SmallString<256> srcDir(in);
    llvm::sys::path::remove_filename(srcDir);
    if (srcDir.empty())
      srcDir = ".";
    std::vector<std::string> cmd = compilerCommand();
    if (r.cuda) {
      cmd = nvccCommand();
      for (const std::string &f : o.compileFlags)
        if (f.rfind("-O", 0) == 0 || f == "-g" || f.rfind("-D", 0) == 0 ||
            f.rfind("-I", 0) == 0 || f.rfind("-U", 0) == 0)
          cmd.push_back(f);
      usedCuda = true;
    } else {
      cmd.insert(cmd.end(), o.compileFlags.begin(), o.compileFlags.end());
      if (o.cuda) // host code may call the CUDA runtime (mpiad_gpu.h)
        cmd.push_back("-I" + cudaHome() + "/include");
    }
    cmd.push_back("-I" + std::string(srcDir));
    cmd.push_back("-I" + prefix + "/include");
    cmd.push_back("-c");
    cmd.push_back(std::string(gen));
    std::string tmpObj = outObj + ".mpiad-tmp.o";
    removeOnSignal(tmpObj);
    cmd.push_back("-o");
    cmd.push_back(tmpObj);
    // The compiler's messages go through a file, so that errors in
    // generated code can be told from errors in the user's code.
    llvm::SmallString<128> errFile;
    llvm::sys::fs::createTemporaryFile("mpiad", "err", errFile);
    removeOnSignal(std::string(errFile));
    temps.push_back(std::string(errFile));
    int rc = run(cmd, std::string(errFile));
    std::string messages;
    {
      std::ifstream f(std::string(errFile), std::ios::binary);
      messages.assign(std::istreambuf_iterator<char>(f),
                      std::istreambuf_iterator<char>());
    }
    bool internal =
        rc > 0 && reportGeneratedErrors(messages, std::string(gen), r);
    llvm::errs() << messages;
    if (rc != 0) {
      removeTemp(tmpObj);
      cleanup();
      if (internal)
        return 1;
      return fail(rc < 0 ? "cannot run '" + cmd[0] + "'"
                         : "compiling the generated code of '" + in +
                               "' failed");
    }
    renameTemp(tmpObj, outObj);
    objects.push_back(outObj);
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
    std::string tmpOut = out + ".mpiad-tmp";
    removeOnSignal(tmpOut);
    cmd.push_back("-o");
    cmd.push_back(tmpOut);
    int rc = run(cmd);
    cleanup();
    if (rc != 0) {
      removeTemp(tmpOut);
      return fail("linking '" + out + "' failed");
    }
    renameTemp(tmpOut, out);
  } else {
    cleanup();
  }
  return 0;
}

} // namespace mpiad
