// mpiad-cc parses a marked file with mpiad.h (and so <mpi.h>), <stdlib.h>
// and <string.h> added (docs/driver.md); a file that uses what they declare
// without including them itself is not C that a compiler takes on its own,
// so it is the error the compiler would give, at the first use of each
// header (Includes.cpp).
// RUN: not %mpiad-emit %s -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error:
// CHECK: missing-include.c:[[@LINE+5]]:3: error: 'MPI_Comm' is declared in <mpi.h>, which this file does not include: add #include <mpi.h> (the file must compile on its own, as with mpicc)
// CHECK: missing-include.c:[[@LINE+6]]:15: error: 'malloc' is declared in <stdlib.h>, which this file does not include: add #include <stdlib.h>

#pragma mpiad differentiate wrt(x) varying(x)
double f(const double *x, int n) {
  MPI_Comm comm = MPI_COMM_WORLD;
  double s = 0, t = 0;
  double *w = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) {
    w[i] = x[i] * x[i];
    s += w[i];
  }
  free(w);
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
  return t;
}
