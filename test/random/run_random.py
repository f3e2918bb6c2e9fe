#!/usr/bin/env python3
"""Compile and run random communication programs (gen_programs.py) under mpirun.

For every program and every rank count the adjoint must run to completion
within the timeout and pass the checks of test/lit/Inputs/hx_case.h (the
exact dot-product test, central differences, primal outputs, seeds zeroed,
tape empty).  Prints one line per (program, ranks): PASS, FAIL, TIMEOUT (or
COMPILE-FAIL per program), then a summary; exits 1 if anything did not pass.

  run_random.py --cc build/bin/mpiad-cc --seed 1 --count 240        the full run
  run_random.py --cc build/bin/mpiad-cc --seeds 3,17 --np 4 -v      reproduce
  run_random.py --primal-only --count 240                            primal with mpicc
  run_random.py --cc build/bin/mpiad-cc --replicas --count 120      replicas(x, y) too

--primal-only compiles with plain mpicc -DRG_PRIMAL_ONLY -DRG_SYNC_SENDS (the
pragma is ignored; every MPI_Send/MPI_Isend becomes synchronous, so a program
that relied on buffering would hang) and checks that the primal finishes, is
deterministic and is linear.
"""

import argparse
import concurrent.futures as cf
import os
import shlex
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import gen_programs  # noqa: E402

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


def parse_seeds(args):
    if args.seeds:
        out = []
        for part in args.seeds.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = part.split("-")
                out.extend(range(int(lo), int(hi) + 1))
            elif part:
                out.append(int(part))
        return out
    return list(range(args.seed, args.seed + args.count))


def run_limited(cmd, timeout, env, cwd=None):
    """Run cmd in its own process group; on timeout kill that group.
    Returns (status, rc, output, seconds) with status 'ok' or 'timeout'."""
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env, cwd=cwd, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return "ok", p.returncode, out.decode(errors="replace"), time.time() - t0
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, _ = p.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                out = b""
        else:
            out = b""
        try:
            out2, _ = p.communicate(timeout=5)
            out = (out or b"") + (out2 or b"")
        except Exception:
            pass
        return "timeout", None, (out or b"").decode(errors="replace"), time.time() - t0


