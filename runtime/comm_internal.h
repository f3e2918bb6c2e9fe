/*
 * comm_internal.h - internal helpers shared by the communication helpers of
 * libmpiad (adjoint_comm.c, tangent_comm.c).  Not installed.
 *
 * Element kinds (MPI_DOUBLE / MPI_FLOAT) with double arithmetic, the
 * process-global scratch buffer (adjoint_comm.c owns it), the lazily created
 * MPI objects for PROD (pair datatypes and the (product of non-zeros, zero
 * count) operations) and the value/rank pairs for MAXLOC / MINLOC.
 */
#ifndef MPIAD_COMM_INTERNAL_H
#define MPIAD_COMM_INTERNAL_H

#include "mpiad.h"

#include <stddef.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Element kinds                                                             */
/* ------------------------------------------------------------------------- */

enum { K_F64 = 0, K_F32 = 1 };

/* Sets *kind and *esz for MPI_DOUBLE / MPI_FLOAT; returns 0 for other
 * types. */
static inline int type_kind(MPI_Datatype t, int *kind, size_t *esz) {
  if (t == MPI_DOUBLE) {
    *kind = K_F64;
    *esz = sizeof(double);
    return 1;
  }
  if (t == MPI_FLOAT) {
    *kind = K_F32;
    *esz = sizeof(float);
    return 1;
  }
  return 0;
}

static inline double ld(const void *p, size_t k, int kind) {
  return kind == K_F64 ? ((const double *)p)[k] : (double)((const float *)p)[k];
}

static inline void st(void *p, size_t k, int kind, double v) {
  if (kind == K_F64)
    ((double *)p)[k] = v;
  else
    ((float *)p)[k] = (float)v;
}

/* dst[k] += src[k], k < n.  dst NULL: nothing (no derivative there). */
static inline void acc(void *dst, const void *src, size_t n, int kind) {
  if (!dst || n == 0)
    return;
  if (kind == K_F64) {
    double *d = dst;
    const double *s = src;
    for (size_t k = 0; k < n; ++k)
      d[k] += s[k];
  } else {
    float *d = dst;
    const float *s = src;
    for (size_t k = 0; k < n; ++k)
      d[k] += s[k];
  }
}

/* Zeroes n elements of size esz at element offset off of p (NULL: nothing). */
static inline void zero(void *p, size_t off, size_t n, size_t esz) {
  if (p && n > 0)
    memset((unsigned char *)p + off * esz, 0, n * esz);
}

static inline void *at(void *p, size_t off, size_t esz) {
  return (unsigned char *)p + off * esz;
}

/* ------------------------------------------------------------------------- */
/* Layouts of derived datatypes (layout.c)                                    */
/* ------------------------------------------------------------------------- */

/* The elements of a derived datatype whose basic elements are all of one
 * kind: element k of `count` items is at (k / n1) * ext + off[k % n1]
 * elements from the buffer's start.  Reference counted: the datatype holds
 * one reference (dropped when it is freed), a transfer that outlives the
 * call that described it holds another. */
typedef struct mpiad_impl_layout {
  int refs;
  int kind; /* K_F64 or K_F32 */
  size_t esz;
  size_t n1;     /* elements per item */
  ptrdiff_t ext; /* an item's extent, in elements */
  ptrdiff_t *off;
} mpiad_impl_layout;

/* MPI_DOUBLE / MPI_FLOAT: *lay = NULL.  A derived datatype whose elements
 * are all MPI_DOUBLE or all MPI_FLOAT: its layout (decoded once, kept with
 * the datatype).  Returns 0 for anything else. */
int mpiad_impl_type_layout(MPI_Datatype t, int *kind, size_t *esz,
                           mpiad_impl_layout **lay);
void mpiad_impl_layout_hold(mpiad_impl_layout *l);
void mpiad_impl_layout_drop(mpiad_impl_layout *l);
/* The basic type of a layout's elements (t itself when l is NULL). */
MPI_Datatype mpiad_impl_layout_base(const mpiad_impl_layout *l,
                                    MPI_Datatype t);
/* Basic elements in `count` items. */
size_t mpiad_impl_layout_elems(const mpiad_impl_layout *l, int count);

/* A point-to-point buffer of `count` items of t: its kind, element size,
 * layout (NULL: contiguous), basic type and number of basic elements, at most
 * max_elems.  Returns MPIAD_P2P_OK, or why not: t is not MPI_DOUBLE,
 * MPI_FLOAT or a derived type made of one of them, count is negative, or the
 * elements are too many. */
enum { MPIAD_P2P_OK, MPIAD_P2P_BAD_TYPE, MPIAD_P2P_BAD_COUNT, MPIAD_P2P_TOO_LARGE };
int mpiad_impl_p2p_layout(MPI_Datatype t, int count, size_t max_elems,
                          int *kind, size_t *esz, mpiad_impl_layout **lay,
                          MPI_Datatype *base, int *n);
