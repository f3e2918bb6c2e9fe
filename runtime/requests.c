/*
 * requests.c - adjoints and tangents of non-blocking communication, and the
 * bookkeeping shared with the blocking point-to-point adjoints
 * (adjoint_comm.c).  requests.h explains the design; mpiad.h documents the
 * entry points.
 *
 * Reversal.  The forward helper of a start (mpiad_isend_fwd, ...) starts the
 * primal operation, remembers its transfer under the request handle and
 * pushes a start record.  The forward helper of a completion
 * (mpiad_wait_fwd, ...) completes the requests and pushes, for each tracked
 * one, its transfer (with the actual source, tag and count of a receive),
 * then a group record with their number.  In the reverse sweep the adjoint
 * of the completion (mpiad_complete_rev) pops the group and starts the
 * reverse transfers without blocking; the adjoint of the start
 * (mpiad_start_rev) pops its start record, waits for its reverse transfer
 * and accumulates.  A wait thus becomes the start of the reverse transfer and
 * a start becomes its wait, so a deadlock-free program has a deadlock-free
 * adjoint.
 *
 * Memory.  Tables and stacks grow by doubling and are kept: a program that
 * repeats the same adjoint allocates nothing after the first run.  All of it
 * is freed in MPI_Finalize.  Lookups by handle scan the outstanding requests
 * (a handful in halo exchanges).
 */
#include "requests.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn void mpiad_impl_fatal(const char *where, const char *fmt, ...) {
  int initialized = 0, finalized = 0;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "mpiad: %s: ", where);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  fflush(stderr);
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, 1);
  abort();
}

#define FATAL mpiad_impl_fatal

/* Allocations made by this file (mpiad_requests_allocations). */
static size_t allocations;

size_t mpiad_requests_allocations(void) { return allocations; }

/* Grows *p (n elements of `size` bytes in use, *cap allocated) to hold at
 * least `need`; aborts when memory runs out. */
static void grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return;
  size_t c = *cap ? *cap : 16;
  while (c < need)
    c *= 2;
  void *q = realloc(*p, c * size);
  if (!q)
    FATAL("requests", "out of memory");
  allocations++;
  *p = q;
  *cap = c;
}

static void *grow_bytes(void **p, size_t *cap, size_t bytes) {
  if (bytes > *cap) {
    size_t c = *cap ? *cap : 256;
    while (c < bytes)
      c *= 2;
    void *q = malloc(c);
    if (!q)
      FATAL("requests", "out of memory");
    allocations++;
    free(*p);
    *p = q;
    *cap = c;
  }
  return *p;
}

/* ------------------------------------------------------------------------- */
/* Per-communicator state: stream counters and the collective serial          */
/* ------------------------------------------------------------------------- */

typedef struct {
  uint64_t key; /* 0: empty */
  long long next;
} counter;

typedef struct comm_state {
  counter *tab;
  size_t cap, used;
  long long coll_next; /* serial of the next non-blocking collective */
  int tag_ub;
  struct comm_state *next_state;
} comm_state;

static int state_keyval = MPI_KEYVAL_INVALID;
static comm_state *all_states;
static MPI_Comm last_comm = MPI_COMM_NULL;
static comm_state *last_state;

/* Frees s if it is still live (after MPI_Finalize's hook has freed every
 * state, a late attribute deletion finds nothing to do). */
static void unlink_state(comm_state *s) {
  comm_state **p = &all_states;
  while (*p && *p != s)
    p = &(*p)->next_state;
  if (!*p)
    return;
  *p = s->next_state;
  if (last_state == s) {
    last_state = NULL;
    last_comm = MPI_COMM_NULL;
  }
  free(s->tab);
  free(s);
}

static int state_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  unlink_state(attr);
  return MPI_SUCCESS;
}

static void ensure_finalize_hook(void);

static comm_state *state_of(MPI_Comm comm) {
  if (comm == last_comm && last_state)
    return last_state;
  ensure_finalize_hook();
  if (state_keyval == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, state_delete,
                             &state_keyval, NULL) != MPI_SUCCESS)
    FATAL("requests", "MPI_Comm_create_keyval failed");
  void *attr = NULL;
  int found = 0;
  if (MPI_Comm_get_attr(comm, state_keyval, &attr, &found) != MPI_SUCCESS)
    FATAL("requests", "MPI_Comm_get_attr failed (invalid communicator?)");
  comm_state *s = attr;
  if (!found) {
    s = calloc(1, sizeof *s);
    if (!s)
      FATAL("requests", "out of memory");
    allocations++;
    /* MPI_TAG_UB is the same for every communicator of the process, but
     * only MPI_COMM_WORLD is sure to carry it: Open MPI returns none on a
     * Cartesian communicator (and 32767, the least MPI allows, would limit
     * the adjoint to tags up to 5). */
    int *ub = NULL, f = 0;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &f);
    if (!f || !ub) {
      ub = NULL;
      MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &f);
    }
    s->tag_ub = f && ub ? *ub : 32767;
    s->next_state = all_states;
    all_states = s;
    if (MPI_Comm_set_attr(comm, state_keyval, s) != MPI_SUCCESS)
      FATAL("requests", "MPI_Comm_set_attr failed");
  }
  last_comm = comm;
  last_state = s;
  return s;
}

static uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}

/* The counter of stream (peer, tag) in direction dir (0 send, 1 receive). */
static long long *stream_counter(comm_state *s, int peer, int tag, int dir) {
  uint64_t key = ((uint64_t)(uint32_t)peer << 32 | (uint32_t)tag) * 2 + dir + 1;
  if (2 * (s->used + 1) > s->cap) {
    size_t nc = s->cap ? 2 * s->cap : 64;
    counter *nt = calloc(nc, sizeof *nt);
    if (!nt)
      FATAL("requests", "out of memory");
    allocations++;
    for (size_t i = 0; i < s->cap; ++i)
      if (s->tab[i].key) {
        size_t j = mix(s->tab[i].key) & (nc - 1);
        while (nt[j].key)
          j = (j + 1) & (nc - 1);
        nt[j] = s->tab[i];
      }
    free(s->tab);
    s->tab = nt;
    s->cap = nc;
  }
  size_t j = mix(key) & (s->cap - 1);
  while (s->tab[j].key && s->tab[j].key != key)
    j = (j + 1) & (s->cap - 1);
  if (!s->tab[j].key) {
    s->tab[j].key = key;
    s->used++;
  }
  return &s->tab[j].next;
}

