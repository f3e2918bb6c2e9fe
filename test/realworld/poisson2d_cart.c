/* Corpus program: Jacobi sweeps for the Poisson equation on a 2-D
 * decomposition, in the shape of the 2-D solver of "Using MPI" (Gropp, Lusk
 * and Skjellum, chapter 4: twod.f's exchng2 / sweep2d / diff2d, MPE_Decomp1d,
 * MPI_Cart_create and MPI_Cart_shift, a strided row type made with
 * MPI_Type_vector) as C course assignments write it, for instance
 * `jacobi.c` with `void exchang2d_1(double x[][maxn], int nx, int row_s,
 * int row_e, int col_s, int col_e, MPI_Comm comm, int nbrleft, int
 * nbrright, int nbrup, int nbrdown, MPI_Datatype row_type)` and `#define
 * maxn 31 + 2` in several public repositories.  Whole-grid arrays `double
 * a[maxn][maxn]` of which each rank uses its block in global indices,
 * helpers taking `double x[][maxn]`, four MPI_Sendrecv per exchange (two of
 * contiguous columns, two of one element of the row type), MPI_PROC_NULL
 * neighbours at the domain's edge, a squared-difference test with
 * MPI_Allreduce that ends the loop early.  Written for mpiad in that
 * program's shape (its idioms, not its text).
 * The mpiad edits: the iteration loop of main is the function
 * poisson_solve, with the pragma before it (b a scratch array of maxn rows,
 * a the output).  The objective is a weighted sum of the final grid (the
 * seeds of a_b); its gradient is taken with respect to the initial grid
 * (ghosts included: at the domain's edge they are the boundary values) and
 * the right-hand side f.
 *
 * RUN: %mpiad-cc -c -Wall -Wextra -Werror -Wno-mpiad-restored-output -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/poisson2d_cart_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define maxn 31 + 2

/* The block [s, e] of 1..n that rank `rank` of `size` owns. */
int MPE_Decomp1d(int n, int size, int rank, int *s, int *e) {
  int nlocal, deficit;
  nlocal = n / size;
  *s = rank * nlocal + 1;
  deficit = n % size;
  *s = *s + ((rank < deficit) ? rank : deficit);
  if (rank < deficit)
    nlocal++;
  *e = *s + nlocal - 1;
  if (*e > n || rank == size - 1)
    *e = n;
  return MPI_SUCCESS;
}

/* Ghost exchange: columns of x (x[i][.]) are contiguous, rows (x[.][j])
 * are strided and go as one element of row_type. */
void exchang2d_1(double x[][maxn], int nx, int row_s, int row_e, int col_s,
                 int col_e, MPI_Comm comm, int nbrleft, int nbrright,
                 int nbrup, int nbrdown, MPI_Datatype row_type) {
  int lny = row_e - row_s + 1;
  (void)nx;
  MPI_Sendrecv(&x[col_e][row_s], lny, MPI_DOUBLE, nbrright, 0,
               &x[col_s - 1][row_s], lny, MPI_DOUBLE, nbrleft, 0, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&x[col_s][row_s], lny, MPI_DOUBLE, nbrleft, 1,
               &x[col_e + 1][row_s], lny, MPI_DOUBLE, nbrright, 1, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&x[col_s][row_e], 1, row_type, nbrup, 2,
               &x[col_s][row_s - 1], 1, row_type, nbrdown, 2, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&x[col_s][row_s], 1, row_type, nbrdown, 3,
               &x[col_s][row_e + 1], 1, row_type, nbrup, 3, comm,
               MPI_STATUS_IGNORE);
}

/* One Jacobi sweep for -lap u = f with spacing h = 1 / (nx + 1). */
void sweep2d(double a[][maxn], double f[][maxn], int nx, int row_s,
             int row_e, int col_s, int col_e, double b[][maxn]) {
  double h = 1.0 / ((double)(nx + 1));
  for (int i = col_s; i <= col_e; i++)
    for (int j = row_s; j <= row_e; j++)
      b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j + 1] +
                        a[i][j - 1] - h * h * f[i][j]);
}

