// A marked function named like a C library function (exp here; fmax, sin ... the
// same). Redefining a reserved name is dubious C, but the tool should say what is
// wrong: today it claims that the pragma is not followed by a function definition.
// XFAIL: *
// Known tool bug (reported to the lead): "error: '#pragma mpiad differentiate'
// must be followed by a function definition" at the pragma.
// Remove the XFAIL line when it is fixed (and pin the exact column and wording).
//
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:

// CHECK-NOT: must be followed by a function definition
// CHECK: error: {{.*}}'exp'{{.*}}library

#pragma mpiad differentiate wrt(x)
double exp(double x) { return x * x; }
