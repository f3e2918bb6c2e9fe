#ifndef SUMSQ_H
#define SUMSQ_H
double sumsq(const double *x, int n);
/* The adjoint mpiad-cc generates for sumsq (see --emit-header). */
double sumsq_b(const double *x, double *x_b, int n, double sumsq_bar);
#endif
