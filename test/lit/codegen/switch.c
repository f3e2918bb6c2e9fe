// switch is lowered by the frontend (its execution test is
// exec/switch_lowered.c):
//   - sections that never fall through (each ends with break or return)
//     become an if/else chain on the selector, evaluated once, with default
//     last;
//   - fall-through keeps a flag, set by each section entered (to 0 where the
//     section ends with its break);
//   - a break inside an if puts the sections in a one-trip do/while(0).
// RUN: %mpiad-emit %s -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck %s

#pragma mpiad differentiate forward wrt(x)
double f(double x, int k) {
  switch (k) {
  case 0:
    return x;
  case 1:
  case 2:
    x = x * x;
    break;
  default:
    x = 3.0 * x;
    break;
  }
  return x;
}
// CHECK-LABEL: {{^}}double f_d(
// CHECK:      mpiad_sw1 = k;
// CHECK-NEXT: if (mpiad_sw1 == 0) {
// CHECK-NEXT:   mpiad_ret_d = x_d;
// CHECK-NEXT:   mpiad_ret = x;
// CHECK-NEXT:   mpiad_returned1 = 1;
// CHECK-NEXT: } else if (mpiad_sw1 == 1 || mpiad_sw1 == 2) {
// CHECK-NEXT:   x_d = x_d * x + x * x_d;
// CHECK-NEXT:   x = x * x;
// CHECK-NEXT: } else {
// CHECK-NEXT:   x_d = 3.0 * x_d;
// CHECK-NEXT:   x = 3.0 * x;
// CHECK-NEXT: }

#pragma mpiad differentiate forward wrt(x)
double g(double x, int k) {
  double s = 0.0;
  switch (k + 1) {
  case 1:
    s = x;
  case 2:
    s = s * x;
    break;
  default:
    s = -x;
  }
  return s;
}
// CHECK-LABEL: {{^}}double g_d(
// CHECK:      mpiad_sw1 = k + 1;
// CHECK-NEXT: mpiad_ft2 = 0;
// CHECK-NEXT: if (mpiad_ft2 || mpiad_sw1 == 1) {
// CHECK-NEXT:   mpiad_ft2 = 1;
// CHECK-NEXT:   s_d = x_d;
// CHECK-NEXT:   s = x;
// CHECK-NEXT: }
// CHECK-NEXT: if (mpiad_ft2 || mpiad_sw1 == 2) {
// CHECK-NEXT:   mpiad_ft2 = 0;
// CHECK-NEXT:   s_d = s_d * x + s * x_d;
// CHECK-NEXT:   s = s * x;
// CHECK-NEXT: }
// CHECK-NEXT: if (mpiad_ft2 || !(mpiad_sw1 == 1 || mpiad_sw1 == 2)) {
// CHECK-NEXT:   mpiad_ft2 = 1;

#pragma mpiad differentiate reverse wrt(x) varying(x)
double h(double x, int k) {
  double s = x;
  switch (k) {
  case 3:
    if (x > 0.0)
      break;
    s = s * x;
  default:
    s = s + x;
  }
  return s;
}
// CHECK-LABEL: {{^}}double h_b(
// CHECK:      mpiad_sw1 = k;
// CHECK-NEXT: mpiad_ft2 = 0;
// CHECK-NEXT: mpiad_break1 = 0;
// CHECK-NEXT: mpiad_iter = 0;
// CHECK-NEXT: do {
// CHECK-NEXT:   if (mpiad_ft2 || mpiad_sw1 == 3) {
// CHECK-NEXT:     mpiad_ft2 = 1;
// CHECK-NEXT:     if (x > 0.0) {
// CHECK-NEXT:       mpiad_break1 = 1;
// CHECK-NEXT:     }
// CHECK:      } while (!mpiad_break1 && 0);
