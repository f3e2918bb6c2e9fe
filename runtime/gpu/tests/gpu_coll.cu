/*
 * gpu_coll.cu - unit test of libmpiad_gpu outside the adjoint helpers:
 * launch helpers and deterministic block sums, device memory, the path
 * choice, the batch, and every collective and point-to-point call on device
 * buffers (MPI_DOUBLE and MPI_FLOAT, every op, in place and not, several
 * roots), on MPI_COMM_WORLD (the default path: NCCL with one GPU per rank,
 * the staged MPI path when ranks share a GPU) and on a duplicate forced to
 * the staged MPI path.  Expected values come from the formulas of the test
 * data, computed on the host.
 */
#include "gpu_test.h"

/* ------------------------------------------------------------------------- */
/* Launch helpers, block sums, memory                                        */
/* ------------------------------------------------------------------------- */

static __global__ void sum_kernel(const double *x, long n, double *partials) {
  double v = 0.0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    v += x[i];
  mpiad_gpu_block_sum(v, partials);
}

/* Two reductions in one kernel (the block sum called twice). */
static __global__ void two_sums_kernel(const double *x, long n, double *p1,
                                       double *p2) {
  double v = 0.0, w = 0.0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x) {
    v += x[i];
    w += 2.0 * x[i] * x[i];
  }
  mpiad_gpu_block_sum(v, p1);
  mpiad_gpu_block_sum(w, p2);
}

