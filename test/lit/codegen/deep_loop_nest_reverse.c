// Reverse mode, 64 nested loops of one statement: must finish in seconds.
// To-be-recorded is linear in the nesting now (deep_loop_nest.c), but the
// replication analysis (Replication.cpp, Replication::stmt, For/While case)
// still walks each loop body to a fixpoint inside each pass over its parent,
// 2^depth walks: 18 levels take about 1.2 s, 21 about 10 s, 64 would not
// finish.  Remove the REQUIRES line once that is fixed.
// REQUIRES: replication-linear-in-loop-depth
//
// RUN: python3 %S/../Inputs/gen_loop_nest.py 64 reverse > %t.c
// RUN: timeout 60 %mpiad-emit %t.c -o - | FileCheck %s
// CHECK: {{^}}double f_b(double x, double *x_b, int n, double f_bar) {
// CHECK: for (int i63 = 0; i63 < n; i63++) {
// CHECK: mpiad_push_f64(s);
// CHECK: /* reverse sweep */
// CHECK: s = mpiad_pop_f64();
