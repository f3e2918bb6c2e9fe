/*
 * adjoint_comm_coll.c - unit test of the adjoints of MPI collectives
 * (adjoint_comm.c).
 *
 * Linear collectives: the adjoint identity <y_b, A x> = <A^T y_b, x> summed
 * over ranks, with the receive buffer's old contents counted as an input too
 * (so positions a call does not write must keep their adjoint, and positions
 * it writes must get a zero one), for MPI_DOUBLE and MPI_FLOAT, partial = 0/1
 * where it applies (0 with y_b equal on all ranks), in place and not, NULL
 * shadows on rank 0, and the number of collective calls of every fwd/rev
 * (PMPI wrappers below).
 *
 * PROD/MAX/MIN (Allreduce and Reduce): central finite differences of the
 * primal MPI operation along a random direction, exact values with one and
 * two zeros (PROD) and with ties (MAX/MIN: the lowest rank gets it all).
 * The tape must be empty after every case.
 */
#include "adjoint_comm_common.h"

/* ------------------------------------------------------------------------- */
/* Counting collective calls through the MPI profiling interface             */
/* ------------------------------------------------------------------------- */

static int coll_calls, split_calls;

int MPI_Allreduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o,
                  MPI_Comm m) {
  coll_calls++;
  return PMPI_Allreduce(s, r, c, t, o, m);
}
int MPI_Reduce(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o,
               int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Reduce(s, r, c, t, o, root, m);
}
int MPI_Bcast(void *b, int c, MPI_Datatype t, int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Bcast(b, c, t, root, m);
}
int MPI_Allgather(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                  MPI_Datatype rt, MPI_Comm m) {
  coll_calls++;
  return PMPI_Allgather(s, sc, st, r, rc, rt, m);
}
int MPI_Allgatherv(const void *s, int sc, MPI_Datatype st, void *r,
                   const int rc[], const int d[], MPI_Datatype rt, MPI_Comm m) {
  coll_calls++;
  return PMPI_Allgatherv(s, sc, st, r, rc, d, rt, m);
}
int MPI_Gather(const void *s, int sc, MPI_Datatype st, void *r, int rc,
               MPI_Datatype rt, int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Gather(s, sc, st, r, rc, rt, root, m);
}
int MPI_Gatherv(const void *s, int sc, MPI_Datatype st, void *r, const int rc[],
                const int d[], MPI_Datatype rt, int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Gatherv(s, sc, st, r, rc, d, rt, root, m);
}
int MPI_Scatter(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                MPI_Datatype rt, int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Scatter(s, sc, st, r, rc, rt, root, m);
}
int MPI_Scatterv(const void *s, const int sc[], const int d[], MPI_Datatype st,
                 void *r, int rc, MPI_Datatype rt, int root, MPI_Comm m) {
  coll_calls++;
  return PMPI_Scatterv(s, sc, d, st, r, rc, rt, root, m);
}
int MPI_Reduce_scatter_block(const void *s, void *r, int rc, MPI_Datatype t,
                             MPI_Op o, MPI_Comm m) {
  coll_calls++;
  return PMPI_Reduce_scatter_block(s, r, rc, t, o, m);
}
int MPI_Reduce_scatter(const void *s, void *r, const int rc[], MPI_Datatype t,
                       MPI_Op o, MPI_Comm m) {
  coll_calls++;
  return PMPI_Reduce_scatter(s, r, rc, t, o, m);
}
int MPI_Alltoall(const void *s, int sc, MPI_Datatype st, void *r, int rc,
                 MPI_Datatype rt, MPI_Comm m) {
  coll_calls++;
  return PMPI_Alltoall(s, sc, st, r, rc, rt, m);
}
int MPI_Alltoallv(const void *s, const int sc[], const int sd[],
                  MPI_Datatype st, void *r, const int rc[], const int rd[],
                  MPI_Datatype rt, MPI_Comm m) {
  coll_calls++;
  return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, m);
}
int MPI_Scan(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o,
             MPI_Comm m) {
  coll_calls++;
  return PMPI_Scan(s, r, c, t, o, m);
}
int MPI_Exscan(const void *s, void *r, int c, MPI_Datatype t, MPI_Op o,
               MPI_Comm m) {
  coll_calls++;
  return PMPI_Exscan(s, r, c, t, o, m);
}
int MPI_Comm_split(MPI_Comm m, int color, int key, MPI_Comm *out) {
  split_calls++;
  return PMPI_Comm_split(m, color, key, out);
}

/* ------------------------------------------------------------------------- */
/* Linear collectives: a generic adjoint-identity harness                    */
/* ------------------------------------------------------------------------- */

#define N 3
#define MAXP 64

