//===- main.cpp - mpiad-cc: source-to-source AD for MPI programs in C -----===//
#include "Driver.h"

int main(int argc, const char **argv) { return mpiad::runDriver(argc, argv); }
