// autoconf: ./configure CC=mpiad-cc passes the compiler checks (it works,
// object suffix, -g, the C standard, the preprocessor, mpi.h, -lm) and make
// builds a program whose f.c holds a marked function; it runs (1 rank).
// REQUIRES: autoconf
// UNSUPPORTED: sanitize
//
// RUN: rm -rf %t.dir && cp -r %S/Inputs/autoconf-project %t.dir
// RUN: cp %S/Inputs/make-project/f.c %S/Inputs/make-project/main.c %S/Inputs/make-project/k.h %t.dir/
// RUN: cd %t.dir && autoconf
// RUN: cd %t.dir && ./configure CC=%mpiad-cc > %t.configure.log 2>&1
// RUN: FileCheck %s --check-prefix=CONF --input-file %t.configure.log
// RUN: cd %t.dir && make > %t.make.log
// RUN: %mpirun 1 %t.dir/app | FileCheck %s

// CONF: checking whether the C compiler works... yes
// CONF: checking for suffix of object files... o
// CONF: checking for mpi.h... yes
// CONF: config.status: creating Makefile
// CHECK: df/dx = 12
