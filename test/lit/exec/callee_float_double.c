// Same-file callees called across float and double (found by the random
// computation tester, test/random/gen_compute.py, seeds 36 and 71):
//   - forward mode: `float v = h(...)` with h returning double passed &v_d
//     (a float *) to the tangent helper, which wrote a double through it;
//   - reverse mode: a float variable passed to a double parameter passed
//     &t_b (a float *) as the parameter's adjoint pointer.
// Both compiled with a warning only and gave wrong derivatives (or corrupted
// the stack).  At x = (1.5, 0.5) every value is exact in float:
//   v = u = x0 x1 + x0^2 / 2 = 1.875,  t = x0 u = 2.8125,  f = v + u + t = 6.5625
//   df/dx0 = 2 (x1 + x0) + 2 x0 x1 + 1.5 x0^2 = 8.875,  df/dx1 = 2 x0 + x0^2 = 5.25
// RUN: %mpiad-cc %s -Werror=incompatible-pointer-types -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s
// RUN: %mpirun 2 %t | FileCheck %s
// CHECK: f = 6.5625 f_b = 6.5625 f_d = 6.5625
// CHECK: x_b = 8.875 5.25
// CHECK: f_dot(1,0) = 8.875 f_dot(0,1) = 5.25
#include <mpi.h>
#include <stdio.h>

static double h(double a, double b) { return a * b + 0.5 * a * a; }
static float hf(float a, double b) { return a * (float)b; }

#pragma mpiad differentiate forward wrt(x) name(f_d)
#pragma mpiad differentiate reverse wrt(x) varying(x) name(f_b)
double f(const double *x) {
  float t = (float)x[0];
  double u = x[1];
  float v = 2.0f;
  v = h(x[0], x[1]); /* float target, double callee (forward) */
  u = h(t, u);       /* float argument, double parameter (reverse) */
  t = hf(t, u);      /* float callee, float target; double argument */
  return v + u + t;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  double x[2] = {1.5, 0.5}, xb[2] = {0, 0}, e0[2] = {1, 0}, e1[2] = {0, 1};
  double d0 = 0, d1 = 0;
  double v = f(x), vb = f_b(x, xb, 1.0), vd = f_d(x, e0, &d0);
  f_d(x, e1, &d1);
  if (r == 0) {
    printf("f = %g f_b = %g f_d = %g\n", v, vb, vd);
    printf("x_b = %g %g\n", xb[0], xb[1]);
    printf("f_dot(1,0) = %g f_dot(0,1) = %g\n", d0, d1);
  }
  MPI_Finalize();
  return 0;
}