double griddiff2d(double a[][maxn], double b[][maxn], int nx, int row_s,
                  int row_e, int col_s, int col_e) {
  double sum = 0.0;
  double tmp;
  (void)nx;
  for (int i = col_s; i <= col_e; i++)
    for (int j = row_s; j <= row_e; j++) {
      tmp = (a[i][j] - b[i][j]);
      sum = sum + tmp * tmp;
    }
  return sum;
}

/* The Jacobi iterations of main, until the squared change is below 1e-10
 * or maxit double sweeps; the number of iterations made. */
#pragma mpiad differentiate wrt(a, f) varying(a, b, f, row_s, row_e, col_s, col_e, nbrleft, nbrright, nbrup, nbrdown) replicated(nx, maxit) output(a) scratch(b[maxn])
int poisson_solve(double a[][maxn], double b[][maxn], double f[][maxn],
                  int nx, int row_s, int row_e, int col_s, int col_e,
                  MPI_Comm comm2d, int nbrleft, int nbrright, int nbrup,
                  int nbrdown, MPI_Datatype row_type, int maxit) {
  double ldiff, gdiff;
  int it;
  for (it = 1; it <= maxit; it++) {
    exchang2d_1(a, nx, row_s, row_e, col_s, col_e, comm2d, nbrleft,
                nbrright, nbrup, nbrdown, row_type);
    sweep2d(a, f, nx, row_s, row_e, col_s, col_e, b);
    exchang2d_1(b, nx, row_s, row_e, col_s, col_e, comm2d, nbrleft,
                nbrright, nbrup, nbrdown, row_type);
    sweep2d(b, f, nx, row_s, row_e, col_s, col_e, a);
    ldiff = griddiff2d(a, b, nx, row_s, row_e, col_s, col_e);
    MPI_Allreduce(&ldiff, &gdiff, 1, MPI_DOUBLE, MPI_SUM, comm2d);
    if (gdiff < 1.0e-10)
      break;
  }
  return it;
}

int main(int argc, char **argv) {
  double a[maxn][maxn], b[maxn][maxn], f[maxn][maxn];
  int nx, myid, numprocs, it;
  int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
  int row_s, row_e, col_s, col_e;
  int nbrleft, nbrright, nbrup, nbrdown;
  MPI_Comm comm2d;
  MPI_Datatype row_type;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &myid);
  MPI_Comm_size(MPI_COMM_WORLD, &numprocs);
  if (myid == 0)
    nx = argc > 1 ? atoi(argv[1]) : 31;
  MPI_Bcast(&nx, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (nx < 1 || nx > maxn - 2) {
    if (myid == 0)
      fprintf(stderr, "nx must be in 1..%d\n", maxn - 2);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  MPI_Dims_create(numprocs, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &comm2d);
  MPI_Comm_rank(comm2d, &myid);
  MPI_Cart_coords(comm2d, myid, 2, coords);
  MPI_Cart_shift(comm2d, 0, 1, &nbrleft, &nbrright);
  MPI_Cart_shift(comm2d, 1, 1, &nbrdown, &nbrup);
  MPE_Decomp1d(nx, dims[0], coords[0], &col_s, &col_e);
  MPE_Decomp1d(nx, dims[1], coords[1], &row_s, &row_e);
  MPI_Type_vector(col_e - col_s + 1, 1, maxn, MPI_DOUBLE, &row_type);
  MPI_Type_commit(&row_type);

  /* u = 0 inside, u = 1 on the edge y = 1, f = 0 */
  for (int i = col_s - 1; i <= col_e + 1; i++)
    for (int j = row_s - 1; j <= row_e + 1; j++) {
      a[i][j] = (j == nx + 1) ? 1.0 : 0.0;
      b[i][j] = a[i][j];
      f[i][j] = 0.0;
    }

  double t1 = MPI_Wtime();
  it = poisson_solve(a, b, f, nx, row_s, row_e, col_s, col_e, comm2d, nbrleft,
                     nbrright, nbrup, nbrdown, row_type, 100);
  double t2 = MPI_Wtime();
  if (myid == 0)
    printf("%d iterations in %f s\n", it, t2 - t1);

  MPI_Type_free(&row_type);
  MPI_Comm_free(&comm2d);
  MPI_Finalize();
  return 0;
}
