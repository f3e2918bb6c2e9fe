// Every rule of rules/math.rules, in reverse and in forward mode, at three
// points of its domain away from singularities, kinks and jumps: the
// reverse gradient and the forward tangent against central differences of
// the C library's function, and the two modes against each other (issue 21,
// part 5: the sign of erfc's derivative could be flipped, and no test called
// erfc, round, trunc or any single-precision function).  The program is
// written by Inputs/gen_math_rules.py from the rules file itself, so a new
// rule is tested as soon as it is added (the script stops on a rule it has
// no domain for).  The functions are rank-independent: 1 and 2 ranks.
// RUN: python3 %S/../Inputs/gen_math_rules.py %srcroot/rules/math.rules > %t.c
// RUN: %mpiad-cc %t.c -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: erfc(0.3, 0): reverse d/dx [rank 0]: {{.*}} PASS
// CHECK: sqrtf(0.3, 0): forward vs reverse [rank 0]: {{.*}} PASS
// CHECK: ALL PASSED
