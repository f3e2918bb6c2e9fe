/* Corpus program: direct-sum gravitational forces with the bodies in an
 * array of structs, in the shape of the derived-datatype gather example of
 * the HPSC course at Tokyo Tech (rioyokotalab/hpsc-2024,
 * 03_mpi/08_derived_gather.cpp): `struct Body { double x, y, m, fx, fy; }`,
 * each rank owning the bodies [begin, end) of one global array, an
 * MPI_Allgather of the owned bodies with a contiguous datatype of five
 * doubles, the forces on the owned bodies from every body, and a second
 * MPI_Allgather of only the force fields through an indexed datatype
 * resized to the size of a Body. Written for mpiad in that program's shape
 * (its idioms, not its text), in C, with the computation of its main in a
 * function; the objective is the sum of the squared forces over all
 * bodies, its gradient taken with respect to the owned positions and masses.
 * The only mpiad edit: the pragma before forces.
 *
 * RUN: %mpiad-cc -c -Dmain=program_main %s -o %t.o
 * RUN: %mpiad-cc %S/Inputs/nbody_gather_check.c %t.o -I%harness -lm -o %t
 * RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
 * RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
 * CHECK: ALL PASSED
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20

struct Body {
  double x, y, m, fx, fy;
};

#pragma mpiad differentiate wrt(body0) output(body0, return) varying(body0)
double forces(struct Body *body0, MPI_Comm comm) {
  int size, rank;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  int begin = rank * (N / size);
  int end = (rank + 1) * (N / size);
  struct Body body[N];
  MPI_Datatype MPI_BODY;
  MPI_Type_contiguous(5, MPI_DOUBLE, &MPI_BODY);
  MPI_Type_commit(&MPI_BODY);
  MPI_Allgather(&body0[begin], end - begin, MPI_BODY, body, end - begin,
                MPI_BODY, comm);
  for (int i = begin; i < end; i++) {
    body0[i].fx = body0[i].fy = 0;
    for (int j = 0; j < N; j++) {
      if (i != j) {
        double rx = body[i].x - body[j].x;
        double ry = body[i].y - body[j].y;
        double r = sqrt(rx * rx + ry * ry);
        body0[i].fx -= rx * body[j].m / (r * r * r);
        body0[i].fy -= ry * body[j].m / (r * r * r);
      }
    }
  }
  MPI_Datatype MPI_FORCE;
  int blocksize[1] = {2}, displacement[1] = {3};
  MPI_Type_indexed(1, blocksize, displacement, MPI_DOUBLE, &MPI_FORCE);
  MPI_Type_create_resized(MPI_FORCE, 0, 5 * sizeof(double), &MPI_FORCE);
  MPI_Type_commit(&MPI_FORCE);
  MPI_Allgather(&body0[begin], end - begin, MPI_FORCE, body, end - begin,
                MPI_FORCE, comm);
  double sum = 0;
  for (int i = 0; i < N; i++)
    sum += body[i].fx * body[i].fx + body[i].fy * body[i].fy;
  MPI_Type_free(&MPI_FORCE);
  MPI_Type_free(&MPI_BODY);
  return sum;
}

int main(int argc, char **argv) {
  struct Body body0[N];
  MPI_Init(&argc, &argv);
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int begin = rank * (N / size);
  int end = (rank + 1) * (N / size);
  srand48(rank);
  for (int i = begin; i < end; i++) {
    body0[i].x = drand48();
    body0[i].y = drand48();
    body0[i].m = drand48();
    body0[i].fx = body0[i].fy = 0;
  }
  double sum = forces(body0, MPI_COMM_WORLD);
  for (int i = begin; i < end; i++)
    printf("%d %g %g\n", i, body0[i].fx, body0[i].fy);
  if (rank == 0)
    printf("sum of squared forces %g\n", sum);
  MPI_Finalize();
  return 0;
}
