// A failed run leaves no partial output: an existing output file keeps its old
// contents, and no new file is created, in every mode (emit source, emit header,
// compile, link).
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: echo keep > %t.dir/out.c
// RUN: echo keep > %t.dir/out.h
// RUN: echo keep > %t.dir/out.o
// RUN: echo keep > %t.dir/app
// RUN: not %mpiad-emit %s -o %t.dir/out.c 2>&1 | FileCheck %s
// RUN: not %mpiad-cc --emit-header %s -o %t.dir/out.h 2>&1 | FileCheck %s
// RUN: not %mpiad-cc -c %s -o %t.dir/out.o 2>&1 | FileCheck %s
// RUN: not %mpiad-cc %s -o %t.dir/app 2>&1 | FileCheck %s
// RUN: FileCheck --check-prefix=KEEP --input-file %t.dir/out.c %s
// RUN: FileCheck --check-prefix=KEEP --input-file %t.dir/out.h %s
// RUN: FileCheck --check-prefix=KEEP --input-file %t.dir/out.o %s
// RUN: FileCheck --check-prefix=KEEP --input-file %t.dir/app %s
// RUN: not %mpiad-emit %s -o %t.dir/new.c
// RUN: not %mpiad-cc --emit-header %s -o %t.dir/new.h
// RUN: not %mpiad-cc -c %s -o %t.dir/new.o
// RUN: not %mpiad-cc %s -o %t.dir/newapp
// RUN: not test -e %t.dir/new.c
// RUN: not test -e %t.dir/new.h
// RUN: not test -e %t.dir/new.o
// RUN: not test -e %t.dir/newapp
// Differentiation succeeds but the C compiler fails (an unknown flag): still
// nothing is written.
// RUN: not %mpiad-cc -c -fno-such-flag %S/Inputs/ok.c -o %t.dir/out.o 2>&1 | FileCheck %s --check-prefix=CC
// RUN: not %mpiad-cc -c -fno-such-flag %S/Inputs/ok.c -o %t.dir/new.o
// RUN: FileCheck --check-prefix=KEEP --input-file %t.dir/out.o %s
// RUN: not test -e %t.dir/new.o

// CHECK: {{.*}}atomic-output.c:[[@LINE+8]]:3: error: goto and labels cannot be differentiated
// KEEP: {{^keep$}}
// CC: error: {{.*}}no-such-flag

#pragma mpiad differentiate wrt(x)
double f(double x, int k) {
  if (k)
    x = 2 * x;
  goto done;
done:
  return x * x;
}
