#!/usr/bin/env python3
"""Writes a C file whose marked function nests DEPTH `for` loops of one trip
around `s = s * x` (MODE: forward or reverse).

usage: gen_loop_nest.py DEPTH MODE
"""
import sys

depth, mode = int(sys.argv[1]), sys.argv[2]
out = ["#pragma mpiad differentiate %s wrt(x) varying(x, n)" % mode,
       "double f(double x, int n) {", "  double s = 1.0;"]
for i in range(depth):
    out.append("  " * (i + 1) + "for (int i%d = 0; i%d < n; i%d++) {" % (i, i, i))
out.append("  " * (depth + 1) + "s = s * x;")
for i in reversed(range(depth)):
    out.append("  " * (i + 1) + "}")
out += ["  return s;", "}"]
print("\n".join(out))