def tail(text, n):
    lines = [l for l in text.splitlines() if l.strip()]
    return "\n".join("    | " + l for l in lines[-n:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--cc", help="mpiad-cc (required unless --primal-only)")
    ap.add_argument("--primal-only", action="store_true",
                    help="compile with plain mpicc -DRG_PRIMAL_ONLY, run the primal only")
    ap.add_argument("--mpicc", default="mpicc", help="C compiler for --primal-only")
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--count", type=int, default=240, help="number of programs (default 240)")
    ap.add_argument("--seeds", help="explicit seeds, e.g. 1-12,40 (overrides --seed/--count)")
    ap.add_argument("--np", default="2,3,4", help="rank counts (default 2,3,4)")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per mpirun (default 60)")
    ap.add_argument("--compile-timeout", type=float, default=180.0)
    ap.add_argument("--workdir", default="/tmp/mpiad-random",
                    help="where programs, binaries and logs go")
    ap.add_argument("--inputs", default=os.path.join(HERE, "..", "lit", "Inputs"),
                    help="directory of hx_case.h / harness.h")
    ap.add_argument("--mpirun", default=DEFAULT_MPIRUN,
                    help="mpirun command line ending in -np (one string)")
    ap.add_argument("--cflags", default="-O1", help="compile flags, one string (write --cflags='-O2 -g')")
    ap.add_argument("--replicas", action="store_true",
                    help="add replicas(x, y) and check rg_f_bv against rg_f_b per replica")
    ap.add_argument("--vectors", action="store_true",
                    help="send some messages through derived datatypes (MPI_Type_vector, _indexed)")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="print the whole output of failing runs")
    args = ap.parse_args(argv)
    if not args.primal_only and not args.cc:
        ap.error("--cc is required (or --primal-only)")

    env = dict(os.environ)
    for k, v in DEFAULT_ENV.items():
        env.setdefault(k, v)
    seeds = parse_seeds(args)
    nps = [int(p) for p in args.np.split(",") if p.strip()]
    mpirun = shlex.split(args.mpirun)
    cflags = shlex.split(args.cflags)
    mode = "primal" if args.primal_only else "adjoint"
    wd = os.path.join(os.path.abspath(args.workdir), mode)
    os.makedirs(wd, exist_ok=True)
    inputs = os.path.abspath(args.inputs)

    # 1. generate
    for s in seeds:
        with open(os.path.join(wd, "rg_%d.c" % s), "w") as f:
            f.write(gen_programs.generate(s, args.replicas, args.vectors))

    # 2. compile, in parallel
    def compile_one(s):
        src = os.path.join(wd, "rg_%d.c" % s)
        exe = os.path.join(wd, "rg_%d" % s)
        if os.path.exists(exe):
            os.unlink(exe)
        if args.primal_only:
            cmd = [args.mpicc, "-DRG_PRIMAL_ONLY", "-DRG_SYNC_SENDS", "-Wno-unknown-pragmas"] + cflags + \
                  [src, "-o", exe]
        else:
            cmd = [args.cc] + cflags + ["-I" + inputs, src, "-lm", "-o", exe]
        st, rc, out, dt = run_limited(cmd, args.compile_timeout, env)
        ok = st == "ok" and rc == 0 and os.path.exists(exe)
        if not ok and not args.primal_only:
            # keep the generated adjoint (if any) for the report
            run_limited([args.cc, "--emit-source", src, "-o",
                         os.path.join(wd, "rg_%d.ad.c" % s)], args.compile_timeout, env)
        return s, ok, st, out, dt

    t0 = time.time()
    compiled = {}
    results = []  # (seed, np or None, status, seconds, detail)
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for s, ok, st, out, dt in ex.map(compile_one, seeds):
            compiled[s] = ok
            if not ok:
                msg = "timeout" if st == "timeout" else "exit status %s" % "?"
                first = [l for l in out.splitlines() if "error" in l][:3]
                line = "COMPILE-FAIL rg_%d (%s)" % (s, msg)
                print(line, flush=True)
                print(tail("\n".join(first) if first else out, 8), flush=True)
                results.append((s, None, "COMPILE-FAIL", dt, out))
    tc = time.time() - t0
    print("compiled %d/%d programs in %.1f s (-j%d)" %
          (sum(compiled.values()), len(seeds), tc, args.jobs), flush=True)

    # 3. run, one mpirun at a time (the ranks already oversubscribe the cores)
    for s in seeds:
        if not compiled[s]:
            continue
        exe = os.path.join(wd, "rg_%d" % s)
        for p in nps:
            st, rc, out, dt = run_limited(mpirun + [str(p), exe], args.timeout, env, cwd=wd)
            with open(os.path.join(wd, "rg_%d.np%d.log" % (s, p)), "w") as f:
                f.write(out)
            want = "PRIMAL PASSED" if args.primal_only else "ALL PASSED"
            if st == "timeout":
                status = "TIMEOUT"
            elif rc == 0 and want in out and "FAIL" not in out:
                status = "PASS"
            else:
                status = "FAIL"
            results.append((s, p, status, dt, out))
            print("%-7s rg_%d np %d (%.1f s)%s" %
                  (status, s, p, dt, "" if status == "PASS" else " rc=%s" % rc), flush=True)
            if status != "PASS":
                bad = [l for l in out.splitlines() if "FAIL" in l or "rror" in l]
                print(tail(out, 200) if args.verbose else tail("\n".join(bad) or out, 8),
                      flush=True)

    # 4. summary
    runs = [r for r in results if r[1] is not None]
    count = {k: sum(1 for r in results if r[2] == k)
             for k in ("PASS", "FAIL", "TIMEOUT", "COMPILE-FAIL")}
    print("")
    print("summary (%s): %d programs x np %s: %d runs, %d PASS, %d FAIL, %d TIMEOUT, "
          "%d COMPILE-FAIL programs; %.0f s" %
          (mode, len(seeds), ",".join(map(str, nps)), len(runs), count["PASS"],
           count["FAIL"], count["TIMEOUT"], count["COMPILE-FAIL"], time.time() - t0))
    for p in nps:
        pr = [r for r in runs if r[1] == p]
        print("  np %d: %d/%d passed" % (p, sum(1 for r in pr if r[2] == "PASS"), len(pr)))
    notpass = [r for r in results if r[2] != "PASS"]
    if notpass:
        print("not passing (reproduce: run_random.py --seeds S --np P -v%s):" %
              (" --primal-only" if args.primal_only else " --cc ..."))
        for s, p, st, dt, _ in notpass:
            print("  %s seed %d%s" % (st, s, "" if p is None else " np %d" % p))
    print("work directory: %s" % wd)
    return 1 if notpass else 0


if __name__ == "__main__":
    sys.exit(main())
