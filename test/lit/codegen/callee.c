// Functions defined in the same file and called from a marked function are
// differentiated without a pragma: each gets a static forward-sweep helper
// mpiad_fwd_<f> (the primal plus what its reverse needs) and a reverse-sweep helper
// mpiad_rev_<f>, printed before the adjoint. A call nested in an expression is
// hoisted into a temporary first.
//
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

// The primal is unchanged.
// CHECK: {{^}}double callee(const double *x, int n) {
// CHECK-NEXT: {{^}}  double v[4];
// CHECK-NEXT: {{^}}  scale(v, x, 4, 2.0);
// CHECK-NEXT: {{^}}  return sqr(v[0]) + v[3];

// CHECK-LABEL: {{^}}/* mpiad: forward sweep of scale (records what mpiad_rev_scale needs) */
// CHECK-NEXT:  {{^}}static void mpiad_fwd_scale(double *v, const double *x, int n, double a) {
// CHECK:       v[i] = a * x[i];
// CHECK-LABEL: {{^}}/* mpiad: reverse sweep of scale */
// CHECK-NEXT:  {{^}}static void mpiad_rev_scale(double *v, double *v_b, const double *x, double *x_b, int n, double a) {
// CHECK:       for (int i = n - 1; i >= 0; i--) {
// CHECK:         x_b[i] += a * v_b[i];
// CHECK-NEXT:    v_b[i] = 0;

// CHECK-LABEL: {{^}}static double mpiad_fwd_sqr(double a) {
// CHECK-LABEL: {{^}}static void mpiad_rev_sqr(double a, double *a_b, double {{[a-z_]+}}) {
// CHECK:       a_b_acc += mpiad_ret_b * a;
// CHECK-NEXT:  a_b_acc += a * mpiad_ret_b;
// CHECK:       a_b[0] += a_b_acc;

// CHECK-LABEL: {{^}}double callee_b(const double *x, double *x_b, int n, double callee_bar) {
// CHECK:       double v_b[4] = {0};
// CHECK:       /* forward sweep */
// CHECK-NEXT:  mpiad_fwd_scale(v, x, 4, 2.0);
// CHECK-NEXT:  [[A:mpiad_c[0-9]+]] = v[0];
// CHECK-NEXT:  [[C:mpiad_c[0-9]+]] = mpiad_fwd_sqr([[A]]);
// CHECK-NEXT:  mpiad_ret = [[C]] + v[3];
// CHECK:       /* reverse sweep */
// CHECK:       mpiad_rev_sqr([[A]], &[[A]]_b, [[C]]_b);
// CHECK:       v_b[0] += [[A]]_b;
// CHECK:       mpiad_rev_scale(v, v_b, x, x_b, 4, 2.0);
// CHECK-NEXT:  return mpiad_ret;

static double sqr(double a) { return a * a; }

void scale(double *v, const double *x, int n, double a) {
  for (int i = 0; i < n; i++)
    v[i] = a * x[i];
}

#pragma mpiad differentiate wrt(x)
double callee(const double *x, int n) {
  double v[4];
  scale(v, x, 4, 2.0);
  return sqr(v[0]) + v[3];
}
