// The reverse sweep pops in exact LIFO order within a statement: the old value
// that an in-place MPI_Allreduce overwrites is pushed before the rule's
// recording forward call, so it is popped after the rule's adjoint.  And a
// compound assignment whose right side reads its own target takes the old
// adjoint into a temporary before adding the right side's contribution.
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK-LABEL: {{^}}double prod_b(
// CHECK:      /* forward sweep */
// CHECK:      v = v * v;
// CHECK-NEXT: mpiad_push_f64(v);
// CHECK-NEXT: mpiad_allreduce_fwd(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_PROD, comm);
// CHECK:      /* reverse sweep */
// CHECK:      mpiad_allreduce_rev(MPI_IN_PLACE, &v_b, 1, MPI_DOUBLE, MPI_PROD, comm, 0);
// CHECK-NEXT: v = mpiad_pop_f64();

// CHECK-LABEL: {{^}}double self_b(
// CHECK:      /* reverse sweep */
// CHECK:      t = mpiad_pop_f64();
// CHECK-NEXT: double mpiad_t1 = t_b;
// CHECK-NEXT: t_b += mpiad_t1 / (1.5 + x[2]);
// CHECK-NEXT: x_b[2] += -(mpiad_t1 * t / ((1.5 + x[2]) * (1.5 + x[2])));
// CHECK-NEXT: x_b[2] += t_b;

#include <mpi.h>

#pragma mpiad differentiate wrt(x) replicated(x)
double prod(const double *x, MPI_Comm comm) {
  double v = x[0];
  v = v * v;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_PROD, comm);
  return v;
}

#pragma mpiad differentiate wrt(x) replicated(x)
double self(const double *x) {
  double t = x[2];
  t += t / (1.5 + x[2]);
  return t;
}
