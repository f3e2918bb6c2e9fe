#!/usr/bin/env python3
"""Every C file mpiad-cc generates in the test suite must compile warning-free.

Generated code that does not compile, or compiles with warnings, is a tool bug
(docs/testing.md).  This check runs `mpiad-cc --emit-source` on every marked
source of the lit suite's codegen/, exec/ and driver/ tests and of the samples,
once per set of -D/-U/--rules options its RUN lines pass to the tool, and
compiles each output with

    clang-19 -fsyntax-only -Wall -Wextra -Werror <MPI include flags> ...

Only diagnostics in what mpiad-cc wrote count: lines of the output that are
not lines of the input (found with difflib), and headers of the build's include
directory (mpiad.h).  The user's own code is the user's business: a test's
harness may well have unused parameters.  Sources the tool rejects (tests of
errors) are skipped: there is nothing generated to check.  So is a test that
breaks the generated code on purpose: it says so on a line
`// generated-warnings: skip (REASON)`.  The CUDA target (test/lit/cuda, samples/*/gpu) is not
checked here: it needs nvcc.

Usage: check-generated-warnings.py --mpiad-cc BIN --include DIR [--jobs N]
                                   [--cc clang-19] [FILE.c ...]
Without FILE arguments, the suite's files are found from the source tree.
Exit status 0 when every generated file compiles cleanly, 1 otherwise.
"""

import argparse
import concurrent.futures
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIT = os.path.join(ROOT, "test", "lit")
WARNING_FLAGS = ["-Wall", "-Wextra", "-Werror"]


def suite_files():
    files = []
    for sub in ("codegen", "exec", "driver"):
        d = os.path.join(LIT, sub)
        files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".c")]
    samples = os.path.join(ROOT, "samples")
    for name in sorted(os.listdir(samples)):
        d = os.path.join(samples, name)
        if os.path.isdir(d):
            files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".c")]
    return files


def variants(path):
    """The option sets the file's RUN lines give mpiad-cc: -D/-U and --rules."""
    text = open(path, encoding="utf-8", errors="replace").read()
    if not re.search(r"^\s*#\s*pragma\s+mpiad\s+differentiate", text, re.M):
        return []
    if re.search(r"^\s*//\s*generated-warnings:\s*skip", text, re.M):
        return []
    here = os.path.dirname(path)
    found = []
    for line in re.findall(r"RUN:(.*)", text):
        if "%mpiad-emit" not in line and "%mpiad-cc" not in line:
            continue
        if "--target=cuda" in line:
            continue
        # The mpiad-cc part of a pipeline only.
        part = line[line.find("%mpiad-"):].split("|")[0]
        try:
            words = shlex.split(part.replace("%S", here).replace("%s", path))
        except ValueError:
            continue
        opts = []
        for i, w in enumerate(words):
            if re.match(r"-[DU]\S", w):
                opts.append(w)
            elif w == "--rules" and i + 1 < len(words):
                opts += ["--rules", words[i + 1]]
        if tuple(opts) not in found:
            found.append(tuple(opts))
    return found or [()]


def mpi_compile_flags():
    out = subprocess.run(["mpicc", "--showme:compile"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("check-generated-warnings: 'mpicc --showme:compile' failed")
    return shlex.split(out.stdout)


def generated_lines(source, generated):
    """Line numbers (1-based) of `generated` that mpiad-cc wrote, not copied."""
    a = open(source, encoding="utf-8", errors="replace").read().splitlines()
    b = open(generated, encoding="utf-8", errors="replace").read().splitlines()
    lines = set()
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, _, _, j1, j2 in sm.get_opcodes():
        if tag in ("insert", "replace"):
            lines.update(range(j1 + 1, j2 + 1))
    return lines


DIAG = re.compile(r"^(.*?):(\d+):\d+: (warning|error): ")


def tool_diagnostics(stderr, gen, lines, include):
    """The diagnostics (with their notes) located in generated code.  One
    that the user's code has too (same message: `variable 'k' set but not
    used` in a primal whose adjoint keeps the same dead counter) mirrors the
    user's code and is the user's."""
    user = set()
    for line in stderr.splitlines():
        m = DIAG.match(line)
        if m and not (os.path.realpath(m.group(1)) == os.path.realpath(gen) and
                      int(m.group(2)) in lines):
            user.add(line[m.end():])
    out, keep = [], False
    for line in stderr.splitlines():
        m = DIAG.match(line)
        if m:
            f = os.path.realpath(m.group(1))
            keep = ((f == os.path.realpath(gen) and int(m.group(2)) in lines) or
                    f.startswith(os.path.realpath(include) + os.sep)) and \
                line[m.end():] not in user
        elif re.match(r"^\S.*: (fatal error|error): ", line):
            keep = True  # not located: a command-line problem
        if keep:
            out.append(line)
    return out


def check(path, opts, args, mpi_flags, tmp):
    here = os.path.dirname(path)
    incs = ["-I" + here, "-I" + os.path.join(LIT, "Inputs"), "-I" + os.path.join(here, "Inputs")]
    tool_opts = list(opts)
    defines = [o for o in opts if re.match(r"-[DU]", o)]
    base = os.path.relpath(path, ROOT).replace("/", "_")
    gen = os.path.join(tmp, base + "".join(re.sub(r"\W", "_", d) for d in defines) + ".ad.c")
    emit = [args.mpiad_cc, "--emit-source", path] + incs + tool_opts + ["-o", gen]
    r = subprocess.run(emit, capture_output=True, text=True)
    label = os.path.relpath(path, ROOT) + ("" if not opts else " " + " ".join(opts))
    if r.returncode != 0:
        return ("skipped", label, "")
    cc = [args.cc, "-xc", "-fsyntax-only", "-ferror-limit=0",
          "-fno-diagnostics-color"] + WARNING_FLAGS + mpi_flags + \
         ["-I" + args.include] + incs + defines + [gen]
    r = subprocess.run(cc, capture_output=True, text=True)
    bad = tool_diagnostics(r.stderr, gen, generated_lines(path, gen), args.include)
    if bad:
        msg = "$ " + " ".join(shlex.quote(c) for c in cc) + "\n" + "\n".join(bad)
        return ("failed", label, msg)
    return ("ok", label, "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mpiad-cc", required=True)
    ap.add_argument("--include", required=True, help="directory holding mpiad.h")
    ap.add_argument("--cc", default="clang-19")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = [os.path.abspath(f) for f in args.files] or suite_files()
    mpi_flags = mpi_compile_flags()
    jobs = [(f, v) for f in files for v in variants(f)]
    counts = {"ok": 0, "skipped": 0, "failed": 0}
    with tempfile.TemporaryDirectory(prefix="mpiad-warnings-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(lambda j: check(j[0], j[1], args, mpi_flags, tmp), jobs))
        for status, label, msg in results:
            counts[status] += 1
            if status == "failed":
                print("FAIL: " + label + "\n" + msg)
    print("generated files: %d compile cleanly with %s, %d failed; %d sources rejected "
          "by mpiad-cc (not checked)" % (counts["ok"], " ".join(WARNING_FLAGS),
                                         counts["failed"], counts["skipped"]))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
