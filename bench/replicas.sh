#!/usr/bin/env bash
# replicas.sh BUILD_DIR [NP] [n d h reps]
#
# F_bv for R independent replicas against a loop of R calls of F_b (issue 16,
# docs/performance.md "Independent replicas").  Builds replicas_bench.c with
# BUILD_DIR/bin/mpiad-cc -O2 and the PMPI counters, runs it on NP ranks
# (default 2) for R = 1, 8, 32, 128, and prints per loss and R: seconds per
# replica of F_bv and of the loop, their ratio, the collective calls of one
# F_bv and of the loop, and the peak tape.  It fails if F_bv and the loop
# disagree (values and gradients to 1e-12).  A benchmark, not a test.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [NP] [n d h reps]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
np=${2:-2}
n=${3:-2000}
d=${4:-16}
h=${5:-8}
reps=${6:-5}
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_CC=${OMPI_CC:-clang-19}
mkdir -p "$build/bench"
"$build/bin/mpiad-cc" -O2 -I"$here" "$here/replicas_bench.c" "$here/pmpi_count.c" \
  -lm -o "$build/bench/replicas_bench"
echo "== np=$np n=$n (samples per rank) d=$d h=$h reps=$reps"
mpirun ${MPIRUN_FLAGS:-} -np "$np" "$build/bench/replicas_bench" "$n" "$d" "$h" "$reps" 1 8 32 128
