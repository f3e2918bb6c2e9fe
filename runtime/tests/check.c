/*
 * check.c - unit test of the gradient-check helpers: replicated and varying
 * inner products, central differences on a known quadratic, the adjoint side
 * of the directional check, and mpiad_check_close's verdicts and output.
 */
#define _POSIX_C_SOURCE 200809L
#include "mpiad.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static void test_dot(void) {
  enum { N = 100 };
  double a[N], b[N];
  float af[N], bf[N];
  for (int i = 0; i < N; ++i) {
    a[i] = rt_rank + i;
    b[i] = 2.0;
    af[i] = (float)a[i];
    bf[i] = 2.0f;
  }
  double P = rt_size, T = P * (P - 1) / 2;
  double local = 2.0 * (N * rt_rank + N * (N - 1) / 2.0);
  double global = 2.0 * (N * T + P * N * (N - 1) / 2.0);
  double d = mpiad_dot(a, b, N, 1, MPI_COMM_WORLD);
  RT_CHECK(d == local, "replicated: got %g want %g", d, local);
  d = mpiad_dot(a, b, N, 0, MPI_COMM_WORLD);
  RT_CHECK(d == global, "varying: got %g want %g", d, global);
  d = mpiad_dot_f32(af, bf, N, 1, MPI_COMM_WORLD);
  RT_CHECK(d == local, "f32 replicated: got %g want %g", d, local);
  d = mpiad_dot_f32(af, bf, N, 0, MPI_COMM_WORLD);
  RT_CHECK(d == global, "f32 varying: got %g want %g", d, global);
  d = mpiad_dot(NULL, NULL, 0, 0, MPI_COMM_WORLD);
  RT_CHECK(d == 0.0, "empty: %g", d);
  /* f32 products are accumulated in double. */
  float big = 16777216.0f, one = 1.0f; /* 2^24 + 1 is not a float */
  float u[2] = {big, one}, v[2] = {1.0f, 1.0f};
  d = mpiad_dot_f32(u, v, 2, 1, MPI_COMM_WORLD);
  RT_CHECK(d == 16777217.0, "f32 in double: %.17g", d);
  (void)one;
}

/* J(x, y) = sum over ranks of x.x  +  3 y.y  (x varying, y replicated). */
typedef struct {
  double *x, *y;
  size_t nx, ny;
  int calls;
} quad;

static double quad_objective(void *ctx) {
  quad *q = ctx;
  q->calls++;
  return mpiad_dot(q->x, q->x, q->nx, 0, MPI_COMM_WORLD) +
         3.0 * mpiad_dot(q->y, q->y, q->ny, 1, MPI_COMM_WORLD);
}

static void test_directional(void) {
  enum { NX = 50, NY = 7 };
  double x[NX], dx[NX], y[NY], dy[NY], x0[NX], y0[NY];
  double x_b[NX], y_b[NY];
  for (int i = 0; i < NX; ++i) {
    x[i] = sin(1.0 + i + 10.0 * rt_rank);
    dx[i] = cos(0.5 * i - rt_rank);
    x_b[i] = 2.0 * x[i]; /* dJ/dx on this rank */
  }
  for (int i = 0; i < NY; ++i) {
    y[i] = 0.1 * i - 0.3; /* same on every rank */
    dy[i] = 1.0 / (i + 1);
    y_b[i] = 6.0 * y[i]; /* full dJ/dy, replicated */
  }
  memcpy(x0, x, sizeof x);
  memcpy(y0, y, sizeof y);

  /* The exact directional derivative. */
  double want = 0.0, local = 0.0, sent;
  for (int i = 0; i < NX; ++i)
    local += 2.0 * x[i] * dx[i];
  sent = local;
  PMPI_Allreduce(&sent, &want, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < NY; ++i)
    want += 6.0 * y[i] * dy[i];

  quad q = {x, y, NX, NY, 0};
  mpiad_input in[2] = {{x, dx, NX, 0}, {y, dy, NY, 1}};
  double fd = mpiad_fd_directional(quad_objective, &q, in, 2, 1e-4);
  RT_CHECK(q.calls == 2, "%d objective calls", q.calls);
  RT_CHECK(memcmp(x, x0, sizeof x) == 0 && memcmp(y, y0, sizeof y) == 0,
           "inputs not restored");
  RT_CHECK(fabs(fd - want) <= 1e-9 * fabs(want), "fd %.17g want %.17g", fd,
           want);
  RT_CHECK(mpiad_check_close("runtime.check fd", fd, want, 1e-8, 1e-12,
                             MPI_COMM_WORLD) == 0,
           "fd check");

  double *x_bs[2] = {x_b, y_b};
  double adj = mpiad_adjoint_directional(in, x_bs, 2, MPI_COMM_WORLD);
  RT_CHECK(fabs(adj - want) <= 1e-13 * fabs(want), "adj %.17g want %.17g", adj,
           want);
  RT_CHECK(mpiad_check_close("runtime.check adjoint vs fd", adj, fd, 1e-8,
                             1e-12, MPI_COMM_WORLD) == 0,
           "adjoint check");

  /* A wrong adjoint is caught. */
  x_b[0] += 1.0;
  adj = mpiad_adjoint_directional(in, x_bs, 2, MPI_COMM_WORLD);
  RT_CHECK(mpiad_check_close("runtime.check wrong adjoint (FAIL expected)", adj,
                             fd, 1e-8, 1e-12, MPI_COMM_WORLD) == 1,
           "wrong adjoint passed");

  double bad = mpiad_fd_directional(quad_objective, &q, in, 2, 0.0);
  RT_CHECK(isnan(bad) && q.calls == 2, "h = 0: %g, %d calls", bad, q.calls);
}

