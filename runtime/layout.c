/*
 * layout.c - the elements of a derived MPI datatype, for the adjoints of
 * messages that use one (a matrix column made by MPI_Type_vector, a block
 * made by MPI_Type_create_subarray, ...).
 *
 * A datatype whose basic elements are all MPI_DOUBLE (or all MPI_FLOAT) is
 * decoded once with MPI_Type_get_envelope / MPI_Type_get_contents into the
 * list of its elements' offsets, in type-map order (the order in which MPI
 * packs them), counted in elements from the buffer's start.  The list is
 * kept in an attribute of the datatype and released with it.  Element k of
 * `count` items then lies at (k / n1) * ext + off[k % n1].
 *
 * The adjoint messages of such a transfer carry the same elements as plain
 * MPI_DOUBLE (or MPI_FLOAT): MPI matches messages by type signature, so they
 * match whatever layout either side used; the adjoint buffer is read,
 * accumulated and zeroed through the layout with the functions below.
 */
#include "comm_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int layout_keyval = MPI_KEYVAL_INVALID;

void mpiad_impl_layout_hold(mpiad_impl_layout *l) {
  if (l)
    l->refs++;
}

void mpiad_impl_layout_drop(mpiad_impl_layout *l) {
  if (l && --l->refs == 0) {
    free(l->off);
    free(l);
  }
}

static int layout_delete(MPI_Datatype t, int keyval, void *attr, void *extra) {
  (void)t;
  (void)keyval;
  (void)extra;
  mpiad_impl_layout_drop(attr);
  return MPI_SUCCESS;
}

/* Byte offsets being collected, and the basic type seen so far. */
typedef struct {
  MPI_Aint *off;
  size_t n, cap;
  MPI_Datatype base; /* MPI_DATATYPE_NULL until the first element */
  int ok;
} collect;

static void add(collect *c, MPI_Aint o) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    MPI_Aint *p = realloc(c->off, cap * sizeof *p);
    if (!p) {
      c->ok = 0;
      return;
    }
    c->off = p;
    c->cap = cap;
  }
  c->off[c->n++] = o;
}

static MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(t, &lb, &ext);
  return ext;
}

static void flatten(MPI_Datatype t, MPI_Aint base, collect *c);

/* Subarray: the elements of the sub-block in the order MPI packs them (the
 * last index fastest in C order, the first in Fortran order). */
static void flatten_subarray(const int *ints, MPI_Datatype old, MPI_Aint base,
                             collect *c) {
  int nd = ints[0];
  const int *size = ints + 1, *sub = ints + 1 + nd, *start = ints + 1 + 2 * nd;
  int fortran = ints[1 + 3 * nd] == MPI_ORDER_FORTRAN;
  MPI_Aint ext = extent_of(old);
  int idx[32] = {0};
  if (nd < 1 || nd > 32) {
    c->ok = 0;
    return;
  }
  for (int d = 0; d < nd; ++d)
    if (sub[d] == 0)
      return;
  for (;;) {
    MPI_Aint lin = 0;
    for (int k = 0; k < nd; ++k) {
      int d = fortran ? nd - 1 - k : k; /* slowest first */
      lin = lin * size[d] + start[d] + idx[d];
    }
    flatten(old, base + lin * ext, c);
    if (!c->ok)
      return;
    int k = nd - 1;
    for (; k >= 0; --k) {
      int d = fortran ? nd - 1 - k : k; /* fastest first */
      if (++idx[d] < sub[d])
        break;
      idx[d] = 0;
    }
    if (k < 0)
      return;
  }
}