static void test_launch_and_sums(void) {
  int dev = 0, sms = 0;
  MPIAD_GPU_CHECK(cudaGetDevice(&dev));
  MPIAD_GPU_CHECK(
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  long cap = 32L * sms;
  expect_int("mpiad_gpu_blocks(0)", mpiad_gpu_blocks(0), 1);
  expect_int("mpiad_gpu_blocks(-5)", mpiad_gpu_blocks(-5), 1);
  expect_int("mpiad_gpu_blocks(1)", mpiad_gpu_blocks(1), 1);
  expect_int("mpiad_gpu_blocks(256)", mpiad_gpu_blocks(256), 1);
  expect_int("mpiad_gpu_blocks(257)", mpiad_gpu_blocks(257), 2);
  expect_int("mpiad_gpu_blocks(huge)",
             mpiad_gpu_blocks(4 * cap * MPIAD_GPU_THREADS), cap);

  const long sizes[3] = {1, 1000, (1L << 20) + 3};
  for (int t = 0; t < 3; ++t) {
    long n = sizes[t];
    vec x((size_t)n);
    double want = 0.0, want2 = 0.0; /* exact: multiples of 1/64, small */
    for (long i = 0; i < n; ++i) {
      x[(size_t)i] = ((i * 37) % 101) / 64.0 - 0.75;
      want += x[(size_t)i];
      want2 += 2.0 * x[(size_t)i] * x[(size_t)i];
    }
    double *d = dput<double>(x);
    int nb = mpiad_gpu_blocks(n);
    double *part = mpiad_gpu_partials(0, nb);
    sum_kernel<<<nb, MPIAD_GPU_THREADS>>>(d, n, part);
    MPIAD_GPU_CHECK(cudaGetLastError());
    double s1 = mpiad_gpu_sum_partials(part, nb);
    sum_kernel<<<nb, MPIAD_GPU_THREADS>>>(d, n, part);
    MPIAD_GPU_CHECK(cudaGetLastError());
    double s2 = mpiad_gpu_sum_partials(part, nb);
    char what[96];
    snprintf(what, sizeof what, "block sum n=%ld", n);
    expect_near(what, vec{s1}, vec{want}, 0.0);
    snprintf(what, sizeof what, "block sum n=%ld bitwise repeatable", n);
    expect_true(what, memcmp(&s1, &s2, sizeof s1) == 0);

    /* *d_J += sum, on the device */
    double *dJ = dput<double>(vec{1.5});
    mpiad_gpu_add_partials(part, nb, dJ);
    snprintf(what, sizeof what, "add_partials n=%ld", n);
    expect_near(what, dget(dJ, 1), vec{1.5 + want}, 0.0);

    /* two slots, two block sums in one kernel */
    double *p1 = mpiad_gpu_partials(1, nb), *p2 = mpiad_gpu_partials(2, nb);
    two_sums_kernel<<<nb, MPIAD_GPU_THREADS>>>(d, n, p1, p2);
    MPIAD_GPU_CHECK(cudaGetLastError());
    snprintf(what, sizeof what, "two block sums n=%ld", n);
    expect_near(
        what,
        vec{mpiad_gpu_sum_partials(p1, nb), mpiad_gpu_sum_partials(p2, nb)},
        vec{want, want2}, 1e-12);
    mpiad_gpu_free(dJ);
    mpiad_gpu_free(d);
  }
  /* A slot grows and stays usable. */
  double *big = mpiad_gpu_partials(3, 5000);
  MPIAD_GPU_CHECK(cudaMemset(big, 0, 5000 * sizeof(double)));
  expect_near("sum of 5000 zero partials",
              vec{mpiad_gpu_sum_partials(big, 5000)}, vec{0.0}, 0.0);
}

static void test_memory(void) {
  expect_true("mpiad_gpu_malloc(0) == NULL", mpiad_gpu_malloc(0) == NULL);
  expect_true("mpiad_gpu_calloc(0, 8) == NULL", mpiad_gpu_calloc(0, 8) == NULL);
  mpiad_gpu_free(NULL);
  const size_t n = 100;
  double *a = (double *)mpiad_gpu_calloc(n, sizeof(double));
  expect_near("calloc zeroes", dget(a, n), vec(n, 0.0), 0.0);
  vec v(n);
  for (size_t k = 0; k < n; ++k)
    v[k] = val((int)k, (int)k);
  double *b = dput<double>(v);
  mpiad_gpu_memcpy(a, b, n * sizeof(double));
  expect_near("memcpy", dget(a, n), v, 0.0);
  mpiad_gpu_memset0(a + 10, 20 * sizeof(double));
  for (size_t k = 10; k < 30; ++k)
    v[k] = 0.0;
  expect_near("memset0", dget(a, n), v, 0.0);
  mpiad_gpu_memset0(a, 0);
  mpiad_gpu_memcpy(a, b, 0);
  mpiad_gpu_free(a);
  mpiad_gpu_free(b);
}

/* ------------------------------------------------------------------------- */
/* Paths                                                                     */
/* ------------------------------------------------------------------------- */

/* Runs first, while no other failure has been remembered: forcing NCCL on
 * ranks that share a GPU must fail with a clear message. */
static void test_paths(const char **world_path) {
  int ndev = 0, dev = 0;
  MPIAD_GPU_CHECK(cudaGetDeviceCount(&ndev));
  MPIAD_GPU_CHECK(cudaGetDevice(&dev));
  *world_path = mpiad_gpu_comm_path(MPI_COMM_WORLD);
  expect_true("path of MPI_COMM_WORLD", *world_path != NULL);
  if (!*world_path) {
    fprintf(stderr, "rank %d: %s\n", t_rank, mpiad_gpu_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Do two ranks share a device?  (Host names and device numbers.) */
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  std::vector<char> hosts((size_t)t_size * MPI_MAX_PROCESSOR_NAME);
  std::vector<int> devs((size_t)t_size);
  MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(),
                MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Allgather(&dev, 1, MPI_INT, devs.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int shared = 0;
  for (int i = 0; i < t_size; ++i)
    for (int j = 0; j < i; ++j)
      shared |= devs[i] == devs[j] &&
                strcmp(&hosts[(size_t)i * MPI_MAX_PROCESSOR_NAME],
                       &hosts[(size_t)j * MPI_MAX_PROCESSOR_NAME]) == 0;
  expect_true("default path: nccl unless a GPU is shared",
              strcmp(*world_path, shared ? "mpi" : "nccl") == 0);
  MPI_Comm c;
  const char *p = dup_with_path("mpi", &c);
  expect_true("MPIAD_GPU_COMM=mpi gives the mpi path",
              p && strcmp(p, "mpi") == 0);
  MPI_Comm_free(&c); /* destroys the state (delete callback) */
  p = dup_with_path("nccl", &c);
  if (shared) {
    expect_true("MPIAD_GPU_COMM=nccl on a shared GPU fails", p == NULL);
    expect_true("... with a message naming the shared GPU",
                strstr(mpiad_gpu_last_error(), "share one GPU") != NULL);
    if (t_rank == 0)
      printf("expected error: %s\n", mpiad_gpu_last_error());
  } else {
    expect_true("MPIAD_GPU_COMM=nccl gives the nccl path",
                p && strcmp(p, "nccl") == 0);
  }
  MPI_Comm_free(&c);
}

/* ------------------------------------------------------------------------- */
/* Batch                                                                     */
/* ------------------------------------------------------------------------- */

static void test_batch(MPI_Comm c, const char *path) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  const size_t nA = 5, nB = 3, nD = 1000, nE = 2;
  vec pA(nA), dA(nA), pB(nB), pD(nD), dD(nD), pE(nE), dE(nE);
  vec wA(nA), wB(nB, 0.0), wD(nD), wE(nE);
  for (size_t k = 0; k < nA; ++k) {
    pA[k] = val(rank, (int)k);
    dA[k] = 10.0 + (double)k;
    wA[k] = dA[k];
    for (int q = 0; q < size; ++q)
      wA[k] += val(q, (int)k);
  }
  for (size_t k = 0; k < nB; ++k) {
    pB[k] = 0.1 * (rank + 1) + (double)k; /* summed in double, rounded once */
    for (int q = 0; q < size; ++q)
      wB[k] += (double)(float)(0.1 * (q + 1) + (double)k);
  }
  for (size_t k = 0; k < nD; ++k) {
    pD[k] = val(rank + 3, (int)k) * (k % 2 ? 1.0 : -1.0);
    dD[k] = 0.5 * (double)k;
    wD[k] = dD[k];
    for (int q = 0; q < size; ++q)
      wD[k] += val(q + 3, (int)k) * (k % 2 ? 1.0 : -1.0);
  }
  for (size_t k = 0; k < nE; ++k) {
    pE[k] = rank == 0 ? 1.0 : 0.0; /* the root-factor pattern */
    dE[k] = -1.0;
    wE[k] = 0.0;
  }
  double *gA = dput<double>(pA), *hA = dput<double>(dA);
  float *gB = dput<float>(pB);
  double *gD = dput<double>(pD), *hD = dput<double>(dD);
  double *gE = dput<double>(pE), *hE = dput<double>(dE);

  mpiad_gpu_batch outer, inner;
  mpiad_gpu_batch_begin(&outer, c);
  mpiad_gpu_batch_add_f64(&outer, gA, hA, nA);
  mpiad_gpu_batch_begin(&inner, c);
  mpiad_gpu_batch_add_f64(&inner, gE, hE, nE);
  T_OK(mpiad_gpu_batch_allreduce(&inner));
  mpiad_gpu_batch_add_f32(&outer, gB, gB, nB); /* in place */
  mpiad_gpu_batch_add_f64(&outer, gD, hD, 0);  /* nothing */
  mpiad_gpu_batch_add_f64(&outer, gD, hD, nD);
  T_OK(mpiad_gpu_batch_allreduce(&outer));

  char what[96];
  snprintf(what, sizeof what, "%s batch f64 accumulate", path);
  expect_near(what, dget(hA, nA), wA, 1e-12);
  snprintf(what, sizeof what, "%s batch f32 in place", path);
  expect_near(what, dget(gB, nB), rounded<float>(wB), 0.0);
  snprintf(what, sizeof what, "%s batch f64 n=1000", path);
  expect_near(what, dget(hD, nD), wD, 1e-12);
  snprintf(what, sizeof what, "%s nested batch", path);
  expect_near(what, dget(hE, nE), wE, 0.0);
  snprintf(what, sizeof what, "%s partials untouched", path);
  expect_near(what, dget(gA, nA), pA, 0.0);

  /* Misuse: adding to the outer batch while an inner one is open.  The
   * error is the same on every rank and no communication is made. */
  mpiad_gpu_batch_begin(&outer, c);
  mpiad_gpu_batch_begin(&inner, c);
  mpiad_gpu_batch_add_f64(&outer, gA, hA, nA);
  T_OK(mpiad_gpu_batch_allreduce(&inner)); /* empty: no communication */
  expect_int("batch misuse gives MPIAD_ERR_ARG",
             mpiad_gpu_batch_allreduce(&outer), MPIAD_ERR_ARG);
  expect_int("a closed batch gives MPIAD_ERR_ARG",
             mpiad_gpu_batch_allreduce(&outer), MPIAD_ERR_ARG);
  snprintf(what, sizeof what, "%s dest unchanged by failed batch", path);
  expect_near(what, dget(hA, nA), wA, 1e-12);

  mpiad_gpu_free(gA);
  mpiad_gpu_free(hA);
  mpiad_gpu_free(gB);
  mpiad_gpu_free(gD);
  mpiad_gpu_free(hD);
  mpiad_gpu_free(gE);
  mpiad_gpu_free(hE);
}

/* ------------------------------------------------------------------------- */
/* Collectives                                                               */
/* ------------------------------------------------------------------------- */

template <class T>
static void test_allreduce_reduce(MPI_Comm c, const char *path) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 37;
  char what[160];
  for (int op = 0; op < 4; ++op) {
    vec x(n), want(n);
    for (int k = 0; k < n; ++k) {
      x[k] = input(op, rank, k, size);
      want[k] = reduce_host(op, k, size);
    }
    want = rounded<T>(want);
    for (int in_place = 0; in_place < 2; ++in_place) {
      T *s = dput<T>(x), *r = dput<T>(in_place ? x : vec(n, -7.0));
      T_OK(mpiad_gpu_allreduce(in_place ? MPI_IN_PLACE : s, r, n, t, ops[op],
                               c));
      snprintf(what, sizeof what, "%s allreduce %s %s%s", path, op_names[op],
               ty<T>::name(), in_place ? " in place" : "");
      expect_near(what, dget(r, n), want, ty<T>::tol());
      mpiad_gpu_free(s);
      mpiad_gpu_free(r);
    }
    int roots[2] = {0, size - 1};
    for (int ri = 0; ri < 2; ++ri) {
      int root = roots[ri];
      for (int in_place = 0; in_place < 2; ++in_place) {
        int ip = in_place && rank == root;
        T *s = dput<T>(x),
          *r = rank == root ? dput<T>(ip ? x : vec(n, -7.0)) : NULL;
        T_OK(
            mpiad_gpu_reduce(ip ? MPI_IN_PLACE : s, r, n, t, ops[op], root, c));
        if (rank == root) {
          snprintf(what, sizeof what, "%s reduce %s %s root %d%s", path,
                   op_names[op], ty<T>::name(), root,
                   in_place ? " in place" : "");
          expect_near(what, dget(r, n), want, ty<T>::tol());
        }
        mpiad_gpu_free(s);
        mpiad_gpu_free(r);
      }
    }
  }
  /* count 0 and a wrong datatype (no communication either way) */
  T *z = dput<T>(vec{});
  T_OK(mpiad_gpu_allreduce(z, z, 0, t, MPI_SUM, c));
  expect_int("allreduce with MPI_INT gives MPIAD_ERR_ARG",
             mpiad_gpu_allreduce(z, z, 1, MPI_INT, MPI_SUM, c), MPIAD_ERR_ARG);
  expect_int("allreduce with MPI_LAND gives MPIAD_ERR_ARG",
             mpiad_gpu_allreduce(z, z, 1, t, MPI_LAND, c), MPIAD_ERR_ARG);
  mpiad_gpu_free(z);
}

template <class T>
static void test_bcast_gathers(MPI_Comm c, const char *path) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 5;
  const size_t tot = (size_t)n * size;
  char what[160];

  /* Bcast from the last rank. */
  {
    int root = size - 1;
    vec x(n), want(n);
    for (int k = 0; k < n; ++k) {
      x[k] = rank == root ? val(root, k) : -7.0;
      want[k] = val(root, k);
    }
    T *b = dput<T>(x);
    T_OK(mpiad_gpu_bcast(b, n, t, root, c));
    snprintf(what, sizeof what, "%s bcast %s", path, ty<T>::name());
    expect_near(what, dget(b, n), rounded<T>(want), 0.0);
    mpiad_gpu_free(b);
  }
  /* Allgather: block q of the result is val(q, .). */
  vec mine(n), gathered(tot);
  for (int k = 0; k < n; ++k)
    mine[k] = val(rank, k);
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < n; ++k)
      gathered[(size_t)q * n + k] = val(q, k);
  gathered = rounded<T>(gathered);
  for (int in_place = 0; in_place < 2; ++in_place) {
    vec init(tot, -7.0);
    if (in_place)
      for (int k = 0; k < n; ++k)
        init[(size_t)rank * n + k] = mine[k];
    T *s = dput<T>(mine), *r = dput<T>(init);
    T_OK(mpiad_gpu_allgather(in_place ? MPI_IN_PLACE : s, n, t, r, n, t, c));
    snprintf(what, sizeof what, "%s allgather %s%s", path, ty<T>::name(),
             in_place ? " in place" : "");
    expect_near(what, dget(r, tot), gathered, 0.0);
    mpiad_gpu_free(s);
    mpiad_gpu_free(r);
  }
  /* Reduce_scatter_block (SUM and MAX): rank r gets block r of the
   * reduction of the inputs val(q, j) + j over q. */
  for (int op = 0; op < 4; op += 2) {
    vec in(tot), want(n);
    for (size_t j = 0; j < tot; ++j)
      in[j] = op == 2 ? mval(rank, (int)j) : val(rank, (int)j) + (double)j;
    for (int k = 0; k < n; ++k) {
      size_t j = (size_t)rank * n + k;
      double y = op == 2 ? mval(0, (int)j) : val(0, (int)j) + (double)j;
      for (int q = 1; q < size; ++q) {
        double v = op == 2 ? mval(q, (int)j) : val(q, (int)j) + (double)j;
        y = op == 2 ? fmax(y, v) : y + v;
      }
      want[k] = y;
    }
    for (int in_place = 0; in_place < 2; ++in_place) {
      T *s = dput<T>(in), *r = dput<T>(in_place ? in : vec(n, -7.0));
      T_OK(mpiad_gpu_reduce_scatter_block(in_place ? MPI_IN_PLACE : s, r, n, t,
                                          ops[op], c));
      snprintf(what, sizeof what, "%s reduce_scatter_block %s %s%s", path,
               op_names[op], ty<T>::name(), in_place ? " in place" : "");
      expect_near(what, dget(r, n), rounded<T>(want), ty<T>::tol());
      mpiad_gpu_free(s);
      mpiad_gpu_free(r);
    }
  }
  /* Alltoall: send_r[q n + k] = 100 r + 10 q + k, so recv_r[q n + k] = 100 q
   * + 10 r + k. */
  {
    vec sendv(tot), want(tot);
    for (int q = 0; q < size; ++q)
      for (int k = 0; k < n; ++k) {
        sendv[(size_t)q * n + k] = 100.0 * rank + 10.0 * q + k;
        want[(size_t)q * n + k] = 100.0 * q + 10.0 * rank + k;
      }
    for (int in_place = 0; in_place < 2; ++in_place) {
      T *s = dput<T>(sendv), *r = dput<T>(in_place ? sendv : vec(tot, -7.0));
      T_OK(mpiad_gpu_alltoall(in_place ? MPI_IN_PLACE : s, n, t, r, n, t, c));
      snprintf(what, sizeof what, "%s alltoall %s%s", path, ty<T>::name(),
               in_place ? " in place" : "");
      expect_near(what, dget(r, tot), want, 0.0);
      mpiad_gpu_free(s);
      mpiad_gpu_free(r);
    }
  }
  /* Gather and scatter, roots 0 and last, in place at the root or not. */
  int roots[2] = {0, size - 1};
  for (int ri = 0; ri < 2; ++ri) {
    int root = roots[ri];
    for (int in_place = 0; in_place < 2; ++in_place) {
      int ip = in_place && rank == root;
      vec init(tot, -7.0);
      if (ip)
        for (int k = 0; k < n; ++k)
          init[(size_t)root * n + k] = mine[k];
      T *s = dput<T>(mine), *r = rank == root ? dput<T>(init) : NULL;
      T_OK(mpiad_gpu_gather(ip ? MPI_IN_PLACE : s, n, t, r, n, t, root, c));
      if (rank == root) {
        snprintf(what, sizeof what, "%s gather %s root %d%s", path,
                 ty<T>::name(), root, in_place ? " in place" : "");
        expect_near(what, dget(r, tot), gathered, 0.0);
      }
      mpiad_gpu_free(s);
      mpiad_gpu_free(r);

      /* scatter: block q of the root's buffer is val(q, .) */
      T *sb = rank == root ? dput<T>(gathered) : NULL;
      T *rb = ip ? NULL : dput<T>(vec(n, -7.0));
      T_OK(mpiad_gpu_scatter(sb, n, t, ip ? MPI_IN_PLACE : rb, n, t, root, c));
      snprintf(what, sizeof what, "%s scatter %s root %d%s", path,
               ty<T>::name(), root, in_place ? " in place" : "");
      if (ip) /* the root's block stays in the send buffer */
        expect_near(what, dget(sb, tot), gathered, 0.0);
      else
        expect_near(what, dget(rb, n), rounded<T>(mine), 0.0);
      mpiad_gpu_free(sb);
      mpiad_gpu_free(rb);
    }
  }
}

