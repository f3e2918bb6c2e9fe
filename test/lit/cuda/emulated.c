// The code generated for --target=cuda, run without a GPU: each kernel
// launch `k<<<grid, block>>>(args)` is rewritten by sed into a call of an
// emulator (Inputs/cuda_emu: device memory is host memory, one thread per
// block, blocks one after another, at most three blocks so that grid-stride
// loops take several turns, atomics are additions, communication and the
// adjoint helpers are libmpiad's), and the program of cuda/exec.c checks the
// primal, adjoint and tangent values against formulas evaluated on the host,
// the dot-product test and central differences, at 1 to 4 ranks.  This
// checks the generated code's logic (indices, bounds, reversed loops, block
// reductions, the values computed again instead of recorded, the calls into
// the runtime), not its behaviour on a GPU (races, libmpiad_gpu itself):
// cuda/exec.c does that on a machine with a GPU.
// RUN: %mpiad-emit --target=cuda %S/../Inputs/cuda_kernels.c -o %t.cu
// RUN: sed -E 's/([A-Za-z0-9_]+)<<<([^>]*)>>>\(/mpiad_emu_launch(\2, \1)(/' %t.cu > %t.emu.cpp
// RUN: not grep -q '<<<' %t.emu.cpp
// RUN: not grep -q 'mpiad_gpu_nccl.h' %t.cu
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Wno-unused-function -I%S/../Inputs/cuda_emu -I%include -c %t.emu.cpp -o %t.k.o
// RUN: %mpicc -I%S/../Inputs/cuda_emu -I%include -c %S/../Inputs/cuda_main.c -o %t.m.o
// RUN: %mpicc %t.k.o %t.m.o %libmpiad -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
