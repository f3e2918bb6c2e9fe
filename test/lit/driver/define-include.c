// -D and -I reach the parser: SCALE comes from Inputs/scale.h (found with -I, as
// one argument or two), and -DCUBE selects the code inside the marked function
// that is differentiated. Without -I the header is not found.
//
// RUN: %mpiad-emit -I%S/Inputs -DCUBE %s -o - | FileCheck %s --check-prefix=CUBE
// RUN: %mpiad-emit -I %S/Inputs %s -o - | FileCheck %s --check-prefix=LINEAR
// RUN: %mpiad-emit -I %S/Inputs -DCUBE -UCUBE %s -o - | FileCheck %s --check-prefix=LINEAR
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --check-prefix=NOINC

// CUBE:        {{^}}double f_b(double x, double *x_b, double f_bar) {
// CUBE:        /* forward sweep */
// CUBE-NEXT:   mpiad_ret = SCALE * x * x * x;
// CUBE:        /* reverse sweep */
// CUBE-NOT:    x_b_acc += SCALE * mpiad_ret_b;
// CUBE:        x_b_acc += SCALE * x * x * mpiad_ret_b;

// LINEAR:      {{^}}double f_b(double x, double *x_b, double f_bar) {
// LINEAR:      /* forward sweep */
// LINEAR-NEXT: mpiad_ret = SCALE * x;
// LINEAR:      /* reverse sweep */
// LINEAR-NEXT: mpiad_ret_b = f_bar;
// LINEAR-NEXT: x_b_acc += SCALE * mpiad_ret_b;
// LINEAR-NEXT: mpiad_ret_b = 0;

// NOINC: {{.*}}define-include.c:[[@LINE+1]]:10: fatal error: 'scale.h' file not found
#include "scale.h"

#pragma mpiad differentiate wrt(x)
double f(double x) {
#ifdef CUBE
  return SCALE * x * x * x;
#else
  return SCALE * x;
#endif
}
