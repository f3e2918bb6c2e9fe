#!/usr/bin/env python3
"""csmith programs through mpiad-cc: no crash, no hang, located errors only,
generated C that compiles, and a primal that computes what it computed.

usage: csmith_run.py --cc MPIAD_CC [--seed S] [--count N] [--workdir DIR]
                     [--timeout SEC] [--jobs J] [-v]

For each seed, csmith (Debian packages csmith and libcsmith-dev) writes a
random C program with floating-point code (--float; no volatiles, bit-fields,
unions or packed structs, which mpiad does not claim).  Every function it
defines that returns float or double gets a '#pragma mpiad differentiate'
with wrt(...) over its floating scalar parameters (or, if it has none, over
its first pointer to floating data) and every other parameter in
varying(...).  A function with another result type whose first writable
pointer to floating data is p gets wrt(p) output(p) instead.  Then:
  - mpiad-cc --emit-source must finish (HANG otherwise), without a signal or
    an internal error (CRASH), and either accept the file or reject it with
    an error located in it (UNLOCATED otherwise);
  - what it accepts must compile and link with mpiad-cc (UNCOMPILABLE);
  - the program built by mpiad-cc must print what the program built by
    clang-19 prints (csmith's checksum of its globals): the tool leaves the
    primal as it was (MISMATCH otherwise).
Programs without a function to mark, or whose clang build does not finish
within the timeout, are SKIPPED.  Prints one line per bug (per program with
-v) and a summary; exits 1 if there was a bug.  Programs that showed one are
kept in WORKDIR/bugs/.
"""
import argparse
import os
import re
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor

from tool_run import run

CSMITH_FLAGS = ["--float", "--no-volatiles", "--no-bitfields", "--no-unions",
                "--no-packed-struct", "--max-funcs", "8"]
CSMITH_INC = "/usr/include/csmith"
DEF = re.compile(r"^static ([^()\n;]+?) +(func_\d+)\((.*)\)\s*$", re.M)


def mark(src):
    """Adds a pragma before each definition of a float/double function."""
    marked = 0

    def pragma(m):
        nonlocal marked
        params = [p.strip() for p in m.group(3).split(",")]
        if params == ["void"] or params == [""]:
            return m.group(0)
        names, floats, fptrs = [], [], []
        for p in params:
            n = re.findall(r"[A-Za-z_]\w*", p)
            if not n:
                return m.group(0)
            names.append(n[-1])
            if re.search(r"\b(float|double)\b", p):
                (fptrs if "*" in p else floats).append(n[-1])
        returns_floating = m.group(1).strip() in ("float", "double")
        if returns_floating:
            wrt, out = floats or fptrs[:1], []
        else:
            # No floating result: the first writable pointer to floating
            # data is both differentiated and the output.
            writable = [n for n, p in zip(names, params)
                        if n in fptrs and "const" not in p]
            wrt, out = writable[:1], writable[:1]
        if not wrt:
            return m.group(0)
        others = [n for n in names if n not in wrt]
        clause = "wrt(%s) varying(%s)" % (", ".join(wrt), ", ".join(wrt + others))
        if out:
            clause += " output(%s)" % ", ".join(out)
        marked += 1
        return "#pragma mpiad differentiate %s\n%s" % (clause, m.group(0))

    return DEF.sub(pragma, src), marked