/* The first m elements of buf through l (NULL: contiguous): copied to or
 * from a contiguous array, accumulated into, zeroed.  A NULL buf (a buffer
 * without derivatives) is left alone. */
void mpiad_impl_lgather(void *dst, const void *buf, const mpiad_impl_layout *l,
                        size_t m, size_t esz);
void mpiad_impl_lscatter(void *buf, const void *src, const mpiad_impl_layout *l,
                         size_t m, size_t esz);
void mpiad_impl_lacc(void *buf, const void *src, const mpiad_impl_layout *l,
                     size_t m, int kind);
void mpiad_impl_lzero(void *buf, const mpiad_impl_layout *l, size_t m,
                      size_t esz);

/* ------------------------------------------------------------------------- */
/* Scratch storage and lazily created MPI objects (adjoint_comm.c)           */
/* ------------------------------------------------------------------------- */

/* Carves the process-global data scratch into up to 4 regions of the given
 * byte sizes, each aligned to 16 bytes (a size of 0 gives a valid, unused
 * pointer; a NULL r_i is allowed).  The regions are valid until the next
 * carve; the contents are not kept.  Returns 0 if memory ran out. */
int mpiad_impl_carve(size_t b0, void **r0, size_t b1, void **r1, size_t b2,
                     void **r2, size_t b3, void **r3);

static inline int carve(size_t b0, void **r0, size_t b1, void **r1, size_t b2,
                        void **r2, size_t b3, void **r3) {
  return mpiad_impl_carve(b0, r0, b1, r1, b2, r2, b3, r3);
}

/* Creates (once) the pair datatypes and the PROD pair operations below, and
 * registers their release (and the scratch's) at MPI_Finalize. */
mpiad_result_t mpiad_impl_comm_init(void);

static inline mpiad_result_t ensure_init(void) {
  return mpiad_impl_comm_init();
}

/* Two contiguous elements of each kind (MPI_DOUBLE / MPI_FLOAT). */
extern MPI_Datatype mpiad_impl_pair_type[2];
/* Per kind: the operation on (product of non-zero inputs, number of zero
 * inputs) pairs, made by prod_fill. */
extern MPI_Op mpiad_impl_prod_op[2];

/* ------------------------------------------------------------------------- */
/* Reductions: operations, PROD pairs, MAXLOC / MINLOC pairs                 */
/* ------------------------------------------------------------------------- */

static inline int is_extreme_op(MPI_Op op) {
  return op == MPI_MAX || op == MPI_MIN;
}

static inline int valid_reduce_op(MPI_Op op) {
  return op == MPI_SUM || op == MPI_PROD || is_extreme_op(op);
}

/* Value/rank pairs with the layouts of MPI_DOUBLE_INT and MPI_FLOAT_INT. */
typedef struct {
  double v;
  int i;
} pair_di;
typedef struct {
  float v;
  int i;
} pair_fi;

static inline size_t loc_size(int kind) {
  return kind == K_F64 ? sizeof(pair_di) : sizeof(pair_fi);
}

static inline MPI_Datatype loc_type(int kind) {
  return kind == K_F64 ? MPI_DOUBLE_INT : MPI_FLOAT_INT;
}

static inline void loc_fill(void *pairs, const void *x, size_t n, int kind,
                            int rank) {
  if (kind == K_F64) {
    pair_di *p = pairs;
    for (size_t k = 0; k < n; ++k) {
      p[k].v = ((const double *)x)[k];
      p[k].i = rank;
    }
  } else {
    pair_fi *p = pairs;
    for (size_t k = 0; k < n; ++k) {
      p[k].v = ((const float *)x)[k];
      p[k].i = rank;
    }
  }
}

static inline double loc_v(const void *pairs, size_t k, int kind) {
  return kind == K_F64 ? ((const pair_di *)pairs)[k].v
                       : (double)((const pair_fi *)pairs)[k].v;
}

static inline int loc_i(const void *pairs, size_t k, int kind) {
  return kind == K_F64 ? ((const pair_di *)pairs)[k].i
                       : ((const pair_fi *)pairs)[k].i;
}

/* PROD pairs from the inputs: (x or 1 if x == 0, 1 if x == 0 else 0). */
static inline void prod_fill(void *pairs, const void *x, size_t n, int kind) {
  for (size_t k = 0; k < n; ++k) {
    double v = ld(x, k, kind);
    st(pairs, 2 * k, kind, v == 0.0 ? 1.0 : v);
    st(pairs, 2 * k + 1, kind, v == 0.0 ? 1.0 : 0.0);
  }
}

/* Derivative of the product over ranks with respect to this rank's input x:
 * the product of the other ranks' inputs, exact with zeros, never NaN
 * (unless the data are not finite). */
static inline double prod_deriv(double x, double prod_nonzero,
                                double zero_count) {
  if (zero_count == 0.0)
    return x != 0.0 ? prod_nonzero / x : 0.0;
  if (zero_count == 1.0 && x == 0.0)
    return prod_nonzero;
  return 0.0;
}

#endif /* MPIAD_COMM_INTERNAL_H */