long long mpiad_impl_next_send(MPI_Comm comm, int dest, int tag) {
  return (*stream_counter(state_of(comm), dest, tag, 0))++;
}

int mpiad_impl_adjoint_tag(const mpiad_xfer *x) {
  comm_state *s = state_of(x->comm);
  long long span = MPIAD_SEQ_SPAN;
  if (x->seq < 0)
    FATAL("requests", "a receive started in the differentiated function was "
                      "not completed there, or completed after the reverse "
                      "sweep began");
  if (x->tag < 0 || ((long long)x->tag + 2) * span - 1 > s->tag_ub)
    FATAL("requests",
          "tag %d is too large for the adjoint: tags up to %lld are supported "
          "(MPI_TAG_UB %d / %d adjoint sequence numbers per tag)",
          x->tag, (long long)s->tag_ub / span - 2, s->tag_ub, MPIAD_SEQ_SPAN);
  return (int)(((long long)x->tag + 1) * span + x->seq % span);
}

/* ------------------------------------------------------------------------- */
/* The record stack                                                          */
/* ------------------------------------------------------------------------- */

enum { REC_START = 1, REC_DONE, REC_GROUP, REC_BLOCKING };

typedef struct {
  int what;
  int n; /* REC_GROUP: number of REC_DONE records below it */
  mpiad_xfer x;
} record;

static record *recs;
static size_t nrecs, recs_cap;

static size_t push_record(int what, const mpiad_xfer *x, int n) {
  grow((void **)&recs, &recs_cap, nrecs + 1, sizeof *recs);
  record *r = &recs[nrecs];
  r->what = what;
  r->n = n;
  if (x)
    r->x = *x;
  else
    memset(&r->x, 0, sizeof r->x);
  return nrecs++;
}

static record pop_record(int what, const char *where) {
  if (nrecs == 0)
    FATAL(where, "record stack underflow: the reverse sweep does not mirror "
                 "the forward sweep");
  record r = recs[--nrecs];
  if (r.what != what)
    FATAL(where, "the reverse sweep does not mirror the forward sweep "
                 "(record %d, expected %d)", r.what, what);
  return r;
}

size_t mpiad_impl_record_bytes(void) { return nrecs * sizeof(record); }

/* ------------------------------------------------------------------------- */
/* Receives in posting order: their stream numbers                           */
/* ------------------------------------------------------------------------- */

typedef struct {
  long long rec; /* record holding the transfer once complete, else -1 */
  int done;      /* completed (rec set), or cancelled (rec -1) */
} posted;

static posted *postq;
static size_t postq_head, postq_len, postq_cap;

static size_t post_receive(void) {
  if (postq_head > 0 && postq_head == postq_len)
    postq_head = postq_len = 0;
  grow((void **)&postq, &postq_cap, postq_len + 1, sizeof *postq);
  postq[postq_len].rec = -1;
  postq[postq_len].done = 0;
  return postq_len++;
}

/* Numbers the completed receives at the head of the queue. */
static void number_receives(void) {
  while (postq_head < postq_len && postq[postq_head].done) {
    long long r = postq[postq_head].rec;
    if (r >= 0 && (size_t)r < nrecs) {
      mpiad_xfer *x = &recs[r].x;
      if (x->peer != MPI_PROC_NULL)
        x->seq = (*stream_counter(state_of(x->comm), x->peer, x->tag, 1))++;
    }
    postq_head++;
  }
  if (postq_head == postq_len)
    postq_head = postq_len = 0;
}

/* Fills the actual source, tag and count of a completed receive. */
static void receive_status(mpiad_xfer *x, const MPI_Status *s,
                           const char *where) {
  int n = 0;
  /* With a derived datatype, its basic elements (x->count counts them). */
  int rc = x->derived ? MPI_Get_elements(s, x->utype, &n)
                      : MPI_Get_count(s, x->type, &n);
  if (rc != MPI_SUCCESS || n == MPI_UNDEFINED || n > x->count)
    FATAL(where, "cannot read the element count of a received message");
  x->count = n;
  x->peer = s->MPI_SOURCE;
  x->tag = s->MPI_TAG;
  x->seq = -1;
}

void mpiad_impl_record_blocking_recv(const mpiad_xfer *x0, const MPI_Status *s) {
  mpiad_xfer x = *x0;
  x.op = XFER_RECV;
  receive_status(&x, s, "receive");
  size_t q = post_receive();
  postq[q].rec = (long long)push_record(REC_BLOCKING, &x, 0);
  postq[q].done = 1;
  number_receives();
}

void mpiad_impl_record_blocking_send(const mpiad_xfer *x0) {
  mpiad_xfer x = *x0;
  x.op = XFER_SEND;
  x.seq = x.peer == MPI_PROC_NULL
              ? 0
              : mpiad_impl_next_send(x.comm, x.peer, x.tag);
  push_record(REC_BLOCKING, &x, 0);
}

void mpiad_impl_pop_blocking(int op, mpiad_xfer *x) {
  record r = pop_record(REC_BLOCKING, "reverse of a blocking transfer");
  if (r.x.op != op)
    FATAL("reverse of a blocking transfer",
          "the reverse sweep does not mirror the forward sweep");
  *x = r.x;
}

/* ------------------------------------------------------------------------- */
/* Outstanding requests of the forward sweep (and of forward mode)           */
/* ------------------------------------------------------------------------- */

