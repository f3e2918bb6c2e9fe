// The GPU heat sample (samples/heat/gpu) run without a GPU, through the
// emulator of cuda/emulated.c: halo exchange with MPI_Sendrecv on device
// buffers, a time loop on the host launching the stencil kernels, and its
// reverse.  The GPU misfit equals the host evaluation to 1e-12, the adjoint
// matches a central difference, and gradient descent lowers the misfit, at
// 1 to 4 ranks.
// RUN: %mpiad-emit --target=cuda %srcroot/samples/heat/gpu/misfit_gpu.c -o %t.cu
// RUN: sed -E 's/([A-Za-z0-9_]+)<<<([^>]*)>>>\(/mpiad_emu_launch(\2, \1)(/' %t.cu > %t.emu.cpp
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Wno-unused-function -I%S/../Inputs/cuda_emu -I%include -c %t.emu.cpp -o %t.k.o
// RUN: %mpicc -Wall -Wextra -I%S/../Inputs/cuda_emu -I%include -c %srcroot/samples/heat/gpu/heat_gpu.c -o %t.m.o
// RUN: %mpicc %t.k.o %t.m.o %libmpiad -lm -o %t
// RUN: %mpirun 1 %t 97 40 10 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t 61 40 10 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t 33 40 10 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t 25 40 10 | FileCheck %s --implicit-check-not=FAIL
// CHECK: ok: GPU misfit
// CHECK: ok: <dir, u0_b>
// CHECK: ok: misfit
