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
/// The stack the driver runs on (tool/main.cpp).
constexpr unsigned kDriverStackBytes = 1024u << 20; // 1 GiB
int runDriver(int argc, const char **argv);
}

#endif
