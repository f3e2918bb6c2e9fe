// A copy-back `u[i] = unew[i]` over the whole of two private buffers, whose
// old contents of unew are dead (every element of unew is written before it
// is read again, and nothing after the time loop reads it), becomes a swap of
// the pointers in the forward sweep; its adjoint swaps them back and swaps
// the adjoints, with no pass over the arrays.  The adjoint of the stencil
// loop before it then overwrites u_b (which holds garbage since the swap)
// and leaves unew_b unzeroed, which is cleared once after the time loop.
// Its terms that read the same element of unew_b are folded into one
// (Gather.cpp foldedSum): `(1.0 + -(2.0 * nu)) * unew_b[j]`.
// The reverse-mode functions after the first break one condition each and
// keep the copy or the adding gather (BufferSwap.cpp lists the conditions);
// three of them are copies of a region instead (codegen/region_swap.c): a
// swap, an exchange of the elements outside the region, behind a run-time
// check whose else branch keeps the copy.
// Forward mode swaps the tangents too.  exec/copy_back_swap.c runs the
// swapped adjoints and tangents.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
#include <mpi.h>
#include <stdlib.h>

#pragma mpiad differentiate wrt(u0) varying(u0)
double heat(const double *u0, int n, int T, double nu) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    unew[0] = u[0];
    unew[n - 1] = u[n - 1];
    for (int i = 1; i < n - 1; i++)
      unew[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double heat_b(
// CHECK: /* forward sweep */
// CHECK: unew[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
// CHECK-NEXT: }
// CHECK-NEXT: /* copy-back u[i] = unew[i] for every i: the old contents of unew are not read again, so swap the buffers */
// CHECK-NEXT: {
// CHECK-NEXT: double *mpiad_swap = u;
// CHECK-NEXT: u = unew;
// CHECK-NEXT: unew = mpiad_swap;
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: /* reverse sweep */
// CHECK: for (int t = T - 1; t >= 0; t--) {
// CHECK-NEXT: /* adjoint of the copy-back u[i] = unew[i] for every i (unew_b is zero here, or stale where it stands for zero): swap back */
// CHECK-NEXT: {
// CHECK-NEXT: double *[[S1:mpiad_swap[0-9]+]] = u;
// CHECK-NEXT: u = unew;
// CHECK-NEXT: unew = [[S1]];
// CHECK-NEXT: }
// CHECK-NEXT: {
// CHECK-NEXT: double *[[S2:mpiad_swap[0-9]+]] = u_b;
// CHECK-NEXT: u_b = unew_b;
// CHECK-NEXT: unew_b = [[S2]];
// CHECK-NEXT: }
// CHECK-NEXT: /* reverse of the stencil loop over i, as a gather (boundary iterations peeled) */
// CHECK-NEXT: /* u_b holds the old unew_b since the swap: the gather overwrites all of it, and unew_b[1..n - 2] is left as it is (zero for the adjoint; the swap takes it, or it is zeroed after the loop) */
// CHECK-NEXT: for (int [[J1:mpiad_j[0-9]+]] = 0; [[J1]] <= (1 < n - 1 ? 1 : n - 1); [[J1]]++) {
// CHECK-NEXT: u_b{{\[}}[[J1]]{{\]}} = 0;
// CHECK: for (int [[J2:mpiad_j[0-9]+]] = 2; [[J2]] <= n - 3; [[J2]]++) {
// CHECK-NEXT: u_b{{\[}}[[J2]]{{\]}} = (1.0 + -(2.0 * nu)) * unew_b{{\[}}[[J2]]{{\]}} + nu * unew_b{{\[}}[[J2]] + 1{{\]}} + nu * unew_b{{\[}}[[J2]] - 1{{\]}};
// CHECK-NEXT: }
// CHECK-NEXT: for (int [[J3:mpiad_j[0-9]+]] = 2 > n - 2 ? 2 : n - 2; [[J3]] <= n - 1; [[J3]]++) {
// CHECK-NEXT: u_b{{\[}}[[J3]]{{\]}} = 0;
// CHECK-NOT: unew_b{{\[}}[[J3]] - 1{{\]}} = 0;
// CHECK: u_b[n - 1] += unew_b[n - 1];
// CHECK-NEXT: unew_b[n - 1] = 0;
// CHECK-NEXT: u_b[0] += unew_b[0];
// CHECK-NEXT: unew_b[0] = 0;
// CHECK-NEXT: }
// CHECK-NEXT: /* the adjoint of unew[1..n - 2] is zero: clear what the gathers left */
// CHECK-NEXT: for (int [[Z:mpiad_j[0-9]*]] = 1; [[Z]] <= n - 2; [[Z]]++) {
// CHECK-NEXT: unew_b{{\[}}[[Z]]{{\]}} = 0;
// CHECK-NEXT: }
// CHECK-NOT: unew_b[i] += u_b[i];
// CHECK: return mpiad_ret;

// The boundary writes after the interior loop read u: their adjoints add to
// u_b between the swap and the interior's adjoint, so that one adds too, and
// zeroes unew_b as it goes.
#pragma mpiad differentiate wrt(u0) varying(u0)
double lateboundary(const double *u0, int n, int T, double nu) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      unew[i] = u[i] + nu * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    unew[0] = u[0];
    unew[n - 1] = u[n - 1];
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double lateboundary_b(
// CHECK: /* reverse sweep */
// CHECK: (unew_b is zero here): swap back */
// CHECK-NOT: the gather overwrites
// CHECK: u_b[n - 1] += unew_b[n - 1];
// CHECK: for (int [[K2:mpiad_j[0-9]+]] = 2; [[K2]] <= n - 3; [[K2]]++) {
// CHECK-NEXT: u_b{{\[}}[[K2]]{{\]}} += (1.0 + -(2.0 * nu)) * unew_b{{\[}}[[K2]]{{\]}}
// CHECK-NEXT: unew_b{{\[}}[[K2]] - 1{{\]}} = 0;
// CHECK-NOT: clear what the gathers left
// CHECK: return mpiad_ret;

// The reverse needs the old u (u * u): the copy records it, so the whole
// swap does not apply; the region swap keeps unew's buffer, which holds the
// old u after the swap, on the tape instead of copying it.
#pragma mpiad differentiate wrt(u0) varying(u0)
double nonlinear(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      unew[i] = u[i] * u[i];
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = u[0];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double nonlinear_b(
// CHECK: if (0 <= n - 1 && (long long)(n - 1) < (long long)n) {
// CHECK-NEXT: /* copy-back of the region of u from unew: {{.*}} */
// CHECK-NOT: mpiad_push_f64_array
// CHECK: unew = mpiad_swap;
// CHECK: unew_b = mpiad_swap2;
// CHECK-NEXT: }
// CHECK-NEXT: /* the old region of u, now in unew, is kept on the tape as it is: {{.*}} */
// CHECK-NEXT: double *mpiad_fresh = (double *)mpiad_push_buffer(unew, (size_t)n * sizeof(double));
// CHECK: unew[mpiad_e] = mpiad_t;
// CHECK-NEXT: mpiad_fresh[mpiad_e] = mpiad_t;
// CHECK: unew = mpiad_fresh;
// CHECK-NEXT: } else {
// CHECK-NEXT: mpiad_push_f64_array(&u[0], n > 0 ? n : 0);
// CHECK-NEXT: for (int i = 0; i < n; i++) {
// CHECK-NEXT: u[i] = unew[i];
// CHECK: /* reverse sweep */
// CHECK: /* adjoint of the copy-back of the region of u from unew {{.*}} */
// CHECK-NEXT: /* unew takes back its buffer that the tape kept, {{.*}} */
// CHECK-NEXT: unew = (double *)mpiad_pop_buffer(unew, (size_t)n * sizeof(double));
// CHECK-NOT: mpiad_pop_f64_array
// CHECK: } else {
// CHECK: unew_b[i] += u_b[i];

// unew is read after the time loop.
#pragma mpiad differentiate wrt(u0) varying(u0)
double readafter(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      unew[i] = 0.5 * u[i];
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = u[0] + unew[n - 1];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double readafter_b(
// CHECK-NOT: swap the buffers
// CHECK: u[i] = unew[i];
// CHECK: unew_b[i] += u_b[i];

// unew[n - 1] is never written: its old contents are read by the copy.
#pragma mpiad differentiate wrt(u0) varying(u0)
double partial(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    unew[0] = u[0];
    for (int i = 1; i < n - 1; i++)
      unew[i] = 0.5 * (u[i - 1] + u[i + 1]);
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = u[0];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double partial_b(
// CHECK-NOT: swap the buffers
// CHECK: u[i] = unew[i];
// CHECK: unew_b[i] += u_b[i];

// The step reads unew before writing it.
#pragma mpiad differentiate wrt(u0) varying(u0)
double readfirst(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int i = 0; i < n; i++)
    unew[i] = 0.0;
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      unew[i] = 0.5 * (unew[i] + u[i]);
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = u[0];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double readfirst_b(
// CHECK-NOT: swap the buffers
// CHECK: u[i] = unew[i];
// CHECK: unew_b[i] += u_b[i];

// Not the whole buffer: u[n - 1] keeps its value (a region swap exchanges
// it back).
#pragma mpiad differentiate wrt(u0) varying(u0)
double shortcopy(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      unew[i] = 0.5 * u[i];
    for (int i = 0; i < n - 1; i++)
      u[i] = unew[i];
  }
  double s = u[n - 1] + u[0];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double shortcopy_b(
// CHECK: if (0 <= n - 2 && (long long)(n - 2) < (long long)n) {
// CHECK-NEXT: /* copy-back of the region of u from unew: {{.*}} */
// CHECK: } else {
// CHECK-NEXT: for (int i = 0; i < n - 1; i++) {
// CHECK-NEXT: u[i] = unew[i];
// CHECK: unew_b[i] += u_b[i];

// u is seen by a call (communication holds its address): not the whole
// swap; the region swap, which swaps the adjoints in the forward sweep too.
#pragma mpiad differentiate wrt(u0) varying(u0)
double passed(const double *u0, int n, int T, MPI_Comm comm) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      unew[i] = 0.5 * u[i];
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
    MPI_Allreduce(MPI_IN_PLACE, u, n, MPI_DOUBLE, MPI_SUM, comm);
  }
  double s = u[0];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double passed_b(
// CHECK: if (0 <= n - 1 && (long long)(n - 1) < (long long)n) {
// CHECK-NEXT: /* copy-back of the region of u from unew: {{.*}} */
// CHECK: } else {
// CHECK-NEXT: for (int i = 0; i < n; i++) {
// CHECK-NEXT: u[i] = unew[i];
// CHECK: unew_b[i] += u_b[i];

// Forward mode swaps the buffers and their tangents (every write of unew
// writes unew_d).  It records nothing, so a nonlinear step is swapped too.
#pragma mpiad differentiate forward wrt(u0)
double tangent(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      unew[i] = u[i] * u[i];
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = u[0];
  free(u);
  free(unew);
  return s;
}
// CHECK-LABEL: double tangent_d(
// CHECK: unew[i] = u[i] * u[i];
// CHECK-NEXT: }
// CHECK-NEXT: /* copy-back u[i] = unew[i] for every i: the old contents of unew are not read again, so swap the buffers */
// CHECK-NEXT: {
// CHECK-NEXT: double *[[T1:mpiad_swap[0-9]*]] = u;
// CHECK-NEXT: u = unew;
// CHECK-NEXT: unew = [[T1]];
// CHECK-NEXT: }
// CHECK-NEXT: {
// CHECK-NEXT: double *[[T2:mpiad_swap[0-9]*]] = u_d;
// CHECK-NEXT: u_d = unew_d;
// CHECK-NEXT: unew_d = [[T2]];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: u[i] = unew[i];
// CHECK: return

// A callee's tangent helper swaps too (its split reverse helpers do not:
// they pass the buffers between two functions).
static double callee(const double *u0, int n, int T) {
  double *u = malloc(n * sizeof(double));
  double *unew = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    u[i] = u0[i];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < n; i++)
      unew[i] = 0.5 * u[i];
    for (int i = 0; i < n; i++)
      u[i] = unew[i];
  }
  double s = u[0];
  free(u);
  free(unew);
  return s;
}
#pragma mpiad differentiate forward wrt(u0)
double caller(const double *u0, int n, int T) { return 2.0 * callee(u0, n, T); }
// CHECK-LABEL: static double mpiad_tan_callee(
// CHECK: unew[i] = 0.5 * u[i];
// CHECK-NEXT: }
// CHECK-NEXT: /* copy-back u[i] = unew[i] for every i: the old contents of unew are not read again, so swap the buffers */
// CHECK: u_d = unew_d;
// CHECK-LABEL: double caller_d(
