// Loops whose iterations the reverse sweep runs again (Rerun.cpp): the
// forward sweep runs them as written, recording nothing per iteration; the
// reverse of the loop rewinds its counters, computes the iterations' own
// values again (recording them), without their stores into what outlives
// them, and reverses the iterations as usual.
//  - pair_energy: CoMD's force loop in small (atoms in boxes, pairs in
//    neighbour boxes, a cutoff, per-pair dr[3], r2 set three times, r6, the
//    energy and forces accumulated).  The re-run reads jb's atom count and
//    iId, which the loops around change: they are restored for it.  The
//    tape peak must stay below one pair's records per pair visited.
//  - nbody_energy: the same in counted `for` loops, as an n-body code
//    writes them (the re-run is a copy of the loop's header), with a C89
//    counter `m` declared at the top and given a value before each use.
//  - chain: C89, `d` declared at the top, set twice per iteration.
//  Only a loop inside another loop is re-run (a loop run once per call
//  would hold all its records at once either way): deferred_seed.c's
//  `twice` keeps its records.
//  - decay: the body reads `acc`, which it also writes and which outlives
//    an iteration, so it is recorded as before (no re-run).
//  - jitter: the body calls rand(), which a second run would draw again:
//    recorded as before.  (Before, the reverse sweep and the tangent also
//    called rand() again, in t[0]'s partial derivative by x[i]: a wrong
//    gradient, 3.9e-3 off, found here; CallHoist.cpp's stateful calls.)
// Each gradient is checked against central differences at 1-4 ranks.
// RUN: %mpiad-cc %s -I%S/../Inputs -lm -o %t
// RUN: %mpirun 1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %mpirun 4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: ALL PASSED
// RUN: %mpiad-emit %s -I%S/../Inputs -o - | sed '/^\/\/ [A-Z-]*:/d' | FileCheck --check-prefix=GEN %s
// GEN-LABEL: double pair_energy_b(
// GEN: /* forward sweep */
// GEN-NOT: mpiad_push_f64
// GEN: /* reverse sweep */
// GEN: /* the counters back to the loop's start */
// GEN: jOff--;
// GEN: /* the iterations again, recording */
// GEN: mpiad_push_f64(r2);
// GEN: mpiad_push_f64(dr[m]);
// GEN-NOT: fr = -4.0
// GEN: if (mpiad_pop_i64()) {
// GEN-LABEL: double nbody_energy_b(
// GEN: /* forward sweep */
// GEN-NOT: mpiad_push_f64
// GEN: /* reverse sweep */
// GEN: /* the iterations again, recording */
// GEN-NEXT: for (int j = i + 1; j < n; j++) {
// GEN: for (int j = n - 1; j >= i + 1; j--) {
// GEN-LABEL: double chain_b(
// GEN: /* the iterations again, recording */
// GEN-LABEL: double decay_b(
// GEN: /* forward sweep */
// GEN: mpiad_push_f64(t[0]);
// GEN-NOT: the iterations again
// GEN: return mpiad_ret;
// GEN-LABEL: double jitter_b(
// GEN-NOT: the iterations again
// GEN: mpiad_s1 = rand();
// GEN: t[0] = x[i] * (1.0 + 1e-3 * (mpiad_s1 % 7));
// GEN-NOT: rand()
// GEN: x_b[i] += t_b[0] * (1.0 + 1e-3 * (mpiad_s1 % 7));
// GEN-NOT: rand()
// GEN: return mpiad_ret;
// GEN-LABEL: double jitter_d(
// GEN: mpiad_s1 = rand();
// GEN-NEXT: t_d[0] = x_d[i] * (1.0 + 1e-3 * (mpiad_s1 % 7));
// GEN-NEXT: t[0] = x[i] * (1.0 + 1e-3 * (mpiad_s1 % 7));
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NBOX 3
#define MAXA 4
#define NATOM (NBOX * MAXA)

typedef double real3[3];

static const int counts[NBOX] = {3, 4, 2};

