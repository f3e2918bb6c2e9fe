#!/usr/bin/env bash
# scripts/gpu-device-check.sh prepare BUILD_DIR [STAGE_DIR]
# scripts/gpu-device-check.sh run STAGE_DIR OUT_DIR
#
# The GPU checks of docs/gpu.md, for a GPU machine that has CUDA's driver,
# nvcc's tools (compute-sanitizer) and NCCL but neither mpiad-cc's Clang nor
# an MPI library.
#
# prepare (on the build machine, Debian 12, with a build whose CMake found
#   nvcc and NCCL): compiles for sm_90 what the GPU runs (the runtime tests,
#   the two GPU samples, lit.cuda/exec.c's program and the GPU benchmark) and
#   copies them, with Open MPI's files from the installed Debian packages
#   (libraries, plugins, mpirun/orted, help texts), into STAGE_DIR
#   (default .dev, which .gitignore lists).
# run (on the GPU machine): installs the staged Open MPI where nothing is,
#   finds NCCL, and runs every check, each at the rank counts the suite uses,
#   then compute-sanitizer (memcheck, racecheck) on the samples and the
#   benchmark.  Prints one PASS/FAIL line per check and a summary; the whole
#   log goes to OUT_DIR/gpu-check.log.  Exits non-zero if a check failed.
#   ONLY=REGEX runs only the checks whose names match.  compute-sanitizer
#   runs with --report-api-errors no: NCCL probes kernel images of other
#   architectures at start-up and would be reported; libmpiad_gpu checks the
#   status of every CUDA call itself.
set -uo pipefail

prepare() {
  local build stage here
  build=$(cd "$1" && pwd)
  stage=${2:-.dev}
  here=$(cd "$(dirname "$0")/.." && pwd)
  rm -rf "$stage"
  mkdir -p "$stage/bin" "$stage/root" "$stage/lib"
  stage=$(cd "$stage" && pwd)
  export MPIAD_CUDA_ARCH=sm_90 OMPI_CC=${OMPI_CC:-clang-19}
  local cc="$build/bin/mpiad-cc"
  for t in coll adjoint tangent header_c; do
    cp "$build/runtime/gpu/runtime_test_gpu_$t" "$stage/bin/" || return 1
  done
  "$cc" --target=cuda -O2 "$here/samples/heat/gpu/misfit_gpu.c" \
    "$here/samples/heat/gpu/heat_gpu.c" -lm -o "$stage/bin/heat_gpu" || return 1
  "$cc" --target=cuda -O2 "$here/samples/fitting/gpu/loss_gpu.c" \
    "$here/samples/fitting/gpu/train_gpu.c" -lm -o "$stage/bin/logistic_gpu" || return 1
  "$cc" --target=cuda "$here/test/lit/Inputs/cuda_kernels.c" \
    "$here/test/lit/Inputs/cuda_main.c" -lm -o "$stage/bin/cuda_exec" || return 1
  "$cc" --target=cuda -O2 -DMPIAD_BENCH_NCCL "$here/bench/gpu/kernels_gpu.c" \
    "$here/bench/gpu/bench_gpu.c" -lm -o "$stage/bin/bench_gpu" || return 1
  # Open MPI as Debian installs it, at the same paths below root/.
  local p f
  for p in libopenmpi3 openmpi-bin openmpi-common libpmix2 libhwloc15 \
    libevent-core-2.1-7 libevent-pthreads-2.1-7; do
    dpkg -L "$p"
  done | grep -v -E '/share/(man|doc|lintian)/' | while read -r f; do
    if [ -f "$f" ] || [ -L "$f" ]; then
      mkdir -p "$stage/root$(dirname "$f")"
      cp -a "$f" "$stage/root$f"
    fi
  done
  # The CUDA runtime the programs were linked with (small), in case the GPU
  # machine's differs.
  cp -a /usr/local/cuda/lib64/libcudart.so.13* "$stage/lib/" 2>/dev/null
  du -sh "$stage"
}

