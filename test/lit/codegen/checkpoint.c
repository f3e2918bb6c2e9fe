// Code generated for a loop under '#pragma mpiad checkpoint': the schedule
// driver in both sweeps, the step count, the snapshot of the loop-carried
// state (pointer values, their shadow pointers, the buffers by their
// allocation size, the scalar carried across steps), ADVANCE re-running the
// original body with nothing recorded and shadow pointers following the
// swapped pointers, the recorded step in the forward sweep only at the
// first turn, and the default number of snapshots.
//
// RUN: %mpiad-emit %s -o %t.c 2>&1 | FileCheck --check-prefix=DIAG --allow-empty %s
// RUN: sed '/^\/\/ [A-Z-]*:/d' %t.c | FileCheck %s
// DIAG-NOT: {{error|warning}}
#include <stdlib.h>

#pragma mpiad differentiate wrt(x) varying(x)
double swap(const double *x, int n, int lo, int hi) {
  double *p = malloc((size_t)n * sizeof(double));
  double *q = malloc((size_t)n * sizeof(double));
  double s = 0.0;
  for (int i = 0; i < n; i++)
    p[i] = x[i];
#pragma mpiad checkpoint
  for (int t = lo; t <= hi; t++) {
    for (int i = 0; i < n; i++)
      q[i] = p[i] * p[i];
    s = s + q[0];
    double *tmp = p;
    p = q;
    q = tmp;
  }
  double J = s + p[0];
  free(p);
  free(q);
  return J;
}

// CHECK-LABEL: double swap_b(
// CHECK: /* forward sweep */
// CHECK: /* checkpointed loop over t: at most the default snapshots */
// CHECK-NEXT: mpiad_ck = mpiad_ckpt_begin((long)(hi - lo + 1), MPIAD_CKPT_DEFAULT_SNAPSHOTS);
// CHECK-NEXT: for (int mpiad_act = mpiad_ckpt_next(mpiad_ck); mpiad_act != MPIAD_CKPT_DONE; mpiad_act = mpiad_ckpt_next(mpiad_ck)) {
// CHECK-NEXT: if (mpiad_act == MPIAD_CKPT_ADVANCE) {
// CHECK-NEXT: for (int t = lo + (int)mpiad_ckpt_from(mpiad_ck); t < lo + (int)mpiad_ckpt_to(mpiad_ck); t++) {
// CHECK-NOT: mpiad_push
// CHECK: q[i] = p[i] * p[i];
// CHECK: s = s + q[0];
// CHECK-NEXT: tmp = p;
// CHECK-NEXT: tmp_b = p_b;
// CHECK-NEXT: p = q;
// CHECK-NEXT: p_b = q_b;
// CHECK-NEXT: q = tmp;
// CHECK-NEXT: q_b = tmp_b;
// CHECK-NEXT: }
// CHECK-NEXT: } else if (mpiad_act == MPIAD_CKPT_SAVE) {
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, &p, sizeof(p));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, &p_b, sizeof(p_b));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, &q, sizeof(q));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, &q_b, sizeof(q_b));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, &s, sizeof(s));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, &tmp, sizeof(tmp));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, &tmp_b, sizeof(tmp_b));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, p, (size_t)n * sizeof(double));
// CHECK-NEXT: mpiad_ckpt_save(mpiad_ck, q, (size_t)n * sizeof(double));
// CHECK-NEXT: } else if (mpiad_act == MPIAD_CKPT_RESTORE) {
// CHECK-NEXT: mpiad_ckpt_load(mpiad_ck, &p, sizeof(p));
// CHECK: } else {
// CHECK-NEXT: /* MPIAD_CKPT_FIRST_TURN: the last step, recorded */
// CHECK-NEXT: {
// CHECK-NEXT: int t = lo + (int)mpiad_ckpt_step(mpiad_ck);
// CHECK: mpiad_push_ptr(p);
// CHECK: break;
// CHECK: mpiad_push_ptr(mpiad_ck);
// CHECK: /* reverse sweep */
// CHECK: mpiad_ck = mpiad_pop_ptr();
// CHECK-NEXT: for (int mpiad_act = mpiad_ckpt_next(mpiad_ck); mpiad_act != MPIAD_CKPT_DONE; mpiad_act = mpiad_ckpt_next(mpiad_ck)) {
// CHECK: /* MPIAD_CKPT_TURN: run the step recorded, then reverse it; MPIAD_CKPT_REVERSE: reverse the step the forward sweep recorded */
// CHECK-NEXT: {
// CHECK-NEXT: int t = lo + (int)mpiad_ckpt_step(mpiad_ck);
// CHECK-NEXT: if (mpiad_act == MPIAD_CKPT_TURN) {
// CHECK: q_b = mpiad_pop_ptr();
// CHECK: mpiad_ckpt_end(mpiad_ck);
// CHECK: x_b[i] += p_b[i];

#pragma mpiad differentiate wrt(u) output(u) varying(u)
void down(double *u, int n, int steps) {
#pragma mpiad checkpoint(snapshots=5)
  for (int t = steps; t > 0; t--)
    for (int i = 0; i < n; i++)
      u[i] = u[i] * u[i] + t;
}

// The step count and counter of a loop counting down; a parameter's
// snapshot has the length inferred from the loops that index it.
// CHECK-LABEL: void down_b(
// CHECK: mpiad_ck = mpiad_ckpt_begin((long)(steps - 0), 5);
// CHECK: for (int t = steps - (int)mpiad_ckpt_from(mpiad_ck); t > steps - (int)mpiad_ckpt_to(mpiad_ck); t--) {
// CHECK: mpiad_ckpt_save(mpiad_ck, u, n * sizeof(*u));
