// SIGTERM, SIGINT or SIGHUP while `mpiad-cc -c` waits for the C compiler:
// the generated temporary (mpiad-XXXX.c in $TMPDIR) is removed, and the driver
// then dies of the signal (default action), not with an ordinary exit status.
// No output or half-written temporary is left beside -o either.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir/out
// RUN: python3 %S/Inputs/signal-during-compile.py SIGTERM %t.dir/term %mpiad-cc -c %S/Inputs/ok.c -o %t.dir/out/ok.o | FileCheck %s --check-prefixes=CHECK,TERM
// RUN: python3 %S/Inputs/signal-during-compile.py SIGINT %t.dir/int %mpiad-cc -c %S/Inputs/ok.c -o %t.dir/out/ok.o | FileCheck %s --check-prefixes=CHECK,INT
// RUN: python3 %S/Inputs/signal-during-compile.py SIGHUP %t.dir/hup %mpiad-cc %S/Inputs/ok.c -o %t.dir/out/app | FileCheck %s --check-prefixes=CHECK,HUP
// RUN: ls -A %t.dir/out | count 0

// CHECK: during: mpiad-{{.*}}.c
// TERM: status: killed by SIGTERM
// INT: status: killed by SIGINT
// HUP: status: killed by SIGHUP
// CHECK-NOT: left:
// CHECK: done
