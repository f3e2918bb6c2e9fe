// Replicated inputs (w[d], b) used by per-rank data: each rank accumulates its
// share of their adjoints in private buffers (w_b_part, b_b_acc), and the shares
// of all replicated inputs are summed over ranks in ONE fused reduction at the end
// (mpiad_batch_*), not one MPI_Allreduce per input. The two Allreduces of the
// primal need no communication in the reverse sweep (their results are used only
// by replicated code).
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// CHECK:      {{^}} *   independents: w, b
// CHECK-NEXT: {{^}} *   dependents:   return value (replicated: counted once)
// CHECK-NEXT: {{^}} *   replicated:   w, b, d
// CHECK-NEXT: {{^}} *   varying:      x, y, n
// CHECK-NEXT: {{^}} *   double fit_b(const double *w, double *w_b, double b, double *b_b, const double *x, const double *y, int n, int d, MPI_Comm comm, double fit_bar)
// CHECK:      {{^}}double fit_b(
// CHECK:      mpiad_batch mpiad_sum;
// w's length comes from the loop bound d.
// CHECK:      if (mpiad_check_enabled()) {
// CHECK-NEXT:   const mpiad_check_input mpiad_inputs[] = {{[{][{]}}"b", &b, 1, sizeof b, 'd'}, {"d", &d, 1, sizeof d, 'i'}, {"w", w, (long long)(d), sizeof *w, 'a'}};
// CHECK-NEXT:   mpiad_check_replicated(comm, "fit_b", mpiad_inputs, 3);
// CHECK-NEXT: }
// CHECK-NEXT: double *w_b_part = mpiad_alloc_zeroed(d, sizeof(double), "fit_b", "w", comm);
// CHECK:      /* reverse sweep */
// CHECK-NOT:  MPI_
// CHECK-NOT:  mpiad_batch
// The loop's adjoint runs inside it for local_b = 1 (DeferredSeed.cpp): its
// shares are scaled in the reverse sweep.
// CHECK:      b_b_acc += local_b * b_b_acc_u;
// CHECK:      w_b_part[mpiad_k] += local_b * w_b_part_u[mpiad_k];
// CHECK-NOT:  MPI_
// CHECK:      /* gradient of the replicated inputs: sum this rank's shares over ranks, in one call */
// CHECK-NEXT: mpiad_batch_begin(&mpiad_sum, comm);
// CHECK-NEXT: mpiad_batch_add_f64(&mpiad_sum, w_b_part, w_b, d);
// CHECK-NEXT: mpiad_batch_add_f64(&mpiad_sum, &b_b_acc, b_b, 1);
// CHECK-NEXT: mpiad_batch_allreduce(&mpiad_sum);
// CHECK-NEXT: free(w_b_part);
// CHECK-NEXT: return mpiad_ret;
// CHECK-NEXT: {{^}}}
// CHECK-NOT:  mpiad_batch_allreduce

#include <mpi.h>

#pragma mpiad differentiate wrt(w, b) replicated(w, b, d) varying(x, y, n)
double fit(const double *w, double b, const double *x, const double *y, int n,
           int d, MPI_Comm comm) {
  double local = 0.0;
  for (int i = 0; i < n; i++) {
    double r = b - y[i];
    for (int j = 0; j < d; j++)
      r += w[j] * x[i * d + j];
    local += r * r;
  }
  double count = n;
  double total = 0.0, total_count = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&count, &total_count, 1, MPI_DOUBLE, MPI_SUM, comm);
  return total / total_count;
}
