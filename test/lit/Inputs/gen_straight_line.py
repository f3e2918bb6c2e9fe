#!/usr/bin/env python3
"""Writes a C file whose marked function (MODE: forward or reverse) is N
assignments in a row that overwrite s, alternately s = s * x + 0.25 and
s = s * 0.5 + x * k.

usage: gen_straight_line.py N MODE
"""
import sys

n, mode = int(sys.argv[1]), sys.argv[2]
out = ["#pragma mpiad differentiate %s wrt(x)" % mode, "double f(double x) {",
       "  double s = 1.0;"]
for i in range(n):
    out.append("  s = s * 0.5 + x * %d.0;" % (i % 7) if i % 2
               else "  s = s * x + 0.25;")
out += ["  return s;", "}"]
print("\n".join(out))
