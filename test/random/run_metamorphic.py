#!/usr/bin/env python3
"""Metamorphic gradient tests: equal programs must give equal gradients.

For each pair (source, seed) metamorphic.py rewrites the marked functions of
an execution test with a chain of 1-4 semantics-preserving rewrites; the
rewrite is compiled with mpiad-cc as the test's RUN lines compile it and run
beside the original at each rank count.  The rewrite must print "ALL PASSED"
whenever the original does, and every number on its output lines must equal
the original's to a relative 1e-10 (line by line; the `relerr` figures are not
compared, and lines about tape bytes other than "tape empty" may differ: such
a difference is listed as a lost optimisation).  Each pair is one of

  MATCH         same output (lost optimisations listed apart)
  MISMATCH      a number differs or a check fails: a bug in mpiad or in the rewrite
  REJECTED      mpiad-cc gave a located error on the rewrite and accepted the
                original (listed per rewrite and message; not a failure)
  WARNED        a check fails, and mpiad-cc warned on the rewrite (not on the
                original) that an output does not hold its final values
                (-Wmpiad-restored-output, documented): listed, not a failure
  COMPILE-FAIL  the generated C of the rewrite does not compile
  CRASH         mpiad-cc or a run died (signal, no output, MPI_Abort)
  TIMEOUT       mpiad-cc, the compile or a run ran out of time
  NO-SITE       no rewrite applies to the source (not counted)
  SKIPPED       the original does not build or pass with this mpiad-cc (not counted)

For every pair that is not MATCH the runner also tries the prefixes of the
chain and names the first rewrite that gives the same class.  Exit status 1
on any MISMATCH, COMPILE-FAIL, CRASH or TIMEOUT.

Sources: by default every test/lit/exec/*.c and test/realworld/*.c with a
differentiate pragma whose RUN lines it can reproduce: `%mpiad-cc` compile
steps (`%s`, `%S`, `%t`, `%harness`, `%srcroot` substituted) and
`%mpirun N %t [ARGS] | FileCheck ...` runs.  `%mpiad-emit` lines (checks of
the generated text), `not ...` and `env ...` lines are ignored; a file with
any other RUN line (python, %mpicc, rm, ...) is skipped and listed.  Pair k
(seed S + k) takes source number (S + k) mod (number of sources).  The
original's outputs are cached in WORKDIR/orig (keyed by the source, the
flags and mpiad-cc's size and time).

  run_metamorphic.py --cc build/bin/mpiad-cc --seed 1 --count 30
  run_metamorphic.py --cc build/bin/mpiad-cc --only test/lit/exec/loops.c --seed 7 -v
"""

import argparse
import concurrent.futures as cf
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import metamorphic  # noqa: E402

DEFAULT_MPIRUN = ("mpirun --allow-run-as-root --oversubscribe --mca btl self,vader "
                  "--mca pml ob1 -np")
DEFAULT_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_btl": "self,vader",
    "OMPI_MCA_pml": "ob1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_hwloc_base_binding_policy": "none",
    "OMPI_CC": "clang-19",
}
DEFAULT_SOURCES = ["test/lit/exec/*.c", "test/realworld/*.c"]
FAILING = ("MISMATCH", "COMPILE-FAIL", "CRASH", "TIMEOUT")
CLASSES = ("MATCH", "MISMATCH", "REJECTED", "WARNED", "COMPILE-FAIL", "CRASH",
           "TIMEOUT", "NO-SITE", "SKIPPED")
LOCATED = re.compile(r"^\S+:\d+:\d+: (fatal )?error: ", re.M)
NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b",
                 re.I)


