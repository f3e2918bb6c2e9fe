// The compiler modes of mpiad-cc, as mpicc/clang have them: -E, -S, -c -o -,
// -fsyntax-only, -### and -v, -x c, -iquote, -idirafter, @FILE, --,
// -save-temps, and unknown flags with --emit-source.
//
// RUN: rm -rf %t.dir && mkdir -p %t.dir/out && cp %s %t.dir/m.c
// -E: the preprocessed code that is compiled (the adjoint included), to stdout
// or -o, with line markers naming the user's file.
// RUN: cd %t.dir && %mpiad-cc -E -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c | FileCheck %s --check-prefix=PRE
// RUN: cd %t.dir && %mpiad-cc -E -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o out/m.i && FileCheck %s --check-prefix=PRE --input-file out/m.i
// PRE: # {{[0-9]+}} "m.c"
// PRE: double f_b(double x, double *x_b, double f_bar) {
// PRE: mpiad_ret = 3.0 * 5.0 * x * x;
//
// -S: assembly, to -o or m.s.
// RUN: cd %t.dir && %mpiad-cc -S -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c && FileCheck %s --check-prefix=ASM --input-file m.s
// RUN: cd %t.dir && %mpiad-cc -S -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o - | FileCheck %s --check-prefix=ASM
// ASM: f_b:
//
// -c -o -: the object to stdout.
// RUN: cd %t.dir && %mpiad-cc -c -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o - > out/stdout.o
// RUN: llvm-nm %t.dir/out/stdout.o | FileCheck %s --check-prefix=NM
// NM: T f_b
//
// -o /dev/null writes to the device; it is never replaced by a file.
// RUN: cd %t.dir && %mpiad-cc -c -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o /dev/null
// RUN: cd %t.dir && %mpiad-cc -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -c -o /dev/null -E
// RUN: cd %t.dir && %mpiad-emit -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o /dev/null
// RUN: cd %t.dir && %mpiad-cc --emit-header -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o /dev/null
// RUN: test -c /dev/null
//
// -fsyntax-only: differentiates and checks; writes nothing, fails on errors.
// RUN: cd %t.dir && rm -f m.o && %mpiad-cc -fsyntax-only -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c 2>&1 | count 0
// RUN: cd %t.dir && not test -e m.o
// RUN: cd %t.dir && not %mpiad-cc -fsyntax-only -DBROKEN -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c 2>&1 | FileCheck %s --check-prefix=BROKEN
//
// -### prints the commands and runs none; -v prints them and runs them.
// RUN: cd %t.dir && %mpiad-cc -### -c -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o out/hash.o 2>&1 | FileCheck %s --check-prefix=HASH
// RUN: not test -e %t.dir/out/hash.o
// RUN: cd %t.dir && %mpiad-cc -v -c -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o out/v.o 2>&1 | FileCheck %s --check-prefix=HASH
// RUN: test -s %t.dir/out/v.o
// HASH: mpiad-cc version
// HASH: mpiad-cc: differentiated 'm.c' into '{{.*}}mpiad-{{.*}}.c'
// HASH: "-c" "{{.*}}mpiad-{{.*}}.c" "-o" "out/{{.*}}.o{{.*}}"
// --sysroot and -isysroot reach the compiler (and the parser: / changes nothing).
// RUN: cd %t.dir && %mpiad-cc -### -c --sysroot / -isysroot / -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c 2>&1 | FileCheck %s --check-prefix=SYSROOT
// SYSROOT: "--sysroot" "/" "-isysroot" "/"
//
// Queries of the compiler go to it (libtool and configure ask them).
// RUN: %mpiad-cc -dumpmachine | FileCheck %s --check-prefix=DUMP
// RUN: %mpiad-cc -print-prog-name=ld | FileCheck %s --check-prefix=PROG
// DUMP: {{^[a-z0-9_]+-[a-z0-9_-]+$}}
// PROG: ld
//
// -x c: any name is C; @FILE reads arguments (GNU quoting); -- ends options.
// RUN: cd %t.dir && cp m.c m.txt && %mpiad-cc -x c -c -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.txt -o out/x.o && llvm-nm out/x.o | FileCheck %s --check-prefix=NM
// RUN: cd %t.dir && echo '-c -iquote %S/Inputs/quoted "-idirafter" %S/Inputs/after -o out/rsp.o' > args.rsp && %mpiad-cc @args.rsp m.c && llvm-nm out/rsp.o | FileCheck %s --check-prefix=NM
// RUN: cd %t.dir && %mpiad-cc -c -iquote %S/Inputs/quoted -idirafter %S/Inputs/after -o out/dd.o -- m.c && llvm-nm out/dd.o | FileCheck %s --check-prefix=NM
//
// -save-temps keeps the generated file beside the output, named after the input.
// RUN: cd %t.dir && %mpiad-cc -save-temps -c -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o out/st.o
// RUN: FileCheck %s --check-prefix=TEMPS --input-file %t.dir/out/m.ad.c
// TEMPS: #line 1 "m.c"
// TEMPS: #line {{[0-9]+}} "out/m.ad.c"
// TEMPS: double f_b(
//
// --emit-source passes compiler flags to the parser, and rejects those clang
// does not know.
// RUN: cd %t.dir && %mpiad-emit -O2 -g -fPIC -iquote %S/Inputs/quoted -idirafter %S/Inputs/after m.c -o out/e.c
// RUN: cd %t.dir && not %mpiad-emit -fno-such-flag -iquote %S/Inputs/quoted m.c -o out/u.c 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not test -e %t.dir/out/u.c
// UNKNOWN: mpiad-cc: error: unknown argument: '-fno-such-flag'

#include "qscale.h"
#include <ascale.h>

#pragma mpiad differentiate wrt(x)
double f(double x) {
  // BROKEN: {{^}}m.c:[[# @LINE + 2]]:{{[0-9]+}}: error:
#ifdef BROKEN
  return undeclared_variable;
#endif
  return QUOTED_SCALE * AFTER_SCALE * x * x;
}