static void flatten(MPI_Datatype t, MPI_Aint base, collect *c) {
  int ni, na, nd, comb;
  if (!c->ok)
    return;
  if (MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) {
    c->ok = 0;
    return;
  }
  if (comb == MPI_COMBINER_NAMED) {
    if ((t != MPI_DOUBLE && t != MPI_FLOAT) ||
        (c->base != MPI_DATATYPE_NULL && c->base != t)) {
      c->ok = 0;
      return;
    }
    c->base = t;
    add(c, base);
    return;
  }
  int *ints = malloc((size_t)(ni + 1) * sizeof *ints);
  MPI_Aint *addrs = malloc((size_t)(na + 1) * sizeof *addrs);
  MPI_Datatype *types = malloc((size_t)(nd + 1) * sizeof *types);
  if (!ints || !addrs || !types ||
      MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) {
    free(ints);
    free(addrs);
    free(types);
    c->ok = 0;
    return;
  }
  MPI_Aint e0 = nd > 0 ? extent_of(types[0]) : 0;
  switch (comb) {
  case MPI_COMBINER_DUP:
  case MPI_COMBINER_RESIZED: /* the elements stay where they were */
    flatten(types[0], base, c);
    break;
  case MPI_COMBINER_CONTIGUOUS:
    for (int i = 0; i < ints[0]; ++i)
      flatten(types[0], base + i * e0, c);
    break;
  case MPI_COMBINER_VECTOR:
  case MPI_COMBINER_HVECTOR: {
    MPI_Aint stride =
        comb == MPI_COMBINER_VECTOR ? (MPI_Aint)ints[2] * e0 : addrs[0];
    for (int i = 0; i < ints[0]; ++i)
      for (int j = 0; j < ints[1]; ++j)
        flatten(types[0], base + i * stride + j * e0, c);
    break;
  }
  case MPI_COMBINER_INDEXED:
  case MPI_COMBINER_HINDEXED: {
    int n = ints[0];
    for (int i = 0; i < n; ++i) {
      MPI_Aint d = comb == MPI_COMBINER_INDEXED
                       ? (MPI_Aint)ints[1 + n + i] * e0
                       : addrs[i];
      for (int j = 0; j < ints[1 + i]; ++j)
        flatten(types[0], base + d + j * e0, c);
    }
    break;
  }
  case MPI_COMBINER_INDEXED_BLOCK:
  case MPI_COMBINER_HINDEXED_BLOCK: {
    int n = ints[0];
    for (int i = 0; i < n; ++i) {
      MPI_Aint d = comb == MPI_COMBINER_INDEXED_BLOCK
                       ? (MPI_Aint)ints[2 + i] * e0
                       : addrs[i];
      for (int j = 0; j < ints[1]; ++j)
        flatten(types[0], base + d + j * e0, c);
    }
    break;
  }
  case MPI_COMBINER_STRUCT: {
    int n = ints[0];
    for (int i = 0; i < n; ++i) {
      MPI_Aint ei = extent_of(types[i]);
      for (int j = 0; j < ints[1 + i]; ++j)
        flatten(types[i], base + addrs[i] + j * ei, c);
    }
    break;
  }
  case MPI_COMBINER_SUBARRAY:
    flatten_subarray(ints, types[0], base, c);
    break;
  default: /* darray, Fortran types: not decoded */
    c->ok = 0;
    break;
  }
  /* Derived types returned by MPI_Type_get_contents are the caller's. */
  for (int i = 0; i < nd; ++i) {
    int a, b, e, k;
    MPI_Type_get_envelope(types[i], &a, &b, &e, &k);
    if (k != MPI_COMBINER_NAMED)
      MPI_Type_free(&types[i]);
  }
  free(ints);
  free(addrs);
  free(types);
}

/* Decodes t; NULL if its elements are not all MPI_DOUBLE or all MPI_FLOAT,
 * or not at whole-element offsets. */