typedef struct {
  const ty_t *T;
  int partial; /* rev's partial argument */
  int inplace; /* the case uses MPI_IN_PLACE (on the ranks MPI allows) */
  int ip;      /* this rank passes MPI_IN_PLACE for the send side */
  int rip;     /* this rank passes MPI_IN_PLACE for the receive side */
  int gaps;    /* v-variants: gaps between segments */
  int root;
  MPI_Comm comm;
  void *S, *Sb, *R, *Rb;
  size_t ns, nr;
  int scounts[MAXP], sdispls[MAXP], rcounts[MAXP], rdispls[MAXP];
} ctx_t;

typedef struct {
  const char *name;
  int replicated;  /* output replicated: partial = 0 is meaningful */
  int ip_allowed;  /* an in-place variant exists */
  int zero_seed0;  /* rank 0's output adjoint is not meaningful (Exscan) */
  int mask_always; /* positions not written are undefined after the call */
  void (*setup)(ctx_t *c);
  void (*primal)(ctx_t *c);
  mpiad_result_t (*rev)(ctx_t *c, void *sb, void *rb);
  /* whether position k of R is written by the call (NULL: all); the others
   * keep their value (their adjoint must be kept) unless mask_always */
  int (*is_out)(const ctx_t *c, size_t k);
} op_t;

static void *SIP(const ctx_t *c) { return c->ip ? MPI_IN_PLACE : c->S; }

/* Block counts for v-variants: rank i's share is 1 + i % 3, 0 for rank 2. */
static int vcount(int i) { return i == 2 ? 0 : 1 + i % 3; }

/* Fills displs from counts (with a gap of one element when c->gaps);
 * returns the extent. */
static size_t layout(const ctx_t *c, const int *counts, int *displs) {
  size_t off = 0;
  for (int i = 0; i < rt_size; ++i) {
    displs[i] = (int)off;
    off += (size_t)counts[i] + (c->gaps ? 1 : 0);
  }
  return off;
}

/* allreduce SUM */
static void ar_setup(ctx_t *c) {
  c->ip = c->inplace;
  c->ns = N;
  c->nr = N;
}
static void ar_primal(ctx_t *c) {
  RT_OK(mpiad_allreduce_fwd(SIP(c), c->R, N, c->T->t, MPI_SUM, c->comm),
        "allreduce_fwd");
}
static mpiad_result_t ar_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_allreduce_rev(sb, rb, N, c->T->t, MPI_SUM, c->comm, c->partial);
}

/* reduce SUM */
static void rd_setup(ctx_t *c) {
  c->ip = c->inplace && rt_rank == c->root;
  c->ns = N;
  c->nr = N;
}
static void rd_primal(ctx_t *c) {
  RT_OK(mpiad_reduce_fwd(SIP(c), c->R, N, c->T->t, MPI_SUM, c->root, c->comm),
        "reduce_fwd");
}
static mpiad_result_t rd_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_reduce_rev(sb, rb, N, c->T->t, MPI_SUM, c->root, c->comm);
}
static int rd_out(const ctx_t *c, size_t k) {
  (void)k;
  return rt_rank == c->root;
}

/* bcast */
static void bc_setup(ctx_t *c) {
  c->ns = 0;
  c->nr = N;
}
static void bc_primal(ctx_t *c) {
  MPI_Bcast(c->R, N, c->T->t, c->root, c->comm);
}
static mpiad_result_t bc_rev(ctx_t *c, void *sb, void *rb) {
  (void)sb;
  return mpiad_bcast_rev(rb, N, c->T->t, c->root, c->comm, c->partial);
}

/* allgather */
static void ag_setup(ctx_t *c) {
  c->ip = c->inplace;
  c->ns = N;
  c->nr = (size_t)N * (size_t)rt_size;
}
static void ag_primal(ctx_t *c) {
  MPI_Allgather(SIP(c), N, c->T->t, c->R, N, c->T->t, c->comm);
}
static mpiad_result_t ag_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_allgather_rev(sb, N, rb, N, c->T->t, c->comm, c->partial);
}

/* allgatherv (with and without gaps) */
static void agv_setup(ctx_t *c) {
  c->ip = c->inplace;
  for (int i = 0; i < rt_size; ++i)
    c->rcounts[i] = vcount(i);
  c->nr = layout(c, c->rcounts, c->rdispls);
  c->ns = (size_t)c->rcounts[rt_rank];
}
static void agv_primal(ctx_t *c) {
  MPI_Allgatherv(SIP(c), c->rcounts[rt_rank], c->T->t, c->R, c->rcounts,
                 c->rdispls, c->T->t, c->comm);
}
static mpiad_result_t agv_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_allgatherv_rev(sb, c->rcounts[rt_rank], rb, c->rcounts,
                              c->rdispls, c->T->t, c->comm, c->partial);
}
static int in_segments(const int *counts, const int *displs, size_t k) {
  for (int i = 0; i < rt_size; ++i)
    if (k >= (size_t)displs[i] && k < (size_t)displs[i] + (size_t)counts[i])
      return 1;
  return 0;
}
static int agv_out(const ctx_t *c, size_t k) {
  return in_segments(c->rcounts, c->rdispls, k);
}