/* ------------------------------------------------------------------------- */
/* Point to point                                                            */
/* ------------------------------------------------------------------------- */

template <class T>
static void test_p2p(MPI_Comm c, const char *path, int mpi_path) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 6;
  char what[160];
  MPI_Status st;
  int cnt = -1;

  /* MPI_PROC_NULL: nothing sent, an empty status, the buffer untouched. */
  T *b = dput<T>(vec(n, -7.0));
  T_OK(mpiad_gpu_send(b, n, t, MPI_PROC_NULL, 1, c));
  T_OK(mpiad_gpu_recv(b, n, t, MPI_PROC_NULL, 1, c, &st));
  MPI_Get_count(&st, t, &cnt);
  expect_int("recv from MPI_PROC_NULL: count", cnt, 0);
  expect_int("recv from MPI_PROC_NULL: source", st.MPI_SOURCE, MPI_PROC_NULL);
  expect_near("recv from MPI_PROC_NULL: buffer", dget(b, n), vec(n, -7.0), 0.0);
  T_OK(mpiad_gpu_recv(b, n, t, MPI_PROC_NULL, 1, c, MPI_STATUS_IGNORE));
  mpiad_gpu_free(b);
  if (size < 2)
    return;

  /* A ring shift, ordered so that it also works when sends are synchronous
   * (NCCL): even ranks send first, odd ranks receive first. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  vec x(n), want(n);
  for (int k = 0; k < n; ++k) {
    x[k] = val(rank, k);
    want[k] = val(prev, k);
  }
  T *s = dput<T>(x), *r = dput<T>(vec(n + 2, -7.0));
  for (int turn = 0; turn < 2; ++turn) {
    if ((turn == 0) == (rank % 2 == 0))
      T_OK(mpiad_gpu_send(s, n, t, next, 7, c));
    else
      T_OK(mpiad_gpu_recv(r, n, t, prev, 7, c, &st));
  }
  MPI_Get_count(&st, t, &cnt);
  snprintf(what, sizeof what, "%s ring %s", path, ty<T>::name());
  expect_near(what, dget(r, n), rounded<T>(want), 0.0);
  expect_int("ring: status count", cnt, n);
  expect_int("ring: status source", st.MPI_SOURCE, prev);
  expect_int("ring: status tag", st.MPI_TAG, 7);

  if (mpi_path) {
    /* Wildcards, and fewer elements than the receive count. */
    for (int turn = 0; turn < 2; ++turn) {
      if ((turn == 0) == (rank % 2 == 0))
        T_OK(mpiad_gpu_send(s, n, t, next, 3 + rank, c));
      else
        T_OK(mpiad_gpu_recv(r, n + 2, t, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st));
    }
    MPI_Get_count(&st, t, &cnt);
    snprintf(what, sizeof what, "%s ring with wildcards %s", path,
             ty<T>::name());
    vec w = rounded<T>(want);
    w.push_back(-7.0);
    w.push_back(-7.0);
    expect_near(what, dget(r, n + 2), w, 0.0);
    expect_int("wildcard: status count", cnt, n);
    expect_int("wildcard: status source", st.MPI_SOURCE, prev);
    expect_int("wildcard: status tag", st.MPI_TAG, 3 + prev);
  } else {
    expect_int("NCCL path: MPI_ANY_SOURCE gives MPIAD_ERR_ARG",
               mpiad_gpu_recv(r, n, t, MPI_ANY_SOURCE, 1, c, &st),
               MPIAD_ERR_ARG);
  }
  mpiad_gpu_free(s);
  mpiad_gpu_free(r);
}

