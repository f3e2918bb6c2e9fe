#!/usr/bin/env python3
"""Mutation tester of the tool's front end: mutated test inputs never crash
mpiad-cc, never hang it, and never give C that does not compile.

usage: mutate_inputs.py --cc MPIAD_CC --inputs DIR [--seed S] [--count N]
                        [--workdir DIR] [--timeout SEC] [--jobs J] [-v]

Each mutant is one file of DIR (recursively: every .c file that holds a
'#pragma mpiad differentiate') with one seeded edit:
  - a token deleted, duplicated, or replaced by another token of the file or
    by an operator, keyword or number;
  - two adjacent tokens swapped;
  - in a '#pragma mpiad' line: a clause dropped or duplicated, a name in a
    clause replaced by another identifier of the file, junk inserted, a byte
    changed.
mpiad-cc --emit-source then runs on it, under a timeout.  The outcome is
  - REJECTED: a non-zero exit with a located error ('FILE:LINE:COL: error:')
    naming the mutant, and no internal error: fine;
  - ACCEPTED: exit 0, and the generated C compiles (mpiad-cc -c on the
    mutant): fine;
  - CRASH: a signal, or a message that says 'internal error' or holds a stack
    dump;
  - HANG: the timeout;
  - UNLOCATED: a non-zero exit whose first error names no line of the mutant;
  - CC-REJECTED: exit 0, and compiling fails with the compiler's error on a
    line of the mutant itself (user code, mapped there by #line): the user's
    mistake located as mpicc would (a generated function called with wrong
    arguments, which the parse sees as an implicit declaration): fine;
  - UNCOMPILABLE: exit 0 but the generated C does not compile: its first
    error is in the generated code (or says 'internal error').
The last four are bugs.  Prints one line per bug (and per mutant with -v), a
summary, and exits 1 if there was any.  Mutants that showed a bug are kept
in WORKDIR/bugs/ with the tool's output beside them.  Reproducible: mutant k
of seed S is always the same edit of the same file.
"""
import argparse
import os
import random
import re
import shutil
import signal
import sys
from concurrent.futures import ThreadPoolExecutor

from tool_run import run

TOKEN = re.compile(
    r"[A-Za-z_]\w*|\d+\.?\d*(?:[eE][-+]?\d+)?|->|\+\+|--|<<|>>|<=|>=|==|!=|"
    r"&&|\|\||[-+*/%]=|[-+*/%<>=!&|^~?:;,.(){}\[\]#]")
POOL = ["+", "-", "*", "/", "%", "=", "==", "<", ">", "(", ")", "[", "]", "{",
        "}", ";", ",", "&", "*", "->", ".", "++", "--", "0", "1", "2.5", "-1",
        "if", "else", "for", "while", "return", "break", "double", "int",
        "float", "const", "static", "void", "struct", "sizeof", "NULL",
        "MPI_COMM_WORLD", "MPI_DOUBLE", "MPI_SUM", "MPI_IN_PLACE"]
CLAUSES = ["wrt(x)", "output(y)", "replicated(n)", "varying(x)", "name(g_b)",
           "semantics(per_rank)", "semantics(global)", "forward", "reverse",
           "replicated(x[n])", "output(return)", "wrt()", "varying(",
           "name(main)", "replicated(x[n+1])"]


def inputs(root):
    files = []
    for d, _, names in os.walk(root):
        for n in sorted(names):
            p = os.path.join(d, n)
            if n.endswith(".c") and "Output" not in p:
                with open(p, errors="replace") as f:
                    text = f.read()
                if "#pragma mpiad differentiate" in text:
                    files.append((p, text))
    files.sort()
    return files


def mutate(text, rng):
    """One seeded edit; returns (new text, description)."""
    lines = text.split("\n")
    pragma_lines = [i for i, l in enumerate(lines) if "#pragma mpiad" in l]
    kind = rng.randrange(8)
    if kind >= 6 and pragma_lines:
        i = rng.choice(pragma_lines)
        line = lines[i]
        how = rng.randrange(5)
        clauses = list(re.finditer(r"\w+\([^()]*(?:\([^()]*\)[^()]*)*\)", line))
        if how == 0 and clauses:
            c = rng.choice(clauses)
            lines[i] = line[:c.start()] + line[c.end():]
            desc = "pragma line %d: clause '%s' dropped" % (i + 1, c.group(0))
        elif how == 1 and clauses:
            c = rng.choice(clauses)
            lines[i] = line + " " + c.group(0)
            desc = "pragma line %d: clause '%s' twice" % (i + 1, c.group(0))
        elif how == 2:
            idents = sorted(set(re.findall(r"[A-Za-z_]\w*", text)))
            names = list(re.finditer(r"(?<=[(,\s])([A-Za-z_]\w*)(?=[,)\[])", line))
            if names and idents:
                m = rng.choice(names)
                new = rng.choice(idents)
                lines[i] = line[:m.start()] + new + line[m.end():]
                desc = "pragma line %d: '%s' -> '%s'" % (i + 1, m.group(0), new)
            else:
                lines[i] = line + " " + rng.choice(CLAUSES)
                desc = "pragma line %d: clause added" % (i + 1)
        elif how == 3:
            junk = rng.choice(CLAUSES)
            pos = rng.randrange(len(line) + 1)
            lines[i] = line[:pos] + " " + junk + " " + line[pos:]
            desc = "pragma line %d: '%s' inserted at column %d" % (i + 1, junk, pos + 1)
        else:
            pos = rng.randrange(len(line)) if line else 0
            ch = chr(rng.choice([32, 40, 41, 44, 91, 93, 48, 49, 120, 110, 59]))
            lines[i] = line[:pos] + ch + line[pos + 1:]
            desc = "pragma line %d: column %d -> %r" % (i + 1, pos + 1, ch)
        return "\n".join(lines), desc
    # Token edits, in the code (not in comments: those change nothing).
    toks = []
    for ln, line in enumerate(lines):
        code = line.split("//")[0]
        if code.lstrip().startswith("#"):
            continue
        for m in TOKEN.finditer(code):
            toks.append((ln, m.start(), m.end(), m.group(0)))
    if not toks:
        return text + "\n;", "no tokens: ';' appended"
    t = rng.randrange(len(toks))
    ln, a, b, tok = toks[t]
    line = lines[ln]
    if kind == 0:
        lines[ln] = line[:a] + line[b:]
        desc = "line %d: '%s' deleted" % (ln + 1, tok)
    elif kind == 1:
        lines[ln] = line[:b] + " " + tok + line[b:]
        desc = "line %d: '%s' duplicated" % (ln + 1, tok)
    elif kind in (2, 3):
        new = rng.choice(toks)[3] if kind == 2 else rng.choice(POOL)
        lines[ln] = line[:a] + new + line[b:]
        desc = "line %d: '%s' -> '%s'" % (ln + 1, tok, new)
    else:
        if t + 1 < len(toks) and toks[t + 1][0] == ln:
            _, a2, b2, tok2 = toks[t + 1]
            lines[ln] = line[:a] + tok2 + line[b:a2] + tok + line[b2:]
            desc = "line %d: '%s' and '%s' swapped" % (ln + 1, tok, tok2)
        else:
            lines[ln] = line[:a] + line[b:]
            desc = "line %d: '%s' deleted" % (ln + 1, tok)
    return "\n".join(lines), desc


