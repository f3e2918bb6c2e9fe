// A straight-line function of 20,000 statements that all overwrite s: each
// pushes the old value of s (its reverse reads it) and pops it in the
// reverse sweep.  Checks the output in both modes; the time limit only
// catches a hang (the tool's speed is measured by bench/tool_scaling.sh, not
// here: a loaded machine must not fail the suite).
//
// RUN: python3 %S/../Inputs/gen_straight_line.py 20000 reverse > %t.rev.c
// RUN: timeout 280 %mpiad-emit %t.rev.c -o %t.rev.ad.c
// RUN: grep -c 'mpiad_push_f64(s);' %t.rev.ad.c | FileCheck %s --check-prefix=COUNT
// RUN: grep -c 's = mpiad_pop_f64();' %t.rev.ad.c | FileCheck %s --check-prefix=COUNT
// COUNT: {{^}}20000{{$}}
// RUN: FileCheck %s --check-prefix=REV --input-file %t.rev.ad.c
// REV: {{^}}double f_b(double x, double *x_b, double f_bar) {
// REV: mpiad_push_f64(s);
// REV-NEXT: s = s * x + 0.25;
// REV: /* reverse sweep */
//
// RUN: python3 %S/../Inputs/gen_straight_line.py 20000 forward > %t.fwd.c
// RUN: timeout 280 %mpiad-emit %t.fwd.c -o - | FileCheck %s --check-prefix=FWD
// FWD: {{^}}double f_d(double x, double x_d, double *f_dot) {
// FWD: s_d = s_d * 0.5 + x_d * 6.0;
