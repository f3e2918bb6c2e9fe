/* Corpus program: a D2Q9 lattice Boltzmann BGK solver in the shape of the
 * University of Bristol HPC coursework d2q9-bgk.c and its MPI versions
 * (e.g. DramaCow/d2q9-bgk, mpi/d2q9-bgk.c): the parameters in a struct
 * `t_param` passed BY VALUE to every helper, the nine densities of a cell in
 * a struct `t_speed { double speeds[NSPEEDS]; }` whose only field is an
 * array, a scratch grid `tmp_cells`, the rank's decomposition in a struct of
 * ints `m_info rank_info` (also by value), accelerate_flow / propagate
 * (pull form over halo rows) / rebound / collision / av_velocity helpers,
 * halo rows exchanged with MPI_Sendrecv as MPI_DOUBLE counts, the average
 * velocity reduced with two MPI_Allreduce calls (double and int).
 * Written for mpiad in that program's shape (its idioms, not its text);
 * reading the parameter and obstacle files is left out, main sets them.
 * The only mpiad edit: the pragma before simulate, the time loop of main
 * as a function. Its adjoint returns d(av_vel)/d(accel, omega, density)
 * through `t_param *params_b` and d/d(initial densities) in cells_b.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/d2q9_bgk_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NSPEEDS 9

typedef struct {
  int nx;            /* no. of cells in x-direction */
  int ny;            /* no. of cells in y-direction */
  int maxIters;      /* no. of iterations */
  int reynolds_dim;  /* dimension for Reynolds number */
  double density;    /* density per link */
  double accel;      /* density redistribution */
  double omega;      /* relaxation parameter */
} t_param;

typedef struct {
  double speeds[NSPEEDS];
} t_speed;

typedef struct {
  int rank, size;
  int up, down;      /* neighbouring ranks */
  int local_ny;      /* rows owned by this rank */
  int start_row;     /* global index of the first owned row */
} m_info;

int timestep(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info);
int accelerate_flow(const t_param params, t_speed *cells, int *obstacles, m_info rank_info);
int halo_exchange(const t_param params, t_speed *cells, m_info rank_info);
int propagate(const t_param params, t_speed *cells, t_speed *tmp_cells, m_info rank_info);
int rebound(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info);
int collision(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info);
double av_velocity(const t_param params, t_speed *cells, int *obstacles, m_info rank_info);

int accelerate_flow(const t_param params, t_speed *cells, int *obstacles, m_info rank_info) {
  /* compute weighting factors */
  double w1 = params.density * params.accel / 9.0;
  double w2 = params.density * params.accel / 36.0;
  /* modify the 2nd row of the grid */
  int jj = params.ny - 2 - rank_info.start_row + 1;
  if (jj < 1 || jj > rank_info.local_ny)
    return EXIT_SUCCESS;
  for (int ii = 0; ii < params.nx; ii++) {
    /* if the cell is not occupied and
    ** we don't send a negative density */
    if (!obstacles[ii + jj * params.nx]
        && (cells[ii + jj * params.nx].speeds[3] - w1) > 0.0
        && (cells[ii + jj * params.nx].speeds[6] - w2) > 0.0
        && (cells[ii + jj * params.nx].speeds[7] - w2) > 0.0) {
      /* increase 'east-side' densities */
      cells[ii + jj * params.nx].speeds[1] += w1;
      cells[ii + jj * params.nx].speeds[5] += w2;
      cells[ii + jj * params.nx].speeds[8] += w2;
      /* decrease 'west-side' densities */
      cells[ii + jj * params.nx].speeds[3] -= w1;
      cells[ii + jj * params.nx].speeds[6] -= w2;
      cells[ii + jj * params.nx].speeds[7] -= w2;
    }
  }
  return EXIT_SUCCESS;
}

