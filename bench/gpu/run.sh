#!/usr/bin/env bash
# bench/gpu/run.sh BUILD_DIR [NP] [n reps]
#
# Builds the GPU benchmark with BUILD_DIR/bin/mpiad-cc --target=cuda -O2
# (kernels_gpu.c, generated; bench_gpu.c, the host driver, with a direct
# ncclAllReduce for comparison) and runs it on NP ranks (default 1) for n
# doubles per rank (default 1e7), then 1e8 when no size is given.  Needs a GPU
# and a build with libmpiad_gpu (CMake found nvcc and NCCL).  Prints, per
# kernel, primal and adjoint times, their bandwidth as a fraction of a
# device-to-device copy, and the adjoint/primal ratio; exits non-zero if a
# value is wrong (77 without a GPU).  The generated CUDA is kept in
# BUILD_DIR/bench/gpu/kernels_gpu.cu.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [NP] [n reps]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
np=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
cc="$build/bin/mpiad-cc"
out="$build/bench/gpu"
export OMPI_CC=${OMPI_CC:-clang-19}
if [ ! -f "$build/lib/libmpiad_gpu.a" ]; then
  echo "bench/gpu: $build/lib/libmpiad_gpu.a not found (CMake did not find nvcc and NCCL)" >&2
  exit 2
fi
mkdir -p "$out"
"$cc" --target=cuda --emit-source "$here/kernels_gpu.c" -o "$out/kernels_gpu.cu"
"$cc" --target=cuda -O2 -DMPIAD_BENCH_NCCL "$here/kernels_gpu.c" \
  "$here/bench_gpu.c" -lm -o "$out/bench_gpu"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() {
  mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1 \
    -np "$np" "$out/bench_gpu" "$@"
}
if [ $# -gt 0 ]; then
  run "$@"
else
  run 10000000 20
  run 100000000 10
fi