typedef struct {
  int used;
  int orphan;        /* freed by the program; kept until it completes */
  MPI_Request req;   /* the program's handle */
  MPI_Request *where; /* the program's request variable (to tell apart
                         requests that share a handle value: Open MPI
                         returns one completed handle for every request
                         to MPI_PROC_NULL and for sends done at once) */
  MPI_Request req2;  /* TAN_COLL: the tangent collective */
  mpiad_xfer x;
  long long postq;   /* RECV: its entry in the posting queue */
  void *scratch;
  size_t scratch_cap;
} fslot;

static fslot *fslots;
static size_t nfslots, fslots_cap, fslots_live;
static long long next_id = 1;

static void reap_orphans(int wait) {
  for (size_t i = 0; i < nfslots; ++i)
    if (fslots[i].used && fslots[i].orphan) {
      int flag = 1;
      if (wait)
        MPI_Wait(&fslots[i].req, MPI_STATUS_IGNORE);
      else
        MPI_Test(&fslots[i].req, &flag, MPI_STATUS_IGNORE);
      if (flag) {
        fslots[i].used = fslots[i].orphan = 0;
        fslots_live--;
      }
    }
}

/* Tracks the request just started by a forward helper; numbers it (a send
 * in its stream, a receive in posting order, a collective on its
 * communicator) and, in the forward sweep, pushes its start record. */
static fslot *track(MPI_Request *where, const mpiad_xfer *x,
                    size_t scratch_bytes, int mode_tangent) {
  reap_orphans(0);
  if (fslots_live >= MPIAD_SEQ_SPAN)
    FATAL("requests", "more than %d requests outstanding", MPIAD_SEQ_SPAN);
  size_t i = 0;
  while (i < nfslots && fslots[i].used)
    ++i;
  if (i == nfslots) {
    grow((void **)&fslots, &fslots_cap, nfslots + 1, sizeof *fslots);
    memset(&fslots[nfslots], 0, sizeof *fslots);
    nfslots++;
  }
  fslot *f = &fslots[i];
  f->used = 1;
  f->orphan = 0;
  f->req = where ? *where : MPI_REQUEST_NULL;
  f->where = where;
  f->req2 = MPI_REQUEST_NULL;
  f->x = *x;
  f->x.id = next_id++;
  f->postq = -1;
  fslots_live++;
  if (f->x.op == XFER_SEND)
    f->x.seq = f->x.peer == MPI_PROC_NULL
                   ? 0
                   : mpiad_impl_next_send(f->x.comm, f->x.peer, f->x.tag);
  if (f->x.op == XFER_RECV)
    f->postq = (long long)post_receive();
  if (f->x.op == XFER_ALLREDUCE || f->x.op == XFER_BCAST ||
      f->x.op == XFER_ALLGATHER)
    f->x.seq = state_of(f->x.comm)->coll_next++;
  if (!mode_tangent)
    push_record(REC_START, &f->x, 0);
  if (scratch_bytes)
    grow_bytes(&f->scratch, &f->scratch_cap, scratch_bytes);
  return f;
}

/* The outstanding request with handle req, preferably the one started into
 * the same variable (where). */
static fslot *find_fslot(MPI_Request req, const MPI_Request *where) {
  if (req == MPI_REQUEST_NULL)
    return NULL;
  fslot *any = NULL;
  for (size_t i = 0; i < nfslots; ++i)
    if (fslots[i].used && !fslots[i].orphan && fslots[i].req == req) {
      if (fslots[i].where == where)
        return &fslots[i];
      if (!any)
        any = &fslots[i];
    }
  return any;
}

/* ------------------------------------------------------------------------- */
/* Starts                                                                    */
/* ------------------------------------------------------------------------- */

static void need_type(MPI_Datatype t, int count, int *kind, size_t *esz,
                      const char *where) {
  if (!type_kind(t, kind, esz))
    FATAL(where, "only MPI_DOUBLE and MPI_FLOAT buffers carry derivatives");
  if (count < 0)
    FATAL(where, "negative count %d", count);
}

/* A point-to-point start's buffer: x's basic type and element count, and
 * (held in x) the layout of a derived datatype. */
static void need_p2p_type(MPI_Datatype t, int count, mpiad_xfer *x,
                          const char *where) {
  mpiad_impl_layout *l;
  switch (mpiad_impl_p2p_layout(t, count, INT_MAX / 2, &x->kind, &x->esz, &l,
                                &x->type, &x->count)) {
  case MPIAD_P2P_BAD_TYPE:
    FATAL(where, "only MPI_DOUBLE and MPI_FLOAT buffers (or derived datatypes "
                 "made of one of them) carry derivatives");
  case MPIAD_P2P_BAD_COUNT:
    FATAL(where, "negative count %d", count);
  case MPIAD_P2P_TOO_LARGE:
    FATAL(where, "count %d too large", count);
  }
  x->utype = t;
  x->derived = l != NULL;
  x->lay = l;
  mpiad_impl_layout_hold(l);
}

