// --help prints the usage and the modes, and exits 0.
//
// RUN: %mpiad-cc --help | FileCheck %s
// No input is not a silent success.
// RUN: not %mpiad-cc 2>&1 | FileCheck %s --check-prefix=NOINPUT

// CHECK: {{^}}usage: mpiad-cc [options] file.c ...
// CHECK: {{^}}  -c {{.*}}differentiate and compile each file: -o file.o
// CHECK: {{^}}  -S {{.*}}assembly
// CHECK: {{^}}  -E {{.*}}preprocessed
// CHECK: {{^}}  -fsyntax-only
// CHECK: {{^}}  -M, -MM
// CHECK: {{^}}  --emit-source {{.*}}write the generated C
// CHECK: {{^}}  --emit-header {{.*}}write prototypes of the generated functions
// CHECK: {{^}}  --showme
// CHECK: {{^}}  -o FILE {{.*}}output file
// CHECK: {{^}}  --rules FILE|DIR
// CHECK: {{^}}  -p DIR {{.*}}compile_commands.json
// CHECK: -MD -MMD -MF -MT -MQ -MP
// CHECK: -Wno-mpiad-NAME
// CHECK: -save-temps
// CHECK: -v, -###
// CHECK: @FILE
// CHECK: MPIAD_CC

// NOINPUT: mpiad-cc: error: no input files (try --help)