/* Runs mpiad_check_close with rank 0's stdout captured into out. */
static int captured_check(char *out, size_t cap, const char *label, double got,
                          double want, double rtol, double atol) {
  FILE *tmp = NULL;
  int saved = -1;
  out[0] = '\0';
  if (rt_rank == 0) {
    fflush(stdout);
    tmp = tmpfile();
    saved = dup(1);
    dup2(fileno(tmp), 1);
  }
  int r = mpiad_check_close(label, got, want, rtol, atol, MPI_COMM_WORLD);
  if (rt_rank == 0) {
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, cap - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
  }
  return r;
}

static void test_check_close(void) {
  char out[256];
  int r = captured_check(out, sizeof out, "lbl", 1.0, 1.1, 1e-3, 0.0);
  RT_CHECK(r == 1, "1 vs 1.1 passed");
  if (rt_rank == 0)
    RT_CHECK(strcmp(out, "lbl: got 1 want 1.1000000000000001 relerr "
                         "9.091e-02 FAIL\n") == 0,
             "output [%s]", out);
  r = captured_check(out, sizeof out, "ok", 2.0, 2.0 + 1e-12, 1e-9, 0.0);
  RT_CHECK(r == 0, "close values failed");
  if (rt_rank == 0)
    RT_CHECK(strncmp(out, "ok: got 2 want 2.000000000001", 29) == 0 &&
                 strstr(out, " PASS\n") != NULL,
             "output [%s]", out);

  /* atol is the floor of the denominator. */
  RT_CHECK(mpiad_check_close("tiny", 1e-14, 0.0, 1e-3, 1e-10, MPI_COMM_WORLD) ==
               0,
           "1e-14 vs 0 with atol 1e-10");
  RT_CHECK(mpiad_check_close("tiny (FAIL expected)", 1e-12, 0.0, 1e-3, 1e-10,
                             MPI_COMM_WORLD) == 1,
           "1e-12 vs 0 with atol 1e-10");
  RT_CHECK(mpiad_check_close("zero", 0.0, 0.0, 0.0, 0.0, MPI_COMM_WORLD) == 0,
           "0 vs 0");
  RT_CHECK(mpiad_check_close("nan (FAIL expected)", NAN, 1.0, 1.0, 1.0,
                             MPI_COMM_WORLD) == 1,
           "NaN passed");
  /* The verdict is rank 0's on every rank. */
  double got = rt_rank == 0 ? 1.0 : 5.0;
  RT_CHECK(mpiad_check_close("rank 0 decides", got, 1.0, 1e-12, 0.0,
                             MPI_COMM_WORLD) == 0,
           "verdict differs from rank 0's");
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  test_dot();
  test_directional();
  test_check_close();
  return rt_finish("runtime.check");
}