#define MPI_OK(call, where)                                                    \
  do {                                                                         \
    if ((call) != MPI_SUCCESS)                                                 \
      FATAL(where, "%s failed", #call);                                        \
  } while (0)

static mpiad_result_t isend_fwd(const void *buf, void *buf_b, int count,
                                MPI_Datatype t, int dest, int tag,
                                MPI_Comm comm, MPI_Request *req, int sync) {
  const char *where = sync ? "MPI_Issend" : "MPI_Isend";
  mpiad_xfer x = {0};
  need_p2p_type(t, count, &x, where);
  if (sync)
    MPI_OK(MPI_Issend(buf, count, t, dest, tag, comm, req), where);
  else
    MPI_OK(MPI_Isend(buf, count, t, dest, tag, comm, req), where);
  x.op = XFER_SEND;
  x.a_b = buf_b;
  x.peer = dest;
  x.tag = tag;
  x.comm = comm;
  track(req, &x, 0, 0);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_isend_fwd(const void *buf, void *buf_b, int count,
                               MPI_Datatype t, int dest, int tag, MPI_Comm comm,
                               MPI_Request *req) {
  return isend_fwd(buf, buf_b, count, t, dest, tag, comm, req, 0);
}

mpiad_result_t mpiad_issend_fwd(const void *buf, void *buf_b, int count,
                                MPI_Datatype t, int dest, int tag,
                                MPI_Comm comm, MPI_Request *req) {
  return isend_fwd(buf, buf_b, count, t, dest, tag, comm, req, 1);
}

mpiad_result_t mpiad_irecv_fwd(void *buf, void *buf_b, int count,
                               MPI_Datatype t, int source, int tag,
                               MPI_Comm comm, MPI_Request *req) {
  mpiad_xfer x = {0};
  need_p2p_type(t, count, &x, "MPI_Irecv");
  MPI_OK(MPI_Irecv(buf, count, t, source, tag, comm, req), "MPI_Irecv");
  x.op = XFER_RECV;
  x.a_b = buf_b;
  x.peer = source;
  x.tag = tag;
  x.seq = -1;
  x.comm = comm;
  track(req, &x, 0, 0);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_iallreduce_fwd(const void *send, void *send_b, void *recv,
                                    void *recv_b, int count, MPI_Datatype t,
                                    MPI_Op op, MPI_Comm comm, int partial,
                                    MPI_Request *req) {
  mpiad_xfer x = {0};
  need_type(t, count, &x.kind, &x.esz, "MPI_Iallreduce");
  if (op != MPI_SUM)
    FATAL("MPI_Iallreduce", "only MPI_SUM is differentiated");
  MPI_OK(MPI_Iallreduce(send, recv, count, t, op, comm, req), "MPI_Iallreduce");
  x.op = XFER_ALLREDUCE;
  x.type = t;
  x.a_b = send == MPI_IN_PLACE ? MPI_IN_PLACE : send_b;
  x.b_b = recv_b;
  x.count = count;
  x.partial = partial;
  x.comm = comm;
  track(req, &x, 0, 0);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_ibcast_fwd(void *buf, void *buf_b, int count,
                                MPI_Datatype t, int root, MPI_Comm comm,
                                int partial, MPI_Request *req) {
  mpiad_xfer x = {0};
  need_type(t, count, &x.kind, &x.esz, "MPI_Ibcast");
  MPI_OK(MPI_Ibcast(buf, count, t, root, comm, req), "MPI_Ibcast");
  x.op = XFER_BCAST;
  x.type = t;
  x.a_b = buf_b;
  x.count = count;
  x.root = root;
  x.partial = partial;
  x.comm = comm;
  track(req, &x, 0, 0);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_iallgather_fwd(const void *send, void *send_b,
                                    int sendcount, MPI_Datatype st_, void *recv,
                                    void *recv_b, int recvcount,
                                    MPI_Datatype rt, MPI_Comm comm, int partial,
                                    MPI_Request *req) {
  mpiad_xfer x = {0};
  need_type(rt, recvcount, &x.kind, &x.esz, "MPI_Iallgather");
  if (send != MPI_IN_PLACE && (st_ != rt || sendcount != recvcount))
    FATAL("MPI_Iallgather", "send and receive blocks must have the same type "
                            "and count");
  MPI_OK(MPI_Iallgather(send, sendcount, st_, recv, recvcount, rt, comm, req),
         "MPI_Iallgather");
  x.op = XFER_ALLGATHER;
  x.type = rt;
  x.a_b = send == MPI_IN_PLACE ? MPI_IN_PLACE : send_b;
  x.b_b = recv_b;
  x.count = recvcount;
  x.partial = partial;
  x.comm = comm;
  track(req, &x, 0, 0);
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Completions (forward sweep and forward mode)                              */
/* ------------------------------------------------------------------------- */

/* Handles and statuses copied before a completion call (MPI resets the
 * handles of completed requests to MPI_REQUEST_NULL). */
static MPI_Request *hcopy;
static size_t hcopy_cap;
static MPI_Status *scopy;
static size_t scopy_cap;

static MPI_Request *copy_handles(int n, const MPI_Request *reqs) {
  if (n < 0)
    FATAL("completion", "negative request count %d", n);
  grow((void **)&hcopy, &hcopy_cap, (size_t)n + 1, sizeof *hcopy);
  for (int i = 0; i < n; ++i)
    hcopy[i] = reqs[i];
  return hcopy;
}

static MPI_Status *statuses_for(int n, MPI_Status *user) {
  if (user != MPI_STATUSES_IGNORE)
    return user;
  grow((void **)&scopy, &scopy_cap, (size_t)n + 1, sizeof *scopy);
  return scopy;
}

/* Finishes one completed request of the program.  Forward sweep: pushes the
 * transfer; forward mode: unpacks the tangent. */
static void finish(fslot *f, MPI_Status *s, const char *where) {
  mpiad_xfer *x = &f->x;
  switch (x->op) {
  case XFER_SEND:
  case XFER_ALLREDUCE:
  case XFER_BCAST:
  case XFER_ALLGATHER:
    push_record(REC_DONE, x, 0);
    break;
  case XFER_RECV: {
    receive_status(x, s, where);
    size_t r = push_record(REC_DONE, x, 0);
    postq[f->postq].rec = (long long)r;
    postq[f->postq].done = 1;
    number_receives();
    break;
  }
  case XFER_TAN_SEND:
    break;
  case XFER_TAN_RECV: {
    int m = 0;
    if (MPI_Get_count(s, x->type, &m) != MPI_SUCCESS || m == MPI_UNDEFINED ||
        m % 2 != 0 || m / 2 > x->count)
      FATAL(where, "received a message that no tangent helper sent");
    size_t n = (size_t)(m / 2);
    if (n > 0) {
      mpiad_impl_lscatter(x->buf, f->scratch, x->lay, n, x->esz);
      if (x->buf_d)
        mpiad_impl_lscatter(x->buf_d, at(f->scratch, n, x->esz), x->lay, n,
                            x->esz);
    }
    if (MPI_Status_set_elements(s, x->utype, m / 2) != MPI_SUCCESS)
      FATAL(where, "MPI_Status_set_elements failed");
    mpiad_impl_layout_drop(x->lay);
    break;
  }
  case XFER_TAN_COLL:
    MPI_OK(MPI_Wait(&f->req2, MPI_STATUS_IGNORE), where);
    break;
  }
  f->used = 0;
  fslots_live--;
}

/* After a completion call that completed the requests whose positions are
 * listed (handles: their values before the call). */
static void finish_all(int m, const int *which, const MPI_Request *handles,
                       MPI_Request *vars, MPI_Status *sts, int tangent,
                       const char *where) {
  int done = 0;
  for (int k = 0; k < m; ++k) {
    int i = which ? which[k] : k;
    fslot *f = find_fslot(handles[i], vars + i);
    if (!f)
      continue;
    finish(f, &sts[k], where);
    done++;
  }
  if (!tangent)
    push_record(REC_GROUP, NULL, done);
}

static mpiad_result_t wait_common(MPI_Request *req, MPI_Status *status,
                                  int tangent) {
  MPI_Request h = *req;
  MPI_Status s;
  MPI_OK(MPI_Wait(req, &s), "MPI_Wait");
  finish_all(1, NULL, &h, req, &s, tangent, "MPI_Wait");
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  return MPIAD_SUCCESS;
}

static mpiad_result_t waitall_common(int n, MPI_Request *reqs,
                                     MPI_Status *statuses, int tangent) {
  MPI_Request *h = copy_handles(n, reqs);
  MPI_Status *s = statuses_for(n, statuses);
  MPI_OK(MPI_Waitall(n, reqs, s), "MPI_Waitall");
  finish_all(n, NULL, h, reqs, s, tangent, "MPI_Waitall");
  return MPIAD_SUCCESS;
}

static mpiad_result_t waitany_common(int n, MPI_Request *reqs, int *index,
                                     MPI_Status *status, int tangent) {
  MPI_Request *h = copy_handles(n, reqs);
  MPI_Status s;
  MPI_OK(MPI_Waitany(n, reqs, index, &s), "MPI_Waitany");
  if (*index == MPI_UNDEFINED)
    finish_all(0, NULL, h, reqs, &s, tangent, "MPI_Waitany");
  else
    finish_all(1, index, h, reqs, &s, tangent, "MPI_Waitany");
  if (status != MPI_STATUS_IGNORE)
    *status = s;
  return MPIAD_SUCCESS;
}

static mpiad_result_t waitsome_common(int n, MPI_Request *reqs, int *outcount,
                                      int *indices, MPI_Status *statuses,
                                      int tangent) {
  MPI_Request *h = copy_handles(n, reqs);
  MPI_Status *s = statuses_for(n, statuses);
  MPI_OK(MPI_Waitsome(n, reqs, outcount, indices, s), "MPI_Waitsome");
  int m = *outcount == MPI_UNDEFINED ? 0 : *outcount;
  finish_all(m, indices, h, reqs, s, tangent, "MPI_Waitsome");
  return MPIAD_SUCCESS;
}

static mpiad_result_t test_common(MPI_Request *req, int *flag,
                                  MPI_Status *status, int tangent) {
  MPI_Request h = *req;
  MPI_Status s;
  MPI_OK(MPI_Test(req, flag, &s), "MPI_Test");
  finish_all(*flag ? 1 : 0, NULL, &h, req, &s, tangent, "MPI_Test");
  if (*flag && status != MPI_STATUS_IGNORE)
    *status = s;
  return MPIAD_SUCCESS;
}

static mpiad_result_t testall_common(int n, MPI_Request *reqs, int *flag,
                                     MPI_Status *statuses, int tangent) {
  MPI_Request *h = copy_handles(n, reqs);
  MPI_Status *s = statuses_for(n, statuses);
  MPI_OK(MPI_Testall(n, reqs, flag, s), "MPI_Testall");
  finish_all(*flag ? n : 0, NULL, h, reqs, s, tangent, "MPI_Testall");
  return MPIAD_SUCCESS;
}

static mpiad_result_t request_free_common(MPI_Request *req, int tangent) {
  fslot *f = find_fslot(*req, req);
  if (!f) {
    MPI_OK(MPI_Request_free(req), "MPI_Request_free");
    if (!tangent)
      push_record(REC_GROUP, NULL, 0);
    return MPIAD_SUCCESS;
  }
  if (f->x.op == XFER_SEND) {
    /* The message leaves from the program's buffer: nothing to keep. */
    MPI_OK(MPI_Request_free(req), "MPI_Request_free");
    push_record(REC_DONE, &f->x, 0);
    push_record(REC_GROUP, NULL, 1);
    f->used = 0;
    fslots_live--;
    return MPIAD_SUCCESS;
  }
  if (f->x.op == XFER_TAN_SEND) {
    /* The packed copy must outlive the send: keep the slot until it is
     * known complete. */
    f->orphan = 1;
    *req = MPI_REQUEST_NULL;
    return MPIAD_SUCCESS;
  }
  FATAL("MPI_Request_free", "only send requests may be freed before they "
                            "complete in a differentiated function (a "
                            "receive's status is needed by its adjoint)");
  return MPIAD_ERR_ARG;
}

mpiad_result_t mpiad_wait_fwd(MPI_Request *req, MPI_Status *status) {
  return wait_common(req, status, 0);
}
mpiad_result_t mpiad_waitall_fwd(int n, MPI_Request *reqs,
                                 MPI_Status *statuses) {
  return waitall_common(n, reqs, statuses, 0);
}
mpiad_result_t mpiad_waitany_fwd(int n, MPI_Request *reqs, int *index,
                                 MPI_Status *status) {
  return waitany_common(n, reqs, index, status, 0);
}
mpiad_result_t mpiad_waitsome_fwd(int n, MPI_Request *reqs, int *outcount,
                                  int *indices, MPI_Status *statuses) {
  return waitsome_common(n, reqs, outcount, indices, statuses, 0);
}
mpiad_result_t mpiad_test_fwd(MPI_Request *req, int *flag,
                              MPI_Status *status) {
  return test_common(req, flag, status, 0);
}
mpiad_result_t mpiad_testall_fwd(int n, MPI_Request *reqs, int *flag,
                                 MPI_Status *statuses) {
  return testall_common(n, reqs, flag, statuses, 0);
}
mpiad_result_t mpiad_request_free_fwd(MPI_Request *req) {
  return request_free_common(req, 0);
}

mpiad_result_t mpiad_wait_tan(MPI_Request *req, MPI_Status *status) {
  return wait_common(req, status, 1);
}
mpiad_result_t mpiad_waitall_tan(int n, MPI_Request *reqs,
                                 MPI_Status *statuses) {
  return waitall_common(n, reqs, statuses, 1);
}
mpiad_result_t mpiad_waitany_tan(int n, MPI_Request *reqs, int *index,
                                 MPI_Status *status) {
  return waitany_common(n, reqs, index, status, 1);
}
mpiad_result_t mpiad_waitsome_tan(int n, MPI_Request *reqs, int *outcount,
                                  int *indices, MPI_Status *statuses) {
  return waitsome_common(n, reqs, outcount, indices, statuses, 1);
}
mpiad_result_t mpiad_test_tan(MPI_Request *req, int *flag,
                              MPI_Status *status) {
  return test_common(req, flag, status, 1);
}
mpiad_result_t mpiad_testall_tan(int n, MPI_Request *reqs, int *flag,
                                 MPI_Status *statuses) {
  return testall_common(n, reqs, flag, statuses, 1);
}
mpiad_result_t mpiad_request_free_tan(MPI_Request *req) {
  return request_free_common(req, 1);
}

/* ------------------------------------------------------------------------- */
/* Forward mode starts: the tangent travels with the primal                  */
/* ------------------------------------------------------------------------- */

static mpiad_result_t isend_tan(const void *buf, const void *buf_d, int count,
                                MPI_Datatype t, int dest, int tag,
                                MPI_Comm comm, MPI_Request *req, int sync) {
  const char *where = sync ? "MPI_Issend" : "MPI_Isend";
  mpiad_xfer x = {0};
  need_p2p_type(t, count, &x, where);
  x.op = XFER_TAN_SEND;
  x.comm = comm;
  size_t n = (size_t)x.count;
  /* Track first (with a null handle) to get the slot's buffer. */
  fslot *f = track(NULL, &x, 2 * n * x.esz + 1, 1);
  void *p = f->scratch;
  if (n > 0) {
    mpiad_impl_lgather(p, buf, x.lay, n, x.esz);
    if (buf_d)
      mpiad_impl_lgather(at(p, n, x.esz), buf_d, x.lay, n, x.esz);
    else
      zero(p, n, n, x.esz);
  }
  mpiad_impl_layout_drop(x.lay); /* packed: the layout is not needed again */
  if (sync)
    MPI_OK(MPI_Issend(p, 2 * x.count, x.type, dest, tag, comm, req), where);
  else
    MPI_OK(MPI_Isend(p, 2 * x.count, x.type, dest, tag, comm, req), where);
  f->req = *req;
  f->where = req;
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_isend_tan(const void *buf, const void *buf_d, int count,
                               MPI_Datatype t, int dest, int tag, MPI_Comm comm,
                               MPI_Request *req) {
  return isend_tan(buf, buf_d, count, t, dest, tag, comm, req, 0);
}

mpiad_result_t mpiad_issend_tan(const void *buf, const void *buf_d, int count,
                                MPI_Datatype t, int dest, int tag,
                                MPI_Comm comm, MPI_Request *req) {
  return isend_tan(buf, buf_d, count, t, dest, tag, comm, req, 1);
}

mpiad_result_t mpiad_irecv_tan(void *buf, void *buf_d, int count,
                               MPI_Datatype t, int source, int tag,
                               MPI_Comm comm, MPI_Request *req) {
  mpiad_xfer x = {0};
  need_p2p_type(t, count, &x, "MPI_Irecv");
  x.op = XFER_TAN_RECV;
  x.buf = buf;
  x.buf_d = buf_d;
  x.comm = comm;
  fslot *f = track(NULL, &x, 2 * (size_t)x.count * x.esz + 1, 1);
  MPI_OK(MPI_Irecv(f->scratch, 2 * x.count, x.type, source, tag, comm, req),
         "MPI_Irecv");
  f->req = *req;
  f->where = req;
  return MPIAD_SUCCESS;
}

/* A collective and its tangent twin: the program's handle is the primal's. */
static void track_tan_coll(MPI_Request *primal, MPI_Request tangent,
                           MPI_Comm comm) {
  mpiad_xfer x = {0};
  x.op = XFER_TAN_COLL;
  x.comm = comm;
  track(primal, &x, 0, 1)->req2 = tangent;
}

mpiad_result_t mpiad_iallreduce_tan(const void *send, const void *send_d,
                                    void *recv, void *recv_d, int count,
                                    MPI_Datatype t, MPI_Op op, MPI_Comm comm,
                                    MPI_Request *req) {
  int kind;
  size_t esz;
  need_type(t, count, &kind, &esz, "MPI_Iallreduce");
  if (op != MPI_SUM)
    FATAL("MPI_Iallreduce", "only MPI_SUM is differentiated");
  MPI_Request r2;
  MPI_OK(MPI_Iallreduce(send, recv, count, t, op, comm, req), "MPI_Iallreduce");
  MPI_OK(MPI_Iallreduce(send == MPI_IN_PLACE ? MPI_IN_PLACE : send_d, recv_d,
                        count, t, op, comm, &r2),
         "MPI_Iallreduce");
  track_tan_coll(req, r2, comm);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_ibcast_tan(void *buf, void *buf_d, int count,
                                MPI_Datatype t, int root, MPI_Comm comm,
                                MPI_Request *req) {
  int kind;
  size_t esz;
  need_type(t, count, &kind, &esz, "MPI_Ibcast");
  MPI_Request r2;
  MPI_OK(MPI_Ibcast(buf, count, t, root, comm, req), "MPI_Ibcast");
  MPI_OK(MPI_Ibcast(buf_d, count, t, root, comm, &r2), "MPI_Ibcast");
  track_tan_coll(req, r2, comm);
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_iallgather_tan(const void *send, const void *send_d,
                                    int sendcount, MPI_Datatype st_, void *recv,
                                    void *recv_d, int recvcount,
                                    MPI_Datatype rt, MPI_Comm comm,
                                    MPI_Request *req) {
  int kind;
  size_t esz;
  need_type(rt, recvcount, &kind, &esz, "MPI_Iallgather");
  MPI_Request r2;
  MPI_OK(MPI_Iallgather(send, sendcount, st_, recv, recvcount, rt, comm, req),
         "MPI_Iallgather");
  MPI_OK(MPI_Iallgather(send == MPI_IN_PLACE ? MPI_IN_PLACE : send_d,
                        sendcount, st_, recv_d, recvcount, rt, comm, &r2),
         "MPI_Iallgather");
  track_tan_coll(req, r2, comm);
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Reverse sweep                                                             */
/* ------------------------------------------------------------------------- */

typedef struct {
  int used, started;
  mpiad_xfer x;
  MPI_Request areq;
  void *scratch;
  size_t scratch_cap;
} rslot;

static rslot *rslots;
static size_t nrslots, rslots_cap;

static rslot *new_rslot(const mpiad_xfer *x) {
  size_t i = 0;
  while (i < nrslots && rslots[i].used)
    ++i;
  if (i == nrslots) {
    grow((void **)&rslots, &rslots_cap, nrslots + 1, sizeof *rslots);
    memset(&rslots[nrslots], 0, sizeof *rslots);
    nrslots++;
  }
  rslot *r = &rslots[i];
  r->used = 1;
  r->started = 0;
  r->x = *x;
  r->areq = MPI_REQUEST_NULL;
  return r;
}

static void *rscratch(rslot *r, size_t bytes) {
  return grow_bytes(&r->scratch, &r->scratch_cap, bytes + 1);
}

/* Zeros standing in for the adjoint of a buffer that carries none. */
static const void *or_zeros(rslot *r, const void *b, size_t n, size_t esz) {
  if (b)
    return b;
  void *z = rscratch(r, n * esz);
  zero(z, 0, n, esz);
  return z;
}

static int comm_size_of(MPI_Comm c) {
  int p;
  MPI_OK(MPI_Comm_size(c, &p), "reverse of a collective");
  return p;
}

static int comm_rank_of(MPI_Comm c) {
  int r;
  MPI_OK(MPI_Comm_rank(c, &r), "reverse of a collective");
  return r;
}

/* Starts the reverse transfer of r without blocking. */
static void start_reverse(rslot *r) {
  mpiad_xfer *x = &r->x;
  size_t n = (size_t)x->count, esz = x->esz;
  const char *where = "reverse of a completion";
  r->started = 1;
  switch (x->op) {
  case XFER_SEND:
    if (x->peer == MPI_PROC_NULL)
      return;
    MPI_OK(MPI_Irecv(rscratch(r, n * esz), x->count, x->type, x->peer,
                     mpiad_impl_adjoint_tag(x), x->comm, &r->areq),
           where);
    return;
  case XFER_RECV: {
    if (x->peer == MPI_PROC_NULL)
      return;
    const void *src = or_zeros(r, x->a_b, n, esz);
    if (x->a_b && x->lay) {
      void *g = rscratch(r, n * esz);
      mpiad_impl_lgather(g, x->a_b, x->lay, n, esz);
      src = g;
    }
    MPI_OK(MPI_Isend(src, x->count, x->type, x->peer,
                     mpiad_impl_adjoint_tag(x), x->comm, &r->areq),
           where);
    return;
  }
  case XFER_ALLREDUCE:
    if (!x->partial)
      return;
    if (x->a_b == MPI_IN_PLACE) {
      void *b = x->b_b;
      if (!b) {
        b = rscratch(r, n * esz);
        zero(b, 0, n, esz);
      }
      MPI_OK(MPI_Iallreduce(MPI_IN_PLACE, b, x->count, x->type, MPI_SUM,
                            x->comm, &r->areq),
             where);
    } else {
      void *g = rscratch(r, 2 * n * esz);
      const void *src = x->b_b;
      if (!src) {
        zero(g, n, n, esz);
        src = at(g, n, esz);
      }
      MPI_OK(MPI_Iallreduce(src, g, x->count, x->type, MPI_SUM, x->comm,
                            &r->areq),
             where);
    }
    return;
  case XFER_BCAST: {
    if (!x->partial)
      return;
    if (comm_rank_of(x->comm) == x->root) {
      /* The root may read its buffer while the broadcast is under way, so
       * the reverse of those reads adds to a_b while the reduction runs:
       * reduce a copy, add the sum at the end. */
      void *in = rscratch(r, 2 * n * esz), *out = at(in, n, esz);
      if (x->a_b && n > 0)
        memcpy(in, x->a_b, n * esz);
      else
        zero(in, 0, n, esz);
      zero(x->a_b, 0, n, esz);
      MPI_OK(MPI_Ireduce(in, out, x->count, x->type, MPI_SUM, x->root,
                         x->comm, &r->areq),
             where);
    } else {
      /* Elsewhere the buffer is a receive buffer: untouched until the end. */
      const void *b = or_zeros(r, x->a_b, n, esz);
      MPI_OK(MPI_Ireduce(b, NULL, x->count, x->type, MPI_SUM, x->root,
                         x->comm, &r->areq),
             where);
    }
    return;
  }
  case XFER_ALLGATHER: {
    if (!x->partial)
      return;
    size_t total = n * (size_t)comm_size_of(x->comm);
    void *g = rscratch(r, (n + total) * esz);
    const void *src = x->b_b;
    if (!src) {
      zero(g, n, total, esz);
      src = at(g, n, esz);
    }
    MPI_OK(MPI_Ireduce_scatter_block(src, g, x->count, x->type, MPI_SUM,
                                     x->comm, &r->areq),
           where);
    return;
  }
  }
}

/* Completes the reverse transfer of r and accumulates. */
static void finish_reverse(rslot *r) {
  mpiad_xfer *x = &r->x;
  size_t n = (size_t)x->count, esz = x->esz;
  const char *where = "reverse of a start";
  MPI_OK(MPI_Wait(&r->areq, MPI_STATUS_IGNORE), where);
  switch (x->op) {
  case XFER_SEND:
    if (x->peer != MPI_PROC_NULL)
      mpiad_impl_lacc(x->a_b, r->scratch, x->lay, n, x->kind);
    mpiad_impl_layout_drop(x->lay);
    break;
  case XFER_RECV:
    mpiad_impl_lzero(x->a_b, x->lay, n, esz);
    mpiad_impl_layout_drop(x->lay);
    break;
  case XFER_ALLREDUCE:
    if (x->a_b == MPI_IN_PLACE)
      break; /* b_b holds the sum (partial) or is already exact */
    acc(x->a_b, x->partial ? r->scratch : x->b_b, n, x->kind);
    zero(x->b_b, 0, n, esz);
    break;
  case XFER_BCAST:
    if (comm_rank_of(x->comm) != x->root)
      zero(x->a_b, 0, n, esz);
    else if (x->partial)
      acc(x->a_b, at(r->scratch, n, esz), n, x->kind);
    break;
  case XFER_ALLGATHER: {
    int rank = comm_rank_of(x->comm);
    size_t total = n * (size_t)comm_size_of(x->comm), off = n * (size_t)rank;
    void *g = rscratch(r, (n + total) * esz);
    if (!x->partial) {
      if (x->b_b)
        memcpy(g, at(x->b_b, off, esz), n * esz);
      else
        zero(g, 0, n, esz);
    }
    zero(x->b_b, 0, total, esz);
    if (x->a_b == MPI_IN_PLACE) {
      if (x->b_b)
        memcpy(at(x->b_b, off, esz), g, n * esz);
    } else {
      acc(x->a_b, g, n, x->kind);
    }
    break;
  }
  }
  r->used = 0;
}

static int is_collective(int op) {
  return op == XFER_ALLREDUCE || op == XFER_BCAST || op == XFER_ALLGATHER;
}

/* Starts the ready adjoint collectives of comm in decreasing serial order. */
static void start_ready_collectives(MPI_Comm comm) {
  comm_state *s = state_of(comm);
  for (;;) {
    rslot *next = NULL;
    for (size_t i = 0; i < nrslots; ++i)
      if (rslots[i].used && !rslots[i].started &&
          is_collective(rslots[i].x.op) && rslots[i].x.comm == comm &&
          rslots[i].x.seq == s->coll_next - 1)
        next = &rslots[i];
    if (!next)
      return;
    start_reverse(next);
    s->coll_next--;
  }
}

mpiad_result_t mpiad_complete_rev(void) {
  record g = pop_record(REC_GROUP, "reverse of a completion");
  for (int k = 0; k < g.n; ++k) {
    record d = pop_record(REC_DONE, "reverse of a completion");
    rslot *r = new_rslot(&d.x);
    if (is_collective(d.x.op))
      start_ready_collectives(d.x.comm);
    else
      start_reverse(r);
  }
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_start_rev(void) {
  record s = pop_record(REC_START, "reverse of a start");
  for (size_t i = 0; i < nrslots; ++i)
    if (rslots[i].used && rslots[i].x.id == s.x.id) {
      if (!rslots[i].started)
        FATAL("reverse of a start", "non-blocking collectives were started in "
                                    "different orders (internal error)");
      finish_reverse(&rslots[i]);
      return MPIAD_SUCCESS;
    }
  FATAL("reverse of a start",
        "a request started in the differentiated function was not completed "
        "there (MPI_Wait/MPI_Test/...): its adjoint cannot be formed");
  return MPIAD_ERR_ARG;
}

/* ------------------------------------------------------------------------- */
/* Release at MPI_Finalize                                                   */
/* ------------------------------------------------------------------------- */

static int finalize_keyval = MPI_KEYVAL_INVALID;

static int finalize_cb(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm;
  (void)attr;
  (void)extra;
  reap_orphans(1);
  for (size_t i = 0; i < nfslots; ++i)
    free(fslots[i].scratch);
  for (size_t i = 0; i < nrslots; ++i)
    free(rslots[i].scratch);
  free(fslots);
  free(rslots);
  free(recs);
  free(postq);
  free(hcopy);
  free(scopy);
  fslots = NULL;
  rslots = NULL;
  recs = NULL;
  postq = NULL;
  hcopy = NULL;
  scopy = NULL;
  nfslots = fslots_cap = fslots_live = nrslots = rslots_cap = 0;
  nrecs = recs_cap = postq_head = postq_len = postq_cap = 0;
  hcopy_cap = scopy_cap = 0;
  /* Communicator states still attached (MPI_COMM_WORLD's) are freed here;
   * their attributes are deleted with the keyval. */
  while (all_states)
    unlink_state(all_states);
  if (state_keyval != MPI_KEYVAL_INVALID)
    MPI_Comm_free_keyval(&state_keyval);
  MPI_Comm_free_keyval(&keyval);
  finalize_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

static void ensure_finalize_hook(void) {
  if (finalize_keyval != MPI_KEYVAL_INVALID)
    return;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_cb,
                             &finalize_keyval, NULL) != MPI_SUCCESS ||
      MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL) != MPI_SUCCESS)
    FATAL("requests", "cannot install the MPI_Finalize hook");
}
