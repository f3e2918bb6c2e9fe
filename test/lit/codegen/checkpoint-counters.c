// Counters of the loops inside a checkpointed step, declared at function
// scope and reused (`int i, j;`), are set by their loops before every read:
// they carry nothing from step to step and are not in the snapshot (they
// made it larger than the state, found by the metamorphic tester's
// counter-hoist rewrite of exec/checkpoint_heat.c).  A counter read after
// its loop stays in the snapshot.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s
// CHECK-LABEL: double heat_b(
// CHECK-NOT: mpiad_ckpt_save(mpiad_ck, &i,
// CHECK-NOT: mpiad_ckpt_save(mpiad_ck, &j,
// CHECK: mpiad_ckpt_save(mpiad_ck, u,
// CHECK-LABEL: double kept_b(
// CHECK: mpiad_ckpt_save(mpiad_ck, &i, sizeof(i));

#define N 16

#pragma mpiad differentiate wrt(u0) varying(u0)
double heat(const double *u0, int steps) {
  double u[N], v[N], s = 0.0;
  int i, j;
  for (i = 0; i < N; i++)
    u[i] = u0[i];
#pragma mpiad checkpoint(snapshots=2)
  for (int t = 0; t < steps; t++) {
    for (i = 1; i < N - 1; i++)
      v[i] = u[i] + 0.1 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    for (j = 1; j < N - 1; j++)
      u[j] = v[j];
  }
  for (i = 0; i < N; i++)
    s += u[i] * u[i];
  return s;
}

#pragma mpiad differentiate wrt(u0) varying(u0)
double kept(const double *u0, int steps) {
  double u[N], s = 0.0;
  int i;
  for (i = 0; i < N; i++)
    u[i] = u0[i];
#pragma mpiad checkpoint(snapshots=2)
  for (int t = 0; t < steps; t++) {
    for (i = 1; i < N - 1; i++)
      u[i] = u[i] * 0.9 + 0.05 * u[i - 1];
  }
  s = u[i - 1] * u[0]; /* i read after its loop: N - 1 */
  return s;
}
