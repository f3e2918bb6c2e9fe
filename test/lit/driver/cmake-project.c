// CMake with CC=mpiad-cc: the compiler checks pass, Ninja builds an
// executable whose sumsq.c holds a marked function, and it runs (1 rank):
// f = sum x_i^2, gradient 2 x. The dependency files that CMake asks for
// (-MD -MT -MF) name the user's sources and headers, so touching a header
// rebuilds what includes it.
// UNSUPPORTED: sanitize
//
// RUN: rm -rf %t.dir %t.src && cp -r %S/Inputs/cmake-project %t.src
// RUN: env CC=%mpiad-cc cmake -S %t.src -B %t.dir -G Ninja > %t.configure.log
// RUN: cmake --build %t.dir
// RUN: %mpirun 1 %t.dir/sumsq | FileCheck %s
// RUN: ninja -C %t.dir -t deps | FileCheck %s --check-prefix=DEPS --implicit-check-not=mpiad-
// RUN: ninja -C %t.dir -n | FileCheck %s --check-prefix=UPTODATE
// RUN: python3 -c "import os, sys, time; t = time.time() + 100; os.utime(sys.argv[1], (t, t))" %t.src/sumsq.h
// RUN: ninja -C %t.dir -n | FileCheck %s --check-prefix=REBUILD

// CHECK: f = 6.3125, grad = 3 -4 0.5: OK
// DEPS: CMakeFiles/sumsq.dir/sumsq.c.o: #deps
// DEPS-NEXT: {{.*}}.src/sumsq.c
// DEPS-NEXT: {{.*}}.src/sumsq.h
// UPTODATE: ninja: no work to do.
// REBUILD-DAG: main.c.o
// REBUILD-DAG: sumsq.c.o
