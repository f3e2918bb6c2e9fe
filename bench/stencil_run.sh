#!/usr/bin/env bash
# stencil_run.sh BUILD_DIR [NP...] [-- stencil_bench arguments]
#
# The multi-dimensional stencil benchmark (issue 19): builds
# BUILD_DIR/bench/stencil_bench with BUILD_DIR/bin/mpiad-cc -O2 from
# stencils.c (the primals, whose adjoints mpiad-cc generates),
# handwritten_stencils.c (the hand-written adjoints), pmpi_count.c and the
# driver stencil_bench.c, then runs it on each NP (default: 2 and 4) and
# prints, per kernel (halo2d, star, heat3d) and rank count: the median times
# of primal, generated and hand-written adjoint, the ratios adjoint/primal and
# generated/hand-written, the generated adjoint's tape peak against the
# hand-written adjoint's state, and the messages, bytes and collectives of
# one primal call against those of each adjoint's reverse sweep.  See
# stencil_bench.c for the options (sizes, repetitions) and
# docs/performance.md for the figures.  Exits non-zero if a check fails.
# The generated source is kept in BUILD_DIR/bench/stencils.ad.c.  About a
# minute on 2 cores.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [NP...] [-- stencil_bench arguments]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
shift
nps=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  nps+=("$1")
  shift
done
[ $# -gt 0 ] && shift
[ ${#nps[@]} -eq 0 ] && nps=(2 4)
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
"$cc" --emit-source -Wno-mpiad-restored-output -I"$here" "$here/stencils.c" \
  -o "$out/stencils.ad.c"
"$cc" -O2 -Wno-mpiad-restored-output -I"$here" -I"$build/include" \
  "$here/stencils.c" "$here/handwritten_stencils.c" "$here/pmpi_count.c" \
  "$here/stencil_bench.c" -lm -o "$out/stencil_bench"

echo "== host: $(nproc) cores, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1)
status=0
for np in "${nps[@]}"; do
  echo "== run: mpirun -np $np $out/stencil_bench $*"
  "${mpirun[@]}" -np "$np" "$out/stencil_bench" "$@" || status=$?
done
exit "$status"
