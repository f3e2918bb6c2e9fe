/* halo.h - a user's communication wrapper and its hand-written adjoint
 * (halo.c), described to mpiad-cc by halo.rules. */
#ifndef MPIAD_TEST_HALO_H
#define MPIAD_TEST_HALO_H
#include <mpi.h>

/* On a ring: buf[n-1] += (left neighbour's buf[0]). */
void halo_sum(double *buf, int n, MPI_Comm comm);

/* The transpose: buf_b[0] += (right neighbour's buf_b[n-1]); buf_b[n-1] is
 * kept (the identity part of the map). */
void halo_sum_adjoint(double *buf_b, int n, MPI_Comm comm);
#endif
