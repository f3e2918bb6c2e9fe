// Reverse mode, 64 nested loops of one statement: must finish in seconds.
// To-be-recorded is linear in the nesting (deep_loop_nest.c); so is the
// replication analysis: a loop walked again inside a later pass over its
// parent starts its fixpoint from its earlier head state (Replication.cpp,
// LoopWalk).  Before that, each level doubled the time: 18 levels took about
// 1.2 s, 21 about 10 s, and 64 would not have finished.
//
// RUN: python3 %S/../Inputs/gen_loop_nest.py 64 reverse > %t.c
// RUN: timeout 280 %mpiad-emit %t.c -o - | FileCheck %s
// CHECK: {{^}}double f_b(double x, double *x_b, int n, double f_bar) {
// CHECK: for (int i63 = 0; i63 < n; i63++) {
// CHECK: mpiad_push_f64(s);
// CHECK: /* reverse sweep */
// CHECK: s = mpiad_pop_f64();
