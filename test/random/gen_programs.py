#!/usr/bin/env python3
"""Random deadlock-free MPI communication programs for mpiad.

Each program is one self-contained C file, reproducible from its seed:

    gen_programs.py --seed S --out DIR --count N      writes DIR/rg_S.c ... DIR/rg_<S+N-1>.c

A program holds one marked function

    #pragma mpiad differentiate wrt(x) output(y) varying(x) name(rg_f_b) semantics(global|per_rank)
    void rg_f(const double *x, double *y, MPI_Comm comm)

that runs a random sequence of communication phases on double buffers, with
LINEAR arithmetic between them (no constant terms), so the map x -> y is linear
and the dot-product test <F(dx), yb> = <dx, F^T yb> is exact up to rounding.

Phases (every one deadlock-free without relying on MPI buffering of blocking
sends: receives are posted before blocking sends, every wait follows all the
posts of its phase, blocking rings let rank 0 send first, or Sendrecv):

  ring          Isend/Issend + Irecv around a ring (closed, or open with
                MPI_PROC_NULL at the ends), shift +1/-1/+2; completed by
                Waitall, two Waits in either order, Waitany, Test (flag unused)
                then Wait, Testall then Waitall, or Request_free of the send
  perm          the same on a random permutation computed in the C code from a
                seed written in the program (identical on every rank)
  irecv_send    Irecv, blocking Send/Ssend, Wait (ring or permutation)
  isend_recv    Isend, blocking Recv, Wait or Request_free (ring or permutation)
  sendrecv      MPI_Sendrecv (ring or permutation)
  blocking_ring Send/Recv ring, rank 0 sends first, the others receive first
  gather_any    many-to-one at a random root with Irecv(MPI_ANY_SOURCE, tag or
                MPI_ANY_TAG); data placed by status.MPI_SOURCE (and scaled by
                MPI_TAG), so the result does not depend on arrival order;
                completed by Waitall(statuses), Wait loop, Waitany loop or
                Waitsome loop; optionally Ibcast of the result; a Barrier fences
                the wildcard receives from later messages
  alltoall      every pair, 2P requests outstanding, completed by Waitall,
                Waitany loop, Waitsome loop, Waits in reverse order of starting,
                or receives then sends
  same_tag      two messages between the same pair with the SAME tag
                outstanding at once, completed in different orders on the two
                sides (even/odd ranks)
  pipeline      a request started in one loop iteration and completed in the
                next (optionally carrying data from step to step)
  coll_overlap  Iallreduce(SUM) / Ibcast / Iallgather (one or two) overlapped
                with a point-to-point phase, optionally tested (flag unused)
  test_free     a ring/permutation phase whose completion uses MPI_Test,
                MPI_Testall (flags never read) or MPI_Request_free

With --vectors, a point-to-point phase (ring, perm, test_free, irecv_send,
isend_recv, sendrecv, blocking_ring) sends and receives through a derived
datatype a third of the time: its buffers hold 2N doubles, the message's N
elements sit at 2i (MPI_Type_vector(N, 1, 2, ...)), at 2i + 1 (the same type
from &buf[1]) or at 2(N - 1 - i) (MPI_Type_indexed, reversed order), and the
other N elements carry derivatives of their own that the messages must leave
alone.  The type is made at the start of the phase and freed at its end (in
the helper, when the phase moves into one).  These decisions draw from a
random stream of their own, so a seed's program without --vectors is what it
was before the option existed.

Half of the phases are moved into static helpers rg_phK(a, b, y, r, P, comm)
(one level) or called through rg_phK_outer (two levels), sometimes with the
communicator passed through a local: communication where real programs put it.

Program s features kind KINDS[s % len(KINDS)], so any len(KINDS) consecutive
seeds cover every kind.  main() runs the generated adjoint through
test/lit/Inputs/hx_case.h (central differences, primal outputs, seeds zeroed,
tape empty), then two exact dot-product tests (relative 1e-12 of the larger of
|lhs| and the sum of |terms|, so cancellation does not fail on rounding), each
followed by the tape-empty check.  Compiled with -DRG_PRIMAL_ONLY (plain
mpicc, the pragma is ignored) main only runs the primal and checks that it is
deterministic and linear: F(x1 + 0.5 x2) = F(x1) + 0.5 F(x2).
"""

import argparse
import os
import random
import sys

KINDS = [
    "ring", "perm", "irecv_send", "isend_recv", "sendrecv", "blocking_ring",
    "gather_any", "alltoall", "same_tag", "pipeline", "coll_overlap", "test_free",
]

# Phases whose messages may go through a derived datatype (--vectors).
VEC_KINDS = {"ring", "perm", "test_free", "irecv_send", "isend_recv",
             "sendrecv", "blocking_ring"}

COEFS = [0.5, -0.5, 0.75, -0.75, 1.25, -1.25, 0.25, -0.25, 1.5, 1.0, -1.0, 0.625]