/* gather */
static void ga_setup(ctx_t *c) {
  c->ip = c->inplace && rt_rank == c->root;
  c->ns = N;
  c->nr = rt_rank == c->root ? (size_t)N * (size_t)rt_size : 0;
}
static void ga_primal(ctx_t *c) {
  MPI_Gather(SIP(c), N, c->T->t, c->R, N, c->T->t, c->root, c->comm);
}
static mpiad_result_t ga_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_gather_rev(sb, N, rb, N, c->T->t, c->root, c->comm);
}

/* gatherv */
static void gav_setup(ctx_t *c) {
  c->ip = c->inplace && rt_rank == c->root;
  for (int i = 0; i < rt_size; ++i)
    c->rcounts[i] = vcount(i);
  size_t ext = layout(c, c->rcounts, c->rdispls);
  c->nr = rt_rank == c->root ? ext : 0;
  c->ns = (size_t)c->rcounts[rt_rank];
}
static void gav_primal(ctx_t *c) {
  MPI_Gatherv(SIP(c), c->rcounts[rt_rank], c->T->t, c->R, c->rcounts,
              c->rdispls, c->T->t, c->root, c->comm);
}
static mpiad_result_t gav_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_gatherv_rev(sb, c->rcounts[rt_rank], rb, c->rcounts, c->rdispls,
                           c->T->t, c->root, c->comm);
}

static int gav_out(const ctx_t *c, size_t k) {
  return rt_rank == c->root && in_segments(c->rcounts, c->rdispls, k);
}

/* scatter (in place: the root's recvbuf) */
static void sc_setup(ctx_t *c) {
  c->rip = c->inplace && rt_rank == c->root;
  c->ns = rt_rank == c->root ? (size_t)N * (size_t)rt_size : 0;
  c->nr = c->rip ? 0 : N;
}
static void sc_primal(ctx_t *c) {
  MPI_Scatter(c->S, N, c->T->t, c->rip ? MPI_IN_PLACE : c->R, N, c->T->t,
              c->root, c->comm);
}
static mpiad_result_t sc_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_scatter_rev(sb, N, rb, N, c->T->t, c->root, c->comm);
}

/* scatterv */
static void scv_setup(ctx_t *c) {
  c->rip = c->inplace && rt_rank == c->root;
  for (int i = 0; i < rt_size; ++i)
    c->scounts[i] = vcount(i);
  size_t ext = layout(c, c->scounts, c->sdispls);
  c->ns = rt_rank == c->root ? ext : 0;
  c->nr = c->rip ? 0 : (size_t)c->scounts[rt_rank];
}
static void scv_primal(ctx_t *c) {
  MPI_Scatterv(c->S, c->scounts, c->sdispls, c->T->t,
               c->rip ? MPI_IN_PLACE : c->R, c->scounts[rt_rank], c->T->t,
               c->root, c->comm);
}
static mpiad_result_t scv_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_scatterv_rev(sb, c->scounts, c->sdispls, rb, c->scounts[rt_rank],
                            c->T->t, c->root, c->comm);
}

/* reduce_scatter_block (in place: input in all of recvbuf) */
static void rsb_setup(ctx_t *c) {
  c->ip = c->inplace;
  c->ns = (size_t)N * (size_t)rt_size;
  c->nr = c->ip ? c->ns : N;
}
static void rsb_primal(ctx_t *c) {
  MPI_Reduce_scatter_block(SIP(c), c->R, N, c->T->t, MPI_SUM, c->comm);
}
static mpiad_result_t rsb_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_reduce_scatter_block_rev(sb, rb, N, c->T->t, c->comm);
}
static int rsb_out(const ctx_t *c, size_t k) {
  (void)c;
  return k < N;
}

/* reduce_scatter */
static void rs_setup(ctx_t *c) {
  c->ip = c->inplace;
  size_t tot = 0;
  for (int i = 0; i < rt_size; ++i)
    tot += (size_t)(c->rcounts[i] = vcount(i));
  c->ns = tot;
  c->nr = c->ip ? tot : (size_t)c->rcounts[rt_rank];
}
static void rs_primal(ctx_t *c) {
  MPI_Reduce_scatter(SIP(c), c->R, c->rcounts, c->T->t, MPI_SUM, c->comm);
}
static mpiad_result_t rs_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_reduce_scatter_rev(sb, rb, c->rcounts, c->T->t, c->comm);
}
static int rs_out(const ctx_t *c, size_t k) {
  return k < (size_t)c->rcounts[rt_rank];
}