static mpiad_impl_layout *decode(MPI_Datatype t) {
  collect c = {NULL, 0, 0, MPI_DATATYPE_NULL, 1};
  flatten(t, 0, &c);
  mpiad_impl_layout *l = NULL;
  MPI_Aint lb, ext;
  if (c.ok && c.base != MPI_DATATYPE_NULL &&
      MPI_Type_get_extent(t, &lb, &ext) == MPI_SUCCESS) {
    size_t esz = c.base == MPI_DOUBLE ? sizeof(double) : sizeof(float);
    int whole = ext % (MPI_Aint)esz == 0;
    for (size_t k = 0; k < c.n && whole; ++k)
      whole = c.off[k] % (MPI_Aint)esz == 0;
    l = whole ? calloc(1, sizeof *l) : NULL;
    if (l) {
      l->refs = 1;
      l->kind = c.base == MPI_DOUBLE ? K_F64 : K_F32;
      l->esz = esz;
      l->n1 = c.n;
      l->ext = ext / (MPI_Aint)esz;
      l->off = c.off;
      for (size_t k = 0; k < c.n; ++k)
        l->off[k] /= (MPI_Aint)esz;
      c.off = NULL;
    }
  }
  free(c.off);
  return l;
}

int mpiad_impl_type_layout(MPI_Datatype t, int *kind, size_t *esz,
                           mpiad_impl_layout **lay) {
  *lay = NULL;
  if (type_kind(t, kind, esz))
    return 1;
  int ni, na, nd, comb;
  if (t == MPI_DATATYPE_NULL ||
      MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
      comb == MPI_COMBINER_NAMED)
    return 0;
  if (layout_keyval == MPI_KEYVAL_INVALID &&
      MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, layout_delete,
                             &layout_keyval, NULL) != MPI_SUCCESS)
    return 0;
  void *attr = NULL;
  int found = 0;
  if (MPI_Type_get_attr(t, layout_keyval, &attr, &found) != MPI_SUCCESS)
    return 0;
  mpiad_impl_layout *l = found ? attr : NULL;
  if (!found) {
    l = decode(t);
    if (!l) {
      /* A derived datatype on a buffer that carries derivatives whose
       * elements mpiad cannot follow: stop rather than guess. */
      fprintf(stderr,
              "mpiad: a derived datatype on a buffer that carries "
              "derivatives must be made of MPI_DOUBLE elements only (or "
              "MPI_FLOAT only), at whole-element offsets, by "
              "MPI_Type_contiguous, _vector, _create_hvector, _indexed, "
              "_create_hindexed, _create_indexed_block, "
              "_create_hindexed_block, _create_struct, _create_subarray, "
              "_create_resized or _dup\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
      return 0;
    }
    if (MPI_Type_set_attr(t, layout_keyval, l) != MPI_SUCCESS) {
      mpiad_impl_layout_drop(l);
      return 0;
    }
  }
  *kind = l->kind;
  *esz = l->esz;
  *lay = l;
  return 1;
}

MPI_Datatype mpiad_impl_layout_base(const mpiad_impl_layout *l,
                                    MPI_Datatype t) {
  return !l ? t : l->kind == K_F64 ? MPI_DOUBLE : MPI_FLOAT;
}

size_t mpiad_impl_layout_elems(const mpiad_impl_layout *l, int count) {
  return (size_t)count * (l ? l->n1 : 1);
}

int mpiad_impl_p2p_layout(MPI_Datatype t, int count, size_t max_elems,
                          int *kind, size_t *esz, mpiad_impl_layout **lay,
                          MPI_Datatype *base, int *n) {
  if (!mpiad_impl_type_layout(t, kind, esz, lay))
    return MPIAD_P2P_BAD_TYPE;
  if (count < 0)
    return MPIAD_P2P_BAD_COUNT;
  size_t m = mpiad_impl_layout_elems(*lay, count);
  if (m > max_elems)
    return MPIAD_P2P_TOO_LARGE;
  *base = mpiad_impl_layout_base(*lay, t);
  *n = (int)m;
  return MPIAD_P2P_OK;
}

/* Element k's offset, in elements, from the buffer's start. */
static ptrdiff_t pos(const mpiad_impl_layout *l, size_t k) {
  return (ptrdiff_t)(k / l->n1) * l->ext + l->off[k % l->n1];
}

