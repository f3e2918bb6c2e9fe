/*
 * comm.cu - the per-communicator state of libmpiad_gpu (the path, NCCL or
 * host-staged MPI, the NCCL communicator, the stream) and the batched sum
 * over ranks (mpiad_gpu_batch_*).
 *
 * The state of a communicator is an MPI attribute (keyval `state_keyval`):
 * MPI calls its delete callback when the communicator is freed, which
 * destroys the NCCL communicator, the stream and the private duplicate.
 * States of communicators never freed (MPI_COMM_WORLD) are destroyed at
 * MPI_Finalize by the delete callback of an attribute on MPI_COMM_SELF,
 * which MPI deletes first, while everything still works; it also frees the
 * runtime's memory.
 */
#include "internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Setup and teardown                                                        */
/* ------------------------------------------------------------------------- */

static int initialized;
static int state_keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static mpiad_gpu_state *states; /* every live state */

static void release_batch(void);

/* Destroys a state (errors are remembered, not fatal: this runs from MPI's
 * callbacks, which have no way to report them). */
static void destroy_state(mpiad_gpu_state *s) {
  for (mpiad_gpu_state **p = &states; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  if (s->nccl_path && s->nccl) {
    ncclResult_t r = ncclCommFinalize(s->nccl);
    if (r != ncclSuccess)
      mpiad_gpu_impl_call_failed(MPIAD_ERR_MPI, "ncclCommFinalize(s->nccl)",
                                 __FILE__, __LINE__, ncclGetErrorString(r));
    r = ncclCommDestroy(s->nccl);
    if (r != ncclSuccess)
      mpiad_gpu_impl_call_failed(MPIAD_ERR_MPI, "ncclCommDestroy(s->nccl)",
                                 __FILE__, __LINE__, ncclGetErrorString(r));
  }
  if (s->stream) {
    cudaError_t e = cudaStreamDestroy(s->stream);
    if (e != cudaSuccess)
      mpiad_gpu_impl_call_failed(MPIAD_ERR_MPI, "cudaStreamDestroy(s->stream)",
                                 __FILE__, __LINE__, cudaGetErrorString(e));
  }
  if (s->adj != MPI_COMM_NULL) {
    int m = MPI_Comm_free(&s->adj);
    if (m != MPI_SUCCESS)
      mpiad_gpu_impl_mpi_failed(m, "MPI_Comm_free(&s->adj)", __FILE__,
                                __LINE__);
  }
  free(s);
}

static int state_delete_cb(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  if (attr)
    destroy_state((mpiad_gpu_state *)attr);
  return MPI_SUCCESS;
}

/* Runs first in MPI_Finalize: destroys the states still alive (deleting
 * their attributes, so MPI never calls state_delete_cb on them again) and
 * frees the runtime's memory.  A state on MPI_COMM_SELF is left to MPI,
 * which deletes the attributes of MPI_COMM_SELF in the reverse order of
 * their setting, so it is already gone. */
static int finalize_cb(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm;
  (void)attr;
  (void)extra;
  mpiad_gpu_state *s = states;
  while (s) {
    mpiad_gpu_state *next = s->next;
    if (s->comm != MPI_COMM_SELF) {
      int m = MPI_Comm_delete_attr(s->comm, state_keyval);
      if (m != MPI_SUCCESS) {
        mpiad_gpu_impl_mpi_failed(m, "MPI_Comm_delete_attr(s->comm, ...)",
                                  __FILE__, __LINE__);
        destroy_state(s);
      }
    }
    s = next;
  }
  if (state_keyval != MPI_KEYVAL_INVALID)
    MPI_Comm_free_keyval(&state_keyval);
  MPI_Comm_free_keyval(&keyval);
  self_keyval = MPI_KEYVAL_INVALID;
  release_batch();
  mpiad_gpu_impl_release_core();
  initialized = 0;
  return MPI_SUCCESS;
}

static mpiad_result_t ensure_init(void) {
  if (initialized)
    return MPIAD_SUCCESS;
  int init = 0, fin = 0;
  GPU_TRY_MPI(MPI_Initialized(&init));
  GPU_TRY_MPI(MPI_Finalized(&fin));
  if (!init || fin)
    GPU_ARG_ERROR("mpiad_gpu: MPI is not initialized (or already finalized)");
  GPU_TRY_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, state_delete_cb,
                                     &state_keyval, NULL));
  GPU_TRY_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_cb,
                                     &self_keyval, NULL));
  GPU_TRY_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL));
  initialized = 1;
  return MPIAD_SUCCESS;
}