/* alltoall */
static void a2a_setup(ctx_t *c) {
  c->ip = c->inplace;
  c->ns = c->ip ? 0 : (size_t)N * (size_t)rt_size;
  c->nr = (size_t)N * (size_t)rt_size;
}
static void a2a_primal(ctx_t *c) {
  MPI_Alltoall(SIP(c), N, c->T->t, c->R, N, c->T->t, c->comm);
}
static mpiad_result_t a2a_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_alltoall_rev(sb, N, rb, N, c->T->t, c->comm);
}

/* alltoallv: rank a sends cnt(a, b) elements to rank b (symmetric when in
 * place, as MPI requires). */
static int a2av_cnt(const ctx_t *c, int a, int b) {
  return c->inplace ? (a + b) % 3 : (a + 2 * b + 1) % 3;
}
static void a2av_setup(ctx_t *c) {
  c->ip = c->inplace;
  for (int i = 0; i < rt_size; ++i) {
    c->scounts[i] = a2av_cnt(c, rt_rank, i);
    c->rcounts[i] = a2av_cnt(c, i, rt_rank);
  }
  size_t se = layout(c, c->scounts, c->sdispls);
  c->nr = layout(c, c->rcounts, c->rdispls);
  c->ns = c->ip ? 0 : se;
}
static void a2av_primal(ctx_t *c) {
  MPI_Alltoallv(SIP(c), c->scounts, c->sdispls, c->T->t, c->R, c->rcounts,
                c->rdispls, c->T->t, c->comm);
}
static mpiad_result_t a2av_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_alltoallv_rev(sb, c->scounts, c->sdispls, rb, c->rcounts,
                             c->rdispls, c->T->t, c->comm);
}

static int a2av_out(const ctx_t *c, size_t k) {
  return in_segments(c->rcounts, c->rdispls, k);
}

/* scan / exscan */
static void scan_setup(ctx_t *c) {
  c->ip = c->inplace;
  c->ns = N;
  c->nr = N;
}
static void scan_primal(ctx_t *c) {
  MPI_Scan(SIP(c), c->R, N, c->T->t, MPI_SUM, c->comm);
}
static mpiad_result_t scan_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_scan_rev(sb, rb, N, c->T->t, c->comm);
}
static void exscan_primal(ctx_t *c) {
  MPI_Exscan(SIP(c), c->R, N, c->T->t, MPI_SUM, c->comm);
}
static mpiad_result_t exscan_rev(ctx_t *c, void *sb, void *rb) {
  return mpiad_exscan_rev(sb, rb, N, c->T->t, c->comm);
}

static const op_t OPS[] = {
    {"allreduce_sum", 1, 1, 0, 0, ar_setup, ar_primal, ar_rev, NULL},
    {"reduce_sum", 0, 1, 0, 0, rd_setup, rd_primal, rd_rev, rd_out},
    {"bcast", 1, 0, 0, 0, bc_setup, bc_primal, bc_rev, NULL},
    {"allgather", 1, 1, 0, 0, ag_setup, ag_primal, ag_rev, NULL},
    {"allgatherv", 1, 1, 0, 0, agv_setup, agv_primal, agv_rev, agv_out},
    {"gather", 0, 1, 0, 0, ga_setup, ga_primal, ga_rev, NULL},
    {"gatherv", 0, 1, 0, 0, gav_setup, gav_primal, gav_rev, gav_out},
    {"scatter", 0, 1, 0, 0, sc_setup, sc_primal, sc_rev, NULL},
    {"scatterv", 0, 1, 0, 0, scv_setup, scv_primal, scv_rev, NULL},
    {"reduce_scatter_block", 0, 1, 0, 1, rsb_setup, rsb_primal, rsb_rev,
     rsb_out},
    {"reduce_scatter", 0, 1, 0, 1, rs_setup, rs_primal, rs_rev, rs_out},
    {"alltoall", 0, 1, 0, 0, a2a_setup, a2a_primal, a2a_rev, NULL},
    {"alltoallv", 0, 1, 0, 0, a2av_setup, a2av_primal, a2av_rev, a2av_out},
    {"scan", 0, 1, 0, 0, scan_setup, scan_primal, scan_rev, NULL},
    {"exscan", 0, 1, 1, 0, scan_setup, exscan_primal, exscan_rev, NULL},
};

/* One case: primal, seeds, rev, identity, zeroed outputs, call counts,
 * tape balance.  nulls: rank 0 passes NULL shadows (no derivative there). */
