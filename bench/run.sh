#!/usr/bin/env bash
# run.sh BUILD_DIR [NP] [n_dot n_stencil T n_loss d reps]
#
# Builds the benchmark with BUILD_DIR/bin/mpiad-cc -O2 (the generated adjoints
# of kernels.c, the hand-written ones of handwritten.c, the PMPI counters of
# pmpi_count.c and the driver bench_main.c) and runs it on NP ranks (default
# 2).  This is a benchmark, not a test: it prints a table (see bench_main.c)
# and exits non-zero only if a gradient check fails.  About a minute.
#
# The compiler mpicc uses can be chosen as usual (OMPI_CC=clang-19, the
# default here); the generated source is kept in BUILD_DIR/bench/kernels.ad.c.
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

echo "== host: $(nproc) cores, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== run: mpirun -np $np $out/bench $*"
exec mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1 \
  -np "$np" "$out/bench" "$@"
