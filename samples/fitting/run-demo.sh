#!/usr/bin/env bash
# run-demo.sh BUILD_DIR [NP] [samples_per_rank d steps lr]
#
# Compiles samples/fitting/logistic.c with mpiad-cc from BUILD_DIR, shows the
# generated adjoint of `loss`, and trains the model on NP ranks (default 4).
# Exits with the program's status: 0 when the loss went down and the adjoint
# gradient matches central finite differences.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [NP] [samples_per_rank d steps lr]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
np=${2:-4}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
cc="$build/bin/mpiad-cc"
out="$build/samples/fitting"

if [ ! -x "$cc" ]; then
  echo "run-demo: $cc not found; build the project first (cmake --build $1)" >&2
  exit 2
fi
mkdir -p "$out"

echo "== 1. generate the adjoint source (readable C, for a look)"
echo "   $cc --emit-source $here/logistic.c -o $out/logistic.ad.c"
"$cc" --emit-source "$here/logistic.c" -o "$out/logistic.ad.c"
echo "   generated: $(grep -c '' "$out/logistic.ad.c") lines; the adjoint of loss is"
grep -m1 '^double loss_b' "$out/logistic.ad.c" | sed 's/ {$/;/; s/^/     /' || true

echo "== 2. differentiate, compile and link (mpicc, libmpiad, -lm)"
echo "   $cc -O2 $here/logistic.c -lm -o $out/logistic"
"$cc" -O2 "$here/logistic.c" -lm -o "$out/logistic"

mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --mca pml ob1)
echo "== 3. train on $np ranks by gradient descent with loss_b, then check the gradient"
echo "   ${mpirun[*]} -np $np $out/logistic $*"
status=0
"${mpirun[@]}" -np "$np" "$out/logistic" "$@" || status=$?
if [ "$status" -eq 0 ]; then
  echo "== demo passed"
else
  echo "== demo FAILED (exit status $status)"
fi
exit "$status"