static void run_linear(const op_t *d, const ty_t *T, int partial, int inplace,
                       int gaps, int nulls, unsigned long long id) {
  char label[160];
  snprintf(label, sizeof label, "%s %s partial=%d inplace=%d gaps=%d nulls=%d",
           d->name, T->name, partial, inplace, gaps, nulls);
  ctx_t c;
  memset(&c, 0, sizeof c);
  c.T = T;
  c.partial = partial;
  c.inplace = inplace;
  c.gaps = gaps;
  c.root = rt_size - 1;
  c.comm = MPI_COMM_WORLD;
  d->setup(&c);
  int null_here = nulls && rt_rank == 0;

  c.S = talloc(T, c.ns);
  c.R = talloc(T, c.nr);
  rseed(id * 1000 + (unsigned long long)rt_rank);
  tfill(T, c.S, c.ns);
  tfill(T, c.R, c.nr);
  if (null_here) { /* no derivative here: count rank 0's inputs as zero */
    memset(c.S, 0, (c.ns ? c.ns : 1) * T->esz);
    memset(c.R, 0, (c.nr ? c.nr : 1) * T->esz);
  }
  void *R0 = tdup(T, c.R, c.nr);

  int before = coll_calls;
  d->primal(&c);
  RT_CHECK(coll_calls - before == 1, "%s: fwd made %d collective calls", label,
           coll_calls - before);

  /* Output adjoint: equal on all ranks when the output is replicated and the
   * helper is told it is exact. */
  int same = d->replicated && !partial;
  rseed(same ? id * 7777 : id * 1000 + 500 + (unsigned long long)rt_rank);
  void *yb = talloc(T, c.nr);
  tfill(T, yb, c.nr);
  for (size_t k = 0; k < c.nr; ++k)
    if ((d->is_out && !d->is_out(&c, k) && (same || d->mask_always)) ||
        (d->zero_seed0 && rt_rank == 0) || null_here)
      sv(T, yb, k, 0.0);
  void *Sb0 = talloc(T, c.ns);
  tfill(T, Sb0, c.ns);
  c.Sb = tdup(T, Sb0, c.ns);
  c.Rb = tdup(T, yb, c.nr);

  void *sb = c.ip ? MPI_IN_PLACE : null_here ? NULL : c.Sb;
  void *rb = c.rip ? MPI_IN_PLACE : null_here ? NULL : c.Rb;
  before = coll_calls;
  RT_OK(d->rev(&c, sb, rb), label);
  int want = same ? 0 : 1;
  RT_CHECK(coll_calls - before == want,
           "%s: rev made %d collective calls, want %d", label,
           coll_calls - before, want);

  double scale = 0;
  double lhs = tdot(T, yb, c.R, c.nr);
  scale += tadot(T, yb, c.R, c.nr);
  if (same && rt_rank != 0) {
    lhs = 0; /* a replicated output counts once */
    scale = 0;
  }
  double rhs = 0;
  if (!null_here) {
    if (!c.ip)
      rhs += tdiffdot(T, c.Sb, Sb0, c.S, c.ns, &scale);
    rhs += tdot(T, c.Rb, R0, c.nr);
    scale += tadot(T, c.Rb, R0, c.nr);
  } else {
    RT_CHECK(memcmp(c.Sb, Sb0, c.ns * T->esz) == 0, "%s: NULL shadow touched",
             label);
  }
  check_ident(label, lhs, rhs, scale, T->tol);
  /* Written (non-input) positions of the output must have a zero adjoint. */
  if (!c.ip && !null_here && !c.rip) {
    int bad = 0;
    for (size_t k = 0; k < c.nr; ++k)
      bad += (!d->is_out || d->is_out(&c, k)) &&
             !(d->zero_seed0 && rt_rank == 0) &&
             !(d == &OPS[2] && rt_rank == c.root) && gv(T, c.Rb, k) != 0.0;
    RT_CHECK(bad == 0, "%s: %d output adjoints not zeroed", label, bad);
  }
  RT_CHECK(mpiad_tape_bytes() == 0, "%s: tape holds %zu bytes", label,
           mpiad_tape_bytes());
  free(c.S);
  free(c.R);
  free(R0);
  free(yb);
  free(Sb0);
  free(c.Sb);
  free(c.Rb);
}

static void test_linear(void) {
  unsigned long long id = 1;
  for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; ++o) {
    const op_t *d = &OPS[o];
    int is_v = strchr(d->name, 'v') && strcmp(d->name, "reduce_scatter") != 0;
    for (int ti = 0; ti < 2; ++ti)
      for (int partial = d->replicated ? 0 : 1; partial <= 1; ++partial)
        for (int ip = 0; ip <= d->ip_allowed; ++ip)
          for (int gaps = 0; gaps <= is_v; ++gaps)
            for (int nulls = 0; nulls <= (partial && !ip); ++nulls)
              run_linear(d, &TY[ti], partial, ip, gaps, nulls, id++);
  }
}

/* The reversed communicator of Scan/Exscan is made once per communicator
 * (above: for MPI_COMM_WORLD), cached, and freed with its communicator. */
