// The length of a scratch array written at twelve different extents (a
// buffer packed piece by piece, as halo and I/O code does): the largest is
// taken with one mpiad_max_len call per extent.  The lengths were nested
// as `l1 > l2 ? l1 : l2`, which repeats both sides: the expression doubled
// with each extent (43 MB of generated text and 28 s for 20 extents, found
// by a tester who did not write mpiad).
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' > %t.c
// RUN: FileCheck %s < %t.c
// RUN: wc -c < %t.c | FileCheck --check-prefix=SIZE %s
// CHECK: double *buf_b = mpiad_alloc_zeroed(mpiad_max_len(mpiad_max_len({{[^?]*}}), sizeof(double), "f_b", "buf", MPI_COMM_WORLD);
// SIZE: {{^[0-9][0-9][0-9][0-9][0-9]?$}}

#pragma mpiad differentiate wrt(x) scratch(buf) varying(x)
double f(const double *x, double *buf, int a, int b) {
  for (int i = 0; i < a; i++) buf[0 + i] = x[i];
  for (int i = 0; i < b; i++) buf[0 + a + i] = x[i];
  for (int i = 0; i < a; i++) buf[0 + a + b + i] = x[i];
  for (int i = 0; i < b; i++) buf[0 + a + b + a + i] = x[i];
  for (int i = 0; i < a; i++) buf[0 + a + b + a + b + i] = x[i];
  for (int i = 0; i < b; i++) buf[0 + a + b + a + b + a + i] = x[i];
  for (int i = 0; i < a; i++) buf[0 + a + b + a + b + a + b + i] = x[i];
  for (int i = 0; i < b; i++) buf[0 + a + b + a + b + a + b + a + i] = x[i];
  for (int i = 0; i < a; i++) buf[0 + a + b + a + b + a + b + a + b + i] = x[i];
  for (int i = 0; i < b; i++) buf[0 + a + b + a + b + a + b + a + b + a + i] = x[i];
  for (int i = 0; i < a; i++) buf[0 + a + b + a + b + a + b + a + b + a + b + i] = x[i];
  for (int i = 0; i < b; i++) buf[0 + a + b + a + b + a + b + a + b + a + b + a + i] = x[i];
  double s = 0.0;
  for (int i = 0; i < a; i++)
    s += buf[i] * buf[i];
  return s;
}