/* ------------------------------------------------------------------------- */
/* Path choice                                                               */
/* ------------------------------------------------------------------------- */

enum { FORCE_NONE = 0, FORCE_NCCL = 1, FORCE_MPI = 2, FORCE_INVALID = 3 };

/* What each rank contributes to the decision (gathered as bytes). */
typedef struct {
  int ok;    /* the device could be queried */
  int force; /* FORCE_*, from MPIAD_GPU_COMM */
  int pci_domain, pci_bus, pci_device;
  char uuid[16];
  char host[MPI_MAX_PROCESSOR_NAME];
} rank_info;

static int same_gpu(const rank_info *a, const rank_info *b) {
  if (memcmp(a->uuid, b->uuid, sizeof a->uuid) == 0)
    return 1;
  return strcmp(a->host, b->host) == 0 && a->pci_domain == b->pci_domain &&
         a->pci_bus == b->pci_bus && a->pci_device == b->pci_device;
}

/* Fills this rank's info; a device that cannot be queried gives ok = 0 and
 * remembers why (the gather still happens, so no rank is left waiting). */
static void local_info(rank_info *me, int *device) {
  memset(me, 0, sizeof *me);
  const char *v = getenv("MPIAD_GPU_COMM");
  me->force = !v || !*v                ? FORCE_NONE
              : strcmp(v, "nccl") == 0 ? FORCE_NCCL
              : strcmp(v, "mpi") == 0  ? FORCE_MPI
                                       : FORCE_INVALID;
  int len = 0;
  if (MPI_Get_processor_name(me->host, &len) != MPI_SUCCESS)
    me->host[0] = '\0';
  me->host[sizeof me->host - 1] = '\0';
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDevice(device);
  if (e == cudaSuccess)
    e = cudaGetDeviceProperties(&prop, *device);
  if (e != cudaSuccess) {
    mpiad_gpu_impl_call_failed(MPIAD_ERR_MPI, "cudaGetDevice/Properties",
                               __FILE__, __LINE__, cudaGetErrorString(e));
    (void)cudaGetLastError();
    return;
  }
  me->ok = 1;
  me->pci_domain = prop.pciDomainID;
  me->pci_bus = prop.pciBusID;
  me->pci_device = prop.pciDeviceID;
  memcpy(me->uuid, prop.uuid.bytes, sizeof me->uuid);
}

/* Decides the path from everybody's info (the same on every rank).
 * Returns MPIAD_SUCCESS and *nccl, or MPIAD_ERR_ARG / MPIAD_ERR_MPI with a
 * message. */