run() {
  local stage out log
  stage=$(cd "$1" && pwd)
  out=$2
  mkdir -p "$out"
  log="$out/gpu-check.log"
  : >"$log"
  local pass=0 fail=0 failed=""
  note() { echo "$*" | tee -a "$log"; }
  check() { # check NAME TIMEOUT COMMAND...: exit status 0 is a pass
    local name=$1 limit=$2
    shift 2
    [[ "$name" =~ ${ONLY:-.} ]] || return 0
    local t0 t1 rc
    t0=$(date +%s.%N)
    echo "=== $name: $*" >>"$log"
    timeout "$limit" "$@" >>"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    if [ $rc -eq 0 ]; then
      pass=$((pass + 1))
      note "PASS $name ($(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s)"
    else
      fail=$((fail + 1))
      failed="$failed $name"
      note "FAIL $name (exit $rc)"
    fi
  }
  note "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1)"
  # Open MPI: the machine's own if it has one, else the staged one.
  if ! command -v mpirun >/dev/null 2>&1; then
    (cd "$stage/root" && find . \( -type f -o -type l \) | while read -r f; do
      [ -e "/$f" ] || { mkdir -p "/$(dirname "$f")" && cp -a "$f" "/$f"; }
    done)
    ldconfig 2>/dev/null
    note "mpi: staged Open MPI $(mpirun --version 2>&1 | head -1)"
  else
    note "mpi: the machine's $(mpirun --version 2>&1 | head -1)"
  fi
  local nccl
  nccl=$(find /usr/local /opt /usr/lib -name 'libnccl.so.2' 2>/dev/null | head -1)
  note "nccl: ${nccl:-not found}"
  export LD_LIBRARY_PATH="${nccl:+$(dirname "$nccl"):}/usr/local/cuda/lib64:$stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_mca_base_component_show_load_errors=0
  local mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader
    --mca pml ob1 --bind-to none)
  local b="$stage/bin" np t
  for t in coll adjoint tangent; do
    for np in 1 2 3 4; do
      check "runtime.gpu_$t.np$np" 120 "${mpirun[@]}" -np $np "$b/runtime_test_gpu_$t"
    done
  done
  check runtime.gpu_header_c.np1 60 "${mpirun[@]}" -np 1 "$b/runtime_test_gpu_header_c"
  for np in 1 2 3 4; do
    check "sample.heat_gpu.np$np" 120 "${mpirun[@]}" -np $np "$b/heat_gpu" 4096 200 20
    check "sample.fitting_gpu.np$np" 120 "${mpirun[@]}" -np $np "$b/logistic_gpu" 20000 16 60 2.0
  done
  # lit.cuda/exec.c's check: exit status 0, ALL PASSED and no FAIL.
  local exec_ok='"$@" >"$0" 2>&1; rc=$?; cat "$0"; [ $rc -eq 0 ] &&
    grep -q "ALL PASSED" "$0" && ! grep -q FAIL "$0"'
  for np in 1 2 3 4; do
    check "lit.cuda/exec.c.np$np" 120 bash -c "$exec_ok" "$out/exec.np$np.txt" \
      "${mpirun[@]}" -np $np "$b/cuda_exec"
  done
  local cs
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  if [ -n "$cs" ]; then
    for tool in memcheck racecheck; do
      check "sanitizer.$tool.heat_gpu.np1" 100 "${mpirun[@]}" -np 1 \
        "$cs" --tool "$tool" --error-exitcode 9 --report-api-errors no "$b/heat_gpu" 1024 20 5
      check "sanitizer.$tool.fitting_gpu.np1" 100 "${mpirun[@]}" -np 1 \
        "$cs" --tool "$tool" --error-exitcode 9 --report-api-errors no "$b/logistic_gpu" 2000 8 5 2.0
    done
    check "sanitizer.memcheck.heat_gpu.np2" 100 "${mpirun[@]}" -np 2 \
      "$cs" --tool memcheck --error-exitcode 9 --report-api-errors no "$b/heat_gpu" 1024 20 5
  else
    note "compute-sanitizer: not found"
  fi
  check "bench.gpu.np1.1e7" 100 "${mpirun[@]}" -np 1 "$b/bench_gpu" 10000000 20
  check "bench.gpu.np1.1e8" 150 "${mpirun[@]}" -np 1 "$b/bench_gpu" 100000000 10
  note "summary: $pass passed, $fail failed${failed:+:$failed}"
  [ $fail -eq 0 ]
}

case "${1:-}" in
  prepare) shift; prepare "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 prepare BUILD_DIR [STAGE_DIR] | run STAGE_DIR OUT_DIR" >&2; exit 2 ;;
esac
