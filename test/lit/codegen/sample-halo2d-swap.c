// samples/halo2d as written: the halo exchange in helpers (start_halo(u,
// ...) posts the messages through its pointer parameter, finish_halo(reqs)
// waits through a pointer to the caller's requests), the objective in
// misfit(u, ...) after the time loop.  After inlining, those parameters are
// pointers to u, each assigned before its uses and used before the
// copy-back (or after the loop), so the copy-back of the interior is a swap
// of u and un (BufferSwap.cpp, windowAliases), and the old field, which the
// kappa gradient reads, stays in un's buffer, kept whole on the tape
// (mpiad_push_buffer) instead of copied.  exec/region_swap.c (helpers,
// before) runs the same structure; sample.halo2d runs the sample.
//
// RUN: %mpiad-emit %S/../../../samples/halo2d/halo2d.c -o - | FileCheck %s
// CHECK-LABEL: double halo2d_b(
// CHECK: /* inlined: start_halo(u, nx, ny, col, north, south, west, east, cart, reqs) */
// CHECK: /* inlined: finish_halo(reqs) */
// CHECK: /* copy-back of the region of u from un: the old contents of un there are not read again, so swap the buffers and exchange the elements outside the region */
// CHECK-NOT: mpiad_push_f64_array
// CHECK: double *mpiad_fresh = (double *)mpiad_push_buffer(un, (size_t)(nx + 2) * (size_t)ys * sizeof(double));
// CHECK: un = mpiad_fresh;
// CHECK-NEXT: } else {
// CHECK: /* reverse sweep */
// CHECK: un = (double *)mpiad_pop_buffer(un, (size_t)(nx + 2) * (size_t)ys * sizeof(double));