void mpiad_impl_lgather(void *dst, const void *buf,
                        const mpiad_impl_layout *l, size_t m, size_t esz) {
  if (!buf || m == 0)
    return;
  if (!l) {
    memcpy(dst, buf, m * esz);
    return;
  }
  for (size_t k = 0; k < m; ++k)
    memcpy((unsigned char *)dst + k * esz,
           (const unsigned char *)buf + pos(l, k) * (ptrdiff_t)esz, esz);
}

void mpiad_impl_lscatter(void *buf, const void *src,
                         const mpiad_impl_layout *l, size_t m, size_t esz) {
  if (!buf || m == 0)
    return;
  if (!l) {
    memcpy(buf, src, m * esz);
    return;
  }
  for (size_t k = 0; k < m; ++k)
    memcpy((unsigned char *)buf + pos(l, k) * (ptrdiff_t)esz,
           (const unsigned char *)src + k * esz, esz);
}

void mpiad_impl_lacc(void *buf, const void *src, const mpiad_impl_layout *l,
                     size_t m, int kind) {
  if (!buf || m == 0)
    return;
  if (!l) {
    acc(buf, src, m, kind);
    return;
  }
  if (kind == K_F64) {
    double *d = buf;
    const double *s = src;
    for (size_t k = 0; k < m; ++k)
      d[pos(l, k)] += s[k];
  } else {
    float *d = buf;
    const float *s = src;
    for (size_t k = 0; k < m; ++k)
      d[pos(l, k)] += s[k];
  }
}

void mpiad_impl_lzero(void *buf, const mpiad_impl_layout *l, size_t m,
                      size_t esz) {
  if (!buf || m == 0)
    return;
  if (!l) {
    zero(buf, 0, m, esz);
    return;
  }
  for (size_t k = 0; k < m; ++k)
    memset((unsigned char *)buf + pos(l, k) * (ptrdiff_t)esz, 0, esz);
}

/* ------------------------------------------------------------------------- */
/* Recording a buffer that a message with a derived datatype overwrites      */
/* ------------------------------------------------------------------------- */

static mpiad_impl_layout *recorded_layout(MPI_Datatype t, int count,
                                          int *kind, size_t *esz,
                                          const char *what) {
  mpiad_impl_layout *l;
  if (!mpiad_impl_type_layout(t, kind, esz, &l) || count < 0) {
    fprintf(stderr, "mpiad: %s: the datatype's elements are not all "
                    "MPI_DOUBLE or all MPI_FLOAT\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return l;
}

void mpiad_push_layout(const void *buf, int count, MPI_Datatype t) {
  int kind;
  size_t esz;
  mpiad_impl_layout *l = recorded_layout(t, count, &kind, &esz,
                                         "mpiad_push_layout");
  size_t m = mpiad_impl_layout_elems(l, count);
  int which = kind == K_F64 ? MPIAD_IMPL_STACK_F64 : MPIAD_IMPL_STACK_F32;
  for (size_t k = 0; k < m; ++k)
    mpiad_impl_push(which,
                    (const unsigned char *)buf +
                        (l ? pos(l, k) : (ptrdiff_t)k) * (ptrdiff_t)esz,
                    esz);
}

void mpiad_pop_layout(void *buf, int count, MPI_Datatype t) {
  int kind;
  size_t esz;
  mpiad_impl_layout *l = recorded_layout(t, count, &kind, &esz,
                                         "mpiad_pop_layout");
  size_t m = mpiad_impl_layout_elems(l, count);
  int which = kind == K_F64 ? MPIAD_IMPL_STACK_F64 : MPIAD_IMPL_STACK_F32;
  for (size_t k = m; k-- > 0;)
    mpiad_impl_pop(which,
                   (unsigned char *)buf +
                       (l ? pos(l, k) : (ptrdiff_t)k) * (ptrdiff_t)esz,
                   esz);
}