static mpiad_result_t decide(const rank_info *all, int size, int rank,
                             int *nccl) {
  int force_nccl = 0, force_mpi = 0, share_a = -1, share_b = -1;
  for (int i = 0; i < size; ++i) {
    if (!all[i].ok) {
      if (i == rank)
        return MPIAD_ERR_MPI; /* local_info remembered the CUDA error */
      return mpiad_gpu_impl_failed(MPIAD_ERR_MPI, __FILE__, __LINE__,
                                   "mpiad_gpu: rank %d of the communicator "
                                   "has no usable CUDA device",
                                   i);
    }
    if (all[i].force == FORCE_INVALID)
      GPU_ARG_ERROR("mpiad_gpu: MPIAD_GPU_COMM must be \"nccl\" or \"mpi\" "
                    "(rank %d of the communicator has \"%s\")",
                    i, i == rank ? getenv("MPIAD_GPU_COMM") : "another value");
    force_nccl |= all[i].force == FORCE_NCCL;
    force_mpi |= all[i].force == FORCE_MPI;
    for (int j = 0; j < i && share_a < 0; ++j)
      if (same_gpu(&all[i], &all[j])) {
        share_a = j;
        share_b = i;
      }
  }
  if (force_nccl && force_mpi)
    GPU_ARG_ERROR("mpiad_gpu: MPIAD_GPU_COMM is \"nccl\" on some ranks and "
                  "\"mpi\" on others");
  if (force_nccl && share_a >= 0)
    GPU_ARG_ERROR("mpiad_gpu: MPIAD_GPU_COMM=nccl, but ranks %d and %d of the "
                  "communicator share one GPU (host %s, PCI %04x:%02x:%02x): "
                  "NCCL needs a GPU per rank; unset MPIAD_GPU_COMM or set it "
                  "to mpi for the host-staged MPI path",
                  share_a, share_b, all[share_b].host, all[share_b].pci_domain,
                  all[share_b].pci_bus, all[share_b].pci_device);
  *nccl = force_nccl || (!force_mpi && share_a < 0);
  return MPIAD_SUCCESS;
}

/* The NCCL communicator of comm: rank 0 makes the unique id and broadcasts
 * it (with a flag, so that a failure there stops every rank). */
static mpiad_result_t make_nccl(MPI_Comm comm, int rank, int size,
                                ncclComm_t *out) {
  struct {
    int ok;
    ncclUniqueId id;
  } u;
  memset(&u, 0, sizeof u);
  if (rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&u.id);
    u.ok = r == ncclSuccess;
    if (!u.ok)
      mpiad_gpu_impl_call_failed(MPIAD_ERR_MPI, "ncclGetUniqueId(&u.id)",
                                 __FILE__, __LINE__, ncclGetErrorString(r));
  }
  GPU_TRY_MPI(MPI_Bcast(&u, (int)sizeof u, MPI_BYTE, 0, comm));
  if (!u.ok)
    return rank == 0 ? MPIAD_ERR_MPI
                     : mpiad_gpu_impl_failed(MPIAD_ERR_MPI, __FILE__, __LINE__,
                                             "mpiad_gpu: ncclGetUniqueId "
                                             "failed on rank 0");
  GPU_TRY_NCCL(ncclCommInitRank(out, size, u.id, rank));
  return MPIAD_SUCCESS;
}

/* Creates the state of comm (collective over comm). */
static mpiad_result_t create_state(MPI_Comm comm, mpiad_gpu_state **out) {
  int rank, size, device = 0, nccl = 0;
  GPU_TRY_MPI(MPI_Comm_rank(comm, &rank));
  GPU_TRY_MPI(MPI_Comm_size(comm, &size));
  rank_info me;
  local_info(&me, &device);
  rank_info *all = (rank_info *)malloc((size_t)size * sizeof *all);
  if (!all)
    return mpiad_gpu_impl_failed(MPIAD_ERR_NOMEM, __FILE__, __LINE__,
                                 "mpiad_gpu: no host memory");
  int m = MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me,
                        MPI_BYTE, comm);
  mpiad_result_t r = m != MPI_SUCCESS
                         ? mpiad_gpu_impl_mpi_failed(m, "MPI_Allgather(&me...)",
                                                     __FILE__, __LINE__)
                         : decide(all, size, rank, &nccl);
  free(all);
  GPU_TRY(r);

  mpiad_gpu_state *s = (mpiad_gpu_state *)calloc(1, sizeof *s);
  if (!s)
    return mpiad_gpu_impl_failed(MPIAD_ERR_NOMEM, __FILE__, __LINE__,
                                 "mpiad_gpu: no host memory");
  s->comm = comm;
  s->adj = MPI_COMM_NULL;
  s->rank = rank;
  s->size = size;
  s->device = device;
  s->nccl_path = nccl;
  cudaError_t e = cudaStreamCreate(&s->stream);
  if (e != cudaSuccess) {
    s->stream = NULL;
    r = mpiad_gpu_impl_call_failed(cuda_result(e), "cudaStreamCreate", __FILE__,
                                   __LINE__, cudaGetErrorString(e));
  } else if (nccl) {
    r = make_nccl(comm, rank, size, &s->nccl);
  } else {
    m = MPI_Comm_dup(comm, &s->adj);
    if (m != MPI_SUCCESS) {
      s->adj = MPI_COMM_NULL;
      r = mpiad_gpu_impl_mpi_failed(m, "MPI_Comm_dup(comm, &s->adj)", __FILE__,
                                    __LINE__);
    }
  }
  if (r == MPIAD_SUCCESS) {
    m = MPI_Comm_set_attr(comm, state_keyval, s);
    if (m != MPI_SUCCESS)
      r = mpiad_gpu_impl_mpi_failed(m, "MPI_Comm_set_attr(comm, ...)", __FILE__,
                                    __LINE__);
  }
  s->next = states;
  states = s;
  if (r != MPIAD_SUCCESS) {
    destroy_state(s);
    return r;
  }
  *out = s;
  return MPIAD_SUCCESS;
}