int halo_exchange(const t_param params, t_speed *cells, m_info rank_info) {
  int count = params.nx * NSPEEDS;
  /* send the top owned row up, receive the bottom halo from below */
  MPI_Sendrecv(cells + rank_info.local_ny * params.nx, count, MPI_DOUBLE, rank_info.up, 0,
               cells, count, MPI_DOUBLE, rank_info.down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* send the bottom owned row down, receive the top halo from above */
  MPI_Sendrecv(cells + params.nx, count, MPI_DOUBLE, rank_info.down, 1,
               cells + (rank_info.local_ny + 1) * params.nx, count, MPI_DOUBLE, rank_info.up, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return EXIT_SUCCESS;
}

int propagate(const t_param params, t_speed *cells, t_speed *tmp_cells, m_info rank_info) {
  /* loop over the owned cells */
  for (int jj = 1; jj <= rank_info.local_ny; jj++) {
    for (int ii = 0; ii < params.nx; ii++) {
      /* determine indices of axis-direction neighbours
      ** respecting periodic boundary conditions (wrap around) */
      int y_n = jj + 1;
      int x_e = (ii + 1) % params.nx;
      int y_s = jj - 1;
      int x_w = (ii == 0) ? (ii + params.nx - 1) : (ii - 1);
      /* propagate densities from neighbouring cells, following
      ** appropriate directions of travel and writing into
      ** scratch space grid */
      tmp_cells[ii + jj * params.nx].speeds[0] = cells[ii + jj * params.nx].speeds[0];   /* central cell, no movement */
      tmp_cells[ii + jj * params.nx].speeds[1] = cells[x_w + jj * params.nx].speeds[1];  /* east */
      tmp_cells[ii + jj * params.nx].speeds[2] = cells[ii + y_s * params.nx].speeds[2];  /* north */
      tmp_cells[ii + jj * params.nx].speeds[3] = cells[x_e + jj * params.nx].speeds[3];  /* west */
      tmp_cells[ii + jj * params.nx].speeds[4] = cells[ii + y_n * params.nx].speeds[4];  /* south */
      tmp_cells[ii + jj * params.nx].speeds[5] = cells[x_w + y_s * params.nx].speeds[5]; /* north-east */
      tmp_cells[ii + jj * params.nx].speeds[6] = cells[x_e + y_s * params.nx].speeds[6]; /* north-west */
      tmp_cells[ii + jj * params.nx].speeds[7] = cells[x_e + y_n * params.nx].speeds[7]; /* south-west */
      tmp_cells[ii + jj * params.nx].speeds[8] = cells[x_w + y_n * params.nx].speeds[8]; /* south-east */
    }
  }
  return EXIT_SUCCESS;
}

int rebound(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info) {
  /* loop over the cells in the grid */
  for (int jj = 1; jj <= rank_info.local_ny; jj++) {
    for (int ii = 0; ii < params.nx; ii++) {
      /* if the cell contains an obstacle */
      if (obstacles[jj * params.nx + ii]) {
        /* called after propagate, so taking values from scratch space
        ** mirroring, and writing into main grid */
        cells[ii + jj * params.nx].speeds[1] = tmp_cells[ii + jj * params.nx].speeds[3];
        cells[ii + jj * params.nx].speeds[2] = tmp_cells[ii + jj * params.nx].speeds[4];
        cells[ii + jj * params.nx].speeds[3] = tmp_cells[ii + jj * params.nx].speeds[1];
        cells[ii + jj * params.nx].speeds[4] = tmp_cells[ii + jj * params.nx].speeds[2];
        cells[ii + jj * params.nx].speeds[5] = tmp_cells[ii + jj * params.nx].speeds[7];
        cells[ii + jj * params.nx].speeds[6] = tmp_cells[ii + jj * params.nx].speeds[8];
        cells[ii + jj * params.nx].speeds[7] = tmp_cells[ii + jj * params.nx].speeds[5];
        cells[ii + jj * params.nx].speeds[8] = tmp_cells[ii + jj * params.nx].speeds[6];
      }
    }
  }
  return EXIT_SUCCESS;
}

int collision(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info) {
  const double c_sq = 1.0 / 3.0; /* square of speed of sound */
  const double w0 = 4.0 / 9.0;   /* weighting factor */
  const double w1 = 1.0 / 9.0;   /* weighting factor */
  const double w2 = 1.0 / 36.0;  /* weighting factor */

  /* loop over the cells in the grid
  ** NB the collision step is called after
  ** the propagate step and so values of interest
  ** are in the scratch-space grid */
  for (int jj = 1; jj <= rank_info.local_ny; jj++) {
    for (int ii = 0; ii < params.nx; ii++) {
      /* don't consider occupied cells */
      if (!obstacles[ii + jj * params.nx]) {
        /* compute local density total */
        double local_density = 0.0;
        for (int kk = 0; kk < NSPEEDS; kk++) {
          local_density += tmp_cells[ii + jj * params.nx].speeds[kk];
        }
        /* compute x velocity component */
        double u_x = (tmp_cells[ii + jj * params.nx].speeds[1]
                      + tmp_cells[ii + jj * params.nx].speeds[5]
                      + tmp_cells[ii + jj * params.nx].speeds[8]
                      - (tmp_cells[ii + jj * params.nx].speeds[3]
                         + tmp_cells[ii + jj * params.nx].speeds[6]
                         + tmp_cells[ii + jj * params.nx].speeds[7]))
                     / local_density;
        /* compute y velocity component */
        double u_y = (tmp_cells[ii + jj * params.nx].speeds[2]
                      + tmp_cells[ii + jj * params.nx].speeds[5]
                      + tmp_cells[ii + jj * params.nx].speeds[6]
                      - (tmp_cells[ii + jj * params.nx].speeds[4]
                         + tmp_cells[ii + jj * params.nx].speeds[7]
                         + tmp_cells[ii + jj * params.nx].speeds[8]))
                     / local_density;
        /* velocity squared */
        double u_sq = u_x * u_x + u_y * u_y;
        /* directional velocity components */
        double u[NSPEEDS];
        u[1] =   u_x;        /* east */
        u[2] =         u_y;  /* north */
        u[3] = - u_x;        /* west */
        u[4] =       - u_y;  /* south */
        u[5] =   u_x + u_y;  /* north-east */
        u[6] = - u_x + u_y;  /* north-west */
        u[7] = - u_x - u_y;  /* south-west */
        u[8] =   u_x - u_y;  /* south-east */
        /* equilibrium densities */
        double d_equ[NSPEEDS];
        /* zero velocity density: weight w0 */
        d_equ[0] = w0 * local_density * (1.0 - u_sq / (2.0 * c_sq));
        /* axis speeds: weight w1 */
        d_equ[1] = w1 * local_density * (1.0 + u[1] / c_sq + (u[1] * u[1]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        d_equ[2] = w1 * local_density * (1.0 + u[2] / c_sq + (u[2] * u[2]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        d_equ[3] = w1 * local_density * (1.0 + u[3] / c_sq + (u[3] * u[3]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        d_equ[4] = w1 * local_density * (1.0 + u[4] / c_sq + (u[4] * u[4]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        /* diagonal speeds: weight w2 */
        d_equ[5] = w2 * local_density * (1.0 + u[5] / c_sq + (u[5] * u[5]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        d_equ[6] = w2 * local_density * (1.0 + u[6] / c_sq + (u[6] * u[6]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        d_equ[7] = w2 * local_density * (1.0 + u[7] / c_sq + (u[7] * u[7]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        d_equ[8] = w2 * local_density * (1.0 + u[8] / c_sq + (u[8] * u[8]) / (2.0 * c_sq * c_sq) - u_sq / (2.0 * c_sq));
        /* relaxation step */
        for (int kk = 0; kk < NSPEEDS; kk++) {
          cells[ii + jj * params.nx].speeds[kk] = tmp_cells[ii + jj * params.nx].speeds[kk]
                                                  + params.omega
                                                  * (d_equ[kk] - tmp_cells[ii + jj * params.nx].speeds[kk]);
        }
      }
    }
  }
  return EXIT_SUCCESS;
}

double av_velocity(const t_param params, t_speed *cells, int *obstacles, m_info rank_info) {
  int tot_cells = 0;  /* no. of cells used in calculation */
  double tot_u = 0.0; /* accumulated magnitudes of velocity for each cell */
  /* loop over all non-blocked cells */
  for (int jj = 1; jj <= rank_info.local_ny; jj++) {
    for (int ii = 0; ii < params.nx; ii++) {
      /* ignore occupied cells */
      if (!obstacles[ii + jj * params.nx]) {
        /* local density total */
        double local_density = 0.0;
        for (int kk = 0; kk < NSPEEDS; kk++) {
          local_density += cells[ii + jj * params.nx].speeds[kk];
        }
        /* x-component of velocity */
        double u_x = (cells[ii + jj * params.nx].speeds[1]
                      + cells[ii + jj * params.nx].speeds[5]
                      + cells[ii + jj * params.nx].speeds[8]
                      - (cells[ii + jj * params.nx].speeds[3]
                         + cells[ii + jj * params.nx].speeds[6]
                         + cells[ii + jj * params.nx].speeds[7]))
                     / local_density;
        /* compute y velocity component */
        double u_y = (cells[ii + jj * params.nx].speeds[2]
                      + cells[ii + jj * params.nx].speeds[5]
                      + cells[ii + jj * params.nx].speeds[6]
                      - (cells[ii + jj * params.nx].speeds[4]
                         + cells[ii + jj * params.nx].speeds[7]
                         + cells[ii + jj * params.nx].speeds[8]))
                     / local_density;
        /* accumulate the norm of x- and y- velocity components */
        tot_u += sqrt((u_x * u_x) + (u_y * u_y));
        /* increase counter of inspected cells */
        ++tot_cells;
      }
    }
  }
  double global_u;
  int global_cells;
  MPI_Allreduce(&tot_u, &global_u, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&tot_cells, &global_cells, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return global_u / (double)global_cells;
}

int timestep(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info) {
  accelerate_flow(params, cells, obstacles, rank_info);
  halo_exchange(params, cells, rank_info);
  propagate(params, cells, tmp_cells, rank_info);
  rebound(params, cells, tmp_cells, obstacles, rank_info);
  collision(params, cells, tmp_cells, obstacles, rank_info);
  return EXIT_SUCCESS;
}

/* The time loop of main, as a function: the average velocity after
** params.maxIters steps. */
#pragma mpiad differentiate wrt(params, cells) output(return, cells) replicated(params) varying(cells) scratch(tmp_cells)
double simulate(const t_param params, t_speed *cells, t_speed *tmp_cells, int *obstacles, m_info rank_info) {
  for (int tt = 0; tt < params.maxIters; tt++) {
    timestep(params, cells, tmp_cells, obstacles, rank_info);
  }
  return av_velocity(params, cells, obstacles, rank_info);
}

int main(int argc, char *argv[]) {
  t_param params;        /* struct to hold parameter values */
  t_speed *cells = NULL; /* grid containing fluid densities */
  t_speed *tmp_cells = NULL; /* scratch space */
  int *obstacles = NULL; /* grid indicating which cells are blocked */
  m_info rank_info;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_info.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &rank_info.size);
  params.nx = 16;
  params.ny = 16;
  params.maxIters = 20;
  params.reynolds_dim = 16;
  params.density = 0.1;
  params.accel = 0.005;
  params.omega = 1.85;
  rank_info.up = (rank_info.rank + 1) % rank_info.size;
  rank_info.down = (rank_info.rank + rank_info.size - 1) % rank_info.size;
  rank_info.local_ny = params.ny / rank_info.size + (rank_info.rank < params.ny % rank_info.size);
  rank_info.start_row = rank_info.rank * (params.ny / rank_info.size)
                        + (rank_info.rank < params.ny % rank_info.size ? rank_info.rank : params.ny % rank_info.size);
  /* main grid and 'helper' grid, with a halo row above and below */
  cells = (t_speed *)malloc(sizeof(t_speed) * (rank_info.local_ny + 2) * params.nx);
  tmp_cells = (t_speed *)malloc(sizeof(t_speed) * (rank_info.local_ny + 2) * params.nx);
  obstacles = malloc(sizeof(int) * (rank_info.local_ny + 2) * params.nx);
  if (cells == NULL || tmp_cells == NULL || obstacles == NULL) {
    fprintf(stderr, "cannot allocate memory\n");
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
  }
  /* initialise densities */
  double w0 = params.density * 4.0 / 9.0;
  double w1 = params.density / 9.0;
  double w2 = params.density / 36.0;
  for (int jj = 0; jj < rank_info.local_ny + 2; jj++) {
    for (int ii = 0; ii < params.nx; ii++) {
      cells[ii + jj * params.nx].speeds[0] = w0;
      for (int kk = 1; kk < 5; kk++)
        cells[ii + jj * params.nx].speeds[kk] = w1;
      for (int kk = 5; kk < NSPEEDS; kk++)
        cells[ii + jj * params.nx].speeds[kk] = w2;
      /* a wall along the bottom of the grid */
      obstacles[ii + jj * params.nx] = rank_info.start_row + jj - 1 == 0;
    }
  }
  double av_vel = simulate(params, cells, tmp_cells, obstacles, rank_info);
  if (rank_info.rank == 0)
    printf("av velocity after %d steps: %.12E\n", params.maxIters, av_vel);
  free(cells);
  free(tmp_cells);
  free(obstacles);
  MPI_Finalize();
  return EXIT_SUCCESS;
}
