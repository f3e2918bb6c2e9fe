// The GPU fitting sample (samples/fitting/gpu) run without a GPU, through
// the emulator of cuda/emulated.c: the generated kernels' loss and gradient
// equal the host evaluation to 1e-12, match a central difference, and
// gradient descent lowers the loss, at 1 to 4 ranks.
// RUN: %mpiad-emit --target=cuda %srcroot/samples/fitting/gpu/loss_gpu.c -o %t.cu
// RUN: sed -E 's/([A-Za-z0-9_]+)<<<([^>]*)>>>\(/mpiad_emu_launch(\2, \1)(/' %t.cu > %t.emu.cpp
// RUN: %mpicc -x c++ -std=c++17 -Wall -Wextra -Wno-unused-function -I%S/../Inputs/cuda_emu -I%include -c %t.emu.cpp -o %t.k.o
// RUN: %mpicc -Wall -Wextra -I%S/../Inputs/cuda_emu -I%include -c %srcroot/samples/fitting/gpu/train_gpu.c -o %t.m.o
// RUN: %mpicc %t.k.o %t.m.o %libmpiad -lm -o %t
// RUN: %mpirun 1 %t 3000 8 30 2.0 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t 1500 8 30 2.0 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t 1000 8 30 2.0 | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t 777 8 30 2.0 | FileCheck %s --implicit-check-not=FAIL
// CHECK: ok: GPU loss and gradient vs host
// CHECK: ok: dL/db adjoint
// CHECK: ok: loss