mpiad_result_t mpiad_gpu_impl_state(MPI_Comm comm, mpiad_gpu_state **out) {
  GPU_TRY(ensure_init());
  if (comm == MPI_COMM_NULL)
    GPU_ARG_ERROR("mpiad_gpu: MPI_COMM_NULL given as a communicator");
  void *attr = NULL;
  int found = 0;
  GPU_TRY_MPI(MPI_Comm_get_attr(comm, state_keyval, &attr, &found));
  if (found && attr) {
    *out = (mpiad_gpu_state *)attr;
    return MPIAD_SUCCESS;
  }
  return create_state(comm, out);
}

extern "C" const char *mpiad_gpu_comm_path(MPI_Comm comm) {
  mpiad_gpu_state *s;
  if (mpiad_gpu_impl_state(comm, &s) != MPIAD_SUCCESS)
    return NULL;
  return s->nccl_path ? "nccl" : "mpi";
}

/* ------------------------------------------------------------------------- */
/* Batch                                                                     */
/* ------------------------------------------------------------------------- */
/* The segment list is process-global and shared by nested batches, as in
 * comm.c of the CPU runtime; the pack buffer is one device double buffer. */

typedef struct {
  const void *partial;
  void *dest;
  size_t n;
  int is_f32;
  int host; /* partial and dest are host memory (a scalar's adjoint) */
} segment;

static segment *segs;
static size_t seg_cap, seg_count;
static int open_level;
static double *pack;
static size_t pack_cap; /* doubles */

/* Marks a closed batch: no segment index can equal it. */
#define CLOSED ((size_t)-1)

static void release_batch(void) {
  free(segs);
  segs = NULL;
  seg_cap = seg_count = 0;
  open_level = 0;
  if (pack)
    (void)cudaFree(pack);
  pack = NULL;
  pack_cap = 0;
}

extern "C" void mpiad_gpu_batch_begin(mpiad_gpu_batch *b, MPI_Comm comm) {
  b->comm = comm;
  b->first = seg_count;
  b->nseg = 0;
  b->total = 0;
  b->err = MPIAD_SUCCESS;
  b->level = ++open_level;
}

