// make with -MMD -MP: the dependency file is the one the user asked for
// (obj/f.d beside obj/f.o), naming the object, the user's source and the
// headers it includes (not mpiad-cc's temporary file), with -MP's phony
// targets. Touching the header makes make rebuild; then all is up to date.
// UNSUPPORTED: sanitize
//
// RUN: rm -rf %t.dir && cp -r %S/Inputs/make-project %t.dir
// RUN: cd %t.dir && make CC=%mpiad-cc > %t.build1.log
// RUN: %mpirun 1 %t.dir/app | FileCheck %s
// RUN: FileCheck %s --check-prefix=DEP --input-file %t.dir/obj/f.d --implicit-check-not=mpiad
// RUN: cd %t.dir && make -q CC=%mpiad-cc
// Everything made 100 s ago, then the header edited now:
// RUN: python3 -c "import os, sys, time; t = time.time() - 100; [os.utime(os.path.join(d, f), (t, t)) for d, _, fs in os.walk(sys.argv[1]) for f in fs]; os.utime(os.path.join(sys.argv[1], 'k.h'))" %t.dir
// RUN: cd %t.dir && not make -q CC=%mpiad-cc
// RUN: cd %t.dir && make CC=%mpiad-cc | FileCheck %s --check-prefix=REBUILD
// RUN: cd %t.dir && make -q CC=%mpiad-cc
// Other spellings: -MD with -MF, -MT and -MQ ($ quoted for make), and -M.
// RUN: cd %t.dir && %mpiad-cc -MD -MF %t.dir/x.d -MT 'x$y' -c f.c -o %t.dir/x.o
// RUN: FileCheck %s --check-prefix=MT --input-file %t.dir/x.d
// RUN: cd %t.dir && %mpiad-cc -MMD -MQ 'x$y' -c f.c -o %t.dir/q.o
// RUN: FileCheck %s --check-prefix=MQ --input-file %t.dir/q.d
// RUN: cd %t.dir && %mpiad-cc -MM f.c | FileCheck %s --check-prefix=MM

// CHECK: df/dx = 12
// DEP: {{^}}obj/f.o: f.c k.h{{$}}
// DEP: {{^}}k.h:{{$}}
// REBUILD: -c f.c -o obj/f.o
// MT: {{^}}x$y: f.c k.h
// MQ: {{^}}x$$y: f.c k.h{{$}}
// MM: {{^}}f.o: f.c k.h{{$}}
