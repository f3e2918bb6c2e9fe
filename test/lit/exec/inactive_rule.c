// An external function that only reads the data it is given (an I/O write,
// as miniWeather's PnetCDF calls) is refused without a rule, since mpiad
// cannot see what it does with data that carries derivatives; the rule
// `inactive write_field` in a rule file says so, and the call stays in the
// forward sweep, contributing nothing.  Its result assigned to an integer
// or tested in a condition was not checked at all (an external function
// could have changed the data silently); it is now, as a discarded one.  Against the closed form at 1-4
// ranks.  rules/io.rules names such functions of C, PnetCDF, NetCDF and
// HDF5.
// RUN: not %mpiad-cc -c %s -I%S/../Inputs -o %t.o 2>&1 | FileCheck --check-prefix=NORULE %s
// NORULE: inactive_rule.c:[[@LINE+30]]:12: error: external function 'write_field' is passed the data of 'u'
// NORULE: inactive_rule.c:[[@LINE+30]]:18: error: external function 'write_field' is passed the data of 'u'
// RUN: %mpiad-cc --rules %S/../Inputs/io_writer.rules %s %S/../Inputs/io_writer.c -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// The calls stay in the forward sweep, as written; the reverse sweep has none.
// RUN: %mpiad-emit --rules %S/../Inputs/io_writer.rules %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN: double energy_b(
// GEN: rc = write_field("u", u, n);
// GEN: if (rc != 0 || write_field("u again", u, n) != 0) {
// GEN: /* reverse sweep */
// GEN-NOT: write_field
// GEN: {{^}}}
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

int write_field(const char *name, const double *data, int n);

#pragma mpiad differentiate wrt(x) varying(x)
double energy(const double *x, int n, MPI_Comm comm) {
  double u[8], loc = 0.0, g;
  for (int i = 0; i < n; i++)
    u[i] = sin(x[i]);
  int rc = write_field("u", u, n);
  if (rc != 0 || write_field("u again", u, n) != 0)
    fprintf(stderr, "write_field failed\n");
  for (int i = 0; i < n; i++)
    loc += u[i] * u[i];
  MPI_Allreduce(&loc, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  double x[4], xb[4] = {0, 0, 0, 0};
  hx_rand(x, 4, 91, hx_rank_g, -1.0, 1.0);
  energy_b(x, xb, 4, MPI_COMM_WORLD, 1.0);
  hx_tape("energy_b");
  double err = 0.0;
  for (int i = 0; i < 4; i++)
    err = fmax(err, fabs(xb[i] - 2.0 * sin(x[i]) * cos(x[i])));
  hx_check_each("energy_b = 2 sin cos, largest error", err, 0.0, 1.0, 1e-14);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