def check(args, k, files):
    rng = random.Random("%d:%d" % (args.seed, k))
    path, text = files[rng.randrange(len(files))]
    new, desc = mutate(text, rng)
    d = os.path.join(args.workdir, "m%d" % k)
    os.makedirs(d, exist_ok=True)
    name = "mutant.c"
    with open(os.path.join(d, name), "w") as f:
        f.write(new)
    base = [args.cc, "-I" + os.path.dirname(path), "-I" + args.inputs_dir]
    rc, out = run(base + ["--emit-source", name, "-o", "out.c"], args.timeout, d)
    what = None
    ccRejected = False
    if rc is None:
        what = "HANG"
    elif rc < 0 or rc >= 128 or "internal error" in out or \
            "Stack dump" in out or "PLEASE submit a bug report" in out:
        what = "CRASH"
    elif rc != 0:
        first = next((l for l in out.splitlines() if "error:" in l), "")
        if not re.match(r"^(?:\S*/)?mutant\.c:\d+:\d+: (fatal )?error:",
                        first):
            what = "UNLOCATED"
    else:
        rc2, out2 = run(base + ["-c", name, "-o", "out.o"], args.timeout, d)
        if rc2 is None:
            what, out = "HANG", out + out2
        elif rc2 != 0:
            # The compiler's first error on a line of the mutant itself (the
            # #line directives map user code to mutant.c, generated code to
            # the generated file) is the user's mistake, located as mpicc
            # would locate it: a call of a generated function with wrong
            # arguments, which the parse takes as an implicit declaration.
            first = next((l for l in out2.splitlines() if " error:" in l), "")
            if "internal error" not in out2 and re.match(
                    r"^(?:\S*/)?mutant\.c:\d+:\d+: (fatal )?error:", first):
                ccRejected = True
            else:
                what, out = "UNCOMPILABLE", out + out2
    status = what or ("CC-REJECTED" if ccRejected else
                      "ACCEPTED" if rc == 0 else "REJECTED")
    rel = os.path.relpath(path, args.inputs)
    if what:
        bugs = os.path.join(args.workdir, "bugs")
        os.makedirs(bugs, exist_ok=True)
        shutil.copy(os.path.join(d, name), os.path.join(bugs, "m%d.c" % k))
        with open(os.path.join(bugs, "m%d.txt" % k), "w") as f:
            f.write("%s: %s, %s\n\n%s" % (status, rel, desc, out))
    else:
        shutil.rmtree(d, ignore_errors=True)
    return k, status, rel, desc, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cc", required=True)
    ap.add_argument("--inputs", required=True,
                    help="folder of inputs (test/lit): every .c file with a pragma")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--workdir", default="mutate-work")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    args.cc = os.path.abspath(args.cc)
    args.inputs = os.path.abspath(args.inputs)
    args.inputs_dir = os.path.join(args.inputs, "Inputs")
    args.workdir = os.path.abspath(args.workdir)
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    files = inputs(args.inputs)
    if not files:
        sys.exit("mutate_inputs.py: no input with a pragma under " + args.inputs)
    counts = {}
    bugs = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for k, status, rel, desc, out in ex.map(
                lambda k: check(args, k, files), range(args.count)):
            counts[status] = counts.get(status, 0) + 1
            if status not in ("ACCEPTED", "REJECTED", "CC-REJECTED"):
                bugs += 1
                first = next((l for l in out.splitlines() if l.strip()), "")
                print("%s mutant %d (seed %d): %s, %s: %s" %
                      (status, k, args.seed, rel, desc, first[:200]))
            elif args.v:
                print("%s mutant %d: %s, %s" % (status, k, rel, desc))
            sys.stdout.flush()
    print("mutants: %d (seed %d, %d inputs): %s" % (
        args.count, args.seed, len(files),
        ", ".join("%s %d" % (s, counts.get(s, 0)) for s in
                  ("ACCEPTED", "REJECTED", "CC-REJECTED", "CRASH", "HANG",
                   "UNLOCATED", "UNCOMPILABLE"))))
    sys.exit(1 if bugs else 0)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    main()
