/*
 * stencils.h - the multi-dimensional stencil kernels of the stencil
 * benchmark (bench/stencil_bench.c): their primals (bench/stencils.c, each
 * marked for mpiad-cc), the adjoints mpiad-cc generates from them (the
 * `_b` functions), and the adjoints written by hand
 * (bench/handwritten_stencils.c, the `_hand_b` functions, same signatures
 * and semantics as the generated ones).
 *
 *   halo2d        the 2-D heat solver of samples/halo2d: non-blocking halo
 *                 exchange (Irecv/Isend/Waitall) over a 2-D process grid,
 *                 differentiated with respect to the diffusivity kappa;
 *   stencil_norm  the PRK-style star stencil of radius 2 of
 *                 test/realworld/stencil2d_star.c (index macros, Irecv/Isend/
 *                 Wait, a nonlinear touch of the field each iteration),
 *                 differentiated with respect to the field `in`;
 *   heat3d        explicit 3-D heat steps (7-point stencil) on slabs of a
 *                 1-D decomposition in z, MPI_Sendrecv of ghost planes, a
 *                 copy-back `u = un`, differentiated with respect to the
 *                 initial field.
 */
#ifndef MPIAD_BENCH_STENCILS_H
#define MPIAD_BENCH_STENCILS_H

#include <mpi.h>
#include <stddef.h>

/* Bytes of memory a hand-written adjoint kept for its reverse sweep during its
 * last call (trajectories and saved fields, not the adjoint fields nor the
 * halo buffers): the "state" that the generated adjoint's tape is compared
 * with. */
extern size_t stencil_hand_state_bytes;

double halo2d(const double *kappa, const double *u0, const double *uobs,
              int nx, int ny, int nsteps, double r, int north, int south,
              int west, int east, MPI_Comm comm);
double halo2d_b(const double *kappa, double *kappa_b, const double *u0,
                const double *uobs, int nx, int ny, int nsteps, double r,
                int north, int south, int west, int east, MPI_Comm comm,
                double J_bar);
double halo2d_hand_b(const double *kappa, double *kappa_b, const double *u0,
                     const double *uobs, int nx, int ny, int nsteps, double r,
                     int north, int south, int west, int east, MPI_Comm comm,
                     double J_bar);

double stencil_norm(double *in, double *out, int n, int iterations,
                    int istart, int iend, int jstart, int jend, int my_IDx,
                    int my_IDy, int Num_procsx, int Num_procsy,
                    MPI_Comm comm);
double stencil_norm_b(double *in, double *in_b, double *out, int n,
                      int iterations, int istart, int iend, int jstart,
                      int jend, int my_IDx, int my_IDy, int Num_procsx,
                      int Num_procsy, MPI_Comm comm, double norm_bar);
double stencil_norm_hand_b(double *in, double *in_b, double *out, int n,
                           int iterations, int istart, int iend, int jstart,
                           int jend, int my_IDx, int my_IDy, int Num_procsx,
                           int Num_procsy, MPI_Comm comm, double norm_bar);

double heat3d(const double *u0, int nx, int ny, int nz, int T, double nu,
              int down, int up, MPI_Comm comm);
double heat3d_b(const double *u0, double *u0_b, int nx, int ny, int nz, int T,
                double nu, int down, int up, MPI_Comm comm, double J_bar);
double heat3d_hand_b(const double *u0, double *u0_b, int nx, int ny, int nz,
                     int T, double nu, int down, int up, MPI_Comm comm,
                     double J_bar);

#endif /* MPIAD_BENCH_STENCILS_H */