/* mpiad_gpu_sendrecv and mpiad_gpu_sendrecv_replace: rings (with itself on
 * one rank), MPI_PROC_NULL halves, an open chain, wildcards and short
 * messages on the MPI path, the NCCL path's argument errors. */
template <class T>
static void test_sendrecv(MPI_Comm c, const char *path, int mpi_path) {
  int rank, size;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  MPI_Datatype t = ty<T>::mpi();
  const int n = 6;
  char what[200];
  MPI_Status st;
  int cnt = -1;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  vec x(n), xp(n);
  for (int k = 0; k < n; ++k) {
    x[k] = val(rank, k);
    xp[k] = val(prev, k);
  }

  /* Both halves MPI_PROC_NULL: nothing happens, an empty status. */
  T *s = dput<T>(x), *r = dput<T>(vec(n + 2, -7.0));
  T_OK(mpiad_gpu_sendrecv(s, n, t, MPI_PROC_NULL, 1, r, n, t, MPI_PROC_NULL, 1,
                          c, &st));
  MPI_Get_count(&st, t, &cnt);
  snprintf(what, sizeof what, "%s sendrecv MPI_PROC_NULL %s", path,
           ty<T>::name());
  expect_near(what, dget(r, n + 2), vec(n + 2, -7.0), 0.0);
  expect_true(what, st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0);

  /* Ring: send to next, receive from prev, in one call on every rank. */
  T_OK(mpiad_gpu_sendrecv(s, n, t, next, 60 + rank, r, n, t, prev, 60 + prev, c,
                          &st));
  MPI_Get_count(&st, t, &cnt);
  snprintf(what, sizeof what, "%s sendrecv ring %s", path, ty<T>::name());
  vec w = rounded<T>(xp);
  w.push_back(-7.0);
  w.push_back(-7.0);
  expect_near(what, dget(r, n + 2), w, 0.0);
  expect_true(what,
              st.MPI_SOURCE == prev && st.MPI_TAG == 60 + prev && cnt == n);

  /* Open chain r -> r + 1: rank 0 receives nothing, the last sends nothing. */
  int dest = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  int src = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  T *r2 = dput<T>(vec(n, -7.0));
  T_OK(mpiad_gpu_sendrecv(s, n, t, dest, 2, r2, n, t, src, 2, c,
                          MPI_STATUS_IGNORE));
  snprintf(what, sizeof what, "%s sendrecv open chain %s", path, ty<T>::name());
  expect_near(what, dget(r2, n),
              src == MPI_PROC_NULL ? vec(n, -7.0) : rounded<T>(xp), 0.0);

  /* Replace around the ring. */
  T *b = dput<T>(x);
  T_OK(mpiad_gpu_sendrecv_replace(b, n, t, next, 5, prev, 5, c, &st));
  MPI_Get_count(&st, t, &cnt);
  snprintf(what, sizeof what, "%s sendrecv_replace ring %s", path,
           ty<T>::name());
  expect_near(what, dget(b, n), rounded<T>(xp), 0.0);
  expect_true(what, st.MPI_SOURCE == prev && st.MPI_TAG == 5 && cnt == n);

  if (mpi_path) {
    /* Wildcards, and a receive count above what arrives. */
    T *r3 = dput<T>(vec(n + 2, -7.0));
    T_OK(mpiad_gpu_sendrecv(s, n, t, next, 70 + rank, r3, n + 2, t,
                            MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st));
    MPI_Get_count(&st, t, &cnt);
    snprintf(what, sizeof what, "%s sendrecv ring with wildcards %s", path,
             ty<T>::name());
    expect_near(what, dget(r3, n + 2), w, 0.0);
    expect_true(what,
                st.MPI_SOURCE == prev && st.MPI_TAG == 70 + prev && cnt == n);
    /* Replace along the open chain with counts n + r: rank r > 0 receives
     * n + r - 1 elements and keeps its last one. */
    int cr = n + rank;
    vec xr(cr), wr(cr);
    for (int k = 0; k < cr; ++k) {
      xr[k] = val(rank, k);
      wr[k] = (double)(T)(src != MPI_PROC_NULL && k < cr - 1 ? val(src, k)
                                                             : val(rank, k));
    }
    T *b2 = dput<T>(xr);
    T_OK(mpiad_gpu_sendrecv_replace(b2, cr, t, dest, 6, src, 6, c, &st));
    MPI_Get_count(&st, t, &cnt);
    snprintf(what, sizeof what, "%s sendrecv_replace short messages %s", path,
             ty<T>::name());
    expect_near(what, dget(b2, cr), wr, 0.0);
    expect_int(what, cnt, src == MPI_PROC_NULL ? 0 : cr - 1);
    mpiad_gpu_free(r3);
    mpiad_gpu_free(b2);
  } else {
    snprintf(what, sizeof what,
             "%s sendrecv: MPI_ANY_SOURCE gives MPIAD_ERR_ARG", path);
    expect_int(what,
               mpiad_gpu_sendrecv(s, n, t, next, 1, r, n, t, MPI_ANY_SOURCE, 1,
                                  c, &st),
               MPIAD_ERR_ARG);
    snprintf(what, sizeof what,
             "%s sendrecv: to itself, from MPI_PROC_NULL gives MPIAD_ERR_ARG",
             path);
    expect_int(
        what,
        mpiad_gpu_sendrecv(s, n, t, rank, 1, r, n, t, MPI_PROC_NULL, 1, c, &st),
        MPIAD_ERR_ARG);
  }
  snprintf(what, sizeof what, "%s sendrecv: MPI_INT gives MPIAD_ERR_ARG", path);
  expect_int(
      what,
      mpiad_gpu_sendrecv(s, n, MPI_INT, next, 1, r, n, t, prev, 1, c, &st),
      MPIAD_ERR_ARG);
  mpiad_gpu_free(s);
  mpiad_gpu_free(r);
  mpiad_gpu_free(r2);
  mpiad_gpu_free(b);
}

