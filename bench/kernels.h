/*
 * kernels.h - prototypes of the benchmarked functions (kernels.c), of the
 * adjoints mpiad-cc generates from them (the contract of DESIGN.md section 1:
 * each wrt pointer is followed by its shadow, a wrt scalar s by double *s_b,
 * the seed comes last, the primal value is returned, shadows accumulate), and
 * of the hand-written adjoints (handwritten.c), which have the same signatures.
 */
#ifndef BENCH_KERNELS_H
#define BENCH_KERNELS_H

#include <mpi.h>

double dot(const double *x, const double *y, int n, MPI_Comm comm);
double dot_b(const double *x, double *x_b, const double *y, double *y_b, int n,
             MPI_Comm comm, double dot_bar);
double dot_hand_b(const double *x, double *x_b, const double *y, double *y_b,
                  int n, MPI_Comm comm, double dot_bar);

double diffusion(const double *u0, int n, int T, double nu, MPI_Comm comm);
double diffusion_b(const double *u0, double *u0_b, int n, int T, double nu,
                   MPI_Comm comm, double diffusion_bar);
double diffusion_hand_b(const double *u0, double *u0_b, int n, int T, double nu,
                        MPI_Comm comm, double diffusion_bar);

double loss(const double *w, double b, const double *X, const double *y, int n,
            int d, double lambda, MPI_Comm comm);
double loss_b(const double *w, double *w_b, double b, double *b_b,
              const double *X, const double *y, int n, int d, double lambda,
              MPI_Comm comm, double loss_bar);
double loss_hand_b(const double *w, double *w_b, double b, double *b_b,
                   const double *X, const double *y, int n, int d,
                   double lambda, MPI_Comm comm, double loss_bar);

#endif /* BENCH_KERNELS_H */
