// A same-file helper that writes through one argument while another argument
// points into the same array at another place, through a pointer copy: its
// adjoint cannot follow the overlap, so the call is an error. (The same
// pointer twice is supported, see exec/callee_alias.c; two different
// pointers into one array written as `x + 1` and `x` make mpiad inline the
// helper, see exec/callee_overlap.c.)
// RUN: rm -f %t.c
// RUN: not %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.c

static void vecAdd(double *sum, const double *v1, const double *v2, int n) {
  for (int i = 0; i < n; i++)
    sum[i] = v1[i] + v2[i];
}

#pragma mpiad differentiate wrt(x, y) output(x) replicated(x, y, n)
void f(double *x, const double *y, int n) {
  double *next = x + 1;
  // CHECK: callee-overlapping-arguments.c:[[@LINE+1]]:3: error: arguments 1 ('next') and 2 ('x') of 'vecAdd' point into the same array and 'vecAdd' writes through one of them; its adjoint can follow only arguments that are the same pointer: pass the same pointer, or copy one of them into a separate array before the call
  vecAdd(next, x, y, n - 1);
}
