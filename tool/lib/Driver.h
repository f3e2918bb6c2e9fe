//===- Driver.h - The mpiad-cc command line: a compiler driver ------------===//
//
// `mpiad-cc` behaves like `mpicc`: it differentiates each C input, then
// compiles (and links) the result through mpicc (or $MPIAD_CC), adding
// libmpiad.  `--emit-source` / `--emit-header` stop after generation.
//
//===----------------------------------------------------------------------===//
#ifndef MPIAD_DRIVER_H
#define MPIAD_DRIVER_H

namespace mpiad {
int runDriver(int argc, const char **argv);
}

#endif
