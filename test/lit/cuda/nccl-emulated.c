// The NCCL calls of Inputs/nccl_kernels.c (AllReduce with every operator,
// Broadcast, Reduce, AllGather, ReduceScatter) differentiated by
// rules/nccl.rules for --target=cuda and run without a GPU: the generated
// code and libmpiad_gpu's own NCCL helpers (runtime/gpu/nccl.cu), their
// launches rewritten by sed into calls of the CPU emulator
// (Inputs/cuda_emu: device memory is host memory, NCCL is MPI), at 1 to 4
// ranks.  Inputs/nccl_main.c checks every gradient against central
// differences of the primal, the tangents against the gradients (the
// dot-product test), and the adjoints of MAX/MIN at ties.  This checks the
// rules, the generated calls and the helpers' arithmetic, not the GPU.
// RUN: %mpiad-emit --target=cuda -I%S/../Inputs/cuda_emu %S/../Inputs/nccl_kernels.c -o %t.cu
// RUN: sed -E 's/([A-Za-z0-9_]+)<<<([^>]*)>>>\(/mpiad_emu_launch(\2, \1)(/' %t.cu > %t.emu.cpp
// RUN: sed -E 's/([A-Za-z0-9_]+)<<<([^>]*)>>>\(/mpiad_emu_launch(\2, \1)(/' %srcroot/runtime/gpu/nccl.cu > %t.nccl.cpp
// RUN: not grep -q '<<<' %t.emu.cpp %t.nccl.cpp
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Wno-unused-function -I%S/../Inputs/cuda_emu -I%srcroot/runtime/gpu/include -I%include -c %t.emu.cpp -o %t.k.o
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Wno-unused-function -I%S/../Inputs/cuda_emu -I%srcroot/runtime/gpu/include -I%include -c %t.nccl.cpp -o %t.n.o
// RUN: %mpicc -Wall -Wextra -I%S/../Inputs/cuda_emu -I%include -c %S/../Inputs/nccl_main.c -o %t.m.o
// RUN: %mpicc %t.k.o %t.n.o %t.m.o %libmpiad -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
