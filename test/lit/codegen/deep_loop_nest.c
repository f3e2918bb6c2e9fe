// Tool time must not double with each level of loop nesting.  To-be-recorded
// walked each loop body to a fixpoint inside each pass over its parent loop:
// 2^depth walks.  It now computes what each loop body adds once and walks
// each statement once.  Forward mode, 64 nested loops:
//
// RUN: python3 %S/../Inputs/gen_loop_nest.py 64 forward > %t.fwd.c
// RUN: timeout 280 %mpiad-emit %t.fwd.c -o - | FileCheck %s --check-prefix=FWD
// FWD: {{^}}double f_d(double x, double x_d, int n, double *f_dot) {
// FWD: for (int i63 = 0; i63 < n; i63++) {
// FWD-NEXT: s_d = s_d * x + s * x_d;
// FWD-NEXT: s = s * x;
//
// Reverse mode at a depth the replication analysis still affords (it has the
// same nested fixpoint, in Replication.cpp; see deep_loop_nest_reverse.c):
//
// RUN: python3 %S/../Inputs/gen_loop_nest.py 12 reverse > %t.rev.c
// RUN: timeout 280 %mpiad-emit %t.rev.c -o - | FileCheck %s --check-prefix=REV
// REV: {{^}}double f_b(double x, double *x_b, int n, double f_bar) {
// REV: mpiad_push_f64(s);
// REV-NEXT: s = s * x;
// REV: /* reverse sweep */
// REV: s = mpiad_pop_f64();
// REV-NEXT: double mpiad_t1 = s_b;
// REV-NEXT: s_b = 0;
// REV-NEXT: s_b += mpiad_t1 * x;
// REV-NEXT: x_b_acc += s * mpiad_t1;
