#!/usr/bin/env bash
# The packaging tests; test/packaging/CMakeLists.txt registers them (docs/build.md).
#
#   run.sh install <build-dir> <prefix> <workdir>
#       cmake --install <build-dir> into an empty <prefix>; checks the layout, and that
#       the installed mpiad-cc compiles, links and runs sumsq.c (a gradient check)
#   run.sh cmake <prefix> <workdir>
#       configures a copy of cmake-consumer/ against <prefix> (find_package(mpiad),
#       mpiad_add_adjoint), builds it, runs it, and checks that touching loss.c
#       rebuilds its object through mpiad-cc
#   run.sh cmake-cc <prefix> <workdir>
#       configures a copy of cmake-cc-consumer/ with CC=<prefix>/bin/mpiad-cc, builds
#       it, runs it (skipped while mpiad-cc writes no dependency files, -MD -MF)
#   run.sh cmake-cuda <prefix> <workdir>
#       configures a copy of cmake-cuda-consumer/ (mpiad_add_adjoint ... TARGET cuda)
#       against <prefix>, builds it, and runs it when nvidia-smi lists a GPU
#   run.sh make <prefix> <workdir>
#       checks `pkg-config mpiad` in <prefix>, builds a copy of make-consumer/ with
#       make (CC=mpiad-cc, and the pkg-config recipe), runs both programs
#
# Environment: MPIRUN (mpirun and its options, up to -np), TEST_CC (the C compiler of
# the consumers), SANFLAGS (sanitizer flags, may be empty), GENERATOR (CMake generator),
# MPIAD_VERSION (the version the package must report).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
step="${1:?usage: run.sh install|cmake|cmake-cc|cmake-cuda|make ...}"
shift
read -r -a mpirun <<<"${MPIRUN:?MPIRUN is not set}"
read -r -a sanflags <<<"${SANFLAGS:-}"
cc="${TEST_CC:-cc}"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run_checked <program>: runs it on 2 ranks; it must exit 0, print a PASS line and
# no FAIL line.
run_checked() {
  local out
  out="$("${mpirun[@]}" 2 "$1" 2>&1)" || { echo "$out"; fail "$1 exited with an error"; }
  echo "$out"
  grep -q PASS <<<"$out" || fail "$1 printed no PASS line"
  if grep -q FAIL <<<"$out"; then fail "$1 printed a FAIL line"; fi
}