static void add_segment(mpiad_gpu_batch *b, const void *partial, void *dest,
                        size_t n, int is_f32, int host) {
  if (b->err != MPIAD_SUCCESS || n == 0)
    return;
  if (!partial || !dest || b->first == CLOSED || b->level != open_level ||
      b->first + b->nseg != seg_count) {
    b->err = mpiad_gpu_impl_failed(
        MPIAD_ERR_ARG, __FILE__, __LINE__,
        "mpiad_gpu_batch_add: NULL pointer, or a batch that is closed or not "
        "the innermost open one");
    return;
  }
  if (seg_count == seg_cap) {
    size_t cap = seg_cap ? 2 * seg_cap : 16;
    segment *s = (segment *)realloc(segs, cap * sizeof *s);
    if (!s) {
      b->err = mpiad_gpu_impl_failed(MPIAD_ERR_NOMEM, __FILE__, __LINE__,
                                     "mpiad_gpu_batch_add: no host memory");
      return;
    }
    segs = s;
    seg_cap = cap;
  }
  segment *s = &segs[seg_count++];
  s->partial = partial;
  s->dest = dest;
  s->n = n;
  s->is_f32 = is_f32;
  s->host = host;
  b->nseg++;
  b->total += n;
}

extern "C" void mpiad_gpu_batch_add_f64(mpiad_gpu_batch *b,
                                        const double *partial, double *dest,
                                        size_t n) {
  add_segment(b, partial, dest, n, 0, 0);
}

extern "C" void mpiad_gpu_batch_add_host_f64(mpiad_gpu_batch *b,
                                             const double *partial,
                                             double *dest, size_t n) {
  add_segment(b, partial, dest, n, 0, 1);
}

extern "C" void mpiad_gpu_batch_add_host_f32(mpiad_gpu_batch *b,
                                             const float *partial,
                                             float *dest, size_t n) {
  add_segment(b, partial, dest, n, 1, 1);
}

extern "C" void mpiad_gpu_batch_add_f32(mpiad_gpu_batch *b,
                                        const float *partial, float *dest,
                                        size_t n) {
  add_segment(b, partial, dest, n, 1, 0);
}

/* pack[k] = src[k] (converted to double). */
template <class T>
static __global__ void pack_kernel(double *pack, const T *src, size_t n) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
       k += (size_t)gridDim.x * blockDim.x)
    pack[k] = (double)src[k];
}

/* dest[k] = sum (in place) or dest[k] + sum, in double, rounded once. */
template <class T>
static __global__ void unpack_kernel(T *dest, const double *pack, size_t n,
                                     int in_place) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
       k += (size_t)gridDim.x * blockDim.x)
    dest[k] = in_place ? (T)pack[k] : (T)((double)dest[k] + pack[k]);
}

static int grid_of(size_t n) {
  return mpiad_gpu_blocks(n > (size_t)LONG_MAX ? LONG_MAX : (long)n);
}