template <class T> static void test_all(MPI_Comm c, const char *path) {
  test_allreduce_reduce<T>(c, path);
  test_bcast_gathers<T>(c, path);
  test_p2p<T>(c, path, strcmp(path, "mpi") == 0);
  test_sendrecv<T>(c, path, strcmp(path, "mpi") == 0);
}

int main(int argc, char **argv) {
  int rc = gpu_test_init(&argc, &argv);
  if (rc)
    return rc;
  unsetenv("MPIAD_GPU_COMM"); /* the default path on MPI_COMM_WORLD */
  const char *world_path;
  test_paths(&world_path);
  test_launch_and_sums();
  test_memory();

  MPI_Comm mpi_comm;
  const char *p = dup_with_path("mpi", &mpi_comm);
  if (!p) {
    fprintf(stderr, "rank %d: %s\n", t_rank, mpiad_gpu_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm comms[2] = {MPI_COMM_WORLD, mpi_comm};
  const char *paths[2] = {world_path, "mpi"};
  for (int i = 0; i < 2; ++i) {
    if (t_rank == 0)
      printf("communicator %d: path %s\n", i, paths[i]);
    test_batch(comms[i], paths[i]);
    test_all<double>(comms[i], paths[i]);
    test_all<float>(comms[i], paths[i]);
  }
  MPI_Comm_free(&mpi_comm);
  return gpu_test_finish("gpu_coll");
}