def fc(c):
    return repr(float(c))


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 17)
        self.n = self.rng.choice([2, 3, 4])
        self.lines = []
        self.ind = 1
        self.k = 0  # phase counter (names, tags)
        self.need_final_barrier = False
        self.kinds_used = []
        self.helpers = []  # static helpers holding phases (to_helper)
        self.vectors = False  # --vectors: p2p phases may use derived types
        self.vrng = random.Random(seed * 104729 + 31)
        self.vec = None  # this phase's layout: None, "even", "odd", "rev"
        # A v collective phase at the end (a third of the seeds), drawn from
        # an RNG of its own so that the other programs stay as they were.
        self.crng = random.Random(seed * 15485863 + 7)

    # ---- emission helpers ------------------------------------------------
    def emit(self, s=""):
        self.lines.append(("  " * self.ind + s) if s else "")

    def block(self, head):
        self.emit(head + " {")
        self.ind += 1

    def end(self, tail=""):
        self.ind -= 1
        self.emit("}" + tail)

    def coef(self):
        return fc(self.rng.choice(COEFS))

    def rcoef(self):
        """A coefficient, sometimes depending on the rank."""
        c = self.rng.choice(COEFS)
        if self.rng.random() < 0.3:
            return "(%s + %s * r)" % (fc(c), fc(self.rng.choice([0.25, -0.25, 0.5])))
        return fc(c)

    def req_name(self, base):
        return "%s%d" % (base, self.k)

    # ---- data: send buffers from the state, receive buffers into it --------
    # Layout mode (--vectors): element i of a message at pos(i) of a buffer
    # of 2N doubles; other(i) is the element the message leaves alone.
    def pos(self, i):
        i = i if i.isidentifier() else "(%s)" % i
        return {"even": "2 * %s" % i, "odd": "2 * %s + 1" % i,
                "rev": "2 * (N - 1 - %s)" % i}[self.vec]

    def other(self, i):
        i = i if i.isidentifier() else "(%s)" % i
        return {"even": "2 * %s + 1" % i, "odd": "2 * %s" % i,
                "rev": "2 * (N - 1 - %s) + 1" % i}[self.vec]

    def send_buf(self, name, slots=1, slot_var="q"):
        """double name[slots*N] filled from the state arrays a, b (linear)."""
        if self.vec and slots == 1:
            o = self.rng.randrange(self.n)
            self.emit("double %s[2 * N];" % name)
            self.block("for (int i = 0; i < N; i++)")
            self.emit("%s[%s] = %s * a[i] + %s * b[(i + %d) %% N];"
                      % (name, self.pos("i"), self.coef(), self.rcoef(), o))
            self.emit("%s[%s] = %s * b[i];" % (name, self.other("i"), self.coef()))
            self.end()
            return
        N = "N" if slots == 1 else "%s * N" % slots
        self.emit("double %s[%s];" % (name, N))
        o = self.rng.randrange(self.n)
        if slots == 1:
            self.block("for (int i = 0; i < N; i++)")
            self.emit("%s[i] = %s * a[i] + %s * b[(i + %d) %% N];"
                      % (name, self.coef(), self.rcoef(), o))
            self.end()
        else:
            self.block("for (int %s = 0; %s < %s; %s++)" % (slot_var, slot_var, slots, slot_var))
            self.block("for (int i = 0; i < N; i++)")
            self.emit("%s[%s * N + i] = %s * a[i] + %s * (%s + 1) * b[(i + %d) %% N];"
                      % (name, slot_var, self.coef(), self.coef(), slot_var, o))
            self.end()
            self.end()

    def recv_buf(self, name, slots=1):
        if self.vec and slots == 1:
            self.emit("double %s[2 * N];" % name)
            self.block("for (int i = 0; i < 2 * N; i++)")
            self.emit("%s[i] = %s * a[i %% N];" % (name, self.coef()))
            self.end()
            return
        N = "N" if slots == 1 else "%s * N" % slots
        self.emit("double %s[%s];" % (name, N))
        self.block("for (int i = 0; i < %s; i++)" % N)
        self.emit("%s[i] = 0.0;" % name)
        self.end()

    def consume(self, name, slots=1):
        """Mix a received buffer into y and the state (linear, elementwise or shifted)."""
        if slots == 1 and self.vec:
            o = self.rng.randrange(self.n)
            self.block("for (int i = 0; i < N; i++)")
            self.emit("y[i] += %s * %s[%s] + %s * %s[%s];"
                      % (self.rcoef(), name, self.pos("i"), self.rcoef(), name,
                         self.other("i")))
            tgt = self.rng.choice(["a", "b"])
            self.emit("%s[i] = %s * %s[i] + %s * %s[%s];"
                      % (tgt, self.coef(), tgt, self.coef(), name,
                         self.pos("(i + %d) %% N" % o)))
            self.end()
        elif slots == 1:
            o = self.rng.randrange(self.n)
            self.block("for (int i = 0; i < N; i++)")
            self.emit("y[i] += %s * %s[i];" % (self.rcoef(), name))
            tgt = self.rng.choice(["a", "b"])
            self.emit("%s[i] = %s * %s[i] + %s * %s[(i + %d) %% N];"
                      % (tgt, self.coef(), tgt, self.coef(), name, o))
            self.end()
        else:
            tgt = self.rng.choice(["a", "b"])
            self.block("for (int q = 0; q < %s; q++)" % slots)
            self.block("for (int i = 0; i < N; i++)")
            self.emit("y[i] += (%s + %s * q) * %s[q * N + i];"
                      % (self.coef(), fc(self.rng.choice([0.25, -0.5, 0.75])), name))
            self.emit("%s[i] += %s * %s[q * N + i];" % (tgt, self.coef(), name))
            self.end()
            self.end()

    # ---- peers -------------------------------------------------------------
    def peers(self, style=None):
        """Declares dst<k>, src<k>; returns (dst, src, style)."""
        k = self.k
        if style is None:
            style = self.rng.choice(["closed", "closed", "open", "perm"])
        dst, src = "dst%d" % k, "src%d" % k
        if style in ("closed", "closed1"):
            # closed1: shift +-1 only (a blocking ring where rank 0 sends first
            # must be one cycle through rank 0)
            d = self.rng.choice([1, -1] if style == "closed1" else [1, -1, 2])
            if d > 0:
                self.emit("int %s = (r + %d) %% P, %s = (r + %d * P - %d) %% P;"
                          % (dst, d, src, d, d))
            else:
                self.emit("int %s = (r + P - 1) %% P, %s = (r + 1) %% P;" % (dst, src))
        elif style == "open":
            if self.rng.random() < 0.5:
                self.emit("int %s = r + 1 < P ? r + 1 : MPI_PROC_NULL;" % dst)
                self.emit("int %s = r > 0 ? r - 1 : MPI_PROC_NULL;" % src)
            else:
                self.emit("int %s = r > 0 ? r - 1 : MPI_PROC_NULL;" % dst)
                self.emit("int %s = r + 1 < P ? r + 1 : MPI_PROC_NULL;" % src)
        elif style == "pair":
            self.emit("int %s = (r ^ 1) < P ? (r ^ 1) : MPI_PROC_NULL;" % dst)
            self.emit("int %s = %s;" % (src, dst))
        else:  # perm: identical on every rank, from a seed written here
            ps = self.rng.randrange(1, 1 << 30)
            self.emit("int perm%d[MAXP], inv%d[MAXP];" % (k, k))
            self.block("for (int q = 0; q < P; q++)")
            self.emit("perm%d[q] = q;" % k)
            self.end()
            self.emit("unsigned int ps%d = %du;" % (k, ps))
            self.block("for (int q = P - 1; q > 0; q--)")
            self.emit("ps%d = ps%d * 1103515245u + 12345u;" % (k, k))
            self.emit("int j = (int)((ps%d >> 16) %% (unsigned int)(q + 1));" % k)
            self.emit("int t = perm%d[q];" % k)
            self.emit("perm%d[q] = perm%d[j];" % (k, k))
            self.emit("perm%d[j] = t;" % k)
            self.end()
            self.block("for (int q = 0; q < P; q++)")
            self.emit("inv%d[perm%d[q]] = q;" % (k, k))
            self.end()
            self.emit("int %s = perm%d[r], %s = inv%d[r];" % (dst, k, src, k))
        return dst, src, style

    def tag(self):
        return 100 + 10 * self.k

    def sendfn(self):
        return self.rng.choice(["MPI_Isend", "MPI_Isend", "MPI_Issend"])

    # ---- phases --------------------------------------------------------------
    def ph_simple_nb(self, style=None, completion=None):
        """ring / perm / test_free: one Irecv and one Isend, several completions."""
        k = self.k
        dst, src, style = self.peers(style)
        sb, rb = "s%d" % k, "rb%d" % k
        self.send_buf(sb)
        self.recv_buf(rb)
        T = self.tag()
        if completion is None:
            completion = self.rng.choice(
                ["waitall", "waitall_st", "wait_rs", "wait_sr", "waitany", "test",
                 "testall", "free", "scalar"])
        sfn = "MPI_Isend" if completion == "free" else self.sendfn()
        self.emit("/* %s exchange, completion: %s */" % (style, completion))
        if completion == "scalar":
            rr, sr = "rr%d" % k, "sr%d" % k
            self.emit("MPI_Request %s, %s;" % (rr, sr))
            recv = "MPI_Irecv(%s, N, MPI_DOUBLE, %s, %d, comm, &%s);" % (rb, src, T, rr)
            send = "%s(%s, N, MPI_DOUBLE, %s, %d, comm, &%s);" % (sfn, sb, dst, T, sr)
            for s in self.rng.sample([recv, send], 2):
                self.emit(s)
            waits = ["MPI_Wait(&%s, MPI_STATUS_IGNORE);" % rr,
                     "MPI_Wait(&%s, MPI_STATUS_IGNORE);" % sr]
            for s in self.rng.sample(waits, 2):
                self.emit(s)
            self.consume(rb)
            return
        rq = "rq%d" % k
        self.emit("MPI_Request %s[2];" % rq)
        recv = "MPI_Irecv(%s, N, MPI_DOUBLE, %s, %d, comm, &%s[0]);" % (rb, src, T, rq)
        send = "%s(%s, N, MPI_DOUBLE, %s, %d, comm, &%s[1]);" % (sfn, sb, dst, T, rq)
        for s in self.rng.sample([recv, send], 2):
            self.emit(s)
        if completion == "waitall":
            self.emit("MPI_Waitall(2, %s, MPI_STATUSES_IGNORE);" % rq)
        elif completion == "waitall_st":
            self.emit("MPI_Status st%d[2];" % k)
            self.emit("MPI_Waitall(2, %s, st%d);" % (rq, k))
        elif completion == "wait_rs":
            self.emit("MPI_Wait(&%s[0], MPI_STATUS_IGNORE);" % rq)
            self.emit("MPI_Wait(&%s[1], MPI_STATUS_IGNORE);" % rq)
        elif completion == "wait_sr":
            self.emit("MPI_Status st%d;" % k)
            self.emit("MPI_Wait(&%s[1], MPI_STATUS_IGNORE);" % rq)
            self.emit("MPI_Wait(&%s[0], &st%d);" % (rq, k))
        elif completion == "waitany":
            self.block("for (int m = 0; m < 2; m++)")
            self.emit("int idx;")
            self.emit("MPI_Waitany(2, %s, &idx, MPI_STATUS_IGNORE);" % rq)
            self.end()
        elif completion == "test":
            which = self.rng.choice([0, 1])
            self.emit("int flag%d;" % k)
            self.emit("MPI_Test(&%s[%d], &flag%d, MPI_STATUS_IGNORE);" % (rq, which, k))
            if self.rng.random() < 0.5:
                self.emit("MPI_Waitall(2, %s, MPI_STATUSES_IGNORE);" % rq)
            else:
                self.emit("MPI_Wait(&%s[%d], MPI_STATUS_IGNORE);" % (rq, which))
                self.emit("MPI_Wait(&%s[%d], MPI_STATUS_IGNORE);" % (rq, 1 - which))
        elif completion == "testall":
            self.emit("int flag%d;" % k)
            self.emit("MPI_Testall(2, %s, &flag%d, MPI_STATUSES_IGNORE);" % (rq, k))
            self.emit("MPI_Waitall(2, %s, MPI_STATUSES_IGNORE);" % rq)
        elif completion == "free":
            # the send buffer is never written again, and a Barrier at the end
            # of the function orders the receive before the buffer goes away
            self.emit("MPI_Request_free(&%s[1]);" % rq)
            self.emit("MPI_Wait(&%s[0], MPI_STATUS_IGNORE);" % rq)
            self.need_final_barrier = True
        self.consume(rb)

    def ph_ring(self):
        self.ph_simple_nb(style=self.rng.choice(["closed", "closed", "open"]))

    def ph_perm(self):
        self.ph_simple_nb(style="perm")

    def ph_test_free(self):
        self.ph_simple_nb(completion=self.rng.choice(["test", "testall", "free"]))

    def ph_irecv_send(self):
        k = self.k
        dst, src, style = self.peers()
        sb, rb = "s%d" % k, "rb%d" % k
        self.send_buf(sb)
        self.recv_buf(rb)
        T = self.tag()
        blk = self.rng.choice(["MPI_Send", "MPI_Ssend"])
        self.emit("/* %s: Irecv, blocking %s, Wait */" % (style, blk))
        self.emit("MPI_Request rr%d;" % k)
        self.emit("MPI_Irecv(%s, N, MPI_DOUBLE, %s, %d, comm, &rr%d);" % (rb, src, T, k))
        self.emit("%s(%s, N, MPI_DOUBLE, %s, %d, comm);" % (blk, sb, dst, T))
        self.emit("MPI_Wait(&rr%d, MPI_STATUS_IGNORE);" % k)
        self.consume(rb)

    def ph_isend_recv(self):
        k = self.k
        dst, src, style = self.peers()
        sb, rb = "s%d" % k, "rb%d" % k
        self.send_buf(sb)
        self.recv_buf(rb)
        T = self.tag()
        free = self.rng.random() < 0.3
        self.emit("/* %s: Isend, blocking Recv, %s */" % (style, "Request_free" if free else "Wait"))
        self.emit("MPI_Request sr%d;" % k)
        self.emit("%s(%s, N, MPI_DOUBLE, %s, %d, comm, &sr%d);"
                  % ("MPI_Isend" if free else self.sendfn(), sb, dst, T, k))
        if free:
            self.emit("MPI_Request_free(&sr%d);" % k)
            self.need_final_barrier = True
        if self.rng.random() < 0.5:
            self.emit("MPI_Status st%d;" % k)
            self.emit("MPI_Recv(%s, N, MPI_DOUBLE, %s, %d, comm, &st%d);" % (rb, src, T, k))
        else:
            self.emit("MPI_Recv(%s, N, MPI_DOUBLE, %s, %d, comm, MPI_STATUS_IGNORE);" % (rb, src, T))
        if not free:
            self.emit("MPI_Wait(&sr%d, MPI_STATUS_IGNORE);" % k)
        self.consume(rb)

    def ph_sendrecv(self):
        k = self.k
        dst, src, style = self.peers()
        sb, rb = "s%d" % k, "rb%d" % k
        self.send_buf(sb)
        self.recv_buf(rb)
        T = self.tag()
        self.emit("/* %s: Sendrecv */" % style)
        self.emit("MPI_Sendrecv(%s, N, MPI_DOUBLE, %s, %d, %s, N, MPI_DOUBLE, %s, %d, comm,"
                  % (sb, dst, T, rb, src, T))
        self.emit("             MPI_STATUS_IGNORE);")
        self.consume(rb)

    def ph_blocking_ring(self):
        k = self.k
        dst, src, style = self.peers(self.rng.choice(["closed1", "open"]))
        sb, rb = "s%d" % k, "rb%d" % k
        self.send_buf(sb)
        self.recv_buf(rb)
        T = self.tag()
        self.emit("/* blocking %s ring: rank 0 sends first */" % style)
        self.block("if (r == 0)")
        self.emit("MPI_Send(%s, N, MPI_DOUBLE, %s, %d, comm);" % (sb, dst, T))
        self.emit("MPI_Recv(%s, N, MPI_DOUBLE, %s, %d, comm, MPI_STATUS_IGNORE);" % (rb, src, T))
        self.end(" else {")
        self.ind += 1
        self.emit("MPI_Recv(%s, N, MPI_DOUBLE, %s, %d, comm, MPI_STATUS_IGNORE);" % (rb, src, T))
        self.emit("MPI_Send(%s, N, MPI_DOUBLE, %s, %d, comm);" % (sb, dst, T))
        self.end()
        self.consume(rb)

    def ph_gather_any(self):
        k = self.k
        T = self.tag()
        root = "root%d" % k
        self.emit("int %s = %d %% P;" % (root, self.rng.randrange(4)))
        anytag = self.rng.random() < 0.5
        sb, g = "s%d" % k, "g%d" % k
        self.send_buf(sb)
        self.recv_buf(g, "MAXP")
        sender = self.rng.choice(["isend_wait", "send", "issend_wait", "isend_free", "ssend"])
        completion = self.rng.choice(["waitall", "wait_loop", "waitany", "waitsome"])
        self.emit("/* many-to-one at %s, MPI_ANY_SOURCE%s, senders %s, root %s */"
                  % (root, " + MPI_ANY_TAG" if anytag else "", sender, completion))
        stag = "%d + r" % T if anytag else str(T)
        self.block("if (r != %s)" % root)
        if sender in ("isend_wait", "issend_wait", "isend_free"):
            fn = "MPI_Issend" if sender == "issend_wait" else "MPI_Isend"
            self.emit("MPI_Request sr%d;" % k)
            self.emit("%s(%s, N, MPI_DOUBLE, %s, %s, comm, &sr%d);" % (fn, sb, root, stag, k))
            if sender == "isend_free":
                self.emit("MPI_Request_free(&sr%d);" % k)  # the Barrier below orders it
            else:
                self.emit("MPI_Wait(&sr%d, MPI_STATUS_IGNORE);" % k)
        else:
            fn = "MPI_Send" if sender == "send" else "MPI_Ssend"
            self.emit("%s(%s, N, MPI_DOUBLE, %s, %s, comm);" % (fn, sb, root, stag))
        self.end(" else {")
        self.ind += 1
        c0 = self.coef()
        self.block("for (int i = 0; i < N; i++)")
        self.emit("%s[%s * N + i] = %s * %s[i];" % (g, root, c0, sb))
        self.end()
        t, rq = "t%d" % k, "rq%d" % k
        self.emit("double %s[MAXP * N];" % t)
        self.emit("MPI_Request %s[MAXP];" % rq)
        rtag = "MPI_ANY_TAG" if anytag else str(T)
        self.block("for (int m = 0; m < P - 1; m++)")
        self.emit("MPI_Irecv(&%s[m * N], N, MPI_DOUBLE, MPI_ANY_SOURCE, %s, comm, &%s[m]);"
                  % (t, rtag, rq))
        self.end()
        cw = self.coef()

        def place(stat, m):
            self.emit("int src = %s.MPI_SOURCE;" % stat)
            if anytag:
                self.emit("double w = %s + 0.25 * (%s.MPI_TAG - %d);" % (cw, stat, T))
            else:
                self.emit("double w = %s + 0.25 * src;" % cw)
            self.block("for (int i = 0; i < N; i++)")
            self.emit("%s[src * N + i] = w * %s[%s * N + i];" % (g, t, m))
            self.end()

        if completion == "waitall":
            self.emit("MPI_Status sts%d[MAXP];" % k)
            self.emit("MPI_Waitall(P - 1, %s, sts%d);" % (rq, k))
            self.block("for (int m = 0; m < P - 1; m++)")
            place("sts%d[m]" % k, "m")
            self.end()
        elif completion == "wait_loop":
            self.block("for (int m = 0; m < P - 1; m++)")
            self.emit("MPI_Status st;")
            self.emit("MPI_Wait(&%s[m], &st);" % rq)
            place("st", "m")
            self.end()
        elif completion == "waitany":
            self.block("for (int m = 0; m < P - 1; m++)")
            self.emit("int idx;")
            self.emit("MPI_Status st;")
            self.emit("MPI_Waitany(P - 1, %s, &idx, &st);" % rq)
            place("st", "idx")
            self.end()
        else:
            self.emit("int done%d = 0;" % k)
            self.block("while (done%d < P - 1)" % k)
            self.emit("int outc;")
            self.emit("int idxs[MAXP];")
            self.emit("MPI_Status sts[MAXP];")
            self.emit("MPI_Waitsome(P - 1, %s, &outc, idxs, sts);" % rq)
            self.block("for (int j = 0; j < outc; j++)")
            place("sts[j]", "idxs[j]")
            self.end()
            self.emit("done%d += outc;" % k)
            self.end()
        self.end()
        self.emit("/* no later message may meet the wildcard receives */")
        self.emit("MPI_Barrier(comm);")
        if self.rng.random() < 0.35:
            self.emit("MPI_Request br%d;" % k)
            self.emit("MPI_Ibcast(%s, P * N, MPI_DOUBLE, %s, comm, &br%d);" % (g, root, k))
            self.emit("MPI_Wait(&br%d, MPI_STATUS_IGNORE);" % k)
        self.consume(g, "MAXP")

    def ph_alltoall(self):
        k = self.k
        T = self.tag()
        sb, rb, rq = "s%d" % k, "rb%d" % k, "rq%d" % k
        self.send_buf(sb, "MAXP")
        self.recv_buf(rb, "MAXP")
        completion = self.rng.choice(["waitall", "waitany", "waitsome", "reverse", "split"])
        sfn = self.sendfn()
        amp = self.rng.random() < 0.5
        self.emit("/* all pairs, 2P requests outstanding, completion: %s */" % completion)
        self.emit("MPI_Request %s[2 * MAXP];" % rq)
        rbuf = ("&%s[q * N]" if amp else "%s + q * N") % rb
        sbuf = ("&%s[q * N]" if amp else "%s + q * N") % sb
        if completion == "split":
            # receives in rq[0..P), sends in rq[P..2P)
            self.block("for (int q = 0; q < P; q++)")
            self.emit("MPI_Irecv(%s, N, MPI_DOUBLE, q, %d, comm, &%s[q]);" % (rbuf, T, rq))
            self.end()
            self.block("for (int q = 0; q < P; q++)")
            self.emit("%s(%s, N, MPI_DOUBLE, q, %d, comm, &%s[P + q]);" % (sfn, sbuf, T, rq))
            self.end()
            self.emit("MPI_Waitall(P, %s, MPI_STATUSES_IGNORE);" % rq)
            self.emit("MPI_Waitall(P, &%s[P], MPI_STATUSES_IGNORE);" % rq)
        else:
            self.block("for (int q = 0; q < P; q++)")
            self.emit("MPI_Irecv(%s, N, MPI_DOUBLE, q, %d, comm, &%s[2 * q]);" % (rbuf, T, rq))
            self.emit("%s(%s, N, MPI_DOUBLE, q, %d, comm, &%s[2 * q + 1]);" % (sfn, sbuf, T, rq))
            self.end()
            if completion == "waitall":
                self.emit("MPI_Waitall(2 * P, %s, MPI_STATUSES_IGNORE);" % rq)
            elif completion == "waitany":
                self.block("for (int m = 0; m < 2 * P; m++)")
                self.emit("int idx;")
                self.emit("MPI_Waitany(2 * P, %s, &idx, MPI_STATUS_IGNORE);" % rq)
                self.end()
            elif completion == "waitsome":
                self.emit("int done%d = 0;" % k)
                self.block("while (done%d < 2 * P)" % k)
                self.emit("int outc;")
                self.emit("int idxs[2 * MAXP];")
                self.emit("MPI_Waitsome(2 * P, %s, &outc, idxs, MPI_STATUSES_IGNORE);" % rq)
                self.emit("done%d += outc;" % k)
                self.end()
            else:
                self.block("for (int m = 2 * P - 1; m >= 0; m--)")
                self.emit("MPI_Wait(&%s[m], MPI_STATUS_IGNORE);" % rq)
                self.end()
        self.consume(rb, "MAXP")

    def ph_same_tag(self):
        k = self.k
        dst, src, style = self.peers(self.rng.choice(["pair", "closed", "open", "perm"]))
        T = self.tag()
        sa, sbb, ra, rbb, rq = "sa%d" % k, "sb%d" % k, "ra%d" % k, "rb%d" % k, "rq%d" % k
        self.send_buf(sa)
        self.send_buf(sbb)
        self.recv_buf(ra)
        self.recv_buf(rbb)
        sfn = self.sendfn()
        self.emit("/* %s: two messages with the same tag outstanding, completed in"
                  " different orders on even and odd ranks */" % style)
        self.emit("MPI_Request %s[4];" % rq)
        self.emit("MPI_Irecv(%s, N, MPI_DOUBLE, %s, %d, comm, &%s[0]);" % (ra, src, T, rq))
        self.emit("MPI_Irecv(%s, N, MPI_DOUBLE, %s, %d, comm, &%s[1]);" % (rbb, src, T, rq))
        self.emit("%s(%s, N, MPI_DOUBLE, %s, %d, comm, &%s[2]);" % (sfn, sa, dst, T, rq))
        self.emit("%s(%s, N, MPI_DOUBLE, %s, %d, comm, &%s[3]);" % (sfn, sbb, dst, T, rq))
        v = self.rng.choice(["waits", "waits", "waitany_odd"])
        self.block("if (r %% 2 == %d)" % self.rng.choice([0, 1]))
        for i in (0, 1, 3, 2):
            self.emit("MPI_Wait(&%s[%d], MPI_STATUS_IGNORE);" % (rq, i))
        self.end(" else {")
        self.ind += 1
        if v == "waits":
            for i in (1, 0, 2, 3):
                self.emit("MPI_Wait(&%s[%d], MPI_STATUS_IGNORE);" % (rq, i))
        else:
            self.block("for (int m = 0; m < 4; m++)")
            self.emit("int idx;")
            self.emit("MPI_Waitany(4, %s, &idx, MPI_STATUS_IGNORE);" % rq)
            self.end()
        self.end()
        # different coefficients for the two messages: a swap would show
        self.block("for (int i = 0; i < N; i++)")
        self.emit("y[i] += %s * %s[i] + %s * %s[i];" % (fc(0.75), ra, fc(-1.25), rbb))
        tgt = self.rng.choice(["a", "b"])
        self.emit("%s[i] += %s * %s[i] + %s * %s[i];" % (tgt, fc(0.5), rbb, fc(0.25), ra))
        self.end()

    def ph_pipeline(self):
        k = self.k
        dst, src, style = self.peers()
        steps = self.rng.choice([2, 3, 4])
        T = self.tag()
        same = self.rng.random() < 0.4
        tg = str(T) if same else "%d + s" % T
        sb, rb, rr, sr = "s%d" % k, "rb%d" % k, "rr%d" % k, "sr%d" % k
        self.send_buf(sb, steps, "s")
        self.recv_buf(rb, steps)
        carry = self.rng.random() < 0.5
        sfn = self.sendfn()
        self.emit("/* %s pipeline of %d steps (tag %s): step s is completed in"
                  " iteration s + 1%s */" % (style, steps, "fixed" if same else "T + s",
                                              ", data carried" if carry else ""))
        self.emit("MPI_Request %s[2], %s[2];" % (rr, sr))
        self.block("for (int s = 0; s < %d; s++)" % steps)
        if carry:
            self.block("if (s > 0)")
            self.emit("MPI_Wait(&%s[(s - 1) %% 2], MPI_STATUS_IGNORE);" % rr)
            self.block("for (int i = 0; i < N; i++)")
            self.emit("%s[s * N + i] += %s * %s[(s - 1) * N + i];" % (sb, self.coef(), rb))
            self.end()
            self.end()
            self.emit("MPI_Irecv(&%s[s * N], N, MPI_DOUBLE, %s, %s, comm, &%s[s %% 2]);"
                      % (rb, src, tg, rr))
            self.emit("%s(&%s[s * N], N, MPI_DOUBLE, %s, %s, comm, &%s[s %% 2]);"
                      % (sfn, sb, dst, tg, sr))
            self.block("if (s > 0)")
            self.emit("MPI_Wait(&%s[(s - 1) %% 2], MPI_STATUS_IGNORE);" % sr)
            self.end()
        else:
            self.emit("MPI_Irecv(&%s[s * N], N, MPI_DOUBLE, %s, %s, comm, &%s[s %% 2]);"
                      % (rb, src, tg, rr))
            self.emit("%s(&%s[s * N], N, MPI_DOUBLE, %s, %s, comm, &%s[s %% 2]);"
                      % (sfn, sb, dst, tg, sr))
            self.block("if (s > 0)")
            order = ["MPI_Wait(&%s[(s - 1) %% 2], MPI_STATUS_IGNORE);" % rr,
                     "MPI_Wait(&%s[(s - 1) %% 2], MPI_STATUS_IGNORE);" % sr]
            for s in self.rng.sample(order, 2):
                self.emit(s)
            self.end()
        self.end()
        self.emit("MPI_Wait(&%s[%d], MPI_STATUS_IGNORE);" % (rr, (steps - 1) % 2))
        self.emit("MPI_Wait(&%s[%d], MPI_STATUS_IGNORE);" % (sr, (steps - 1) % 2))
        self.consume(rb, steps)

    def ph_coll_overlap(self):
        k0 = self.k
        ncoll = self.rng.choice([1, 1, 2])
        started = []
        for c in range(ncoll):
            kind = self.rng.choice(["iallreduce", "ibcast", "iallgather"])
            cb, db, cr = "cb%d_%d" % (k0, c), "db%d_%d" % (k0, c), "cr%d_%d" % (k0, c)
            self.send_buf(cb)
            self.recv_buf(db, "MAXP")
            self.emit("MPI_Request %s;" % cr)
            if kind == "iallreduce":
                self.emit("MPI_Iallreduce(%s, %s, N, MPI_DOUBLE, MPI_SUM, comm, &%s);" % (cb, db, cr))
            elif kind == "ibcast":
                root = self.rng.randrange(4)
                self.block("for (int i = 0; i < N; i++)")
                self.emit("%s[i] = %s[i];" % (db, cb))
                self.end()
                self.emit("MPI_Ibcast(%s, N, MPI_DOUBLE, %d %% P, comm, &%s);" % (db, root, cr))
            else:
                self.emit("MPI_Iallgather(%s, N, MPI_DOUBLE, %s, N, MPI_DOUBLE, comm, &%s);"
                          % (cb, db, cr))
            if self.rng.random() < 0.3:
                self.emit("int cflag%d_%d;" % (k0, c))
                self.emit("MPI_Test(&%s, &cflag%d_%d, MPI_STATUS_IGNORE);" % (cr, k0, c))
            started.append((cr, db))
        self.emit("/* a point-to-point phase while the collective%s in flight */"
                  % ("s are" if ncoll > 1 else " is"))
        self.k += 1
        inner = self.rng.choice(["ring", "perm", "same_tag", "alltoall", "irecv_send"])
        getattr(self, "ph_" + inner)()
        waits = started if self.rng.random() < 0.5 else list(reversed(started))
        for cr, db in waits:
            self.emit("MPI_Wait(&%s, MPI_STATUS_IGNORE);" % cr)
        for cr, db in started:
            self.consume(db, "MAXP")

    def ph_vcoll(self):
        """A v collective with rank-dependent counts, blocks in any order and
        gaps between them: Allgatherv, Alltoallv, Gatherv then Scatterv, or
        Reduce_scatter.  (Uses self.rng: ph_vcoll runs with it swapped for
        self.crng.)"""
        k = self.k
        kind = self.rng.choice(["allgatherv", "alltoallv", "gatherv", "reduce_scatter"])
        self.kinds_used.append(kind)
        c, d, t = "vc%d" % k, "vd%d" % k, "vt%d" % k
        sb, rb = "vs%d" % k, "vr%d" % k
        self.emit("int %s[MAXP], %s[MAXP], %s = 0;" % (c, d, t))
        self.emit("double %s[2 * MAXP], %s[3 * MAXP];" % (sb, rb))
        self.block("for (int i = 0; i < 2 * MAXP; i++)")
        self.emit("%s[i] = %s * a[i %% N] + %s * b[(i + %d) %% N];"
                  % (sb, self.rcoef(), self.coef(), self.rng.randrange(self.n)))
        self.end()
        self.block("for (int i = 0; i < 3 * MAXP; i++)")
        self.emit("%s[i] = 0.0;" % rb)
        self.end()
        gap = self.rng.choice([0, 1])
        order = self.rng.choice(["q", "P - 1 - q"])
        if kind == "alltoallv":
            sc, sd, st = "vsc%d" % k, "vsd%d" % k, "vst%d" % k
            self.emit("int %s[MAXP], %s[MAXP], %s = 0;" % (sc, sd, st))
            self.block("for (int q = 0; q < P; q++)")
            self.emit("%s[q] = (r + q) %% 2 + 1;" % sc)
            self.emit("%s[q] = %s;" % (sd, st))
            self.emit("%s += %s[q];" % (st, sc))
            self.end()
            self.block("for (int m = 0; m < P; m++)")
            self.emit("int q = %s;" % order.replace("q", "m"))
            self.emit("%s[q] = (r + q) %% 2 + 1;" % c)
            self.emit("%s[q] = %s + %d;" % (d, t, gap))
            self.emit("%s += %s[q] + %d;" % (t, c, gap))
            self.end()
            self.emit("MPI_Alltoallv(%s, %s, %s, MPI_DOUBLE, %s, %s, %s, MPI_DOUBLE, comm);"
                      % (sb, sc, sd, rb, c, d))
        else:
            self.block("for (int m = 0; m < P; m++)")
            self.emit("int q = %s;" % order.replace("q", "m"))
            self.emit("%s[q] = q %% 2 + 1;" % c)
            g = 0 if kind == "reduce_scatter" else gap
            self.emit("%s[q] = %s + %d;" % (d, t, g))
            self.emit("%s += %s[q] + %d;" % (t, c, g))
            self.end()
            if kind == "allgatherv":
                self.emit("MPI_Allgatherv(%s, r %% 2 + 1, MPI_DOUBLE, %s, %s, %s, MPI_DOUBLE, comm);"
                          % (sb, rb, c, d))
            elif kind == "reduce_scatter":
                self.emit("MPI_Reduce_scatter(%s, %s, %s, MPI_DOUBLE, MPI_SUM, comm);"
                          % (sb, rb, c))
                self.emit("%s = r %% 2 + 1;" % t)
            else:
                root = self.rng.randrange(4)
                gr = "vg%d" % k
                self.emit("double %s[3 * MAXP];" % gr)
                self.block("for (int i = 0; i < 3 * MAXP; i++)")
                self.emit("%s[i] = 0.0;" % gr)
                self.end()
                null = self.rng.random() < 0.5
                cc, dd = c, d
                if null:  # only the root passes the counts
                    cc, dd = "vpc%d" % k, "vpd%d" % k
                    self.emit("const int *%s = r == %d %% P ? %s : NULL;" % (cc, root, c))
                    self.emit("const int *%s = r == %d %% P ? %s : NULL;" % (dd, root, d))
                self.emit("MPI_Gatherv(%s, r %% 2 + 1, MPI_DOUBLE, %s, %s, %s, MPI_DOUBLE, %d %% P, comm);"
                          % (sb, gr, cc, dd, root))
                self.block("if (r == %d %% P)" % root)
                self.block("for (int i = 0; i < %s; i++)" % t)
                self.emit("%s[i] = %s * %s[i] + %s * %s[(i + 1) %% %s];"
                          % (gr, self.coef(), gr, self.coef(), gr, t))
                self.end()
                self.end()
                self.emit("MPI_Scatterv(%s, %s, %s, MPI_DOUBLE, %s, r %% 2 + 1, MPI_DOUBLE, %d %% P, comm);"
                          % (gr, cc, dd, rb, root))
                self.emit("%s = r %% 2 + 1;" % t)
        tgt = self.rng.choice(["a", "b"])
        self.block("for (int i = 0; i < %s; i++)" % t)
        self.emit("y[i %% N] += %s * %s[i];" % (self.rcoef(), rb))
        self.emit("%s[(i + %d) %% N] += %s * %s[i];"
                  % (tgt, self.rng.randrange(self.n), self.coef(), rb))
        self.end()

    # ---- the program ----------------------------------------------------------
    def body(self):
        featured = KINDS[self.seed % len(KINDS)]
        nphase = self.rng.choice([2, 3, 3, 4])
        kinds = [featured] + [self.rng.choice(KINDS) for _ in range(nphase)]
        self.rng.shuffle(kinds)
        self.kinds_used = kinds
        self.emit("int r, P;")
        self.emit("MPI_Comm_rank(comm, &r);")
        self.emit("MPI_Comm_size(comm, &P);")
        self.emit("double a[N], b[N];")
        self.block("for (int i = 0; i < N; i++)")
        self.emit("a[i] = %s * x[i] + %s * x[(i + 1) %% N];" % (self.rcoef(), self.coef()))
        self.emit("b[i] = %s * x[i];" % self.coef())
        self.emit("y[i] = %s * x[(i + %d) %% N];" % (self.coef(), self.rng.randrange(self.n)))
        self.end()
        for kind in kinds:
            self.k += 1
            self.emit("")
            self.emit("/* ---- phase %d: %s ---- */" % (self.k, kind))
            start = len(self.lines)
            self.vec = None
            if self.vectors and kind in VEC_KINDS and self.vrng.random() < 1.0 / 3:
                self.vec = self.vrng.choice(["even", "odd", "rev"])
            getattr(self, "ph_" + kind)()
            if self.vec:
                self.layout_phase(start)
            self.vec = None
            place = self.rng.choice(["inline", "inline", "helper", "helper2"])
            if place != "inline":
                self.to_helper(start, place == "helper2")
        if self.crng.random() < 1.0 / 3:
            self.k += 1
            self.emit("")
            self.emit("/* ---- phase %d: a v collective ---- */" % self.k)
            main, self.rng = self.rng, self.crng
            self.ph_vcoll()
            self.rng = main
        self.emit("")
        self.block("for (int i = 0; i < N; i++)")
        self.emit("y[i] += %s * a[i] + %s * b[(i + 1) %% N];" % (self.rcoef(), self.coef()))
        self.end()
        if self.need_final_barrier:
            self.emit("/* freed send requests: their receives are complete after this */")
            self.emit("MPI_Barrier(comm);")

    def layout_phase(self, start):
        """Makes the phase emitted from self.lines[start:] send and receive
        its buffers s<k>, rb<k> as one item of the phase's derived type."""
        k = self.k
        vt = "vt%d" % k
        ind = "  " * self.ind
        if self.vec == "rev":
            make = [ind + "int bl%d[N], dis%d[N];" % (k, k),
                    ind + "for (int i = 0; i < N; i++) {",
                    ind + "  bl%d[i] = 1;" % k,
                    ind + "  dis%d[i] = 2 * (N - 1 - i);" % k,
                    ind + "}",
                    ind + "MPI_Datatype %s;" % vt,
                    ind + "MPI_Type_indexed(N, bl%d, dis%d, MPI_DOUBLE, &%s);" % (k, k, vt)]
        else:
            make = [ind + "MPI_Datatype %s;" % vt,
                    ind + "MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &%s);" % vt]
        make.append(ind + "MPI_Type_commit(&%s);" % vt)
        body = self.lines[start:]
        for name in ("s%d" % k, "rb%d" % k):
            buf = "&%s[1]" % name if self.vec == "odd" else name
            body = [l.replace("(%s, N, MPI_DOUBLE," % name, "(%s, 1, %s," % (buf, vt))
                     .replace(" %s, N, MPI_DOUBLE," % name, " %s, 1, %s," % (buf, vt))
                    for l in body]
        self.lines[start:] = make + body + [ind + "MPI_Type_free(&%s);" % vt]

    def to_helper(self, start, two_levels):
        """Moves the phase emitted from self.lines[start:] into a static helper
        (and, for two levels, a second helper that calls it and mixes a into
        y), replaced by a call; the caller sometimes passes the communicator
        through a local."""
        body = self.lines[start:]
        del self.lines[start:]
        name = "rg_ph%d" % self.k
        params = "double *a, double *b, double *y, int r, int P, MPI_Comm comm"
        h = ["static void %s(%s) {" % (name, params),
             "  (void)a; (void)b; (void)y; (void)r; (void)P; (void)comm;"]
        h.extend(body)
        h.append("}")
        self.helpers.extend(h + [""])
        callee = name
        if two_levels:
            outer = name + "_outer"
            self.helpers.extend([
                "static void %s(%s) {" % (outer, params),
                "  %s(a, b, y, r, P, comm);" % name,
                "  for (int i = 0; i < N; i++)",
                "    y[i] += %s * a[i];" % self.coef(),
                "}", ""])
            callee = outer
        comm = "comm"
        if self.rng.random() < 0.3:
            comm = "c%d" % self.k
            self.emit("MPI_Comm %s = comm;" % comm)
        self.emit("%s(a, b, y, r, P, %s);" % (callee, comm))

    def program(self, replicas=False):
        sem = self.rng.choice(["global", "per_rank"])
        self.body()
        out = []
        out.append("/* Generated by test/random/gen_programs.py --seed %d: do not edit."
                   % self.seed)
        out.append(" * phases: %s; N = %d; semantics(%s)." % (", ".join(self.kinds_used), self.n, sem))
        out.append(" * Linear in x: the dot-product test is exact.  Runs on 2 to MAXP ranks. */")
        out.append("#include <mpi.h>")
        out.append("#include <stdio.h>")
        out.append("#include <stdlib.h>")
        out.append("#include <string.h>")
        out.append("")
        out.append("#if defined(RG_PRIMAL_ONLY) && defined(RG_SYNC_SENDS)")
        out.append("/* deadlock check of the primal: no send may rely on buffering */")
        out.append("#define MPI_Send MPI_Ssend")
        out.append("#define MPI_Isend MPI_Issend")
        out.append("#endif")
        out.append("")
        out.append("#define N %d" % self.n)
        out.append("#define MAXP 4")
        out.append("#define RG_SEED %d" % self.seed)
        if replicas:
            out.append("#define RG_REPLICAS 3")
        out.append("")
        out.extend(self.helpers)
        out.append("#pragma mpiad differentiate wrt(x) output(y) varying(x) name(rg_f_b) semantics(%s)%s"
                   % (sem, " replicas(x[N], y[N])" if replicas else ""))
        out.append("void rg_f(const double *x, double *y, MPI_Comm comm) {")
        out.extend(self.lines)
        out.append("}")
        out.append(MAIN)
        return "\n".join(out) + "\n"