#pragma mpiad differentiate wrt(r) output(return) varying(r)
double pair_energy(const real3 *r, const int *n, const int *gid, int nbox,
                   double *U, real3 *f, MPI_Comm comm) {
  double e = 0.0;
  for (int ib = 0; ib < nbox; ib++) {
    for (int jb = ib; jb < nbox; jb++) {
      int nj = n[jb];
      for (int iOff = ib * MAXA, i = 0; i < n[ib]; i++, iOff++) {
        int iId = gid[iOff];
        for (int jOff = jb * MAXA, j = 0; j < nj; j++, jOff++) {
          double dr[3];
          int jId = gid[jOff];
          if (jId <= iId)
            continue;
          double r2 = 0.0;
          for (int m = 0; m < 3; m++) {
            dr[m] = r[iOff][m] - r[jOff][m];
            r2 += dr[m] * dr[m];
          }
          if (r2 > 4.0)
            continue;
          r2 = 1.0 / r2;
          double r6 = r2 * r2 * r2;
          double el = r6 * (r6 - 1.0);
          U[iOff] += 0.5 * el;
          U[jOff] += 0.5 * el;
          if (jb == ib)
            e += el;
          else
            e += 0.75 * el;
          double fr = -4.0 * r6 * r2 * (12.0 * r6 - 6.0);
          for (int m = 0; m < 3; m++) {
            f[iOff][m] -= dr[m] * fr;
            f[jOff][m] += dr[m] * fr;
          }
        }
      }
    }
  }
  double g = 0.0;
  MPI_Allreduce(&e, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g;
}

#pragma mpiad differentiate wrt(x) output(return) varying(x)
double nbody_energy(const double *x, int n, double *acc) {
  double e = 0.0;
  int m;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double dx[3], r2 = 0.01;
      for (m = 0; m < 3; m++) {
        dx[m] = x[3 * j + m] - x[3 * i + m];
        r2 += dx[m] * dx[m];
      }
      r2 = 1.0 / sqrt(r2);
      e -= r2;
      for (m = 0; m < 3; m++) {
        acc[3 * i + m] += dx[m] * r2 * r2 * r2;
        acc[3 * j + m] -= dx[m] * r2 * r2 * r2;
      }
    }
  return e;
}

#pragma mpiad differentiate wrt(x) output(return) varying(x)
double chain(const double *x, int n) {
  double s, d;
  int i, k, rep;
  s = 0.0;
  for (rep = 1; rep <= 2; rep++)
    for (i = 0, k = 1; k < n; i++, k++) {
      d = x[k] - 0.5 * rep * x[i];
      d = d * d + sin(x[k]);
      s += d * x[i];
    }
  return s;
}

#pragma mpiad differentiate wrt(x) output(return) varying(x)
double decay(const double *x, int n) {
  double acc = 1.0;
  for (int i = 0, k = n - 1; i < n; i++, k--) {
    double t[2];
    t[0] = x[i] * x[k];
    t[1] = t[0] * t[0];
    acc = acc * 0.5 + t[1];
  }
  return acc;
}

#pragma mpiad differentiate wrt(x) output(return) varying(x)
#pragma mpiad differentiate forward wrt(x) output(return) varying(x)
double jitter(const double *x, int n) {
  double s = 0.0;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n; i++) {
      double t[2];
      t[0] = x[i] * (1.0 + 1e-3 * (rand() % 7));
      t[1] = t[0] * t[0];
      s += t[1];
    }
  return s;
}

/* The same pair loop written out, counting the pairs it visits. */
static int count_pairs(const real3 *r, const int *gid) {
  int c = 0;
  for (int ib = 0; ib < NBOX; ib++)
    for (int jb = ib; jb < NBOX; jb++)
      for (int i = 0; i < counts[ib]; i++)
        for (int j = 0; j < counts[jb]; j++)
          c += gid[jb * MAXA + j] > gid[ib * MAXA + i];
  (void)r;
  return c;
}

static int gid[NATOM];
static double U[NATOM];
static real3 fbuf[NATOM];

