// Link mode: two .c files on one command line. This file holds the marked
// function; Inputs/link-main.c calls its adjoint through the header written by
// --emit-header. The driver differentiates, compiles and links both (with
// libmpiad and MPI).
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %mpiad-cc --emit-header %s -o %t.dir/sq_ad.h
// RUN: FileCheck --check-prefix=HDR --input-file %t.dir/sq_ad.h %s
// RUN: %mpiad-cc -I%t.dir %s %S/Inputs/link-main.c -o %t.dir/app
// RUN: %t.dir/app | FileCheck %s

// HDR: double sq_b(double x, double *x_b, double sq_bar);
// y = x^2 + x at x = 3: 12, dy/dx = 2x + 1 = 7.
// CHECK: y = 12, dy/dx = 7

#pragma mpiad differentiate wrt(x)
double sq(double x) { return x * x + x; }
