// A warning, not an error: the result depends on d, an int input not listed in
// replicated(...), so it is varying and the objective sums it over ranks (the
// gradient of a replicated a would come out P times larger than intended if d is
// in fact the same everywhere). The adjoint is still written. Listing d in
// replicated(...) (here with -DFIXED) silences the warning.
//
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck %s --implicit-check-not error: --implicit-check-not warning:
// RUN: FileCheck --check-prefix=GEN --input-file %t.c %s
// RUN: %mpiad-emit -DFIXED %s -o %t.fixed.c 2>&1 | FileCheck %s --check-prefix=FIXED --allow-empty --implicit-check-not error: --implicit-check-not warning:
// RUN: FileCheck --check-prefix=GENFIXED --input-file %t.fixed.c %s

// GEN: {{^}} *   dependents:   return value (varying: summed over ranks)
// GEN: {{^}}double f_b(double a, double *a_b, int d, MPI_Comm comm, double f_bar) {
// GENFIXED: {{^}} *   dependents:   return value (replicated: counted once)
// GENFIXED: {{^}} *   replicated:   a, d
// FIXED-NOT: warning

#include <mpi.h>

#ifdef FIXED
#pragma mpiad differentiate wrt(a) replicated(a, d)
#else
// CHECK: {{.*}}varying-output-warning.c:[[@LINE+1]]:1: warning: the result of 'f' varies across ranks because it depends on 'd', not listed in replicated(...); the objective sums it over ranks
#pragma mpiad differentiate wrt(a) replicated(a)
#endif
double f(double a, int d, MPI_Comm comm) {
  double reg = 0.0;
  for (int j = 0; j < d; j++)
    reg += a * a;
  int one = 1, ranks;
  MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, comm);
  return reg / ranks;
}
