#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (as root) or a developer's checkout:
#
#   bash scripts/quickstart.sh sample              install, build, run the flagship sample on 4 ranks
#   bash scripts/quickstart.sh test                install, build, run every test (ctest)
#   bash scripts/quickstart.sh test --sanitize     the same with ASan+UBSan, in build-sanitize/
#   bash scripts/quickstart.sh build [--sanitize]  install and build only
#
# Missing packages are installed with apt-get (nothing is done when all are present).
# Environment: BUILD_DIR overrides the build directory, JOBS the build parallelism (2).
set -euo pipefail

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mode="${1:-}"
[[ "$mode" == sample || "$mode" == test || "$mode" == build ]] || usage
shift
sanitize=OFF
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=ON ;;
    *) usage ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${JOBS:-2}"
if [[ "$sanitize" == ON ]]; then
  build="${BUILD_DIR:-build-sanitize}"
else
  build="${BUILD_DIR:-build}"
fi

# --- (a) packages -------------------------------------------------------------------
packages=(clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libclang-rt-19-dev
          libopenmpi-dev openmpi-bin cmake ninja-build python3 csmith libcsmith-dev
          pkg-config gcc)
missing=()
for pkg in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  [[ "$status" == installed ]] || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "quickstart: installing ${missing[*]}" >&2
  sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { echo "quickstart: run as root or install sudo" >&2; exit 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Open MPI as root on a small machine, and mpicc with the compiler the project uses.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_CC="${OMPI_CC:-clang-19}"
if [[ "$sanitize" == ON ]]; then
  # For every sanitized program ctest runs (lit sets the same for its own tests).
  export ASAN_OPTIONS=fast_unwind_on_malloc=0:detect_leaks=1
  export LSAN_OPTIONS="suppressions=$root/test/lit/lsan.supp"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi

# --- (b) configure and build --------------------------------------------------------
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -G Ninja -DMPIAD_SANITIZE="$sanitize" >/dev/null
else
  # Re-run configuration only for what it must pick up (a changed option).
  cmake -S . -B "$build" -DMPIAD_SANITIZE="$sanitize" >/dev/null
fi
cmake --build "$build" -j "$jobs"

# --- (c) run ------------------------------------------------------------------------
case "$mode" in
  build) ;;
  sample)
    exec bash samples/fitting/run-demo.sh "$build"
    ;;
  test)
    cd "$build"
    # ctest's output streams as usual; its summary line ("N% tests passed, ...") is then
    # repeated as the very last line, and ctest's exit status is the script's.
    log="Testing/quickstart-ctest.log"
    mkdir -p Testing
    set +e
    ctest --output-on-failure --no-tests=error -j "$jobs" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    set -e
    summary="$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1 || true)"
    echo "${summary:-ctest failed (exit status $status) before running any test}"
    exit "$status"
    ;;
esac
