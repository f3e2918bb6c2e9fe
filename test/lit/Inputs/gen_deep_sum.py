#!/usr/bin/env python3
"""Writes a C file whose marked function f is one sum of N terms,
s = x * 0.0 + x * 1.0 + ... + x * (N-1).0, an expression N levels deep,
differentiated in reverse mode, and with --main also in forward mode, with a
main that prints f, its tangent and its adjoint at x = 1.5.

usage: gen_deep_sum.py N [--main]
"""
import sys

n = int(sys.argv[1])
terms = " + ".join("x * %d.0" % i for i in range(n))
print("#include <mpi.h>")
print("#include <stdio.h>")
if "--main" in sys.argv:
    print("#pragma mpiad differentiate forward wrt(x)")
print("#pragma mpiad differentiate reverse wrt(x)")
print("double f(double x) {")
print("  double s = %s;" % terms)
print("  return s;")
print("}")
if "--main" in sys.argv:
    print("""
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double dot = 0.0, xb = 0.0;
  double y = f_d(1.5, 1.0, &dot);
  f_b(1.5, &xb, 1.0);
  printf("f %.1f tangent %.1f adjoint %.1f\\n", y, dot, xb);
  MPI_Finalize();
  return 0;
}""")
