// switch is lowered to if/else (codegen/switch.c); what is not: a case label
// inside a nested statement (Duff's device), a GNU case range, and a
// statement before the first label.
//
// RUN: rm -f %t.out
// RUN: not %mpiad-emit %s -o %t.out 2>&1 | FileCheck %s --implicit-check-not error:
// RUN: not test -e %t.out

#pragma mpiad differentiate wrt(x)
double duff(double x, int k) {
  switch (k % 2) {
  case 0:
    for (int i = 0; i < 2; i++) {
      x = x * 2.0;
      // CHECK: {{.*}}switch.c:[[@LINE+1]]:5: error: case label inside a nested statement of a switch (as in Duff's device) cannot be differentiated; put every label at the top level of the switch body
    case 1:
      x = x + 1.0;
    }
  }
  return x;
}

#pragma mpiad differentiate wrt(x)
double range(double x, int k) {
  switch (k) {
  // CHECK: {{.*}}switch.c:[[@LINE+1]]:3: error: case ranges (case a ... b) are not supported in a differentiated function; list the values
  case 1 ... 3:
    x = x * x;
    break;
  }
  return x;
}

#pragma mpiad differentiate wrt(x)
double before(double x, int k) {
  switch (k) {
    // CHECK: {{.*}}switch.c:[[@LINE+1]]:5: error: statement before the first case label of a switch (it never runs); remove it
    x = 2.0 * x;
  case 1:
    x = x * x;
  }
  return x;
}