/* A host segment goes through a host double buffer and a copy. */
static mpiad_result_t host_pack(const segment *sg, double *p,
                                cudaStream_t stream) {
  double *h = (double *)malloc(sg->n * sizeof(double));
  if (!h)
    return mpiad_gpu_impl_failed(MPIAD_ERR_NOMEM, __FILE__, __LINE__,
                                 "mpiad_gpu_batch: no host memory");
  for (size_t k = 0; k < sg->n; ++k)
    h[k] = sg->is_f32 ? (double)((const float *)sg->partial)[k]
                      : ((const double *)sg->partial)[k];
  cudaError_t e = cudaMemcpyAsync(p, h, sg->n * sizeof(double),
                                  cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  free(h);
  GPU_TRY_CUDA(e);
  return MPIAD_SUCCESS;
}

static mpiad_result_t host_unpack(const segment *sg, const double *p,
                                  cudaStream_t stream) {
  double *h = (double *)malloc(sg->n * sizeof(double));
  if (!h)
    return mpiad_gpu_impl_failed(MPIAD_ERR_NOMEM, __FILE__, __LINE__,
                                 "mpiad_gpu_batch: no host memory");
  cudaError_t e = cudaMemcpyAsync(h, p, sg->n * sizeof(double),
                                  cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess) {
    int in_place = sg->dest == sg->partial;
    for (size_t k = 0; k < sg->n; ++k) {
      if (sg->is_f32) {
        float *d = (float *)sg->dest;
        d[k] = in_place ? (float)h[k] : (float)((double)d[k] + h[k]);
      } else {
        double *d = (double *)sg->dest;
        d[k] = in_place ? h[k] : d[k] + h[k];
      }
    }
  }
  free(h);
  GPU_TRY_CUDA(e);
  return MPIAD_SUCCESS;
}

static mpiad_result_t launch_pack(const segment *sg, double *p,
                                  cudaStream_t stream) {
  if (sg->host)
    return host_pack(sg, p, stream);
  if (sg->is_f32)
    pack_kernel<<<grid_of(sg->n), MPIAD_GPU_THREADS, 0, stream>>>(
        p, (const float *)sg->partial, sg->n);
  else
    pack_kernel<<<grid_of(sg->n), MPIAD_GPU_THREADS, 0, stream>>>(
        p, (const double *)sg->partial, sg->n);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

static mpiad_result_t launch_unpack(const segment *sg, const double *p,
                                    cudaStream_t stream) {
  if (sg->host)
    return host_unpack(sg, p, stream);
  int in_place = sg->dest == sg->partial;
  if (sg->is_f32)
    unpack_kernel<<<grid_of(sg->n), MPIAD_GPU_THREADS, 0, stream>>>(
        (float *)sg->dest, p, sg->n, in_place);
  else
    unpack_kernel<<<grid_of(sg->n), MPIAD_GPU_THREADS, 0, stream>>>(
        (double *)sg->dest, p, sg->n, in_place);
  GPU_TRY_CUDA(cudaGetLastError());
  return MPIAD_SUCCESS;
}

/* Pack, one allreduce, unpack (all on the communicator's stream). */
static mpiad_result_t run_batch(const mpiad_gpu_batch *b) {
  mpiad_gpu_state *s;
  GPU_TRY(mpiad_gpu_impl_state(b->comm, &s));
  if (b->total > pack_cap) {
    size_t cap = b->total < 4096 ? 4096 : b->total;
    if (pack) {
      GPU_TRY_CUDA(cudaDeviceSynchronize());
      GPU_TRY_CUDA(cudaFree(pack));
    }
    pack = NULL;
    pack_cap = 0;
    GPU_TRY_CUDA(cudaMalloc(&pack, cap * sizeof(double)));
    pack_cap = cap;
  }
  const segment *sg = segs + b->first;
  size_t off = 0;
  for (size_t i = 0; i < b->nseg; off += sg[i].n, ++i)
    GPU_TRY(launch_pack(&sg[i], pack + off, s->stream));
  GPU_TRY(mpiad_gpu_impl_allreduce(s, pack, pack, b->total, E_F64, R_SUM));
  off = 0;
  for (size_t i = 0; i < b->nseg; off += sg[i].n, ++i)
    GPU_TRY(launch_unpack(&sg[i], pack + off, s->stream));
  GPU_TRY_CUDA(cudaStreamSynchronize(s->stream));
  return MPIAD_SUCCESS;
}

extern "C" mpiad_result_t mpiad_gpu_batch_allreduce(mpiad_gpu_batch *b) {
  mpiad_result_t r = (mpiad_result_t)b->err;
  if (b->first == CLOSED || b->level != open_level ||
      b->first + b->nseg != seg_count)
    r = mpiad_gpu_impl_failed(MPIAD_ERR_ARG, __FILE__, __LINE__,
                              "mpiad_gpu_batch_allreduce: the batch is closed "
                              "or not the innermost open one");
  if (r == MPIAD_SUCCESS && b->total > 0)
    r = run_batch(b);
  /* Close the batch: drop its segments (and those of any inner batch left
   * open by mistake) from the global list. */
  if (b->first != CLOSED && b->first <= seg_count) {
    seg_count = b->first;
    open_level = b->level - 1;
  }
  b->first = CLOSED;
  b->nseg = 0;
  b->total = 0;
  b->err = MPIAD_SUCCESS;
  return r;
}
