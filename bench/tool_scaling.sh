#!/usr/bin/env bash
# bench/tool_scaling.sh BUILD_DIR
#
# How mpiad-cc's own time and memory grow with the size of its input: the
# cases of issue 21 that once crashed it or took exponential time.
#   nest D     D nested for loops of one trip around s = s * x (reverse and
#              forward), D = 16 .. 128
#   sum N      one expression of N terms x * c_k, N = 5,000 .. 90,000 (the
#              tool refuses expressions deeper than 100,000 levels)
#   lines N    a straight-line function of N statements that all overwrite s
# Prints, per case, the wall time (s) and the peak resident memory (MB) of
# `mpiad-cc --emit-source`, the best of three runs.  The inputs come from the
# generators of the lit tests (test/lit/Inputs/gen_*.py).
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
cc="$(cd "$1" && pwd)/bin/mpiad-cc"
gen="$(cd "$(dirname "$0")/../test/lit/Inputs" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
measure() { # measure LABEL FILE: best wall time and its peak memory of 3
  local best="" mem=""
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$tmp/t" "$cc" --emit-source "$2" \
      -o "$tmp/out.c" 2>/dev/null
    read -r t m <"$tmp/t"
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then
      best=$t
      mem=$m
    fi
  done
  printf "%-24s %8.2f %8.0f\n" "$1" "$best" "$(awk "BEGIN{print $mem / 1024}")"
}
printf "%-24s %8s %8s\n" "case" "time s" "peak MB"
for d in 16 32 64 128; do
  for mode in reverse forward; do
    python3 "$gen/gen_loop_nest.py" "$d" "$mode" >"$tmp/nest.c"
    measure "nest $d $mode" "$tmp/nest.c"
  done
done
for n in 5000 20000 50000 90000; do
  python3 "$gen/gen_deep_sum.py" "$n" >"$tmp/sum.c"
  measure "sum $n" "$tmp/sum.c"
done
for n in 5000 20000; do
  python3 "$gen/gen_straight_line.py" "$n" reverse >"$tmp/lines.c"
  measure "lines $n reverse" "$tmp/lines.c"
done
