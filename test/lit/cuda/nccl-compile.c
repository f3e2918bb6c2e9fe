// CI has no GPU: the CUDA target's output for Inputs/nccl_kernels.c (NCCL
// calls differentiated by rules/nccl.rules) is compiled by nvcc (through
// mpiad-cc -c) and linked with the host program of the NCCL tests,
// libmpiad_gpu (whose runtime/gpu/nccl.cu has the helpers) and NCCL.
// REQUIRES: nvcc
// RUN: %mpiad-cc --target=cuda -c %S/../Inputs/nccl_kernels.c -o %t.o
// RUN: nm %t.o | FileCheck %s
// RUN: %mpiad-cc --target=cuda %S/../Inputs/nccl_kernels.c %S/../Inputs/nccl_main.c -lm -o %t.exe
// RUN: test -x %t.exe
// RUN: nm %t.exe | FileCheck %s --check-prefix=HELPERS
// CHECK-DAG: T ar_sum
// CHECK-DAG: T ar_sum_b
// CHECK-DAG: T ar_sum_d
// CHECK-DAG: T ar_prod_b
// CHECK-DAG: T ar_max_b
// CHECK-DAG: T bcast_b
// CHECK-DAG: T red_prod_d
// CHECK-DAG: T gather_b
// CHECK-DAG: T scatter_b
// CHECK-DAG: T ar_sum_nc_b
// CHECK-DAG: U mpiad_gpu_nccl_allreduce_rev
// HELPERS-DAG: T mpiad_gpu_nccl_allreduce_fwd
// HELPERS-DAG: T mpiad_gpu_nccl_reducescatter_tan
