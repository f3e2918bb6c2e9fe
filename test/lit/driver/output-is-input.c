// An output that is one of the inputs is refused, as gcc does (clang-19 would
// overwrite it): the same file by device and inode, whatever the spelling.
// The input is left untouched.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir/sub && cp %S/Inputs/ok.c %t.dir/g.c
// RUN: cp %t.dir/g.c %t.dir/orig.c
// RUN: cd %t.dir && not %mpiad-emit g.c -o g.c 2>&1 | FileCheck %s
// RUN: cd %t.dir && not %mpiad-emit g.c -o ./g.c 2>&1 | FileCheck %s
// RUN: cd %t.dir/sub && not %mpiad-emit ../g.c -o %t.dir/g.c 2>&1 | FileCheck %s --check-prefix=UP
// RUN: cd %t.dir && not %mpiad-cc --emit-header g.c -o g.c 2>&1 | FileCheck %s
// RUN: cd %t.dir && not %mpiad-cc -c g.c -o g.c 2>&1 | FileCheck %s
// RUN: cd %t.dir && not %mpiad-cc g.c -o ./g.c 2>&1 | FileCheck %s
// A hard link is the same file too.
// RUN: cd %t.dir && ln g.c h.c && not %mpiad-emit g.c -o h.c 2>&1 | FileCheck %s
// RUN: cmp %t.dir/g.c %t.dir/orig.c
// A different output (or stdout) is fine.
// RUN: cd %t.dir && %mpiad-emit g.c -o out.c && test -s out.c
// RUN: cd %t.dir && %mpiad-emit g.c -o - | FileCheck %s --check-prefix=STDOUT

// CHECK: mpiad-cc: error: input file 'g.c' is the same as output file
// UP: mpiad-cc: error: input file '../g.c' is the same as output file
// STDOUT: mpiad
