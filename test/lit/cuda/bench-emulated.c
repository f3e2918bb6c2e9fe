// The GPU benchmark (bench/gpu) built and run through the CPU emulator of
// cuda/emulated.c at a small size: its value checks pass and it prints its
// table (the emulated timings mean nothing; bench/gpu/run.sh measures on a
// GPU).
// RUN: %mpiad-emit --target=cuda %srcroot/bench/gpu/kernels_gpu.c -o %t.cu
// RUN: sed -E 's/([A-Za-z0-9_]+)<<<([^>]*)>>>\(/mpiad_emu_launch(\2, \1)(/' %t.cu > %t.emu.cpp
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Wno-unused-function -I%S/../Inputs/cuda_emu -I%include -c %t.emu.cpp -o %t.k.o
// RUN: %mpicc -Wall -Wextra -I%S/../Inputs/cuda_emu -I%include -c %srcroot/bench/gpu/bench_gpu.c -o %t.m.o
// RUN: %mpicc %t.k.o %t.m.o %libmpiad -lm -o %t
// RUN: %mpirun 1 %t 1000 2 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t 1000 2 | FileCheck %s --implicit-check-not=FAIL
// CHECK: n = 1000 doubles per rank
// CHECK: stream
// CHECK: sumsq
// CHECK: allreduce of n doubles: mpiad_gpu_allreduce