MAIN = r"""
#ifdef RG_PRIMAL_ONLY
/* Primal only (plain mpicc): no deadlock, deterministic, linear. */
static double rg_u(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P < 2 || P > MAXP) {
    if (r == 0)
      printf("rg %d: needs 2 to %d ranks\n", RG_SEED, MAXP);
    MPI_Finalize();
    return 2;
  }
  unsigned long long s = 1000ULL * RG_SEED + 77ULL * (r + 1);
  double x1[N], x2[N], x3[N], y1[N], y2[N], y3[N], y4[N];
  for (int i = 0; i < N; i++) {
    x1[i] = rg_u(&s);
    x2[i] = rg_u(&s);
    x3[i] = x1[i] + 0.5 * x2[i];
  }
  rg_f(x1, y1, MPI_COMM_WORLD);
  rg_f(x2, y2, MPI_COMM_WORLD);
  rg_f(x3, y3, MPI_COMM_WORLD);
  rg_f(x1, y4, MPI_COMM_WORLD);
  double err = 0.0, scale = 0.0;
  int nondet = 0;
  for (int i = 0; i < N; i++) {
    double d = y3[i] - (y1[i] + 0.5 * y2[i]);
    if (!(fabs_(d) <= err))
      err = fabs_(d);
    if (fabs_(y1[i]) + fabs_(y2[i]) > scale)
      scale = fabs_(y1[i]) + fabs_(y2[i]);
    if (y4[i] != y1[i])
      nondet = 1;
  }
  double e[3] = {err, scale, (double)nondet}, emax[3];
  MPI_Allreduce(e, emax, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  int bad = !(emax[0] <= 1e-12 * (emax[1] > 1e-300 ? emax[1] : 1.0)) || emax[2] != 0.0;
  if (r == 0)
    printf("rg %d np %d: linearity error %.3e (scale %.3e)%s: PRIMAL %s\n", RG_SEED, P,
           emax[0], emax[1], emax[2] != 0.0 ? ", NOT deterministic" : "",
           bad ? "FAILED" : "PASSED");
  MPI_Finalize();
  return bad;
}
#else
#include "hx_case.h"

static void rg_P(const double *x, const double *th, double *y) {
  (void)th;
  rg_f(x, y, MPI_COMM_WORLD);
}

static void rg_B(const double *x, double *xb, const double *th, double *thb,
                 double *y, double *yb) {
  (void)th;
  (void)thb;
  rg_f_b(x, xb, y, yb, MPI_COMM_WORLD);
}

/* The dot-product test <F(dx), yb> = <dx, F^T yb> (F is linear: exact up to
 * rounding).  Relative to the larger of |lhs| and the sums of |terms| on both
 * sides, so that a small lhs from cancellation does not fail on rounding. */
static void rg_dot(unsigned long long seed) {
  int r = hx_rank_g;
  double x[N], dx[N], xb[N], y[N], yb[N], yb0[N], fdx[N];
  hx_rand(x, N, seed, r, -1.0, 1.0);
  hx_rand(dx, N, seed + 1, r, -1.0, 1.0);
  hx_rand(yb0, N, seed + 4, r, -1.0, 1.0);
  for (int i = 0; i < N; i++) {
    xb[i] = 0.0;
    yb[i] = yb0[i];
  }
  rg_f_b(x, xb, y, yb, MPI_COMM_WORLD);
  hx_tape("rg_f_b (dot-product test)");
  rg_f(dx, fdx, MPI_COMM_WORLD);
  double loc[4] = {0.0, 0.0, 0.0, 0.0}, sum[4];
  for (int i = 0; i < N; i++) {
    loc[0] += yb0[i] * fdx[i];
    loc[1] += fabs(yb0[i] * fdx[i]);
    loc[2] += dx[i] * xb[i];
    loc[3] += fabs(dx[i] * xb[i]);
  }
  MPI_Allreduce(loc, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double terms = sum[1] > sum[3] ? sum[1] : sum[3];
  char label[96];
  snprintf(label, sizeof label, "rg_%d: dot-product test (terms %.3e)", RG_SEED, terms);
  hx_check(label, sum[2], sum[0], 1e-12, terms > 1e-300 ? terms : 1e-300);
}

#ifdef RG_REPLICAS
/* replicas(x, y): rg_f_bv for RG_REPLICAS replicas at once must give, for
 * each replica, what rg_f_b gives on that replica's input and seed. */
static void rg_replicas(unsigned long long seed) {
  enum { R = RG_REPLICAS };
  int r = hx_rank_g;
  double x[R * N], xb[R * N], y[R * N], yb[R * N], yb0[R * N];
  hx_rand(x, R * N, seed, r, -1.0, 1.0);
  hx_rand(yb0, R * N, seed + 1, r, -1.0, 1.0);
  memcpy(yb, yb0, sizeof yb);
  memset(xb, 0, sizeof xb);
  rg_f_bv(R, x, xb, y, yb, MPI_COMM_WORLD);
  hx_tape("rg_f_bv");
  for (int k = 0; k < R; k++) {
    double xb1[N], y1[N], yb1[N];
    memset(xb1, 0, sizeof xb1);
    memcpy(yb1, yb0 + k * N, sizeof yb1);
    rg_f_b(x + k * N, xb1, y1, yb1, MPI_COMM_WORLD);
    char label[96];
    snprintf(label, sizeof label, "rg_%d: replica %d of rg_f_bv, outputs", RG_SEED, k);
    hx_check_vec(label, y + k * N, y1, N, 1e-12, 1e-12);
    snprintf(label, sizeof label, "rg_%d: replica %d of rg_f_bv, gradient", RG_SEED, k);
    hx_check_vec(label, xb + k * N, xb1, N, 1e-12, 1e-12);
    snprintf(label, sizeof label, "rg_%d: replica %d of rg_f_bv, seeds zeroed", RG_SEED, k);
    hx_check_vec(label, yb + k * N, yb1, N, 0.0, 1e-300);
  }
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hx_init(MPI_COMM_WORLD);
  if (hx_size_g < 2 || hx_size_g > MAXP) {
    if (hx_rank_g == 0)
      printf("rg %d: needs 2 to %d ranks\n", RG_SEED, MAXP);
    MPI_Finalize();
    return 2;
  }
  char name[64];
  snprintf(name, sizeof name, "rg_%d", RG_SEED);
  hx_case c = {0};
  c.name = name;
  c.P = rg_P;
  c.B = rg_B;
  c.nx = N;
  c.ny = N;
  c.linear = 0; /* the dot-product test is rg_dot's */
  c.lo = -1.0;
  c.hi = 1.0;
  c.h = 0.5; /* F is linear: central differences are exact up to rounding */
  /* primal outputs of rg_f_b, seeds zeroed, tape empty, central differences */
  hx_case_run(&c, 1000ULL + 10ULL * RG_SEED);
  /* the dot-product test, twice: a call must not meet messages of another */
  rg_dot(3000ULL + 10ULL * RG_SEED);
  rg_dot(5000ULL + 10ULL * RG_SEED);
#ifdef RG_REPLICAS
  rg_replicas(7000ULL + 10ULL * RG_SEED);
#endif
  int rc = hx_finish();
  MPI_Finalize();
  return rc;
}
#endif
"""

# plain C fabs without <math.h> in the primal-only main
MAIN = MAIN.replace("#ifdef RG_PRIMAL_ONLY\n",
                    "#ifdef RG_PRIMAL_ONLY\nstatic double fabs_(double v) { return v < 0 ? -v : v; }\n", 1)


def generate(seed, replicas=False, vectors=False):
    """The program of `seed`; with `replicas`, also checks rg_f_bv; with
    `vectors`, some messages go through derived datatypes."""
    g = Gen(seed)
    g.vectors = vectors and not replicas
    return g.program(replicas)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--count", type=int, default=1, help="number of programs (default 1)")
    ap.add_argument("--out", default=".", help="output directory (default .)")
    ap.add_argument("--vectors", action="store_true",
                    help="send some messages through derived datatypes")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for s in range(args.seed, args.seed + args.count):
        path = os.path.join(args.out, "rg_%d.c" % s)
        with open(path, "w") as f:
            f.write(generate(s, vectors=args.vectors))
    print("wrote %d program(s) to %s" % (args.count, args.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