def check(args, seed):
    d = os.path.join(args.workdir, "s%d" % seed)
    os.makedirs(d, exist_ok=True)
    rc, src = run(["csmith", "--seed", str(seed)] + CSMITH_FLAGS, 60, d)
    if rc != 0:
        return seed, "SKIPPED", "csmith failed"
    src, marked = mark(src)
    if not marked:
        shutil.rmtree(d, ignore_errors=True)
        return seed, "SKIPPED", "no function to mark"
    with open(os.path.join(d, "p.c"), "w") as f:
        f.write(src)
    inc = ["-I" + CSMITH_INC, "-w"]
    rc, ref = run(["clang-19", "-O1"] + inc + ["p.c", "-o", "ref"], args.timeout, d)
    if rc != 0:
        shutil.rmtree(d, ignore_errors=True)
        return seed, "SKIPPED", "clang-19 does not build it"
    rc, want = run(["./ref"], args.timeout, d)
    if rc is None:
        shutil.rmtree(d, ignore_errors=True)
        return seed, "SKIPPED", "the program does not finish"
    rc, out = run([args.cc] + inc + ["--emit-source", "p.c", "-o", "g.c"],
                  args.timeout, d)
    what, detail = None, ""
    if rc is None:
        what = "HANG"
    elif rc < 0 or rc >= 128 or "internal error" in out or "Stack dump" in out:
        what = "CRASH"
    elif rc != 0:
        first = next((l for l in out.splitlines() if "error:" in l), "")
        if not re.match(r"^(?:\S*/)?p\.c:\d+:\d+: (fatal )?error:", first):
            what = "UNLOCATED"
        detail = first
        status = what or "REJECTED"
    if rc == 0:
        rc2, out2 = run([args.cc, "-O1"] + args.cflags.split() + inc +
                        ["p.c", "-lm", "-o", "mine"],
                        args.timeout, d)
        if rc2 is None:
            what, out = "HANG", out + out2
        elif rc2 != 0:
            what, out = "UNCOMPILABLE", out + out2
        else:
            rc3, got = run(["./mine"], args.timeout * 2, d)
            if rc3 is None or got != want:
                what = "MISMATCH"
                out += "\nclang-19: %s\nmpiad-cc: %s" % (want.strip(), (got or "").strip())
        status = what or "ACCEPTED"
    if what:
        bugs = os.path.join(args.workdir, "bugs")
        os.makedirs(bugs, exist_ok=True)
        shutil.copy(os.path.join(d, "p.c"), os.path.join(bugs, "s%d.c" % seed))
        with open(os.path.join(bugs, "s%d.txt" % seed), "w") as f:
            f.write("%s (seed %d, %d functions marked)\n\n%s" %
                    (what, seed, marked, out))
        first = next((l for l in out.splitlines() if l.strip()), "")
        detail = first[:200]
    shutil.rmtree(d, ignore_errors=True)
    return seed, status, detail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cc", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--workdir", default="csmith-work")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cflags", default="",
                    help="extra flags for compiling the differentiated program "
                         "(the sanitizer flags of a sanitizer build)")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    if not shutil.which("csmith") or not os.path.isdir(CSMITH_INC):
        sys.exit("csmith_run.py: needs the Debian packages csmith and "
                 "libcsmith-dev (apt-get install csmith libcsmith-dev)")
    args.cc = os.path.abspath(args.cc)
    args.workdir = os.path.abspath(args.workdir)
    shutil.rmtree(args.workdir, ignore_errors=True)
    os.makedirs(args.workdir)
    counts, bugs = {}, 0
    seeds = range(args.seed, args.seed + args.count)
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for seed, status, detail in ex.map(lambda s: check(args, s), seeds):
            counts[status] = counts.get(status, 0) + 1
            bug = status not in ("ACCEPTED", "REJECTED", "SKIPPED")
            bugs += bug
            if bug or args.v:
                print("%s seed %d: %s" % (status, seed, detail))
                sys.stdout.flush()
    print("csmith programs: %d (seeds %d-%d): %s" % (
        args.count, args.seed, args.seed + args.count - 1,
        ", ".join("%s %d" % (s, counts.get(s, 0)) for s in
                  ("ACCEPTED", "REJECTED", "SKIPPED", "CRASH", "HANG",
                   "UNLOCATED", "UNCOMPILABLE", "MISMATCH"))))
    sys.exit(1 if bugs else 0)


if __name__ == "__main__":
    main()
