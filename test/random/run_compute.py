#!/usr/bin/env python3
"""Generate, compile and run random differentiable functions (gen_compute.py).

Per program: mpiad-cc --emit-source, then the generated C compiled and linked
with mpicc and libmpiad, then mpirun at two rank counts (by default np
1 + S % 4 and 1 + (S + 2) % 4: one odd and one even count, so consecutive
seeds cover 1-4 ranks).  Each program is classified

  PASS          every run printed ALL PASSED
  WRONG         a run finished but a check failed (gradient, dot-product
                test, primal value, seed, tape)
  CRASH         a run died (signal, MPI abort, non-zero exit without a
                check line), or mpiad-cc itself crashed
  TIMEOUT       a run (or mpiad-cc, or the compile) ran out of time
  REJECTED      mpiad-cc refused with a located error (file:line:col: error)
  COMPILE-FAIL  the generated C does not compile: always a bug

and the summary counts each.  Exit status 1 unless everything passed
(--allow-rejected: REJECTED does not fail the run).

  run_compute.py --cc build/bin/mpiad-cc --seed 1 --count 30        the CTest subset
  run_compute.py --cc build/bin/mpiad-cc --seed 1 --count 2000      the long run
  run_compute.py --cc build/bin/mpiad-cc --seeds 17 --np 1,2,3,4 -v reproduce one
  run_compute.py --cc build/bin/mpiad-cc --replicas --allow-rejected --count 200
                                                                    cf_bv too
"""

import argparse
import concurrent.futures as cf
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import gen_compute  # noqa: E402
from run_random import DEFAULT_ENV, DEFAULT_MPIRUN, parse_seeds, run_limited, tail  # noqa: E402

LOCATED = re.compile(r"^[^\s:]+:\d+:\d+: error: ", re.M)
STRICT = ["-Werror=incompatible-pointer-types", "-Werror=int-conversion",
          "-Werror=implicit-function-declaration"]
KINDS = ("PASS", "WRONG", "CRASH", "TIMEOUT", "REJECTED", "COMPILE-FAIL")


def nps_for(seed, args):
    if args.np:
        return [int(p) for p in args.np.split(",") if p.strip()]
    return [1 + seed % 4, 1 + (seed + 2) % 4]