static double Jpair(void *p) {
  double *x = p;
  memset(U, 0, sizeof U);
  memset(fbuf, 0, sizeof fbuf);
  return pair_energy((const real3 *)x, counts, gid, NBOX, U, fbuf,
                     MPI_COMM_WORLD);
}
static double acc[15];
static double Jnbody(void *p) {
  memset(acc, 0, sizeof acc);
  return hx_sum(nbody_energy(p, 5, acc));
}
static double Jchain(void *p) { return hx_sum(chain(p, 6)); }
static double Jdecay(void *p) { return hx_sum(decay(p, 5)); }
static double Jjitter(void *p) {
  srand(7 + hx_rank_g);
  return hx_sum(jitter(p, 5));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  for (int a = 0; a < NATOM; a++)
    gid[a] = (a * 7) % NATOM;

  /* Atoms on a perturbed lattice, 0.9 to 1.6 apart: some pairs inside
   * the cutoff (r2 <= 4), some outside. */
  double r0[NATOM * 3], dx[NATOM * 3], x[NATOM * 3];
  hx_rand(r0, NATOM * 3, 61, hx_rank_g, -0.2, 0.2);
  for (int a = 0; a < NATOM; a++)
    for (int m = 0; m < 3; m++)
      r0[a * 3 + m] += 1.1 * ((a >> m) & 1) + 0.4 * m * (a % 3);
  hx_rand(dx, NATOM * 3, 62, hx_rank_g, -1.0, 1.0);
  double rb[NATOM * 3] = {0};
  memcpy(x, r0, sizeof x);
  memset(U, 0, sizeof U);
  memset(fbuf, 0, sizeof fbuf);
  mpiad_tape_reset_peak();
  pair_energy_b((const real3 *)x, (real3 *)rb, counts, gid, NBOX, U, fbuf,
                MPI_COMM_WORLD, 1.0);
  hx_tape("pair_energy_b");
  double peak = (double)mpiad_tape_peak_bytes();
  /* The re-run leaves U and f as the forward sweep made them. */
  double Ub[NATOM], fb[NATOM * 3];
  memcpy(Ub, U, sizeof Ub);
  memcpy(fb, fbuf, sizeof fb);
  memset(U, 0, sizeof U);
  memset(fbuf, 0, sizeof fbuf);
  double e0 = pair_energy((const real3 *)x, counts, gid, NBOX, U, fbuf,
                          MPI_COMM_WORLD);
  hx_check_vec("U after pair_energy_b", Ub, U, NATOM, 0.0, 1e-300);
  hx_check_vec("f after pair_energy_b", fb, &fbuf[0][0], NATOM * 3, 0.0,
               1e-300);
  hx_check("energy", e0, Jpair(r0), 0.0, 1e-300);
  int pairs = count_pairs((const real3 *)x, gid);
  /* Recorded per pair, the forward sweep would hold at least 6 doubles
   * and 3 flags (72 bytes) for every pair; re-run, one pair's at a time. */
  hx_check_each("tape peak below 72 bytes per pair",
                peak < 72.0 * pairs ? 0.0 : peak, 0.0, 0.0, 1e-300);
  mpiad_input in = {r0, dx, NATOM * 3, 0};
  double *xb[1] = {rb};
  hx_grad("pair_energy_b", Jpair, r0, &in, 1, xb, 1e-6, 1e-6, 1e-10);

  double b0[15], bd[15], bb[15] = {0}, accb[15];
  hx_rand(b0, 15, 67, hx_rank_g, 0.0, 2.0);
  hx_rand(bd, 15, 68, hx_rank_g, -1.0, 1.0);
  memset(acc, 0, sizeof acc);
  nbody_energy_b(b0, bb, 5, acc, 1.0);
  hx_tape("nbody_energy_b");
  memcpy(accb, acc, sizeof acc);
  memset(acc, 0, sizeof acc);
  nbody_energy(b0, 5, acc);
  hx_check_vec("acc after nbody_energy_b", accb, acc, 15, 0.0, 1e-300);
  mpiad_input in4 = {b0, bd, 15, 0};
  double *bbp[1] = {bb};
  hx_grad("nbody_energy_b", Jnbody, b0, &in4, 1, bbp, 1e-6, 1e-7, 1e-12);

  double c0[6], cd[6], cb[6] = {0};
  hx_rand(c0, 6, 63, hx_rank_g, 0.2, 0.9);
  hx_rand(cd, 6, 64, hx_rank_g, -1.0, 1.0);
  chain_b(c0, cb, 6, 1.0);
  hx_tape("chain_b");
  mpiad_input in2 = {c0, cd, 6, 0};
  double *cbp[1] = {cb};
  hx_grad("chain_b", Jchain, c0, &in2, 1, cbp, 1e-6, 1e-7, 1e-12);

  double d0[5], dd[5], db[5] = {0};
  hx_rand(d0, 5, 65, hx_rank_g, 0.2, 0.9);
  hx_rand(dd, 5, 66, hx_rank_g, -1.0, 1.0);
  decay_b(d0, db, 5, 1.0);
  hx_tape("decay_b");
  mpiad_input in3 = {d0, dd, 5, 0};
  double *dbp[1] = {db};
  hx_grad("decay_b", Jdecay, d0, &in3, 1, dbp, 1e-6, 1e-7, 1e-12);
  double j0[5], jd[5], jb[5] = {0};
  hx_rand(j0, 5, 69, hx_rank_g, 0.2, 0.9);
  hx_rand(jd, 5, 70, hx_rank_g, -1.0, 1.0);
  srand(7 + hx_rank_g);
  jitter_b(j0, jb, 5, 1.0);
  hx_tape("jitter_b");
  mpiad_input in5 = {j0, jd, 5, 0};
  double *jbp[1] = {jb};
  hx_grad("jitter_b", Jjitter, j0, &in5, 1, jbp, 1e-6, 1e-7, 1e-12);
  double jdot = 0.0;
  srand(7 + hx_rank_g);
  jitter_d(j0, jd, 5, &jdot);
  hx_check("jitter_d against jitter_b (dot product)", hx_sum(jdot),
           mpiad_adjoint_directional(&in5, jbp, 1, MPI_COMM_WORLD), 1e-12,
           1e-300);
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