static void test_scan_cache(void) {
  RT_CHECK(split_calls == 1, "%d MPI_Comm_split calls for MPI_COMM_WORLD",
           split_calls);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  double x = 1.0 + rt_rank, y, xb = 0, yb = 1.0;
  MPI_Scan(&x, &y, 1, MPI_DOUBLE, MPI_SUM, dup);
  int before = split_calls;
  for (int i = 0; i < 3; ++i) {
    yb = 1.0;
    RT_OK(mpiad_scan_rev(&xb, &yb, 1, MPI_DOUBLE, dup), "scan_rev dup");
  }
  RT_CHECK(split_calls - before == 1, "%d splits", split_calls - before);
  /* x_b[r] = 3 * (number of ranks q >= r) */
  RT_CHECK(xb == 3.0 * (rt_size - rt_rank), "scan xb %g", xb);
  MPI_Comm_free(&dup); /* frees the cached reversed communicator too */
}

/* ------------------------------------------------------------------------- */
/* PROD / MAX / MIN                                                          */
/* ------------------------------------------------------------------------- */

/* J(x) = sum over counted ranks of <yb, op(x)> through the primal MPI op. */
static double eval_J(const ty_t *T, int is_reduce, MPI_Op op, const void *x,
                     const void *yb, size_t n, int count_once) {
  void *y = talloc(T, n);
  if (is_reduce)
    PMPI_Reduce(x, y, (int)n, T->t, op, rt_size - 1, MPI_COMM_WORLD);
  else
    PMPI_Allreduce(x, y, (int)n, T->t, op, MPI_COMM_WORLD);
  double j = 0;
  if (!is_reduce || rt_rank == rt_size - 1)
    j = tdot(T, yb, y, n);
  if (count_once && rt_rank != 0)
    j = 0;
  double s;
  PMPI_Allreduce(&j, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(y);
  return s;
}

static const char *op_name(MPI_Op op) {
  return op == MPI_PROD ? "prod" : op == MPI_MAX ? "max" : "min";
}

/* Runs fwd and rev on x (n elements), seeds yb; returns the input adjoint
 * contribution in g (send_b after minus before, or recv_b in place). */
static void nl_run(const ty_t *T, int is_reduce, MPI_Op op, int partial,
                   int inplace, const void *x, void *y, const void *yb, void *g,
                   size_t n, int exact, const char *label) {
  int root = rt_size - 1, is_root = rt_rank == root;
  int ip = inplace && (!is_reduce || is_root);
  void *sb0 = talloc(T, n), *sb, *rb = tdup(T, yb, n);
  rseed(99 + (unsigned long long)rt_rank);
  if (!exact) /* exact values: start from 0, so nothing is lost to rounding */
    tfill(T, sb0, n);
  sb = tdup(T, sb0, n);
  int before = coll_calls;
  if (ip)
    memcpy(y, x, n * T->esz);
  if (is_reduce)
    RT_OK(mpiad_reduce_fwd(ip ? MPI_IN_PLACE : x, y, (int)n, T->t, op, root,
                           MPI_COMM_WORLD),
          label);
  else
    RT_OK(mpiad_allreduce_fwd(ip ? MPI_IN_PLACE : x, y, (int)n, T->t, op,
                              MPI_COMM_WORLD),
          label);
  RT_CHECK(coll_calls - before == 1, "%s: fwd made %d collective calls", label,
           coll_calls - before);
  if (!is_reduce || is_root || op == MPI_PROD)
    RT_CHECK(mpiad_tape_bytes() > 0, "%s: fwd recorded nothing", label);
  before = coll_calls;
  if (is_reduce)
    RT_OK(mpiad_reduce_rev(ip ? MPI_IN_PLACE : sb, is_root ? rb : NULL, (int)n,
                           T->t, op, root, MPI_COMM_WORLD),
          label);
  else
    RT_OK(mpiad_allreduce_rev(ip ? MPI_IN_PLACE : sb, rb, (int)n, T->t, op,
                              MPI_COMM_WORLD, partial),
          label);
  int want = is_reduce ? 1 : partial;
  RT_CHECK(coll_calls - before == want, "%s: rev made %d collective calls",
           label, coll_calls - before);
  for (size_t k = 0; k < n; ++k)
    sv(T, g, k, ip ? gv(T, rb, k) : gv(T, sb, k) - gv(T, sb0, k));
  if (!ip && (!is_reduce || is_root))
    RT_CHECK(tallzero(T, rb, n), "%s: recv_b not zeroed", label);
  RT_CHECK(mpiad_tape_bytes() == 0, "%s: tape holds %zu bytes", label,
           mpiad_tape_bytes());
  free(sb0);
  free(sb);
  free(rb);
}

/* Finite-difference check at a random point (no zeros, no ties). */
static void test_nl_fd(const ty_t *T, int is_reduce, MPI_Op op, int partial,
                       int inplace) {
  enum { n = 7 };
  char label[128];
  snprintf(label, sizeof label, "%s_%s %s partial=%d inplace=%d FD",
           is_reduce ? "reduce" : "allreduce", op_name(op), T->name, partial,
           inplace);
  void *x = talloc(T, n), *y = talloc(T, n), *yb = talloc(T, n),
       *g = talloc(T, n), *dx = talloc(T, n), *xp = talloc(T, n);
  rseed(5 + (unsigned long long)rt_rank);
  for (size_t k = 0; k < n; ++k) {
    double u = urand();
    if (op == MPI_PROD) /* |x| in [0.5, 1.5], either sign */
      sv(T, x, k, (u < 0 ? -1 : 1) * (0.5 + fabs(urand())));
    else /* distinct integer parts per rank: no ties, no flips */
      sv(T, x, k,
         (double)((rt_rank * 5 + (int)k * 3) % (rt_size * 2 + 1)) +
             0.25 * (u + 1));
    sv(T, dx, k, urand());
  }
  int same = !is_reduce && !partial;
  rseed(same ? 4242 : 4242 + (unsigned long long)rt_rank);
  tfill(T, yb, n);
  nl_run(T, is_reduce, op, partial, inplace, x, y, yb, g, n, 0, label);

  double h = T->f32 ? 1e-2 : 1e-6;
  for (size_t k = 0; k < n; ++k)
    sv(T, xp, k, gv(T, x, k) + h * gv(T, dx, k));
  double jp = eval_J(T, is_reduce, op, xp, yb, n, same);
  for (size_t k = 0; k < n; ++k)
    sv(T, xp, k, gv(T, x, k) - h * gv(T, dx, k));
  double jm = eval_J(T, is_reduce, op, xp, yb, n, same);
  /* the actual (rounded) step, for float */
  double fd = (jp - jm) / (2 * h);
  double ad_l = tdot(T, g, dx, n), ad, sc_l = tadot(T, g, dx, n), sc;
  PMPI_Allreduce(&ad_l, &ad, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&sc_l, &sc, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double tol = T->f32 ? 2e-3 : 1e-7;
  RT_CHECK(fabs(fd - ad) <= tol * (sc + fabs(fd)) + 1e-12,
           "%s: FD %.17g AD %.17g", label, fd, ad);
  /* the primal value matches the MPI op */
  void *yref = talloc(T, n);
  if (is_reduce)
    PMPI_Reduce(x, yref, n, T->t, op, rt_size - 1, MPI_COMM_WORLD);
  else
    PMPI_Allreduce(x, yref, n, T->t, op, MPI_COMM_WORLD);
  if (!is_reduce || rt_rank == rt_size - 1)
    for (size_t k = 0; k < n; ++k)
      RT_CHECK(fabs(gv(T, y, k) - gv(T, yref, k)) <=
                   (T->f32 ? 1e-6 : 1e-15) * 4 * fabs(gv(T, yref, k)),
               "%s: y[%zu] %g want %g", label, k, gv(T, y, k), gv(T, yref, k));
  free(yref);
  free(x);
  free(y);
  free(yb);
  free(g);
  free(dx);
  free(xp);
}

/* PROD with zeros (exact values) and MAX/MIN with ties (lowest rank gets the
 * whole adjoint).  Values are powers of two, so everything is exact. */
static void test_nl_exact(const ty_t *T, int is_reduce, MPI_Op op, int partial,
                          int inplace) {
  enum { n = 4 };
  char label[128];
  snprintf(label, sizeof label, "%s_%s %s partial=%d inplace=%d exact",
           is_reduce ? "reduce" : "allreduce", op_name(op), T->name, partial,
           inplace);
  const int P = rt_size, r = rt_rank;
  double xv[MAXP][n];
  for (int q = 0; q < P; ++q) {
    double base = (q % 2 ? -2.0 : 0.5) * (q % 3 == 2 ? 4.0 : 1.0);
    if (op == MPI_PROD) {
      xv[q][0] = (P > 1 ? q == 1 : q == 0) ? 0.0 : base; /* one zero */
      xv[q][1] = q <= 1 ? 0.0 : base;                    /* two zeros (P>1) */
      xv[q][2] = base;                                   /* none */
      xv[q][3] = q == P - 1 ? 0.0 : 2.0 * base;          /* one zero, last */
    } else {
      double s = op == MPI_MAX ? 1.0 : -1.0;
      xv[q][0] = 3.0;                         /* all tie: rank 0 */
      xv[q][1] = q == 0 ? -s * 8.0 : s * 5.0; /* tie of ranks >= 1 */
      xv[q][2] = s * (double)(q % 2);         /* tie of the odd ranks */
      xv[q][3] = s * (double)q;               /* last rank */
    }
  }
  void *x = talloc(T, n), *y = talloc(T, n), *yb = talloc(T, n),
       *g = talloc(T, n);
  double ybv[MAXP][n];
  for (int q = 0; q < P; ++q)
    for (int k = 0; k < n; ++k)
      ybv[q][k] = (partial || is_reduce) ? (double)(q + 1) * (k + 1) : k + 1.0;
  for (int k = 0; k < n; ++k) {
    sv(T, x, k, xv[r][k]);
    sv(T, yb, k, ybv[r][k]);
  }
  nl_run(T, is_reduce, op, partial, inplace, x, y, yb, g, n, 1, label);
  int root = P - 1;
  for (int k = 0; k < n; ++k) {
    /* total output adjoint */
    double ytot = 0;
    if (is_reduce)
      ytot = ybv[root][k];
    else if (partial)
      for (int q = 0; q < P; ++q)
        ytot += ybv[q][k];
    else
      ytot = ybv[0][k];
    double want, yval;
    if (op == MPI_PROD) {
      double others = 1, all = 1;
      for (int q = 0; q < P; ++q) {
        all *= xv[q][k];
        if (q != r)
          others *= xv[q][k];
      }
      want = ytot * others;
      yval = all;
    } else {
      int owner = 0;
      for (int q = 1; q < P; ++q)
        if (op == MPI_MAX ? xv[q][k] > xv[owner][k] : xv[q][k] < xv[owner][k])
          owner = q;
      want = owner == r ? ytot : 0.0;
      yval = xv[owner][k];
    }
    double got = gv(T, g, k);
    RT_CHECK(got == want && !isnan(got), "%s: adjoint[%d] %.17g want %.17g",
             label, k, got, want);
    if (!is_reduce || r == root)
      RT_CHECK(gv(T, y, k) == yval, "%s: y[%d] %g want %g", label, k,
               gv(T, y, k), yval);
  }
  free(x);
  free(y);
  free(yb);
  free(g);
}

static void test_nonlinear(void) {
  MPI_Op ops[3] = {MPI_PROD, MPI_MAX, MPI_MIN};
  for (int ti = 0; ti < 2; ++ti)
    for (int red = 0; red <= 1; ++red)
      for (int o = 0; o < 3; ++o)
        for (int partial = red ? 1 : 0; partial <= 1; ++partial)
          for (int ip = 0; ip <= 1; ++ip) {
            test_nl_fd(&TY[ti], red, ops[o], partial, ip);
            test_nl_exact(&TY[ti], red, ops[o], partial, ip);
          }
}

/* A long vector (past the scratch's first size and a tape chunk) and a
 * repeated run: the scratch is reused. */
static void test_large(void) {
  enum { n = 20000 };
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y),
         *yb = malloc(n * sizeof *yb), *xb = calloc(n, sizeof *xb);
  for (int rep = 0; rep < 2; ++rep) {
    for (int k = 0; k < n; ++k) {
      x[k] = 1.0 + 0.001 * ((k + rt_rank) % 7);
      yb[k] = 1.0;
      xb[k] = 0.0;
    }
    RT_OK(mpiad_allreduce_fwd(x, y, n, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD),
          "large fwd");
    RT_OK(
        mpiad_allreduce_rev(xb, yb, n, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD, 0),
        "large rev");
    int bad = 0;
    for (int k = 0; k < n; ++k)
      bad += fabs(xb[k] - y[k] / x[k]) > 1e-12 * fabs(y[k]);
    RT_CHECK(bad == 0, "large PROD: %d wrong", bad);
  }
  RT_CHECK(mpiad_tape_bytes() == 0, "large: tape %zu", mpiad_tape_bytes());
  free(x);
  free(y);
  free(yb);
  free(xb);
}

static void test_bad_args(void) {
  int xi = 0, yi = 0;
  RT_CHECK(mpiad_allreduce_fwd(&xi, &yi, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
               MPIAD_ERR_ARG,
           "MPI_INT accepted");
  double a = 0, b = 0;
  RT_CHECK(mpiad_allreduce_fwd(&a, &b, 1, MPI_DOUBLE, MPI_BAND,
                               MPI_COMM_WORLD) == MPIAD_ERR_ARG,
           "MPI_BAND accepted");
  RT_CHECK(mpiad_bcast_rev(&a, 1, MPI_LONG, 0, MPI_COMM_WORLD, 1) ==
               MPIAD_ERR_ARG,
           "MPI_LONG accepted");
}

int main(int argc, char **argv) {
  rt_init(&argc, &argv);
  ty_init();
  if (rt_size > MAXP) {
    if (rt_rank == 0)
      fprintf(stderr, "at most %d ranks\n", MAXP);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  test_linear();
  test_scan_cache();
  test_nonlinear();
  test_large();
  test_bad_args();
  return rt_finish("adjoint_comm_coll");
}
