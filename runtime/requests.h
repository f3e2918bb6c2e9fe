/*
 * requests.h - internal: the bookkeeping behind the adjoints of
 * point-to-point and non-blocking communication (requests.c).
 *
 * Transfers.  Every message and non-blocking collective that the reverse
 * sweep reverses is described by an mpiad_xfer: what it was (op), its
 * element type, the adjoint buffers it touches, its counts and peer, and its
 * sequence number.  The forward sweep keeps the transfers of outstanding
 * requests in a table keyed by the MPI request handle; when a request
 * completes, its transfer goes on the record stack, a LIFO beside the tape
 * that the reverse sweep pops in mirror order.
 *
 * Matching adjoint messages.  Two messages between the same ranks with the
 * same tag may complete in different orders on the two sides (Waitany, or
 * waits in another order than the starts), so the user's tag cannot match
 * adjoint messages to transfers.  Each message instead gets a sequence
 * number in its stream (communicator, sender, receiver, tag): the sender
 * counts its sends in start order; the receiver counts its receives in
 * posting order once they have completed, which MPI's non-overtaking rule
 * makes the same number (the k-th posted receive that gets a message of a
 * stream gets its k-th message).  The adjoint message travels on the same
 * communicator with tag (tag + 1) * MPIAD_SEQ_SPAN + seq % MPIAD_SEQ_SPAN,
 * above every user tag, so that it matches exactly its transfer.
 *
 * Non-blocking collectives must start in the same order on every rank; their
 * adjoints start in the reverse order of the primal starts (a per-
 * communicator serial number), whatever order the waits completed in.
 */
#ifndef MPIAD_REQUESTS_H
#define MPIAD_REQUESTS_H

#include "comm_internal.h"

/* Number of sequence numbers per user tag; also the most tracked requests
 * that may be outstanding at once. */
#define MPIAD_SEQ_SPAN 4096

enum {
  XFER_SEND = 1,  /* a message sent: its adjoint is received and accumulated */
  XFER_RECV,      /* a message received: its adjoint is sent back */
  XFER_ALLREDUCE, /* Iallreduce(SUM) */
  XFER_BCAST,     /* Ibcast */
  XFER_ALLGATHER, /* Iallgather */
  XFER_TAN_SEND,  /* forward mode: packed [primal | tangent] send */
  XFER_TAN_RECV,  /* forward mode: packed receive, unpacked at completion */
  XFER_TAN_COLL   /* forward mode: a second collective carries the tangent */
};

typedef struct {
  int op;
  int kind;          /* K_F64 or K_F32 */
  size_t esz;
  MPI_Datatype type; /* SEND/RECV: the basic type (MPI_DOUBLE, MPI_FLOAT) */
  MPI_Datatype utype; /* SEND/RECV: the program's datatype, maybe derived */
  int derived;       /* utype is a derived datatype: count is in elements */
  mpiad_impl_layout *lay; /* non-blocking SEND/RECV with a derived type: its
                             layout (held until the transfer is reversed);
                             NULL: contiguous */
  void *a_b;         /* SEND/RECV/BCAST: the buffer's adjoint; ALLREDUCE and
                        ALLGATHER: the send buffer's adjoint or MPI_IN_PLACE */
  void *b_b;         /* ALLREDUCE/ALLGATHER: the receive buffer's adjoint */
  void *buf, *buf_d; /* TAN_RECV: where to unpack */
  int count;         /* elements (RECV: received, once complete) */
  int peer, tag;     /* SEND: dest, tag; RECV: actual source and tag */
  int root, partial;
  long long seq;     /* p2p: number in its stream (-1 until known);
                        collectives: serial on the communicator */
  long long id;      /* pairs a start record with its transfer */
  MPI_Comm comm;
} mpiad_xfer;

/* Aborts the program with "mpiad: <where>: <message>". */
_Noreturn void mpiad_impl_fatal(const char *where, const char *fmt, ...);

/* --- forward sweep -------------------------------------------------------- */

/* The next send number of the stream (comm, dest, tag). */
long long mpiad_impl_next_send(MPI_Comm comm, int dest, int tag);

/* A blocking receive (or the receive half of a Sendrecv) that has completed
 * with status s: records it as a RECV transfer on the record stack. */
void mpiad_impl_record_blocking_recv(const mpiad_xfer *x, const MPI_Status *s);

/* A blocking send: records it as a SEND transfer (its seq filled here). */
void mpiad_impl_record_blocking_send(const mpiad_xfer *x);

/* --- reverse sweep -------------------------------------------------------- */

/* Pops the record of a blocking transfer of the given op. */
void mpiad_impl_pop_blocking(int op, mpiad_xfer *x);

/* The tag of the adjoint message of transfer x (SEND or RECV). */
int mpiad_impl_adjoint_tag(const mpiad_xfer *x);

/* Bytes held by the record stack (counted as tape by mpiad_tape_bytes). */
size_t mpiad_impl_record_bytes(void);

#endif
