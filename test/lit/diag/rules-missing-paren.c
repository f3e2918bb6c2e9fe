// A math rule with an unclosed parameter list: the error should point at the
// token where ')' was expected ('dx', column 15), not at the rule's name.
// XFAIL: *
// Known tool bug (reported to the lead): reported at 2:6 (the name 'twice').
// Remove the XFAIL line when it is fixed.
//
// RUN: not %mpiad-emit --rules %S/Inputs/bad-paren.rules %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:

// CHECK: {{.*}}bad-paren.rules:2:15: error: expected ')'

#pragma mpiad differentiate wrt(x)
double f(double x) { return x * x; }
