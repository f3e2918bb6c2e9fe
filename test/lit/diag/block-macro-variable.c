// A variable that a differentiated block assigns, reads through a macro and
// leaves for the code after it (Outline.cpp): the outlined function copies
// it in and out (exec/block_c89_locals.c), except where that could differ
// from the program, which stays the located error:
//  - CASE 1: the function takes the variable's address outside the block
//    (a pointer made there could read or write it while the block runs);
//  - CASE 2: a clause names the variable, so its parameter keeps the
//    user's name and the uses in the macro cannot be redirected.
// RUN: not %mpiad-cc -DCASE=1 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=C1 --implicit-check-not error:
// RUN: not %mpiad-cc -DCASE=2 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=C2 --implicit-check-not error:
// And without either, it is accepted:
// RUN: %mpiad-cc -DCASE=3 -c %s -o %t.o
#include <mpi.h>
#include <stdio.h>

#define AT(i, j) a[(i) + 4 * (j)]
#define TWICE(x) (2.0 * (x))

#if CASE == 1
double run(double *a, int n) {
  int i, j = 0, *pj = &j;
#pragma mpiad differentiate wrt(a) output(a) varying(a) name(run_b)
  {
    for (j = 1; j < n; j++)
      for (i = 0; i < 4; i++)
        AT(i, j) = AT(i, j - 1) * AT(i, j);
  }
  *pj += 1;
  return AT(0, j - 2);
}
// C1: block-macro-variable.c:[[@LINE-5]]:{{[0-9]+}}: error: the differentiated block assigns 'j', which it uses through a macro; write the use out, or declare the variable in the block
#elif CASE == 2
double run(double *a, int n) {
  double e = 1.0;
#pragma mpiad differentiate wrt(a, e) output(a, e) varying(a, e) name(run_b)
  {
    e = e * 2.0;
    AT(1, 1) = AT(1, 1) + AT(0, 0) * e;
    AT(2, 1) = AT(0, 0) + TWICE(e);
  }
  return AT(0, n - 1) + e;
}
// C2: block-macro-variable.c:[[@LINE-4]]:33: error: the differentiated block assigns 'e', which it uses through a macro; write the use out, or declare the variable in the block
#else
double run(double *a, int n) {
  int i, j = 0;
#pragma mpiad differentiate wrt(a) output(a) varying(a) name(run_b)
  {
    for (j = 1; j < n; j++)
      for (i = 0; i < 4; i++)
        AT(i, j) = AT(i, j - 1) * AT(i, j);
  }
  return AT(0, j - 1);
}
#endif