def one(seed, args, env, wd, mpirun, cflags):
    """Returns (seed, status, detail lines)."""
    src = os.path.join(wd, "cf_%d.c" % seed)
    ad = os.path.join(wd, "cf_%d.ad.c" % seed)
    exe = os.path.join(wd, "cf_%d" % seed)
    for f in (ad, exe):
        if os.path.exists(f):
            os.unlink(f)
    with open(src, "w") as f:
        f.write(gen_compute.generate(seed, args.replicas))
    st, rc, out, _ = run_limited([args.cc, "--emit-source"] +
                                 shlex.split(args.mpiad_flags) + [src, "-o", ad],
                                 args.compile_timeout, env)
    if st == "timeout":
        return seed, "TIMEOUT", ["mpiad-cc timed out"]
    if rc != 0 or not os.path.exists(ad):
        errs = [l for l in out.splitlines() if " error: " in l]
        if rc > 0 and LOCATED.search(out):
            return seed, "REJECTED", errs[:3]
        return seed, "CRASH", ["mpiad-cc exit status %s" % rc] + out.splitlines()[-6:]
    # Documented: when an output's length cannot be inferred, F_b does not
    # leave its final values, with a warning (docs/pragmas.md).
    restored = [o for o in "yz" if "output '%s' does not hold its final values" % o in out]
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(args.cc)))
    # A warning on these is a wrong generated program (a float * passed as a
    # double * compiles with a warning and corrupts memory): COMPILE-FAIL.
    cmd = [args.mpicc] + cflags + STRICT + ["-DCF_%s_RESTORED" % o.upper() for o in restored] + \
        ["-I" + os.path.join(prefix, "include"), ad,
                                   os.path.join(prefix, "lib", "libmpiad.a"), "-lm", "-o", exe]
    st, rc, out, _ = run_limited(cmd, args.compile_timeout, env)
    if st == "timeout":
        return seed, "TIMEOUT", ["compile timed out"]
    if rc != 0 or not os.path.exists(exe):
        errs = [l for l in out.splitlines() if "error" in l]
        return seed, "COMPILE-FAIL", (errs or out.splitlines())[:4]
    status, detail = "PASS", []
    # Open MPI's session directories of two mpiruns started at once can
    # collide ("File exists"): each program gets its own, and a run that
    # failed in mpirun's own start-up is tried once more.
    renv = dict(env)
    tmpd = tempfile.mkdtemp(prefix="cfo", dir="/tmp")
    renv["OMPI_MCA_orte_tmpdir_base"] = tmpd
    for p in nps_for(seed, args):
        for attempt in range(2):
            st, rc, out, dt = run_limited(mpirun + [str(p), exe], args.timeout, renv, cwd=wd)
            if not (st == "ok" and rc != 0 and "ORTE_ERROR_LOG" in out):
                break
        with open(os.path.join(wd, "cf_%d.np%d.log" % (seed, p)), "w") as f:
            f.write(out)
        if st == "timeout":
            s = "TIMEOUT"
        elif rc == 0 and "ALL PASSED" in out and "FAIL" not in out:
            s = "PASS"
        elif " FAIL" in out and "SOME CHECKS FAILED" in out:
            s = "WRONG"
        else:
            s = "CRASH"
        if s != "PASS":
            bad = [l for l in out.splitlines()
                   if "FAIL" in l or "rror" in l or "central" in l or "note:" in l]
            detail.append("np %d: %s (rc=%s)" % (p, s, rc))
            detail.extend((out.splitlines()[-40:] if args.verbose else (bad or out.splitlines()[-6:]))[:40])
            if status == "PASS" or s == "WRONG":
                status = s
    shutil.rmtree(tmpd, ignore_errors=True)
    if restored and status == "PASS":
        detail.append("(mpiad-cc warned that cf_b does not leave the final %s; not checked)"
                      % " and ".join(restored))
    return seed, status, detail


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--cc", required=True, help="mpiad-cc (its ../include and ../lib are used)")
    ap.add_argument("--mpicc", default="mpicc")
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--count", type=int, default=30, help="number of programs (default 30)")
    ap.add_argument("--seeds", help="explicit seeds, e.g. 1-12,40 (overrides --seed/--count)")
    ap.add_argument("--np", help="rank counts for every program (default: two per seed, see above)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="programs in parallel (default 2)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per mpirun (default 60)")
    ap.add_argument("--compile-timeout", type=float, default=120.0)
    ap.add_argument("--workdir", default="/tmp/mpiad-compute")
    ap.add_argument("--mpirun", default=DEFAULT_MPIRUN,
                    help="mpirun command line ending in -np (one string)")
    ap.add_argument("--replicas", action="store_true",
                    help="add replicas(x, th, s, y, z) and check cf_bv against cf_b per replica")
    ap.add_argument("--cflags", default="-O1", help="compile flags, one string")
    ap.add_argument("--mpiad-flags", default="",
                    help="flags of mpiad-cc itself, one string (--verify: "
                         "the read verifier checks every adjoint)")
    ap.add_argument("--allow-rejected", action="store_true",
                    help="REJECTED programs do not make the exit status 1")
    ap.add_argument("--keep", action="store_true", help="keep binaries of passing programs")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args(argv)

    env = dict(os.environ)
    for k, v in DEFAULT_ENV.items():
        env.setdefault(k, v)
    seeds = parse_seeds(args)
    wd = os.path.abspath(args.workdir)
    os.makedirs(wd, exist_ok=True)
    mpirun = shlex.split(args.mpirun)
    cflags = shlex.split(args.cflags)

    t0 = time.time()
    results = {}
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(one, s, args, env, wd, mpirun, cflags) for s in seeds]
        for fu in cf.as_completed(futs):
            s, status, detail = fu.result()
            results[s] = (status, any("not checked" in l for l in detail))
            print("%-12s cf_%d" % (status, s), flush=True)
            for l in detail:
                print("    | " + l, flush=True)
            if status == "PASS" and not args.keep:
                exe = os.path.join(wd, "cf_%d" % s)
                if os.path.exists(exe):
                    os.unlink(exe)
    dt = time.time() - t0
    count = {k: sum(1 for v in results.values() if v[0] == k) for k in KINDS}
    nrest = sum(1 for v in results.values() if v[1])
    print("")
    print("summary: %d programs (seeds %s), %s; %.0f s" % (
        len(seeds), args.seeds or "%d-%d" % (seeds[0], seeds[-1]) if seeds else "-",
        ", ".join("%d %s" % (count[k], k) for k in KINDS), dt))
    if nrest:
        print("  %d programs: mpiad-cc warned that cf_b does not leave the final y or z "
              "(its length is not inferred; documented), not checked after cf_b" % nrest)
    bad = sorted(s for s, v in results.items() if v[0] != "PASS")
    for k in KINDS[1:]:
        ks = [s for s in bad if results[s][0] == k]
        if ks:
            print("  %s: %s" % (k, " ".join(map(str, ks))))
    print("work directory: %s (reproduce: run_compute.py --cc ... --seeds S -v)" % wd)
    fail = [s for s in bad if not (args.allow_rejected and results[s][0] == "REJECTED")]
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