def run_limited(cmd, timeout, env, cwd=None):
    """Run cmd in its own process group; on timeout kill that group.
    Returns (status, rc, stdout, stderr) with status 'ok' or 'timeout'."""
    for attempt in range(60):
        try:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=env, cwd=cwd, start_new_session=True)
            break
        except (PermissionError, FileNotFoundError, OSError) as e:
            # mpiad-cc is briefly missing or half-written while it is rebuilt
            if attempt == 59:
                raise
            time.sleep(2)
    try:
        out, err = p.communicate(timeout=timeout)
        return "ok", p.returncode, out.decode(errors="replace"), err.decode(errors="replace")
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, err = p.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            out, err = b"", b""
        return "timeout", None, (out or b"").decode(errors="replace"), \
            (err or b"").decode(errors="replace")


# ---------------------------------------------------------------------------
# RUN lines
# ---------------------------------------------------------------------------

class Source:
    """A test file, its compile steps and its runs (from its RUN lines)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.rel = os.path.relpath(self.path, ROOT)
        self.name = re.sub(r"\W", "_", os.path.splitext(self.rel)[0].replace(
            "test/", "").replace("/", "_"))
        self.compiles = []   # argument lists with placeholders
        self.runs = {}       # (args tuple) -> set of rank counts
        self.ignored = []
        self.skip = None
        self._parse()

    def _parse(self):
        text = open(self.path).read()
        if "#pragma mpiad differentiate" not in text:
            self.skip = "no differentiate pragma"
            return
        lines = []
        cont = ""
        for l in text.splitlines():
            m = re.search(r"RUN:\s?(.*)$", l)
            if not m:
                continue
            part = m.group(1).rstrip()
            if part.endswith("\\"):
                cont += part[:-1] + " "
                continue
            lines.append((cont + part).strip())
            cont = ""
        if not lines:
            self.skip = "no RUN lines"
            return
        outputs = set()
        for cmd in lines:
            if "%mpiad-emit" in cmd:
                self.ignored.append(cmd)
                continue
            if cmd.startswith("not ") or cmd.startswith("env "):
                self.ignored.append(cmd)
                continue
            if cmd.startswith("%mpiad-cc ") and "|" not in cmd and ">" not in cmd:
                args = shlex.split(cmd)[1:]
                if any("%mpicc" in a or "%t.c" in a for a in args):
                    self.skip = "RUN line: " + cmd
                    return
                if "-o" in args:
                    outputs.add(args[args.index("-o") + 1])
                self.compiles.append(args)
                continue
            m = re.match(r"%mpirun (\d+) (%t\S*)((?: [^|]*)?)\| *FileCheck", cmd)
            if m:
                if m.group(2) not in outputs:
                    self.skip = "runs a binary no compile line makes: " + cmd
                    return
                key = (m.group(2), tuple(shlex.split(m.group(3))))
                self.runs.setdefault(key, set()).add(int(m.group(1)))
                continue
            self.skip = "RUN line: " + cmd
            return
        if not self.compiles:
            self.skip = "no %mpiad-cc compile line"
        elif not self.runs:
            self.skip = "no plain %mpirun line"

    def nps(self, wanted):
        """The rank counts to run: those of --np the RUN lines use, or else the
        smallest the RUN lines use."""
        used = set()
        for v in self.runs.values():
            used |= v
        got = sorted(set(wanted) & used)
        return got or [min(used)]

    def subst(self, arg, src, tbase):
        harness = os.path.join(ROOT, "test", "lit", "Inputs")
        d = os.path.dirname(self.path)
        return (arg.replace("%srcroot", ROOT).replace("%harness", harness)
                .replace("%s", src).replace("%S", d).replace("%t", tbase))


# ---------------------------------------------------------------------------
# Building and running one version of a source
# ---------------------------------------------------------------------------

class Ctx:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ)
        for k, v in DEFAULT_ENV.items():
            self.env.setdefault(k, v)
        self.mpirun = shlex.split(args.mpirun)
        self.cflags = shlex.split(args.cflags)
        self.lock = threading.Lock()
        self.orig_locks = {}
        st = os.stat(args.cc)
        self.cc_key = "%s:%d:%d" % (os.path.abspath(args.cc), st.st_size, int(st.st_mtime))


def emit_flags(source, args_list, src, tbase):
    """The -I/-D/-W/--rules flags of the compile step that compiles %s, for
    mpiad-cc --emit-source."""
    for a in args_list:
        if "%s" not in a:
            continue
        out = []
        it = iter(args_list)
        for x in it:
            if x in ("-o",):
                next(it, None)
                continue
            if x == "--rules":
                out += [x, source.subst(next(it, ""), src, tbase)]
                continue
            if re.match(r"-[IDWU]", x) or x.startswith("-std"):
                out.append(source.subst(x, src, tbase))
        return out
    return []


def build(ctx, source, src, wd, emit):
    """Compile src (the original or a rewrite of source) in wd following the RUN
    lines.  Returns (status, detail, warnings): status None when it built,
    else REJECTED / CRASH / COMPILE-FAIL / TIMEOUT."""
    a = ctx.args
    tbase = os.path.join(wd, "t")
    extra = ["-I" + os.path.dirname(source.path)] + ctx.cflags
    warnings = []
    if emit:
        for args_list in source.compiles:
            if any("%s" == x for x in args_list):
                flags = emit_flags(source, args_list, src, tbase)
                cmd = [a.cc, "--emit-source"] + flags + ["-I" + os.path.dirname(source.path),
                                                         src, "-o", os.path.join(wd, "ad.c")]
                st, rc, out, err = run_limited(cmd, a.compile_timeout, ctx.env, cwd=wd)
                both = out + err
                with open(os.path.join(wd, "emit.log"), "w") as fh:
                    fh.write(" ".join(map(shlex.quote, cmd)) + "\n" + both)
                if st == "timeout":
                    return "TIMEOUT", ["mpiad-cc --emit-source timed out"], warnings
                if rc != 0:
                    errs = [l for l in both.splitlines() if " error: " in l]
                    if rc > 0 and LOCATED.search(both):
                        return "REJECTED", errs[:3], warnings
                    return "CRASH", ["mpiad-cc exit status %s" % rc] + \
                        both.splitlines()[-6:], warnings
                warnings = [l for l in both.splitlines() if " warning: " in l]
                break
    for args_list in source.compiles:
        cmd = [a.cc] + [source.subst(x, src, tbase) for x in args_list] + extra
        st, rc, out, err = run_limited(cmd, a.compile_timeout, ctx.env, cwd=wd)
        both = out + err
        with open(os.path.join(wd, "compile.log"), "a") as fh:
            fh.write(" ".join(map(shlex.quote, cmd)) + "\n" + both)
        if st == "timeout":
            return "TIMEOUT", ["compile timed out: " + " ".join(cmd)], warnings
        if rc != 0:
            errs = [l for l in both.splitlines() if "error" in l]
            if not emit and rc > 0 and LOCATED.search(both):
                return "REJECTED", errs[:3], warnings
            return "COMPILE-FAIL", (errs or both.splitlines())[:4], warnings
    return None, [], warnings


def run_all(ctx, source, wd):
    """Run the built binary at each rank count.  Returns {key: (status, stdout,
    stderr tail)} with key 'np=N args' and status ok / timeout / crash."""
    a = ctx.args
    res = {}
    tbase = os.path.join(wd, "t")
    for (binary, rargs), _ in sorted(source.runs.items()):
        exe = binary.replace("%t", tbase)
        for np_ in source.nps(a.np):
            key = "np=%d%s" % (np_, (" " + " ".join(rargs)) if rargs else "")
            renv = dict(ctx.env)
            tmpd = tempfile.mkdtemp(prefix="mto", dir="/tmp")
            renv["OMPI_MCA_orte_tmpdir_base"] = tmpd
            try:
                for attempt in range(2):
                    st, rc, out, err = run_limited(ctx.mpirun + [str(np_), exe] + list(rargs),
                                                   a.timeout, renv, cwd=wd)
                    # Open MPI's own start-up failing (session directories):
                    # try once more
                    if st == "ok" and rc != 0 and not out.strip() and attempt == 0:
                        continue
                    break
            finally:
                shutil.rmtree(tmpd, ignore_errors=True)
            if st == "timeout":
                res[key] = ("timeout", out, err[-2000:])
            elif rc != 0 and "ALL PASSED" not in out and \
                    ("SOME CHECKS FAILED" not in out or rc < 0 or rc > 1):
                res[key] = ("crash", out, "exit status %s\n%s" % (rc, err[-2000:]))
            else:
                res[key] = ("ok", out, err[-2000:])
    return res


def original(ctx, source):
    """Build and run the original once (cached on disk); returns
    (error or None, {key: (status, stdout, err)})."""
    a = ctx.args
    with ctx.lock:
        lk = ctx.orig_locks.setdefault(source.path, threading.Lock())
    with lk:
        text = open(source.path).read()
        h = hashlib.sha1(("v2\0" + text + "\0" + ctx.cc_key + "\0" + a.cflags + "\0" +
                          ",".join(map(str, a.np))).encode()).hexdigest()[:16]
        wd = os.path.join(a.workdir, "orig", source.name)
        cache = os.path.join(wd, "result-%s.json" % h)
        if os.path.exists(cache):
            with open(cache) as fh:
                d = json.load(fh)
            return d["error"], d["runs"], d.get("warnings", [])
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
        st, detail, warns = build(ctx, source, source.path, wd, emit=True)
        if st:
            d = {"error": "%s: %s" % (st, "; ".join(detail)), "runs": {}}
        else:
            d = {"error": None, "runs": run_all(ctx, source, wd),
                 "warnings": [norm_warning(w) for w in warns]}
        for f in os.listdir(wd):
            p = os.path.join(wd, f)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                os.unlink(p)
        with open(cache, "w") as fh:
            json.dump(d, fh)
        return d["error"], d["runs"], d.get("warnings", [])


def norm_warning(w):
    return re.sub(r"^\S+:\d+:\d+: ", "", w.strip())


# ---------------------------------------------------------------------------
# Comparing outputs
# ---------------------------------------------------------------------------

def is_f32(v):
    """A non-integer value that a float holds exactly: printed from a float."""
    try:
        return v != int(v) and struct.unpack("f", struct.pack("f", v))[0] == v
    except (OverflowError, ValueError):
        return False


def close(x, y, rtol, atol):
    """Equal to rtol (1e-5 when both are float values: a float program's
    adjoint may round differently), or to atol."""
    try:
        a, b = float(x), float(y)
    except ValueError:
        return x == y
    if a != a or b != b:
        return (a != a) and (b != b)
    if is_f32(a) and is_f32(b):
        rtol = max(rtol, 1e-5)
    return abs(a - b) <= max(rtol * max(abs(a), abs(b)), atol)


def line_numbers(line):
    """(skeleton, numbers) of an output line; the number after 'relerr' and the
    index of 'worst element N' are left out of the numbers."""
    nums, skel, pos = [], [], 0
    for m in NUM.finditer(line):
        # a number glued to a word (x1, rg_f_b) is part of the word
        if m.start() > 0 and (line[m.start() - 1].isalnum() or line[m.start() - 1] == "_"):
            continue
        skel.append(line[pos:m.start()])
        pos = m.end()
        before = line[:m.start()].rstrip()
        if before.endswith("relerr") or before.endswith("worst element"):
            skel.append("#")
        else:
            skel.append("%")
            nums.append(m.group(0))
    skel.append(line[pos:])
    return "".join(skel), nums


def is_tape_bytes(line):
    l = line.lower()
    return "tape" in l and "tape empty" not in l


def compare(orig, new, rtol, atol):
    """Returns (verdict, details, lost): verdict 'same' / 'differ'; lost
    lists differing tape-byte lines."""
    ol = [l for l in orig.splitlines() if l.strip()]
    nl = [l for l in new.splitlines() if l.strip()]
    details, lost = [], []
    if len(ol) != len(nl):
        details.append("%d output lines, the original has %d" % (len(nl), len(ol)))
    for k, (a, b) in enumerate(zip(ol, nl)):
        sa, na = line_numbers(a)
        sb, nb = line_numbers(b)
        same = sa == sb and len(na) == len(nb) and all(
            close(x, y, rtol, atol) for x, y in zip(na, nb))
        if same:
            continue
        wa = re.search(r"worst element (\d+)", a)
        wb = re.search(r"worst element (\d+)", b)
        if wa and wb and wa.group(1) != wb.group(1) and sa == sb and \
                a.rstrip().endswith("PASS") and b.rstrip().endswith("PASS"):
            # both vectors pass their check; the element with the largest
            # relative error (rounding noise) is another one
            continue
        if is_tape_bytes(a) and is_tape_bytes(b):
            lost.append("%s  ->  %s" % (a.strip(), b.strip()))
            continue
        details.append("line %d: %s\n      was: %s" % (k + 1, b.strip(), a.strip()))
    # a tape-byte check that now fails also changes the final summary line
    if lost and details and all(("ALL PASSED" in d or "SOME CHECKS FAILED" in d)
                                for d in details):
        nfail = sum(1 for l in lost if l.endswith("FAIL"))
        m = re.search(r"SOME CHECKS FAILED: (\d+)", nl[-1] if nl else "")
        if m and int(m.group(1)) == nfail and "ALL PASSED" in (ol[-1] if ol else ""):
            details = []
    return ("same" if not details else "differ"), details, lost


# ---------------------------------------------------------------------------
# One pair
# ---------------------------------------------------------------------------

def evaluate(ctx, source, seed, wd, max_steps=None, only_keys=None):
    """Rewrite, build and run one pair.  Returns a dict with class, chain,
    detail, lost, warnings."""
    a = ctx.args
    text = open(source.path).read()
    new, chain = metamorphic.rewrite(text, seed, max_steps=max_steps)
    res = {"class": None, "chain": chain, "detail": [], "lost": [], "warnings": []}
    if not chain:
        res["class"] = "NO-SITE"
        return res
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    src = os.path.join(wd, os.path.basename(source.path))
    with open(src, "w") as fh:
        fh.write(new)
    with open(os.path.join(wd, "chain.txt"), "w") as fh:
        fh.write("%s --seed %d\n%s\n" % (source.rel, seed, metamorphic.describe(chain)))
    err, oruns, owarns = original(ctx, source)
    if err or not any(st == "ok" and "ALL PASSED" in out for st, out, _ in oruns.values()):
        res["class"] = "SKIPPED"
        res["detail"] = ["the original does not pass: " + (err or "no ALL PASSED")]
        return res
    st, detail, warns = build(ctx, source, src, wd, emit=True)
    if st:
        res["class"], res["detail"] = st, detail
        return res
    res["warnings"] = [w for w in warns if norm_warning(w) not in owarns]
    runs = run_all(ctx, source, wd)
    for key in sorted(runs):
        if only_keys is not None and key not in only_keys:
            continue
        ost, oout, _ = oruns.get(key, ("missing", "", ""))
        nst, nout, nerr = runs[key]
        opass = ost == "ok" and "ALL PASSED" in oout
        if nst == "timeout":
            res["class"] = "TIMEOUT"
            res["detail"].append("%s: timed out" % key)
            break
        if nst == "crash" and opass:
            res["class"] = "CRASH"
            res["detail"] += ["%s: %s" % (key, nerr.strip().splitlines()[0] if nerr.strip()
                                          else "crash")] + nout.splitlines()[-4:]
            break
        if not opass:
            continue  # the original does not pass at this rank count
        verdict, det, lost = compare(oout, nout, a.rtol, a.atol)
        res["lost"] += ["%s: %s" % (key, l) for l in lost]
        if verdict != "same":
            res["class"] = "MISMATCH"
            res["detail"] += ["%s: %s" % (key, d) for d in det[:6]]
            res["failing_key"] = key
            break
    if res["class"] is None:
        res["class"] = "MATCH"
    if res["class"] == "MISMATCH" and any("-Wmpiad-restored-output" in w
                                          for w in res["warnings"]):
        # documented: an output whose length cannot be inferred is left
        # restored, with this warning; the rewrite lost the inference
        res["class"] = "WARNED"
        res["detail"] = [w.strip() for w in res["warnings"]][:2] + res["detail"]
    return res


def culprit(ctx, source, seed, res, wd):
    """The first prefix of the chain that gives the same class: its last rewrite
    is the one that matters."""
    n = len(res["chain"])
    keys = {res["failing_key"]} if "failing_key" in res else None
    for k in range(1, n):
        r = evaluate(ctx, source, seed, wd + ".p%d" % k, max_steps=k, only_keys=keys)
        if not ctx.args.keep:
            shutil.rmtree(wd + ".p%d" % k, ignore_errors=True)
        if r["class"] == res["class"]:
            return k
    return n


def one(ctx, source, seed):
    a = ctx.args
    wd = os.path.join(a.workdir, "pairs", "%s_s%d" % (source.name, seed))
    t0 = time.time()
    try:
        res = evaluate(ctx, source, seed, wd)
        if res["class"] not in ("MATCH", "NO-SITE", "SKIPPED") and len(res["chain"]) > 1:
            k = culprit(ctx, source, seed, res, wd)
            res["culprit"] = res["chain"][k - 1]
            res["culprit_prefix"] = k
        elif res["class"] not in ("MATCH", "NO-SITE", "SKIPPED"):
            res["culprit"] = res["chain"][0]
            res["culprit_prefix"] = 1
    except Exception as e:  # a bug of the rewriter or the runner
        import traceback
        res = {"class": "CRASH", "chain": [], "detail": ["runner: %r" % e] +
               traceback.format_exc().splitlines()[-4:], "lost": [], "warnings": []}
    if res["class"] in ("MATCH", "NO-SITE", "SKIPPED") and not a.keep:
        shutil.rmtree(wd, ignore_errors=True)
    res["seconds"] = time.time() - t0
    return source, seed, res


def parse_np(s):
    return [int(x) for x in s.split(",") if x.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__[__doc__.index("\n\n") + 2:])
    ap.add_argument("--cc", default=os.path.join(ROOT, "build", "bin", "mpiad-cc"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=None,
                    help="number of pairs (default 30; 1 with --only)")
    ap.add_argument("--sources", action="append",
                    help="glob of sources, relative to the repository (repeatable)")
    ap.add_argument("--only", help="one source file: pairs (FILE, seed ...)")
    ap.add_argument("--workdir", default="/tmp/mpiad-metamorphic")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--np", type=parse_np, default=[1, 2],
                    help="rank counts, comma-separated (default 1,2)")
    ap.add_argument("--mpirun", default=DEFAULT_MPIRUN)
    ap.add_argument("--cflags", default="", help="extra flags for every mpiad-cc compile")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per mpirun")
    ap.add_argument("--compile-timeout", type=float, default=120)
    ap.add_argument("--rtol", type=float, default=1e-10)
    ap.add_argument("--atol", type=float, default=1e-14)
    ap.add_argument("--keep", action="store_true", help="keep the work files of every pair")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(a.cc):
        for _ in range(30):  # the binary is briefly missing during a rebuild
            time.sleep(2)
            if os.path.exists(a.cc):
                break
        else:
            ap.error("no mpiad-cc at %s" % a.cc)
    a.workdir = os.path.abspath(a.workdir)
    os.makedirs(a.workdir, exist_ok=True)
    ctx = Ctx(a)

    if a.only:
        sources = [Source(a.only)]
        if sources[0].skip:
            print("metamorphic: %s: cannot run: %s" % (a.only, sources[0].skip))
            return 2
        count = a.count if a.count is not None else 1
        pairs = [(sources[0], a.seed + k) for k in range(count)]
    else:
        paths = []
        for g in a.sources or DEFAULT_SOURCES:
            paths += glob.glob(os.path.join(ROOT, g) if not os.path.isabs(g) else g)
        sources, skipped = [], []
        for p in sorted(set(paths)):
            s = Source(p)
            if s.skip == "no differentiate pragma":
                continue
            (skipped if s.skip else sources).append(s)
        if a.verbose or a.count == 0 or (a.count or 0) > 100:
            for s in skipped:
                print("skipped %s: %s" % (s.rel, s.skip))
        print("metamorphic: %d sources (%d skipped)" % (len(sources), len(skipped)))
        if not sources:
            return 2
        count = a.count if a.count is not None else 30
        pairs = [(sources[(a.seed + k) % len(sources)], a.seed + k) for k in range(count)]

    results = []
    t0 = time.time()
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(one, ctx, s, seed) for s, seed in pairs]
        for fut in cf.as_completed(futs):
            source, seed, res = fut.result()
            results.append((source, seed, res))
            desc = metamorphic.describe(res["chain"])
            print("%-12s %s --seed %d  [%s]  %.1fs" % (res["class"], source.rel, seed,
                                                       desc, res["seconds"]), flush=True)
            if res["class"] != "MATCH" or a.verbose:
                for d in res["detail"]:
                    print("    " + d)
                if "culprit" in res:
                    print("    first rewrite with this result: %s@L%d (prefix of %d)" % (
                        res["culprit"][0], res["culprit"][1], res["culprit_prefix"]))
            if a.verbose:
                for l in res["lost"]:
                    print("    lost optimisation: " + l)

    counts = {c: 0 for c in CLASSES}
    for _, _, r in results:
        counts[r["class"]] += 1
    results.sort(key=lambda x: (x[0].rel, x[1]))
    lost = [(s, seed, r) for s, seed, r in results if r["lost"]]
    if lost:
        print("\nlost optimisations (tape bytes differ, gradients equal):")
        for s, seed, r in lost:
            print("  %s --seed %d [%s]" % (s.rel, seed, metamorphic.describe(r["chain"])))
            for l in r["lost"][:4]:
                print("      " + l)
    rej = {}
    for s, seed, r in results:
        if r["class"] in ("REJECTED", "WARNED"):
            msg = r["detail"][0] if r["detail"] else "?"
            msg = re.sub(r"^\S+:\d+:\d+: (fatal )?(error|warning): ", "", msg)
            msg = re.sub(r"mpiad_mt\d+", "mpiad_mtN", msg)
            msg = re.sub(r"MT_(\w+?)_\d+", r"MT_\1_N", msg)
            k = (r.get("culprit", ("?", 0))[0], msg)
            rej.setdefault(k, []).append("%s --seed %d" % (s.rel, seed))
    if rej:
        print("\nrejected or warned rewrites (rewrite: message: pairs):")
        for (kind, msg), v in sorted(rej.items()):
            print("  %s: %s: %d: %s" % (kind, msg, len(v), ", ".join(v[:4])))
    bad = [(s, seed, r) for s, seed, r in results if r["class"] in FAILING]
    if bad:
        print("\nfailures (reproduce with --only FILE --seed S -v; work files in %s/pairs):"
              % a.workdir)
        for s, seed, r in bad:
            print("  %-12s %s --seed %d [%s]" % (r["class"], s.rel, seed,
                                                metamorphic.describe(r["chain"])))
    passed = counts["MATCH"]
    failed = sum(counts[c] for c in FAILING)
    print("metamorphic: %d passed, %d failed" % (passed, failed))
    print("metamorphic: %s; %d pairs in %.0f s" % (
        ", ".join("%s %d" % (c, counts[c]) for c in CLASSES), len(results),
        time.time() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