case "$step" in
install)
  build="$1" prefix="$2" work="$3"
  rm -rf "$prefix" "$work"
  mkdir -p "$work"
  cmake --install "$build" --prefix "$prefix"
  expected=(bin/mpiad-cc include/mpiad.h lib/libmpiad.a lib/pkgconfig/mpiad.pc
            lib/cmake/mpiad/mpiadConfig.cmake lib/cmake/mpiad/mpiadConfigVersion.cmake
            lib/cmake/mpiad/mpiadTargets.cmake lib/cmake/mpiad/mpiadAddAdjoint.cmake)
  for rule in "$here"/../../rules/*.rules; do
    expected+=("share/mpiad/rules/$(basename "$rule")")
  done
  if [[ -e "$build/lib/libmpiad_gpu.a" ]]; then
    expected+=(include/mpiad_gpu.h lib/libmpiad_gpu.a lib/cmake/mpiad/mpiadGpuTargets.cmake)
  fi
  for f in "${expected[@]}"; do
    [[ -e "$prefix/$f" ]] || fail "$prefix/$f was not installed"
  done
  [[ -x "$prefix/bin/mpiad-cc" ]] || fail "$prefix/bin/mpiad-cc is not executable"
  version="$("$prefix/bin/mpiad-cc" --version)"
  [[ "$version" == "mpiad-cc ${MPIAD_VERSION:?} "* ]] || fail "--version says: $version"
  # The installed tool finds the installed rules (the adjoint of MPI_Allreduce) and
  # headers by itself, and links the installed libmpiad.
  "$prefix/bin/mpiad-cc" "${sanflags[@]}" "$here/sumsq.c" -o "$work/sumsq"
  run_checked "$work/sumsq"
  ;;
cmake)
  prefix="$1" work="$2"
  # A copy of the project, so that its source can be touched below.
  rm -rf "$work"
  mkdir -p "$work"
  cp -r "$here/cmake-consumer" "$work/src"
  cmake -S "$work/src" -B "$work/build" -G "${GENERATOR:-Unix Makefiles}" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_C_FLAGS="${SANFLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${SANFLAGS:-}"
  cmake --build "$work/build"
  run_checked "$work/build/fit"
  # The object of loss.c depends on loss.c: touching it rebuilds it through mpiad-cc.
  sleep 1
  touch "$work/src/loss.c"
  log="$(cmake --build "$work/build" --verbose)"
  grep -q 'mpiad-cc.*loss\.c' <<<"$log" || { echo "$log"; fail "touching loss.c did not rebuild it"; }
  ;;
cmake-cc)
  prefix="$1" work="$2"
  rm -rf "$work"
  mkdir -p "$work"
  # CMake compiles with -MD -MT <object> -MF <depfile>: skip while mpiad-cc
  # does not write dependency files.
  echo 'int main(void) { return 0; }' >"$work/probe.c"
  if ! "$prefix/bin/mpiad-cc" -MD -MT "$work/probe.o" -MF "$work/probe.d" \
         -c "$work/probe.c" -o "$work/probe.o" >"$work/probe.log" 2>&1 ||
     [[ ! -s "$work/probe.d" ]]; then
    cat "$work/probe.log"
    echo "SKIP: mpiad-cc does not write dependency files (-MD -MT -MF), which CMake asks for"
    exit 77
  fi
  # The project, with the sources of make-consumer/.
  cp -r "$here/cmake-cc-consumer" "$work/src"
  cp "$here/make-consumer/main.c" "$here/make-consumer/loss.c" "$here/make-consumer/loss.h" \
     "$work/src/"
  CC="$prefix/bin/mpiad-cc" cmake -S "$work/src" -B "$work/build" \
    -G "${GENERATOR:-Unix Makefiles}" \
    -DCMAKE_C_FLAGS="${SANFLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${SANFLAGS:-}"
  cmake --build "$work/build"
  run_checked "$work/build/fit"
  ;;
cmake-cuda)
  prefix="$1" work="$2"
  rm -rf "$work"
  mkdir -p "$work"
  cp -r "$here/cmake-cuda-consumer" "$work/src"
  cp "$here/../lit/Inputs/cuda_kernels.c" "$work/src/kernels.c"
  cp "$here/../lit/Inputs/cuda_main.c" "$work/src/main.c"
  cmake -S "$work/src" -B "$work/build" -G "${GENERATOR:-Unix Makefiles}" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_C_FLAGS="${SANFLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${SANFLAGS:-}"
  cmake --build "$work/build"
  # The object holds the GPU functions (C linkage) and the program links.
  nm "$work/build/CMakeFiles/gpu_check.mpiad/kernels.c.o" | grep -q ' T loss_b$' ||
    fail "kernels.c.o defines no loss_b"
  [[ -x "$work/build/gpu_check" ]] || fail "gpu_check was not linked"
  if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    run_checked "$work/build/gpu_check"
  else
    echo "no GPU here: gpu_check built, not run"
  fi
  ;;
make)
  prefix="$1" work="$2"
  if ! command -v pkg-config >/dev/null; then
    echo "SKIP: pkg-config is not installed"
    exit 77
  fi
  pc=(env PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config)
  [[ "$("${pc[@]}" --modversion mpiad)" == "${MPIAD_VERSION:?}" ]] || fail "pkg-config --modversion mpiad"
  flags="$("${pc[@]}" --cflags --libs mpiad)"
  echo "pkg-config --cflags --libs mpiad: $flags"
  incdir="$(cd "$prefix/include" && pwd -P)"
  found=0
  for f in $flags; do
    if [[ "$f" == -I* && -d "${f#-I}" && "$(cd "${f#-I}" && pwd -P)" == "$incdir" ]]; then
      found=1
    fi
  done
  ((found)) || fail "pkg-config --cflags mpiad has no -I for $prefix/include"
  for want in -lmpiad -lm; do
    [[ " $flags " == *" $want "* ]] || fail "pkg-config --libs mpiad lacks $want"
  done
  rm -rf "$work"
  cp -r "$here/make-consumer" "$work"
  make -C "$work" MPIAD_PREFIX="$prefix" PC_CC="$cc" LDFLAGS="${SANFLAGS:-}"
  run_checked "$work/app"
  run_checked "$work/app-pc"
  ;;
*)
  fail "unknown step '$step'"
  ;;
esac
echo "packaging $step: PASS"
