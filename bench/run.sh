#!/usr/bin/env bash
# run.sh BUILD_DIR [NP] [n_dot n_stencil T n_loss d reps]
#
# Builds the benchmark with BUILD_DIR/bin/mpiad-cc -O2 (the generated adjoints
# of kernels.c, the hand-written ones of handwritten.c, the PMPI counters of
# pmpi_count.c and the driver bench_main.c) and runs it on NP ranks (default
# 2).  This is a benchmark, not a test: it prints a table (see bench_main.c)
# and exits non-zero only if a gradient check fails.  About a minute.
#
# Then it builds and runs the 2-D non-blocking halo exchange benchmark
# (halo2d_bench.c with pmpi_count.c, the solver of samples/halo2d) on the same
# NP ranks, with the arguments "NX NY nsteps reps" taken from
# MPIAD_BENCH_HALO2D (default "512 512 50 5"); it prints the adjoint/primal
# time ratio, the tape and the messages of primal and adjoint, and fails if a
# check fails or the reverse sweep sends more than the primal.  A few seconds.
#
# The compiler mpicc uses can be chosen as usual (OMPI_CC=clang-19, the
# default here); the generated sources are kept in BUILD_DIR/bench/kernels.ad.c
# and BUILD_DIR/bench/halo2d_bench.ad.c.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [NP] [n_dot n_stencil T n_loss d reps]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
np=${2:-2}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
cc="$build/bin/mpiad-cc"
out="$build/bench"
export OMPI_CC=${OMPI_CC:-clang-19}

if [ ! -x "$cc" ]; then
  echo "bench: $cc not found; build the project first" >&2
  exit 2
fi
mkdir -p "$out"

echo "== build: $cc -O2 (OMPI_CC=$OMPI_CC)"
"$cc" --emit-source "$here/kernels.c" -o "$out/kernels.ad.c"
"$cc" -O2 -I"$here" -I"$build/include" \
  "$here/kernels.c" "$here/handwritten.c" "$here/pmpi_count.c" \
  "$here/bench_main.c" -lm -o "$out/bench"
# A failed build of the halo2d benchmark does not stop the main one.
status=0
halo2d_built=1
rm -f "$out/halo2d_bench"
"$cc" --emit-source "$here/halo2d_bench.c" -o "$out/halo2d_bench.ad.c" &&
  "$cc" -O2 -I"$here" -I"$build/include" \
    "$here/halo2d_bench.c" "$here/pmpi_count.c" -lm -o "$out/halo2d_bench" ||
  { halo2d_built=0; status=1; echo "== build of halo2d_bench FAILED" >&2; }

echo "== host: $(nproc) cores, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1)
echo "== run: mpirun -np $np $out/bench $*"
"${mpirun[@]}" -np "$np" "$out/bench" "$@" || status=$?

if [ "$halo2d_built" -eq 1 ]; then
  read -r -a halo2d_args <<< "${MPIAD_BENCH_HALO2D:-512 512 50 5}"
  echo
  echo "== run: mpirun -np $np $out/halo2d_bench ${halo2d_args[*]}"
  "${mpirun[@]}" -np "$np" "$out/halo2d_bench" "${halo2d_args[@]}" || status=$?
fi
exit "$status"
