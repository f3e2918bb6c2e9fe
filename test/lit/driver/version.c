// --version names the tool, its version and the Clang it is built on.
//
// RUN: %mpiad-cc --version | FileCheck %s

// CHECK: {{^}}mpiad-cc {{[0-9]+\.[0-9]+\.[0-9]+}} ({{.*}}Clang {{[0-9]+}}
