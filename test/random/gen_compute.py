#!/usr/bin/env python3
"""Random differentiable C functions for mpiad: a differential tester of the
COMPUTATION the tool differentiates (gen_programs.py tests communication).

    gen_compute.py --seed S [--count N] --out DIR     writes DIR/cf_S.c ...

Each program is one self-contained C file, reproducible from its seed.  It
holds one function marked twice,

    #pragma mpiad differentiate reverse wrt(x, th, s[, z]) output(return[, y][, z])
            replicated(th[4], m[, s][, n]) varying(x[, z][, s][, n])
            [semantics(per_rank)] name(cf_b)
    #pragma mpiad differentiate forward wrt(x, th, s[, z]) output(return[, y][, z]) name(cf_d)
    double cf(const double *x, const double *th, double s, [double *y,] [double *z,]
              int n, int m, MPI_Comm comm)

(y a pure output, written, read back and updated; z an in-place parameter)

whose body is a random sequence of: nested loops (bounds constant, n, m,
triangular j < i / j > i, decreasing, while with an active exit, do-while),
branches on active and passive values, break / continue, early returns (in the
tail, after the last communication), overwritten scalars (t = t * x[i]) and
array elements (a[k] = ... twice), compound assignments (+= -= *= /=, also
self-reading: t += t / (1.5 + x[2] * x[2])), a malloc'd buffer, same-file
static callees (branches, loops, early return, pointer arguments read and
written, a pointer to a scalar, called several times, sometimes with the same
pointer for two arguments), math.h calls kept away from singularities (sin,
cos, tanh, atan, exp of bounded values, log / sqrt / pow of 1.5 + v * v),
integer index arithmetic (x[(i * 3 + j) % n]), float locals and float math in
some programs, MPI_Allreduce SUM / MAX / PROD (scalar, in place, array, float),
the same in static helpers (a global sum returned, a helper calling it, a scalar
summed in place through its address) and point-to-point rings (MPI_Sendrecv,
Isend/Irecv/Waitall).

Replication is tracked by construction, so that the test knows what the tool
must conclude (docs/semantics.md): x is varying, th and m replicated, s and n
either; the "t" locals always hold a varying value (every plain assignment to
them reads x, so no later version can become replicated), the "g" locals are
assigned only at the top level, from Allreduce results and replicated values.
The return value is replicated exactly when every return reads only g / th /
replicated s / constants under replicated control; y is always varying.

main() (same file) runs, at any number of ranks:
  - the primal, the adjoint cf_b and the tangent cf_d: equal primal values,
    the output seed zeroed by cf_b, an empty tape after cf_b;
  - central differences of the objective (docs/semantics.md: a replicated
    return counted once under semantics(global), everything summed under
    per_rank) against the adjoint, along a random direction (dx per rank, dth
    equal on all ranks, ds equal when s is replicated): pass when the
    difference is within 1e-6 of the larger of |ad| and the sum of the
    absolute terms, at h = 1e-6, or else by Richardson extrapolation from
    h and 2h, or at h / 10, or the same a decade and two further down
    (strongly curved programs);
  - the dot-product test <F'(x) dx, yb> = <dx, F'(x)^T yb> of cf_d against
    cf_b, to 1e-10 of the sum of the absolute terms (float programs: looser).
It prints "ALL PASSED" or lines with FAIL.
"""

import argparse
import os
import random
import re
import sys

NTH = 4      # length of th (replicated, wrt)
NA = 8       # length of the fixed local array a
CONSTS = ["0.5", "0.25", "1.5", "0.75", "2.0", "1.25", "0.125", "0.375", "3.0"]


class Prog:
    def __init__(self, seed):
        self.seed = seed
        R = self.rng = random.Random(seed * 1000003 + 7)
        self.per_rank = R.random() < 0.25
        self.s_rep = R.random() < 0.5
        self.n_rep = R.random() < 0.5
        self.use_float = R.random() < 0.25
        self.has_y = R.random() < 0.6
        self.has_z = R.random() < 0.3   # an in-place parameter: wrt(z) output(z)
        self.n0 = R.choice([2, 3, 4, 5, 6])
        self.m0 = R.choice([1, 2, 3, 4])
        self.lines = []
        self.ind = 1
        self.tvars = []      # varying scalars: (name, type)
        self.gvars = []      # replicated scalars (assigned at top level only)
        self.ctrl = []       # enclosing control: list of "rep" flags
        self.loops = []      # enclosing loop indices: (name, kind) kind in n|m|c
        self.loopno = 0
        self.tmp = 0
        self.has_w = False
        self.has_a = False
        self.has_fa = False
        self.returned_vary = False  # an early return under varying control happened
        self.ret_rep = True         # every return so far reads replicated values only
        self.in_tail = False
        self.callees = []    # (name, kind) of generated callees
        self.local_scopes = []  # (int local, control depth of its block)
        self.y_ready = False
        self.callee_text = []
        self.comm_helpers = set()  # communicating helpers used (COMM_HELPERS)
        self.features = set()
        # The C constructs the frontend lowers (switch, comma in for headers,
        # chained assignment): decided by an RNG of their own, so that the
        # other choices of a program stay what they were for a seed without
        # them (a quarter of the programs have none).
        self.rng2 = random.Random(seed * 7919 + 13)
        self.lowered = self.rng2.random() < 0.75
        self.extra_loopvar = None
        # Structs with double fields (a struct local whose fields are t's,
        # an array of structs read and written field by field, a helper
        # that takes it): an RNG of their own too.
        self.rng3 = random.Random(seed * 104729 + 17)
        self.structs = self.rng3.random() < 0.5
        self.has_sa = False
        # A two-dimensional local array m2[3][NA], read and written through
        # both indices (its own RNG as well).
        self.rng4 = random.Random(seed * 130363 + 29)
        self.multidim = self.rng4.random() < 0.4
        self.has_m2 = False
        # Half of those hold m2 as a row-pointer array (double **m2, rows
        # from malloc: one block, or one allocation per row), freed at
        # every return (their own RNG: the rest of the program is the same).
        self.rng5 = random.Random(seed * 15485863 + 31)
        self.m2rows = self.rng5.random() < 0.5
        self.m2block = self.rng5.random() < 0.5
        # A third of the programs declare the local array a as a
        # variable-length array, double a[na] (its own RNG as well).
        self.rng6 = random.Random(seed * 32452843 + 37)
        self.vla = self.rng6.random() < 0.35
        # A third grow the malloc'd buffer w with realloc from one element.
        self.grow_w = self.rng6.random() < 0.35
        # How the struct helper gets the array: sa, sa + o or &sa[o].
        self.rng7 = random.Random(seed * 49979687 + 41)
        # Communication in a branch on a replicated scalar (masked per
        # replica by Replicas.cpp): an RNG of its own too.
        self.rng8 = random.Random(seed * 67867967 + 43)
        # A 2-D or 3-D stencil nest over a private grid (the gather over a
        # whole nest, Gather.cpp): an RNG of its own, inserted between
        # phases, so the rest of the program is the same.
        self.rng9 = random.Random(seed * 86028121 + 47)
        self.rng10 = random.Random(seed * 15487469 + 53)
        self.rng11 = random.Random(seed * 32452843 + 59)
        # The stencil nest written as PRK's index macros expand: the row
        # stride an expression, the loops over a tile whose origin each
        # index subtracts (IndexPoly.cpp): an RNG of its own.
        self.rng12 = random.Random(seed * 49979693 + 61)
        # The time loop's field read through a pointer declared in each step
        # (`const double *pu = u;`), which the swap must see through.
        self.rng13 = random.Random(seed * 67867967 + 67)
        # The Isend/Irecv ring posted by one helper and completed by another
        # (a helper that only waits has no active argument: forward mode
        # must still complete the tangent's requests), an RNG of its own.
        self.rng14 = random.Random(seed * 86028157 + 71)
        # A sum over the samples of a function of the replicated th and of
        # passive data, added to a t variable after the loop: its adjoint
        # runs inside the loop for a seed of 1 (DeferredSeed.cpp).
        self.rng15 = random.Random(seed * 15485867 + 73)

    # ---- emission --------------------------------------------------------
    def emit(self, s):
        self.lines.append("  " * self.ind + s)

    def open(self, head, rep):
        self.emit(head + " {")
        self.ind += 1
        self.ctrl.append(rep)

    def close(self, tail=""):
        self.ind -= 1
        self.ctrl.pop()
        self.emit("}" + tail)
        self.end_scope(len(self.ctrl))

    def end_scope(self, depth):
        """int locals declared in blocks deeper than depth go out of scope."""
        for (v, d) in self.local_scopes:
            if d > depth:
                self.drop_loop(v)
        self.local_scopes = [(v, d) for (v, d) in self.local_scopes if d <= depth]

    def squash(self, name=None):
        """Keep a t bounded (|t| < 4, smooth): nested loops of t = t * x,
        t += t / (...) and products of t's otherwise reach 1e15 or inf, where
        rounding absorbs increments and the difference quotients lose every
        digit (double and float alike)."""
        t = name or self.pick_t()[0]
        self.emit("%s = 4.0 * tanh(0.25 * %s);" % (t, t))

    def drop_loop(self, v):
        self.loops = [l for l in self.loops if l[0] != v]

    def ctrl_rep(self):
        return all(self.ctrl) and not self.returned_vary

    def top(self):
        return not self.ctrl

    # ---- expressions -------------------------------------------------------
    def const(self):
        return self.rng.choice(CONSTS)

    def idx(self, length):
        """An int index expression in [0, length) for length in n|NA|NTH."""
        R = self.rng
        cands = []
        for (v, kind) in self.loops:
            if kind == "n" and length in ("n", "NA"):   # v in [0, n), n <= 7 < NA
                cands.append(v)
                cands.append("(n - 1 - %s)" % v)
            if kind in ("m", "c") and length == "NTH":  # v in [0, m) or [0, 4)
                cands.append(v)
        mod = {"n": "n", "NA": str(NA), "NTH": str(NTH)}[length]
        if self.loops:
            a = R.choice(self.loops)[0]
            b = R.choice(self.loops)[0]
            cands.append("(%s * %d + %s) %% %s" % (a, R.choice([2, 3, 5]), b, mod))
            cands.append("(%s + %d) %% %s" % (a, R.randrange(1, 4), mod))
        cands.append("%d %% %s" % (R.randrange(0, 5), mod) if length == "n"
                     else str(R.randrange(0, 4)))
        if length == "n" and R.random() < 0.2:
            cands.append("(n > 2 ? 2 : n - 1)")
        return R.choice(cands)

    def loopvar_rep(self, v):
        for (name, kind) in self.loops:
            if name == v:
                return kind != "n" or self.n_rep
        return True

    def idx_rep(self, e):
        """Is an index expression replicated (reads no varying loop index / n)?"""
        words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", e))
        if "n" in words and not self.n_rep:
            return False
        return all(self.loopvar_rep(v) for v in words if v != "n")

    def leaf(self, want_rep):
        """(text, rep).  want_rep: only replicated leaves."""
        R = self.rng
        opts = []
        opts.append(("c", 2))
        opts.append(("th", 3))
        if self.s_rep or not want_rep:
            opts.append(("s", 2))
        if want_rep:
            if self.gvars:
                opts.append(("g", 4))
        else:
            opts.append(("x", 6))
            if self.tvars:
                opts.append(("t", 6))
            if self.gvars:
                opts.append(("g", 2))
            if self.has_a:
                opts.append(("a", 2))
            if self.has_w:
                opts.append(("w", 2))
            if self.has_fa:
                opts.append(("fa", 1))
            if self.has_sa:
                opts.append(("sa", 2))
            if self.has_m2:
                opts.append(("m2", 2))
            if self.has_y and self.y_ready:  # y is written before it is read
                opts.append(("y", 1))
            if self.has_z:
                opts.append(("z", 2))
            if self.loops:
                opts.append(("i", 1))
        tot = sum(w for _, w in opts)
        k = R.randrange(tot)
        for kind, w in opts:
            if k < w:
                break
            k -= w
        if kind == "c":
            return self.const(), True
        if kind == "th":
            if want_rep:
                # replicated index: constant or a loop index over m / a constant
                i = str(R.randrange(NTH))
                for (v, lk) in self.loops:
                    if lk in ("m", "c") and R.random() < 0.5:
                        i = v if lk == "m" else "%s %% %d" % (v, NTH)
                return "th[%s]" % i, True
            i = self.idx("NTH")
            return "th[%s]" % i, self.idx_rep(i)
        if kind == "s":
            return "s", self.s_rep
        if kind == "g":
            return R.choice(self.gvars), True
        if kind == "x":
            return "x[%s]" % self.idx("n"), False
        if kind == "t":
            return R.choice(self.tvars)[0], False
        if kind == "a":
            return "a[%s]" % self.idx("NA"), False
        if kind == "w":
            return "w[%s]" % self.idx("n"), False
        if kind == "z":
            return "z[%s]" % self.idx("n"), False
        if kind == "y":
            self.features.add("output read back")
            return "y[%s]" % self.idx("n"), False
        if kind == "fa":
            return "fa[%s]" % self.idx("NA"), False
        if kind == "m2":
            self.features.add("two-dimensional array")
            return "m2[%d][%s]" % (self.rng4.randrange(3), self.idx("NA")), False
        if kind == "sa":
            self.features.add("array of structs")
            return "sa[%s].%s" % (self.idx("NA"), R.choice(["u", "v"])), False
        v = R.choice(self.loops)[0]
        return "(double)%s" % v, self.loopvar_rep(v)

    def expr(self, depth, want_rep=False, flt=False):
        """A bounded-ish smooth expression: (text, rep)."""
        R = self.rng
        if depth <= 0 or R.random() < 0.3:
            return self.leaf(want_rep)
        k = R.randrange(13)
        a, ra = self.expr(depth - 1, want_rep, flt)
        f = "f" if flt and R.random() < 0.7 else ""
        if k <= 2:
            b, rb = self.expr(depth - 1, want_rep, flt)
            op = R.choice(["+", "-", "*"])
            if op == "*" and self.loops:
                # Bounded factor in a loop: t -= sin(u) * (t * t) repeated
                # grows doubly exponentially and overflows (seed 8209).
                b = "atan%s(%s)" % (f, b)
            return "(%s %s %s)" % (a, op, b), ra and rb
        if k == 3:
            b, rb = self.expr(depth - 1, want_rep, flt)
            return "%s / (1.5 + %s * %s)" % (a, b, b), ra and rb
        if k == 4:
            return "%s * %s" % (self.const(), a), ra
        if k == 5:
            self.features.add("sin/cos")
            return "%s%s(%s)" % (R.choice(["sin", "cos"]), f, a), ra
        if k == 6:
            self.features.add("tanh/atan")
            return "%s%s(%s)" % (R.choice(["tanh", "atan"]), f, a), ra
        if k == 7:
            self.features.add("exp")
            fn = R.choice(["sin", "tanh"])
            return "exp%s(0.5 * %s%s(%s))" % (f, fn, f, a), ra
        if k == 8:
            self.features.add("log")
            return "log%s(1.5 + %s * %s)" % (f, a, a), ra
        if k == 9:
            self.features.add("sqrt")
            return "sqrt%s(1.5 + %s * %s)" % (f, a, a), ra
        if k == 10:
            self.features.add("pow")
            if R.random() < 0.5:
                e = R.choice(["0.75", "1.5", "-0.5", "2.0"])
                if e in ("1.5", "2.0"):
                    # Bounded base: t = pow(1.5 + t * t, 2.0) in a loop grows
                    # as t^4 per trip and overflows (seed 7162).
                    a = "atan%s(%s)" % (f, a)
                return "pow%s(1.5 + %s * %s, %s)" % (f, a, a, e), ra
            b, rb = self.expr(depth - 1, want_rep, flt)
            return "pow%s(1.5 + %s * %s, 0.5 * sin%s(%s))" % (f, a, a, f, b), ra and rb
        if k == 11:
            self.features.add("?: on active value")
            b, rb = self.expr(depth - 1, want_rep, flt)
            return "(%s > %s ? %s : %s)" % (a, R.choice(["0.5", "1.0"]), a, b), ra and rb
        return a, ra

    def vexpr(self, depth, flt=False):
        """An expression that certainly reads a varying active value (x)."""
        e, rep = self.expr(depth, False, flt)
        if "x[" not in e:
            e = "(%s + %s * x[%s])" % (e, self.const(), self.idx("n"))
        return e

    def safe_expr(self, depth, want_rep=False, flt=False):
        return self.expr(depth, want_rep, flt)

    # ---- statements ----------------------------------------------------------
    def new_t(self, typ="double"):
        name = "t%d" % len(self.tvars)
        self.tvars.append((name, typ))
        return name

    def pick_t(self, double_only=False):
        if double_only:
            return self.rng.choice([v for v in self.tvars if v[1] == "double"])
        return self.rng.choice(self.tvars)

    def st_assign(self, depth):
        R = self.rng
        name, typ = self.pick_t()
        flt = typ == "float"
        e = self.vexpr(depth, flt)
        k = R.randrange(10)
        if k == 0 and self.lowered and self.rng2.random() < 0.5 and len(self.tvars) > 1:
            # chained assignment: other = name = e (other gets name's value)
            self.features.add("chained assignment")
            other = self.rng2.choice([v for v in self.tvars if v[0] != name])[0]
            if self.rng2.random() < 0.5:
                self.emit("%s = %s = %s;" % (other, name, e))
            else:
                self.emit("%s += (%s = %s);" % (other, name, e))
        elif k == 0:
            self.emit("%s = %s;" % (name, e))
        elif k == 1:
            self.emit("%s += %s;" % (name, e))
        elif k == 2:
            self.emit("%s -= %s;" % (name, e))
        elif k == 3:
            self.features.add("*=")
            f, _ = self.safe_expr(depth - 1, False, flt)
            self.emit("%s *= (1.0 + 0.25 * sin(%s));" % (name, f))
        elif k == 4:
            self.features.add("/=")
            f, _ = self.safe_expr(depth - 1, False, flt)
            self.emit("%s /= (1.25 + %s * %s);" % (name, f, f))
        elif k == 5:
            self.features.add("self-read compound")
            f, _ = self.safe_expr(depth - 1, False, flt)
            op = R.choice(["+=", "-="])
            self.emit("%s %s %s / (1.5 + %s * %s);" % (name, op, name, f, f))
        elif k == 6:
            self.features.add("overwrite t = t * x")
            self.emit("%s = %s * x[%s];" % (name, name, self.idx("n")))
        elif k == 7:
            self.features.add("overwrite t = f(t)")
            self.emit("%s = %s * %s + %s;" % (name, R.choice(["0.5", "0.75", "-0.5"]), name, e))
        elif k == 8 and self.callees:
            self.st_call(depth)
        else:
            other = self.pick_t()[0]
            self.emit("%s = %s - 0.5 * %s + %s;" % (name, other, name, e))

    def st_call(self, depth):
        R = self.rng
        name, kind = R.choice(self.callees)
        self.features.add("callee " + kind)
        arr, alen = self.array_arg()
        if kind in ("scal", "fscal"):
            t = self.pick_t()[0]
            # the target itself as an argument sometimes (t = h(t, ...))
            a = t if R.random() < 0.4 else self.vexpr(depth - 1)
            b, _ = self.safe_expr(depth - 1)
            if R.random() < 0.3:
                b = self.pick_t()[0]
            if R.random() < 0.3:
                # calls nested in an expression (hoisted by the tool)
                self.features.add("calls nested in an expression")
                self.emit("%s = %s * %s(%s, %s) + %s(%s, %s);" % (
                    t, self.const(), name, a, b, name, b, self.vexpr(depth - 1)))
            else:
                self.emit("%s = %s(%s, %s);" % (t, name, a, b))
        elif kind == "buf":
            t = self.pick_t()[0]
            src, slen = self.src_arg()
            self.emit("%s %s %s(%s, %s, %s);" % (t, R.choice(["=", "+=", "*="]) if False else
                                              R.choice(["=", "+="]), name, src,
                                              self.vexpr(depth - 1), slen))
        elif kind in ("red", "nest"):
            t = self.pick_t()[0]
            a = self.vexpr(depth - 1)
            src, slen = self.src_arg()
            self.emit("%s += %s(%s, %s, %s);" % (t, name, a, src, slen))
        elif kind == "upd":
            if arr is None:
                return self.st_assign(depth)
            a = self.vexpr(depth - 1)
            if R.random() < 0.25:
                self.features.add("callee same pointer twice")
                src, slen = arr, alen
            else:
                src, slen = self.src_arg()
            self.emit("%s(%s, %s, %s, %s);" % (name, arr, src, a, slen))
        elif kind == "ptr":
            t, typ = self.pick_t()
            if R.random() < 0.3 and (self.has_a or self.has_w):
                self.features.add("callee pointer to an array element")
                arr = R.choice(["a"] * self.has_a + ["w"] * self.has_w)
                t, typ = "%s[%s]" % (arr, self.idx("n")), "double"
            if typ != "double":
                return self.st_assign(depth)
            a = self.vexpr(depth - 1)
            self.emit("%s(&%s, %s);" % (name, t, a))

    def array_arg(self):
        """A writable local array and its length (for callee 'upd')."""
        opts = []
        if self.has_a:
            opts.append(("a", "n"))
        if self.has_w:
            opts.append(("w", "n"))
        if not opts:
            return None, None
        return self.rng.choice(opts)

    def src_arg(self):
        opts = [("x", "n")]
        if self.has_a:
            opts.append(("a", "n"))
        if self.has_w:
            opts.append(("w", "n"))
        return self.rng.choice(opts)

    def st_array(self, depth):
        R = self.rng
        opts = []
        if self.has_a:
            opts.append("a")
        if self.has_w:
            opts.append("w")
        if self.has_fa:
            opts.append("fa")
        if self.has_z:
            opts.append("z")
        if not opts:
            return self.st_assign(depth)
        arr = R.choice(opts)
        if arr == "z":
            self.features.add("in-place parameter written")
        i = self.idx("NA" if arr in ("a", "fa") else "n")
        e = self.vexpr(depth, arr == "fa")
        k = R.randrange(4)
        if k == 0:
            self.features.add("array element written twice")
            self.emit("%s[%s] = %s;" % (arr, i, e))
            e2 = self.vexpr(depth - 1, arr == "fa")
            self.emit("%s[%s] = %s[%s] * %s + %s;" % (arr, i, arr, i, self.const(), e2))
        elif k == 1:
            self.emit("%s[%s] += %s;" % (arr, i, e))
        elif k == 2:
            self.emit("%s[%s] = %s;" % (arr, i, e))
        else:
            self.features.add("array *=")
            f, _ = self.safe_expr(depth - 1)
            self.emit("%s[%s] *= (1.0 + 0.25 * tanh(%s));" % (arr, i, f))

    def cond(self, depth):
        """(condition text, rep).  Active conditions compare smooth values with a
        constant; the random point makes a tie within the FD step unlikely, and
        the main checks two steps."""
        R = self.rng
        k = R.randrange(5)
        if k <= 1:
            self.features.add("branch on active value")
            e = self.vexpr(depth)
            return "%s %s %s" % (e, R.choice([">", "<"]), R.choice(["0.5", "1.0", "1.5", "0.0"])), False
        if k == 2 and self.loops:
            self.features.add("branch on index")
            v, kind = R.choice(self.loops)
            return "%s %% %d == %d" % (v, R.choice([2, 3]), R.randrange(2)), self.loopvar_rep(v)
        if k == 3:
            self.features.add("branch on replicated value")
            e, _ = self.safe_expr(depth, True)
            return "%s > %s" % (e, R.choice(["0.5", "1.0", "1.5"])), True
        if R.random() < 0.5:
            return "m > %d" % R.randrange(1, 4), True
        return "n > %d" % R.randrange(2, 6), self.n_rep

    def loop_head(self):
        """(head, var, kind, rep)."""
        R = self.rng
        self.loopno += 1
        v = "i%d" % self.loopno
        outer = [l for l in self.loops if l[1] == "n"]
        k = R.randrange(7)
        if k == 0:
            c = R.randrange(2, 5)
            self.features.add("loop constant bound")
            return "for (int %s = 0; %s < %d; %s++)" % (v, v, c, v), v, "c", True
        if k == 1:
            self.features.add("loop over m")
            return "for (int %s = 0; %s < m; %s++)" % (v, v, v), v, "m", True
        if k == 2:
            self.features.add("decreasing loop")
            return "for (int %s = n - 1; %s >= 0; %s--)" % (v, v, v), v, "n", self.n_rep
        if k == 3 and outer:
            o = R.choice(outer)[0]
            self.features.add("triangular loop")
            if R.random() < 0.5:
                return "for (int %s = 0; %s < %s; %s++)" % (v, v, o, v), v, "n", self.n_rep
            return "for (int %s = %s + 1; %s < n; %s++)" % (v, o, v, v), v, "n", self.n_rep
        if k == 4 and outer:
            o = R.choice(outer)[0]
            self.features.add("triangular loop")
            return "for (int %s = %s; %s >= 0; %s--)" % (v, o, v, v), v, "n", self.n_rep
        if k == 5 and R.random() < 0.5:
            self.features.add("loop with step 2 / <=")
            if R.random() < 0.5:
                return "for (int %s = 0; %s < n; %s += 2)" % (v, v, v), v, "n", self.n_rep
            return "for (int %s = 0; %s <= n - 1; %s++)" % (v, v, v), v, "n", self.n_rep
        if self.lowered and self.rng2.random() < 0.3:
            # two counters in one header: vv runs n-1 .. 0 while v runs 0 .. n-1
            self.features.add("comma in for header")
            vv = "j%d" % self.loopno
            self.extra_loopvar = vv
            if self.rng2.random() < 0.5:
                return ("for (int %s = 0, %s = n - 1; %s < n; %s++, %s--)"
                        % (v, vv, v, v, vv)), v, "n", self.n_rep
            return ("for (%s = n - 1, %s = 0; %s < n; %s++, %s--)"
                    % (vv, v, v, v, vv)), v, "n", self.n_rep
        self.features.add("loop over n")
        return "for (int %s = 0; %s < n; %s++)" % (v, v, v), v, "n", self.n_rep

    def st_loop(self, depth, budget):
        R = self.rng
        k = R.randrange(8)
        if k == 0:
            # while loop with an active exit and a trip limit
            self.features.add("while (active)")
            self.loopno += 1
            c = "it%d" % self.loopno
            t = self.pick_t()[0]
            self.emit("int %s = 0;" % c)
            self.open("while (%s < %d && fabs(%s) < %s)" % (c, R.randrange(2, 6), t,
                                                         R.choice(["2.0", "5.0", "50.0"])), False)
            self.body(depth - 1, budget)
            self.emit("%s = %s * 1.25 + 0.5;" % (t, t))
            self.emit("%s++;" % c)
            self.close()
            return
        if k == 1:
            self.features.add("do-while")
            self.loopno += 1
            c = "it%d" % self.loopno
            self.emit("int %s = 0;" % c)
            self.open("do", True)
            self.loops.append((c, "c"))
            self.body(depth - 1, budget)
            self.drop_loop(c)
            self.emit("%s++;" % c)
            self.close(" while (%s < %d);" % (c, R.randrange(1, 4)))
            return
        self.extra_loopvar = None
        head, v, kind, rep = self.loop_head()
        vv = self.extra_loopvar
        if vv and head.startswith("for (%s " % vv):
            # counters declared before the loop, assigned in its header
            self.emit("int %s, %s;" % (v, vv))
        self.open(head, rep)
        self.loops.append((v, kind))
        if vv:
            self.loops.append((vv, kind))
        # break / continue become flags that guard the rest of the body and
        # the later iterations (Normalize.cpp): a varying condition makes the
        # whole body varying control.  Both conditions are made first.
        cont = self.cond(depth - 1) if R.random() < 0.2 else None
        brk = self.cond(depth - 1) if R.random() < 0.25 else None
        for cnd in (cont, brk):
            if cnd and not cnd[1]:
                self.ctrl[-1] = False
        if cont:
            self.features.add("continue")
            self.emit("if (%s)" % cont[0])
            self.emit("  continue;")
        self.body(depth - 1, budget)
        if brk:
            self.features.add("break")
            self.emit("if (%s)" % brk[0])
            self.emit("  break;")
        if R.random() < 0.5:
            self.squash()
        if self.in_tail and R.random() < 0.2:
            self.early_return(depth)
        self.drop_loop(v)
        if vv:
            self.drop_loop(vv)
        self.close()

    def st_if(self, depth, budget):
        c, rep = self.cond(depth)
        self.open("if (%s)" % c, rep)
        self.body(depth - 1, budget)
        if self.rng.random() < 0.5:
            self.end_scope(len(self.ctrl) - 1)
            self.ind -= 1
            self.emit("} else {")
            self.ind += 1
            self.body(depth - 1, budget)
        self.close()

    def st_switch(self, depth, budget):
        """switch on an integer: fall-through, break at the end of a section
        or inside an if (the frontend's three lowerings), default anywhere."""
        R2 = self.rng2
        self.features.add("switch")
        opts = [("m %% 3", True), ("(n + m) %% 4", self.n_rep)]
        for (v, kind) in self.loops:
            opts.append(("%s %% 3" % v, self.loopvar_rep(v)))
        sel, rep = R2.choice(opts)
        sel = sel.replace("%%", "%")
        self.open("switch (%s)" % sel, rep)
        sw_level = len(self.ctrl) - 1
        labels = R2.sample([0, 1, 2, 3], R2.randrange(1, 4))
        secs = [("case %d:" % l) for l in labels]
        if R2.random() < 0.6:
            secs.insert(R2.randrange(len(secs) + 1), "default:")
        for sec in secs:
            self.ind -= 1
            self.emit(sec)
            self.ind += 1
            end = R2.randrange(4)  # 0 fall through, 1 break after, 2 break inside, 3 if-break inside
            self.emit("{")
            self.ind += 1
            self.ctrl.append(rep)
            # every section changes a value, so that the path taken (and a
            # fall-through) shows in the results
            self.st_assign(1)
            if end == 3:
                c, crep = self.cond(depth - 1)
                if not crep:
                    self.ctrl[sw_level] = False
                    self.ctrl[-1] = False
                self.features.add("break inside a switch section")
                self.body(depth - 1, budget)
                self.emit("if (%s)" % c)
                self.emit("  break;")
                self.body(depth - 1, budget)
            else:
                self.body(depth - 1, budget)
            if end == 2:
                self.emit("break;")
            self.ind -= 1
            self.ctrl.pop()
            self.emit("}")
            self.end_scope(len(self.ctrl))
            if end == 1:
                self.emit("break;")
            if end == 0:
                self.features.add("switch fall-through")
        self.close()

    def early_return(self, depth):
        c, crep = self.cond(depth)
        self.features.add("early return")
        rep_val = self.rng.random() < 0.4 and self.gvars and not self.per_rank
        if rep_val:
            e, _ = self.safe_expr(depth, True)
        else:
            e = self.vexpr(depth)
        ctl = self.ctrl_rep() and crep
        self.emit("if (%s) {" % c)
        if self.has_w or self.m2_heap():  # the value first: it may read w
            self.tmp += 1
            self.emit("  double rv%d = %s;" % (self.tmp, e))
            self.free_heap("  ")
            self.emit("  return rv%d;" % self.tmp)
        else:
            self.emit("  return %s;" % e)
        self.emit("}")
        if not (ctl and rep_val):
            self.ret_rep = False
        if not ctl:
            self.returned_vary = True

    def body(self, depth, budget):
        R = self.rng
        nst = R.randrange(1, 4)
        for _ in range(nst):
            if budget[0] <= 0:
                return
            budget[0] -= 1
            k = R.randrange(10)
            if k <= 3 or depth <= 0:
                if self.has_sa and self.rng3.random() < 0.15:
                    self.st_struct(2)
                elif self.has_m2 and self.rng4.random() < 0.15:
                    self.st_m2(2)
                elif R.random() < 0.3 and (self.has_a or self.has_w or self.has_fa):
                    self.st_array(2)
                else:
                    self.st_assign(2)
            elif k <= 5:
                self.st_loop(depth, budget)
            elif k <= 7 and self.lowered and self.rng2.random() < 0.3:
                self.st_switch(depth, budget)
            elif k <= 7:
                self.st_if(depth, budget)
            elif k == 8 and self.ctrl:
                self.st_local()
            elif self.callees:
                self.st_call(2)
            else:
                self.st_assign(2)

    def m2_heap(self):
        return self.has_m2 and self.m2rows

    def free_heap(self, pre):
        """Frees the malloc'd locals (before a return)."""
        if self.has_w:
            self.emit(pre + "free(w);")
        if self.m2_heap():
            if self.m2block:
                self.emit(pre + "free(m2[0]);")
            else:
                self.emit(pre + "for (int k = 0; k < 3; k++)")
                self.emit(pre + "  free(m2[k]);")
            self.emit(pre + "free(m2);")

    def st_m2(self, depth):
        """An element of the two-dimensional array written."""
        R4 = self.rng4
        r = str(R4.randrange(3))
        for (v, lk) in self.loops:
            if lk in ("m", "c") and R4.random() < 0.5:
                r = "%s %% 3" % v
        i = self.idx("NA")
        e = self.vexpr(depth)
        if R4.random() < 0.5:
            self.emit("m2[%s][%s] += %s;" % (r, i, e))
        else:
            self.emit("m2[%s][%s] = m2[%s][%s] * %s + %s;" % (r, i, r, i, self.const(), e))
        self.emit("m2[%s][%s] = 4.0 * tanh(0.25 * m2[%s][%s]);" % (r, i, r, i))

    def st_struct(self, depth):
        """A field of the array of structs written, or its helper called."""
        R3 = self.rng3
        k = R3.randrange(5)
        if k == 4:
            # a pointer to the element, as MD codes write it
            self.features.add("pointer to a struct element")
            i = self.idx("NA")
            f = R3.choice(["u", "v"])
            self.emit("{")
            self.emit("  struct cf_pt *sq = &sa[%s];" % i)
            self.emit("  sq->%s = sq->%s * %s + %s;" % (f, f, self.const(), self.vexpr(depth)))
            self.emit("  sq->%s = 4.0 * tanh(0.25 * sq->%s);" % (f, f))
            self.emit("}")
            return
        if k == 3:
            self.features.add("array of structs passed to a helper")
            t = self.pick_t()[0]
            form = self.rng7.randrange(3)
            o = self.rng7.randrange(1, 4)
            if form == 0:
                self.emit("%s += 0.25 * cf_sdot(sa, %d);" % (t, NA))
            else:
                self.features.add("pointer into structs passed to a helper")
                arg = "sa + %d" % o if form == 1 else "&sa[%d]" % o
                self.emit("%s += 0.25 * cf_sdot(%s, %d);" % (t, arg, NA - o))
            return
        i = self.idx("NA")
        f = R3.choice(["u", "v"])
        e = self.vexpr(depth)
        if k == 0:
            self.emit("sa[%s].%s = %s;" % (i, f, e))
        elif k == 1:
            self.emit("sa[%s].%s += %s;" % (i, f, e))
        else:
            self.emit("sa[%s].%s = sa[%s].%s * %s + %s;" % (i, f, i, f, self.const(), e))
        self.emit("sa[%s].%s = 4.0 * tanh(0.25 * sa[%s].%s);" % (i, f, i, f))

    def st_local(self):
        """Block-local variables: a double read into a t, an int index."""
        R = self.rng
        self.tmp += 1
        q = self.tmp
        if self.loops and R.random() < 0.5:
            self.features.add("int index local")
            a = R.choice(self.loops)[0]
            self.emit("int k%d = (%s * %d + %d) %% n;" % (q, a, R.choice([2, 3, 5]), R.randrange(4)))
            # k<q> lies in [0, n) and reads n: an index of kind "n"
            self.loops.append(("k%d" % q, "n"))
            self.local_scopes.append(("k%d" % q, len(self.ctrl)))
        self.features.add("block-local double")
        self.emit("double l%d = %s;" % (q, self.vexpr(2)))
        t = self.pick_t()[0]
        self.emit("%s %s %s * l%d;" % (t, R.choice(["+=", "-="]), self.const(), q))

    # ---- communication (top level only) ------------------------------------
    def branch_on_g(self):
        """`if (g > c) {`, g a replicated scalar, for a third of the calls
        below when there is one: the same on every rank, so every rank makes
        the same calls, but different per replica (replicas mode masks it).
        The caller closes it with end_branch."""
        R8 = self.rng8
        if not self.gvars or R8.random() >= 0.3:
            return False
        g, c = R8.choice(self.gvars), R8.choice(["0.0", "0.5", "-0.5"])
        # Two fifths of them a loop instead, one or two times by g (replicas
        # mode masks the loop): rng10, so the rest is the same.
        if self.rng10.random() < 0.4:
            self.features.add("communication in a loop counted by a replicated value")
            self.tmp += 1
            self.emit("for (int q%d = 0; q%d < 1 + (%s > %s); q%d++) {"
                      % (self.tmp, self.tmp, g, c, self.tmp))
            return True
        self.features.add("communication in a branch on a replicated value")
        self.emit("if (%s > %s) {" % (g, c))
        return True

    def st_comm(self):
        R = self.rng
        k = R.randrange(11)
        self.tmp += 1
        q = self.tmp
        t = self.pick_t(True)[0]
        if k >= 9:
            # communication in helpers (inlined by the tool): a global sum
            # returned, or (two levels) a mean of squares built on it, or a
            # scalar summed in place through its address
            g = "g%d" % q
            form = R.randrange(3)
            if form == 0:
                self.features.add("Allreduce in a helper")
                self.comm_helpers.add("gsum")
                self.emit("double %s = cf_gsum(%s, comm);" % (g, t))
            elif form == 1:
                self.features.add("helper calling a communicating helper")
                self.comm_helpers.update(["gsum", "gmsq"])
                self.emit("double %s = cf_gmsq(%s, %s, comm);" % (g, t, self.vexpr(1)))
            else:
                self.features.add("scalar summed in place by a helper")
                self.comm_helpers.add("gsum_inplace")
                self.emit("double %s = %s;" % (g, self.vexpr(1)))
                self.emit("cf_gsum_inplace(&%s, comm);" % g)
            self.gvars.append(g)
        elif k <= 1:
            self.features.add("Allreduce SUM")
            g = "g%d" % q
            self.emit("double %s = 0.0;" % g)
            branch = self.branch_on_g()
            self.emit("%sMPI_Allreduce(&%s, &%s, 1, MPI_DOUBLE, MPI_SUM, comm);"
                      % ("  " if branch else "", t, g))
            if branch:
                self.emit("}")
            self.gvars.append(g)
        elif k == 2:
            self.features.add("Allreduce MAX/MIN")
            g = "g%d" % q
            # ranks hold different random x: no tie
            self.emit("double mx%d = %s + 0.25 * x[0];" % (q, t))
            self.emit("double %s = 0.0;" % g)
            self.emit("MPI_Allreduce(&mx%d, &%s, 1, MPI_DOUBLE, %s, comm);" % (
                q, g, R.choice(["MPI_MAX", "MPI_MAX", "MPI_MIN"])))
            self.gvars.append(g)
        elif k == 3:
            self.features.add("Allreduce PROD")
            g = "g%d" % q
            self.emit("double pr%d = 1.0 + 0.5 * tanh(%s);" % (q, t))
            self.emit("double %s = 0.0;" % g)
            self.emit("MPI_Allreduce(&pr%d, &%s, 1, MPI_DOUBLE, MPI_PROD, comm);" % (q, g))
            self.gvars.append(g)
        elif k == 4:
            self.features.add("Allreduce in place")
            g = "g%d" % q
            e = self.vexpr(1)
            self.emit("double %s = %s;" % (g, e))
            op = R.choice(["MPI_SUM", "MPI_SUM", "MPI_MAX"])
            if op == "MPI_MAX":
                self.emit("%s += 0.25 * x[0];" % g)
            self.emit("MPI_Allreduce(MPI_IN_PLACE, &%s, 1, MPI_DOUBLE, %s, comm);" % (g, op))
            self.gvars.append(g)
        elif k == 5:
            self.features.add("Allreduce array")
            self.emit("double ls%d[3], gs%d[3];" % (q, q))
            for j in range(3):
                self.emit("ls%d[%d] = %s;" % (q, j, self.vexpr(1)))
            self.emit("MPI_Allreduce(ls%d, gs%d, 3, MPI_DOUBLE, MPI_SUM, comm);" % (q, q))
            g = "g%d" % q
            self.emit("double %s = gs%d[0] * %s + gs%d[%d];" % (g, q, self.const(), q, R.randrange(1, 3)))
            self.gvars.append(g)
        elif k == 6 and self.use_float:
            self.features.add("Allreduce float")
            g = "g%d" % q
            self.emit("float lf%d = (float)(%s);" % (q, t))
            self.emit("float gf%d = 0.0f;" % q)
            self.emit("MPI_Allreduce(&lf%d, &gf%d, 1, MPI_FLOAT, MPI_SUM, comm);" % (q, q))
            self.emit("double %s = gf%d;" % (g, q))
            self.gvars.append(g)
        elif k == 6 or k == 7:
            self.features.add("Sendrecv ring")
            self.emit("double rv%d = 0.0;" % q)
            branch = self.branch_on_g()
            self.emit("%sMPI_Sendrecv(&%s, 1, MPI_DOUBLE, (r + 1) %% P, %d, &rv%d, 1, MPI_DOUBLE, "
                      "(r + P - 1) %% P, %d, comm, MPI_STATUS_IGNORE);"
                      % ("  " if branch else "", t, q, q, q))
            if branch:
                self.emit("}")
            u = self.pick_t(True)[0]
            self.emit("%s += %s * rv%d;" % (u, self.const(), q))
        else:
            self.features.add("Isend/Irecv ring")
            self.emit("double sb%d[2], rb%d[2];" % (q, q))
            self.emit("sb%d[0] = %s;" % (q, t))
            self.emit("sb%d[1] = %s;" % (q, self.vexpr(1)))
            self.emit("MPI_Request rq%d[2];" % q)
            if self.rng14.random() < 0.4:
                self.features.add("Isend/Irecv ring in helpers")
                self.comm_helpers.update(["post2", "wait2"])
                self.emit("cf_post2(rb%d, sb%d, %d, comm, rq%d);" % (q, q, q, q))
                self.emit("cf_wait2(rq%d);" % q)
            else:
                self.emit("MPI_Irecv(rb%d, 2, MPI_DOUBLE, (r + P - 1) %% P, %d, comm, &rq%d[0]);" % (q, q, q))
                self.emit("MPI_Isend(sb%d, 2, MPI_DOUBLE, (r + 1) %% P, %d, comm, &rq%d[1]);" % (q, q, q))
                self.emit("MPI_Waitall(2, rq%d, MPI_STATUSES_IGNORE);" % q)
            u = self.pick_t()[0]
            self.emit("%s += rb%d[0] * %s - rb%d[1] * %s;" % (u, q, self.const(), q, self.const()))

    def st_toplevel(self):
        """Constructs that the tool treats specially: a stencil time loop with
        a copy-back (BufferSwap.cpp), a stencil at constant offsets (reversed
        as a gather), a pointer into x."""
        R = self.rng
        self.tmp += 1
        q = self.tmp
        k = R.randrange(3)
        if k == 0:
            self.features.add("time loop with copy-back")
            u, un = "u%d" % q, "un%d" % q
            self.emit("double *%s = malloc((size_t)n * sizeof(double));" % u)
            self.emit("double *%s = malloc((size_t)n * sizeof(double));" % un)
            self.emit("for (int k = 0; k < n; k++)")
            self.emit("  %s[k] = x[k] * %s + %s;" % (u, self.const(), self.pick_t()[0]))
            self.emit("for (int st = 0; st < %d; st++) {" % R.randrange(1, 4))
            rd = u  # the name the step reads the field through
            if self.rng13.random() < 0.3:
                self.features.add("time loop reading the field through a pointer")
                rd = "pu%d" % q
                self.emit("  const double *%s = %s;" % (rd, u))
            self.emit("  %s[0] = %s[0];" % (un, rd))
            self.emit("  %s[n - 1] = %s[n - 1];" % (un, rd))
            self.emit("  for (int i = 1; i < n - 1; i++)")
            extra = R.choice(["", " + 0.125 * sin(%s[i])" % rd, " - 0.0625 * %s[i] * %s[i]" % (rd, rd)])
            self.emit("    %s[i] = %s[i] + %s * (%s[i - 1] - 2.0 * %s[i] + %s[i + 1])%s;"
                      % (un, rd, R.choice(["0.25", "0.125", "0.375"]), rd, rd, rd, extra))
            self.emit("  for (int i = 0; i < n; i++)")
            self.emit("    %s[i] = %s[i];" % (u, un))
            self.emit("}")
            t = self.pick_t()[0]
            self.emit("for (int k = 0; k < n; k++)")
            self.emit("  %s += %s * %s[k];" % (t, self.const(), u))
            self.emit("free(%s);" % u)
            self.emit("free(%s);" % un)
        elif k == 1:
            self.features.add("stencil at constant offsets")
            dst = R.choice(["a"] * self.has_a + ["w"] * self.has_w + ["sbuf"])
            if dst == "sbuf":
                dst = "sb%d" % q
                self.emit("double %s[%d] = {0.0};" % (dst, 8))
            src = R.choice(["x"] + ["w"] * (self.has_w and dst != "w"))
            self.emit("for (int i = 1; i < n - 1; i++)")
            self.emit("  %s[i] %s %s * %s[i - 1] + %s * %s[i] + %s * %s[i + 1];" % (
                dst, R.choice(["=", "+="]), self.const(), src, self.const(), src,
                self.const(), src))
            t = self.pick_t()[0]
            self.emit("for (int k = 1; k < n - 1; k++)")
            self.emit("  %s += %s * %s[k] * %s[k];" % (t, self.const(), dst, dst))
        else:
            self.features.add("pointer into x")
            self.emit("const double *px%d = x + 1;" % q)
            t = self.pick_t()[0]
            self.emit("for (int i = 0; i < n - 1; i++)")
            self.emit("  %s += %s * px%d[i] * x[i];" % (t, self.const(), q))

    def st_nest(self):
        """A stencil nest over a grid of R x C points (2-D) or P x R x C
        (3-D), strides in int locals, at offsets in {-1, 0, 1} per
        dimension, sometimes with a nonlinear term; the grid's border keeps
        its initial values; the sum that reads it is bounded (atan), so the
        central differences stay accurate.  Drawn from rng9 only."""
        R9 = self.rng9
        self.tmp += 1
        q = self.tmp
        dims = R9.choice([2, 2, 3])
        ext = [R9.randrange(2, 7) for _ in range(dims)]  # outermost first
        self.features.add("stencil nest %d-D" % dims)
        g, h = "g%d" % q, "h%d" % q
        strides = ["1"]
        # PRK's form (rng12): `g[(i0) - o + ((i1) - o) * (w + 2)]` with the
        # counters from o + 1.
        macro = self.rng12.random() < 0.4
        origin = self.rng12.randrange(0, 5) if macro else 0
        if macro:
            self.features.add("stencil nest through a macro")
            self.emit("int w%d = %d, o%d = %d;" % (q, ext[-1] - 2, q, origin))
            strides.insert(0, "(w%d + 2)" % q)
        else:
            self.emit("int sx%d = %d;" % (q, ext[-1]))
            strides.insert(0, "sx%d" % q)
        if dims == 3:
            self.emit("int sp%d = %s * %d;" % (q, strides[0], ext[-2]))
            strides.insert(0, "sp%d" % q)
        total = "%s * %d" % (strides[0], ext[0])
        self.emit("double *%s = malloc((size_t)(%s) * sizeof(double));" % (g, total))
        self.emit("double *%s = malloc((size_t)(%s) * sizeof(double));" % (h, total))
        t = R9.choice(self.tvars)[0]
        self.emit("for (int k = 0; k < %s; k++) {" % total)
        self.emit("  %s[k] = x[k %% n] * %s + %s;" % (g, R9.choice(CONSTS), t))
        self.emit("  %s[k] = %s * %s[k];" % (h, R9.choice(CONSTS), g))
        self.emit("}")
        lv = ["i2", "i1", "i0"][-dims:]
        for d in range(dims):
            if macro:
                self.emit("  " * d + "for (int %s = o%d + 1; %s < o%d + %d; %s++)"
                          % (lv[d], q, lv[d], q, ext[d] - 1, lv[d]))
            else:
                self.emit("  " * d + "for (int %s = 1; %s < %d; %s++)"
                          % (lv[d], lv[d], ext[d] - 1, lv[d]))
        ind = "  " * dims
        # The grid coordinate of counter d: the counter, or (counter) - o.
        co = [("(%s) - o%d" % (lv[d], q)) if macro else lv[d] for d in range(dims)]
        c = " + ".join(("(%s) * %s" % (co[d], strides[d]) if macro else
                        "%s * %s" % (co[d], strides[d])) if strides[d] != "1" else co[d]
                       for d in range(dims))
        offs = set()
        while len(offs) < R9.randrange(2, 6):
            offs.add(tuple(R9.choice([-1, 0, 1]) for _ in range(dims)))
        # Offsets as `c - sx` or inside the products, `(i1 - 1) * sx + i0`.
        inside = R9.random() < 0.5

        def at(o):
            if not inside:
                return c + "".join((" + " if o[d] > 0 else " - ") + strides[d]
                                   for d in range(dims) if o[d])
            parts = []
            for d in range(dims):
                if macro:
                    v = "(%s%s - o%d)" % (lv[d], "" if not o[d] else " %s %d" % (
                        "+" if o[d] > 0 else "-", abs(o[d])), q)
                else:
                    v = lv[d] if not o[d] else "(%s %s %d)" % (
                        lv[d], "+" if o[d] > 0 else "-", abs(o[d]))
                parts.append(v if strides[d] == "1" else "%s * %s" % (v, strides[d]))
            return " + ".join(parts)
        terms = []
        for o in sorted(offs):
            terms.append("%s * %s[%s]" % (R9.choice(CONSTS), g, at(o)))
        if R9.random() < 0.4:
            terms.append("%s * %s[%s] * atan(%s[%s])" % (R9.choice(CONSTS), g, c, g, c))
        self.emit(ind + "%s[%s] = %s;" % (h, c, " + ".join(terms)))
        self.emit("for (int k = 0; k < %s; k++)" % total)
        self.emit("  %s += %s * atan(%s[k]);" % (t, R9.choice(CONSTS), h))
        self.emit("free(%s);" % g)
        self.emit("free(%s);" % h)

    def st_layer(self):
        """A dense layer of one unit per point: a local accumulated, then
        squashed by tanh, exp, sqrt or cbrt (whose derivative is a function
        of the value: CallHoist.cpp), inside a product, in the user's own
        local, or read elsewhere too.  Drawn from rng11 only."""
        R11 = self.rng11
        self.tmp += 1
        q = self.tmp
        act = R11.choice(["tanh(0.25 * a%d)", "exp(-0.5 * a%d * a%d)",
                          "sqrt(1.5 + a%d * a%d)", "cbrt(1.5 + a%d * a%d)"])
        call = act.replace("%d", str(q))
        form = R11.choice(["product", "product", "local", "shared", "overwrite"])
        self.features.add("layer: %s, %s" % (call.split("(")[0], form))
        t = R11.choice(self.tvars)[0]
        c = lambda: R11.choice(CONSTS)
        self.emit("for (int i = 0; i < n; i++) {")
        self.emit("  double a%d = %s * x[i];" % (q, c()))
        self.emit("  for (int j = 0; j < 3; j++)")
        self.emit("    a%d += x[(i + j) %% n] * %s;" % (q, c()))
        if form == "product":
            self.emit("  %s += %s * x[(i + 1) %% n] * %s;" % (t, c(), call))
        elif form == "local":
            self.emit("  double v%d = %s;" % (q, call))
            self.emit("  %s += %s * v%d * v%d;" % (t, c(), q, q))
        elif form == "shared":  # a read outside the call: nothing hoisted
            self.emit("  %s += %s * %s + 0.125 * a%d;" % (t, c(), call, q))
        else:  # the value overwritten before its reverse reads it
            self.emit("  double v%d = %s;" % (q, call))
            self.emit("  %s += %s * v%d;" % (t, c(), q))
            self.emit("  v%d = x[i] * %s;" % (q, c()))
            self.emit("  %s += v%d * v%d;" % (t, q, q))
        self.emit("}")

    def st_samplesum(self):
        """A loss summed over the samples, from the replicated parameters th
        and passive data (the index), then added to a t variable: the
        reverse sweep knows the sum's adjoint only after the loop, and the
        loop's adjoint runs inside it for a seed of 1, scaled after
        (DeferredSeed.cpp).  Forms: the logistic loss with its branch, a
        square, a local assigned twice (its records stay, pushed and popped
        within the iteration), a branch on the local.  Drawn from rng15."""
        R15 = self.rng15
        self.tmp += 1
        q = self.tmp
        t = R15.choice(self.tvars)[0]
        k1, k2, k3 = (R15.randrange(NTH) for _ in range(3))
        c = lambda: R15.choice(CONSTS)
        form = R15.choice(["logistic", "square", "twice", "branch"])
        self.features.add("sample sum: " + form)
        self.emit("double ss%d = 0.0;" % q)
        self.emit("for (int i = 0; i < n; i++) {")
        self.emit("  double u%d = th[%d] * (0.25 * (double)(i %% 5) - 0.5) + "
                  "%s * th[%d] * cos(0.5 * i);" % (q, k1, c(), k2))
        if form == "logistic":
            self.emit("  double m%d = -(i %% 2 ? 1.0 : -1.0) * u%d;" % (q, q))
            self.emit("  if (m%d > 0.0)" % q)
            self.emit("    ss%d += m%d + log(1.0 + exp(-m%d));" % (q, q, q))
            self.emit("  else")
            self.emit("    ss%d += log(1.0 + exp(m%d));" % (q, q))
        elif form == "square":
            self.emit("  ss%d += %s * u%d * u%d + th[%d] * u%d;" % (q, c(), q, q, k3, q))
        elif form == "twice":
            self.emit("  ss%d += sin(u%d);" % (q, q))
            self.emit("  u%d = u%d * u%d * %s + th[%d];" % (q, q, q, c(), k3))
            self.emit("  ss%d += cos(u%d);" % (q, q))
        else:
            self.emit("  if (u%d > 0.0)" % q)
            self.emit("    ss%d += %s * u%d * u%d;" % (q, c(), q, q))
            self.emit("  else")
            self.emit("    ss%d -= %s * u%d * th[%d];" % (q, c(), q, k3))
        self.emit("}")
        self.emit("%s += %s * ss%d;" % (t, c(), q))

    def st_gupdate(self):
        """A replicated scalar computed from replicated values, at the top level."""
        g = "g%d" % (self.tmp + 1)
        self.tmp += 1
        e, _ = self.safe_expr(2, True)
        self.emit("double %s = %s;" % (g, e))
        self.gvars.append(g)

    # ---- callees ----------------------------------------------------------------
    def gen_callees(self):
        R = self.rng
        kinds = R.sample(["scal", "red", "upd", "ptr", "fscal", "nest", "buf"], R.randrange(0, 5))
        if not self.use_float:  # float rounding needs the float tolerances
            kinds = [k for k in kinds if k != "fscal"]
        out = []
        for j, kind in enumerate(kinds):
            name = "cf_h%d" % j
            c = lambda: R.choice(CONSTS)
            if kind == "scal":
                out.append("static double %s(double a, double b) {" % name)
                out.append("  double u = a * %s + sin(b);" % c())
                out.append("  if (a > %s)" % R.choice(["0.5", "1.0"]))
                # u * tanh(a), not u * a: t = h(t, ...) in a loop squared t
                # each call and overflowed (0 * inf = NaN in the derivative)
                out.append("    u = u * tanh(a) - %s * b;" % c())
                out.append("  else")
                out.append("    u = u + log(1.5 + b * b);")
                out.append("  return u / (1.25 + 0.5 * tanh(a));")
                out.append("}")
            elif kind == "red":
                out.append("static double %s(double a, const double *v, int k) {" % name)
                out.append("  double acc = a;")
                out.append("  for (int i = 0; i < k; i++) {")
                out.append("    if (v[i] > %s)" % R.choice(["0.8", "1.0", "1.2"]))
                out.append("      acc += v[i] * %s;" % c())
                out.append("    else")
                out.append("      acc = acc * (1.0 + 0.125 * cos(v[i]));")
                out.append("    if (fabs(acc) > 40.0)")
                out.append("      return acc * 0.5;")
                out.append("  }")
                out.append("  return acc;")
                out.append("}")
            elif kind == "upd":
                out.append("static void %s(double *w, const double *v, double a, int k) {" % name)
                out.append("  for (int i = 0; i < k; i++) {")
                if R.random() < 0.5:
                    out.append("    double old = w[i];")
                    out.append("    w[i] = %s * old + a * v[i];" % R.choice(["0.5", "0.75"]))
                else:
                    out.append("    w[i] = a * v[(i + 1) %% k] + %s;" % c())
                out.append("    if (w[i] > 3.0)")
                out.append("      w[i] = 3.0 + tanh(w[i] - 3.0);")
                out.append("  }")
                out.append("}")
            elif kind == "buf":
                out.append("static double %s(const double *v, double a, int k) {" % name)
                out.append("  double *tmp = malloc((size_t)k * sizeof(double));")
                out.append("  double loc[4] = {0.0, 0.0, 0.0, 0.0};")
                out.append("  for (int i = 0; i < k; i++) {")
                out.append("    tmp[i] = v[i] * a;")
                out.append("    loc[i %% 4] += tmp[i] * %s;" % c())
                out.append("  }")
                out.append("  double acc = loc[0] - loc[1];")
                out.append("  for (int i = k - 1; i >= 0; i--) {")
                out.append("    acc = acc * 0.5 + tmp[i] * tmp[i];")
                out.append("    if (acc > 20.0)")
                out.append("      break;")
                out.append("  }")
                out.append("  free(tmp);")
                # bounded: t += h(..., t, ...) in a loop grew double
                # exponentially and overflowed a dead variable (0 * NaN in
                # the adjoint; seed 1551)
                out.append("  return 8.0 * tanh(0.125 * acc);")
                out.append("}")
            elif kind == "fscal":
                out.append("static float %s(float a, double b) {" % name)
                out.append("  float u = a * %sf + (float)sin(b);" % c())
                out.append("  if (a > 1.0f)")
                out.append("    u = u * tanhf(a);")
                out.append("  return u;")
                out.append("}")
            elif kind == "nest":
                out.append("static double %si(double a) {" % name)
                out.append("  return a * a * %s + sin(a);" % c())
                out.append("}")
                out.append("")
                out.append("static double %s(double a, const double *v, int k) {" % name)
                out.append("  double u = 0.0;")
                out.append("  for (int i = 0; i < k; i++)")
                out.append("    u += %si(v[i] * a) * 0.25;" % name)
                out.append("  return 8.0 * tanh(0.125 * (u + %si(a)));" % name)
                out.append("}")
            else:
                out.append("static void %s(double *acc, double a) {" % name)
                out.append("  *acc += a * a * %s;" % c())
                # Bounded: called on its own accumulator in a loop
                # (`h(&t, t + ...)`), a halving let t grow as t^2 each call
                # until it overflowed, and 0 * inf in the derivative of the
                # tanh that squashed it gave NaN (seed 4507).
                out.append("  if (*acc > 2.0)")
                out.append("    *acc = 4.0 * tanh(0.25 * *acc);")
                out.append("}")
            out.append("")
            self.callees.append((name, kind))
        self.callee_text = out

    # ---- the whole function --------------------------------------------------------
    def gen_function(self):
        R = self.rng
        self.gen_callees()
        self.emit("int r = 0, P = 1;")
        self.emit("MPI_Comm_rank(comm, &r);")
        self.emit("MPI_Comm_size(comm, &P);")
        nt = R.randrange(2, 5)
        for j in range(nt):
            typ = "float" if self.use_float and j == nt - 1 else "double"
            e = self.vexpr(1, typ == "float") if self.tvars else "x[%d %% n] * %s" % (j, self.const())
            name = self.new_t(typ)
            self.emit("%s %s = %s;" % (typ, name, e))
        if self.structs:
            # sp.u and sp.v are t's: every plain assignment reads x.
            self.features.add("struct local")
            self.emit("struct cf_pt sp = {%s, 2, %s};" % (self.vexpr(1), self.vexpr(1)))
            self.tvars.append(("sp.u", "double"))
            self.tvars.append(("sp.v", "double"))
            if self.rng3.random() < 0.7:
                self.has_sa = True
                self.emit("struct cf_pt sa[%d];" % NA)
                self.emit("for (int k = 0; k < %d; k++) {" % NA)
                self.emit("  sa[k].u = x[k %% n] * %s;" % self.const())
                self.emit("  sa[k].v = %s * (double)k;" % self.const())
                self.emit("  sa[k].k = k;")
                self.emit("}")
        if self.multidim and self.m2rows:
            self.has_m2 = True
            self.features.add("row-pointer array")
            self.emit("double **m2 = malloc(3 * sizeof(double *));")
            if self.m2block:
                self.emit("m2[0] = malloc(3 * %d * sizeof(double));" % NA)
                self.emit("for (int k = 1; k < 3; k++)")
                self.emit("  m2[k] = &m2[0][k * %d];" % NA)
            else:
                self.emit("for (int k = 0; k < 3; k++)")
                self.emit("  m2[k] = malloc(%d * sizeof(double));" % NA)
            self.emit("for (int k = 0; k < 3; k++)")
            self.emit("  for (int l = 0; l < %d; l++)" % NA)
            self.emit("    m2[k][l] = x[(k + l) %% n] * %s;" % self.const())
        elif self.multidim:
            self.has_m2 = True
            self.emit("double m2[3][%d];" % NA)
            self.emit("for (int k = 0; k < 3; k++)")
            self.emit("  for (int l = 0; l < %d; l++)" % NA)
            self.emit("    m2[k][l] = x[(k + l) %% n] * %s;" % self.const())
        if R.random() < 0.6:
            self.has_a = True
            if self.vla:
                self.features.add("variable-length array")
                self.emit("int na = %d;" % NA)
                self.emit("double a[na];")
            else:
                self.emit("double a[%d];" % NA)
            self.emit("for (int k = 0; k < %d; k++)" % NA)
            self.emit("  a[k] = %s * (double)k;" % self.const())
        if R.random() < 0.5:
            self.has_w = True
            self.features.add("malloc buffer")
            c = self.const()
            if self.grow_w:
                self.features.add("realloc")
                self.emit("double *w = malloc(sizeof(double));")
                self.emit("w[0] = x[0] * %s;" % c)
                self.emit("w = realloc(w, (size_t)n * sizeof(double));")
                self.emit("for (int k = 1; k < n; k++)")
            else:
                self.emit("double *w = malloc((size_t)n * sizeof(double));")
                self.emit("for (int k = 0; k < n; k++)")
            self.emit("  w[k] = x[k] * %s;" % c)
        if self.use_float and R.random() < 0.5:
            self.has_fa = True
            self.features.add("float array")
            self.emit("float fa[%d];" % NA)
            self.emit("for (int k = 0; k < %d; k++)" % NA)
            self.emit("  fa[k] = (float)x[k % n];")
        if self.has_y:
            self.emit("for (int k = 0; k < n; k++)")
            self.emit("  y[k] = x[k] * %s;" % self.const())
            self.y_ready = True
        nphase = R.randrange(2, 5)
        for ph in range(nphase):
            budget = [R.randrange(3, 8)]
            self.body(3, budget)
            if R.random() < 0.35:
                self.st_toplevel()
            if self.rng9.random() < 0.3:
                self.st_nest()
            if self.rng11.random() < 0.3:
                self.st_layer()
            if self.rng15.random() < 0.3:
                self.st_samplesum()
            if R.random() < 0.7:
                self.st_comm()
            if R.random() < 0.3 and self.gvars:
                self.st_gupdate()
            for (t, _) in self.tvars:
                self.squash(t)
        # tail: after the last communication, early returns allowed
        self.in_tail = True
        budget = [R.randrange(2, 6)]
        self.body(2, budget)
        if R.random() < 0.4:
            self.early_return(2)
        if self.has_z:
            self.open("for (int k = 0; k < n; k++)", self.n_rep)
            self.loops.append(("k", "n"))
            self.emit("z[k] = %s * z[k] + %s;" % (R.choice(["0.5", "-0.75", "1.25"]), self.vexpr(1)))
            self.drop_loop("k")
            self.close()
        if self.has_y:
            self.open("for (int k = 0; k < n; k++)", self.n_rep)
            self.loops.append(("k", "n"))
            self.emit("y[k] %s %s;" % (R.choice(["=", "+="]), self.vexpr(2)))
            self.drop_loop("k")
            self.close()
        # the final value
        if R.random() < 0.15 and not self.returned_vary:
            # a last loop whose sum is the whole result (the shape of the
            # sweep fusion in Reverse.cpp)
            self.features.add("result summed in the last loop")
            self.emit("double acc = 0.0;")
            self.open("for (int k = 0; k < n; k++)", self.n_rep)
            self.loops.append(("k", "n"))
            self.emit("acc += x[k] * %s;" % self.vexpr(1))
            self.drop_loop("k")
            self.close()
            e = "acc"
            final_rep = False
        elif self.gvars and not self.per_rank and R.random() < 0.5:
            e, _ = self.safe_expr(2, True)
            self.features.add("replicated return")
            final_rep = self.ctrl_rep()
        else:
            e = self.vexpr(2) + " + " + " + ".join(
                "%s * %s" % (self.const(), t) for t, _ in self.tvars)
            if self.gvars:
                e += " + %s * %s" % (self.const(), R.choice(self.gvars))
            final_rep = False
        if not final_rep:
            self.ret_rep = False
        if self.has_w or self.m2_heap():  # the value first: it may read w
            self.emit("double ret = %s;" % e)
            self.free_heap("")
            self.emit("return ret;")
        else:
            self.emit("return %s;" % e)

    def text(self, replicas=False):
        if replicas:
            self.structs = False  # replicas(...) takes no structs yet
            self.m2rows = False  # nor row-pointer arrays
            self.vla = False  # VLAs are malloc'd buffers: not in replicas
            self.grow_w = False  # realloc is an error with replicas
        self.gen_function()
        R = self.rng
        outs = "output(return%s%s)" % (", y" if self.has_y else "", ", z" if self.has_z else "")
        wrt = "wrt(x, th, s%s)" % (", z" if self.has_z else "")
        rep = ["th[%d]" % NTH, "m"]
        var = ["x"] + (["z"] if self.has_z else [])
        (rep if self.s_rep else var).append("s")
        (rep if self.n_rep else var).append("n")
        sem = " semantics(per_rank)" if self.per_rank else ""
        yparam = (" double *y," if self.has_y else "") + (" double *z," if self.has_z else "")
        out_rep = self.ret_rep and not self.per_rank
        hdr = []
        hdr.append("/* cf_%d: generated by test/random/gen_compute.py --seed %d" % (self.seed, self.seed))
        hdr.append(" *   semantics %s, s %s, n %s, return %s, %s%s" % (
            "per_rank" if self.per_rank else "global",
            "replicated" if self.s_rep else "varying",
            "replicated" if self.n_rep else "varying",
            "replicated" if out_rep else "varying",
            ("with y" if self.has_y else "no y") + (", in-place z" if self.has_z else ""),
            ", float" if self.use_float else ""))
        hdr.append(" *   features: %s */" % ", ".join(sorted(self.features)))
        hdr.append("#include <math.h>")
        hdr.append("#include <mpi.h>")
        hdr.append("#include <stdio.h>")
        hdr.append("#include <stdlib.h>")
        hdr.append("#include \"mpiad.h\"")
        hdr.append("")
        hdr.append("#define CF_HAS_Y %d" % int(self.has_y))
        hdr.append("#define CF_HAS_Z %d" % int(self.has_z))
        y, z = self.has_y, self.has_z
        hdr.append("#define CF_P(x, th, s, y, z) cf(x, th, s%s%s, cf_n, CF_M0, MPI_COMM_WORLD)"
                   % (", y" if y else "", ", z" if z else ""))
        hdr.append("#define CF_B(x, xb, th, thb, s, sb, y, yb, z, zb, rb) cf_b(x, xb, th, thb, s, sb%s%s, "
                   "cf_n, CF_M0, MPI_COMM_WORLD, rb)" % (", y, yb" if y else "", ", z, zb" if z else ""))
        hdr.append("#define CF_D(x, xd, th, thd, s, sd, y, yd, z, zd, vd) cf_d(x, xd, th, thd, s, sd%s%s, "
                   "cf_n, CF_M0, MPI_COMM_WORLD, vd)" % (", y, yd" if y else "", ", z, zd" if z else ""))
        hdr.append("#define CF_PER_RANK %d" % int(self.per_rank))
        hdr.append("#define CF_S_REP %d" % int(self.s_rep))
        hdr.append("#define CF_N_REP %d" % int(self.n_rep))
        hdr.append("#define CF_OUT_REP %d" % int(out_rep))
        hdr.append("#define CF_FLOAT %d" % int(self.use_float))
        hdr.append("#define CF_N0 %d" % self.n0)
        hdr.append("#define CF_M0 %d" % self.m0)
        hdr.append("#define CF_SEED %dULL" % self.seed)
        if replicas:
            hdr.append("#define CF_REPLICAS 3")
            hdr.append("#define CF_BV(R, x, xb, th, thb, s, sb, y, yb, z, zb, rb, val) cf_bv(R, x, xb, th, thb, s, sb%s%s, "
                       "cf_n, CF_M0, MPI_COMM_WORLD, rb, val)" % (", y, yb" if y else "", ", z, zb" if z else ""))
        hdr.append("")
        for h in ["gsum", "gmsq", "gsum_inplace", "post2", "wait2"]:  # gmsq calls gsum: after it
            if h in self.comm_helpers:
                hdr.extend(COMM_HELPERS[h])
        if self.structs:
            hdr.append("struct cf_pt {")
            hdr.append("  double u;")
            hdr.append("  int k;")
            hdr.append("  double v;")
            hdr.append("};")
            hdr.append("static double cf_sdot(const struct cf_pt *q, int len) {")
            hdr.append("  double acc = 0.0;")
            hdr.append("  for (int i = 0; i < len; i++)")
            hdr.append("    if (q[i].k % 2 == 0)")
            hdr.append("      acc += q[i].u * sin(q[i].v);")
            hdr.append("    else")
            hdr.append("      acc -= 0.5 * q[i].v * q[i].u;")
            hdr.append("  return 4.0 * tanh(0.25 * acc);")
            hdr.append("}")
            hdr.append("")
        hdr.extend(self.callee_text)
        reps = ""
        if replicas:
            reps = " replicas(x[n], th[4], s%s%s)" % (", y[n]" if y else "", ", z[n]" if z else "")
        hdr.append("#pragma mpiad differentiate reverse %s %s replicated(%s) varying(%s)%s name(cf_b)%s"
                   % (wrt, outs, ", ".join(rep), ", ".join(var), sem, reps))
        hdr.append("#pragma mpiad differentiate forward %s %s name(cf_d)" % (wrt, outs))
        hdr.append("double cf(const double *x, const double *th, double s,%s int n, int m, MPI_Comm comm) {"
                   % yparam)
        body = hdr + self.lines + ["}", ""]
        return "\n".join(body) + MAIN


MAIN = r"""
/* ---- the check (not differentiated) ------------------------------------ */
#define NX_MAX 8
static int cf_rank, cf_size, cf_fails;

static double cf_uniform(unsigned long long *st) {
  *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*st >> 11) * (1.0 / 9007199254740992.0);
}
/* rank < 0: the same numbers on every rank */
static void cf_rand(double *v, int k, unsigned long long tag, int rank, double lo, double hi) {
  unsigned long long st = CF_SEED * 0x9E3779B97F4A7C15ULL + tag * 7919ULL + (unsigned long long)(rank + 2) * 104729ULL;
  for (int j = 0; j < 4; j++)
    cf_uniform(&st);
  for (int i = 0; i < k; i++)
    v[i] = lo + (hi - lo) * cf_uniform(&st);
}

static double cf_sum(double v) {
  double g = 0.0;
  MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return g;
}

/* |got - want| <= rtol * scale on every rank (got/want equal on all ranks) */
static int cf_check(const char *what, double got, double want, double scale, double rtol) {
  double err = fabs(got - want);
  int bad = !(err <= rtol * scale), anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (cf_rank == 0 || bad)
    printf("%s [rank %d]: got %.17g want %.17g scale %.3g err/scale %.3e %s\n", what, cf_rank,
           got, want, scale, scale > 0 ? err / scale : err, anybad ? "FAIL" : "PASS");
  fflush(stdout);
  cf_fails += anybad;
  return anybad;
}

static int cf_n;
static double cf_x[NX_MAX], cf_th[4], cf_s, cf_y[NX_MAX];
static double cf_dx[NX_MAX], cf_dth[4], cf_ds;
static double cf_rb, cf_yb[NX_MAX];
static double cf_z[NX_MAX], cf_dz[NX_MAX], cf_zb[NX_MAX], cf_zw[NX_MAX];

/* The objective of the semantics: varying outputs summed over ranks, a
 * replicated return counted once (rank 0's value, equal everywhere). */
static double cf_J(const double *x, const double *th, double s, const double *z) {
  for (int i = 0; i < cf_n; i++)
    cf_zw[i] = z[i];
  double v = CF_P(x, th, s, cf_y, cf_zw);
  double loc = 0.0;
  for (int i = 0; i < (CF_HAS_Y ? cf_n : 0); i++)
    loc += cf_yb[i] * cf_y[i];
  for (int i = 0; i < (CF_HAS_Z ? cf_n : 0); i++)
    loc += cf_zb[i] * cf_zw[i];
  if (CF_OUT_REP) {
    double once = v * cf_rb;
    MPI_Bcast(&once, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return cf_sum(loc) + once;
  }
  return cf_sum(loc + v * cf_rb);
}

static double cf_fd(double h) {
  double xp[NX_MAX], thp[4], zp[NX_MAX];
  for (int i = 0; i < cf_n; i++) {
    xp[i] = cf_x[i] + h * cf_dx[i];
    zp[i] = cf_z[i] + h * cf_dz[i];
  }
  for (int i = 0; i < 4; i++)
    thp[i] = cf_th[i] + h * cf_dth[i];
  double jp = cf_J(xp, thp, cf_s + h * cf_ds, zp);
  for (int i = 0; i < cf_n; i++) {
    xp[i] = cf_x[i] - h * cf_dx[i];
    zp[i] = cf_z[i] - h * cf_dz[i];
  }
  for (int i = 0; i < 4; i++)
    thp[i] = cf_th[i] - h * cf_dth[i];
  double jm = cf_J(xp, thp, cf_s - h * cf_ds, zp);
  return (jp - jm) / (2.0 * h);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &cf_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &cf_size);
  int r = cf_rank;
  cf_n = CF_N_REP ? CF_N0 : CF_N0 + (r % 2);
  cf_rand(cf_x, cf_n, 1, r, 0.5, 1.5);
  cf_rand(cf_dx, cf_n, 2, r, -1.0, 1.0);
  cf_rand(cf_th, 4, 3, -1, 0.5, 1.5);
  cf_rand(cf_dth, 4, 4, -1, -1.0, 1.0);
  double sv[2];
  cf_rand(sv, 2, 5, CF_S_REP ? -1 : r, 0.5, 1.5);
  cf_s = sv[0];
  cf_ds = sv[1] - 1.0;
  cf_rand(&cf_rb, 1, 6, (CF_OUT_REP && !CF_PER_RANK) ? -1 : r, -1.0, 1.0);
  cf_rand(cf_yb, cf_n, 7, r, -1.0, 1.0);
  cf_rand(cf_z, cf_n, 8, r, 0.5, 1.5);
  cf_rand(cf_dz, cf_n, 9, r, -1.0, 1.0);
  cf_rand(cf_zb, cf_n, 10, r, -1.0, 1.0);
  double z0[NX_MAX], z1[NX_MAX], z2[NX_MAX], zbw[NX_MAX], zdw[NX_MAX];
  for (int i = 0; i < cf_n; i++) {
    z0[i] = z1[i] = z2[i] = cf_z[i];
    zbw[i] = cf_zb[i];
    zdw[i] = cf_dz[i];
  }

  /* primal */
  double y0[NX_MAX] = {0}, y1[NX_MAX] = {0}, y2[NX_MAX] = {0}, yd[NX_MAX] = {0};
  double xb[NX_MAX] = {0}, thb[4] = {0}, sb = 0.0, ybw[NX_MAX] = {0};
  double v0 = CF_P(cf_x, cf_th, cf_s, y0, z0);
  /* reverse */
  for (int i = 0; i < cf_n; i++)
    ybw[i] = cf_yb[i];
  double v1 = CF_B(cf_x, xb, cf_th, thb, cf_s, &sb, y1, ybw, z1, zbw, cf_rb);
  double tape = (double)mpiad_tape_bytes();
  /* forward */
  double vdot = 0.0;
  double dxw[NX_MAX], dthw[4];
  for (int i = 0; i < cf_n; i++)
    dxw[i] = cf_dx[i];
  for (int i = 0; i < 4; i++)
    dthw[i] = cf_dth[i];
  double v2 = CF_D(cf_x, dxw, cf_th, dthw, cf_s, cf_ds, y2, yd, z2, zdw, &vdot);

  const double prt = CF_FLOAT ? 1e-6 : 1e-12;
  double ymax = 0.0, ybleft = 0.0;
  for (int i = 0; i < cf_n; i++) {
    double e1 = fabs(y1[i] - y0[i]), e2 = fabs(y2[i] - y0[i]);
#ifdef CF_Y_RESTORED
    /* mpiad-cc warned that cf_b does not leave the final y (the
     * output's length could not be inferred; docs/pragmas.md) */
    e1 = 0.0;
#endif
    double e = (e1 > e2 ? e1 : e2) / (fabs(y0[i]) + 1e-300);
    if (!(e <= ymax))
      ymax = e;
    if (CF_HAS_Y && ybw[i] != 0.0)
      ybleft = 1.0;
    if (CF_HAS_Z) {
      double f1 = fabs(z1[i] - z0[i]), f2 = fabs(z2[i] - z0[i]);
#ifdef CF_Z_RESTORED
      f1 = 0.0;
#endif
      double f = (f1 > f2 ? f1 : f2) / (fabs(z0[i]) + 1e-300);
      if (!(f <= ymax))
        ymax = f;
    }
  }
  cf_check("primal value of cf_b", v1, v0, fabs(v0) + 1e-300, prt);
  cf_check("primal value of cf_d", v2, v0, fabs(v0) + 1e-300, prt);
  cf_check("primal y, z of cf_b and cf_d (worst rel. error)", ymax, 0.0, 1.0, prt);
  cf_check("output seed y_b zero after cf_b", ybleft, 0.0, 1.0, 0.0);
  cf_check("tape empty after cf_b", cf_sum(tape), 0.0, 1.0, 0.0);

  /* adjoint side <dx, xb> + <dth, thb> + ds sb, with the terms' magnitudes */
  double loc = 0.0, locabs = 0.0, once = 0.0, onceabs = 0.0;
  for (int i = 0; i < cf_n; i++) {
    loc += cf_dx[i] * xb[i];
    locabs += fabs(cf_dx[i] * xb[i]);
    if (CF_HAS_Z) {
      loc += cf_dz[i] * zbw[i];
      locabs += fabs(cf_dz[i] * zbw[i]);
    }
  }
  for (int i = 0; i < 4; i++) {
    double t = cf_dth[i] * thb[i];
    if (CF_PER_RANK) { loc += t; locabs += fabs(t); } else { once += t; onceabs += fabs(t); }
  }
  if (CF_PER_RANK || !CF_S_REP) { loc += cf_ds * sb; locabs += fabs(cf_ds * sb); }
  else { once += cf_ds * sb; onceabs += fabs(cf_ds * sb); }
  MPI_Bcast(&once, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&onceabs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double ad = cf_sum(loc) + once, adabs = cf_sum(locabs) + onceabs;

  /* tangent side <F'(x) dx, yb> */
  double tl = 0.0, tlabs = 0.0;
  for (int i = 0; i < cf_n; i++) {
    tl += yd[i] * cf_yb[i];
    tlabs += fabs(yd[i] * cf_yb[i]);
    if (CF_HAS_Z) {
      tl += zdw[i] * cf_zb[i];
      tlabs += fabs(zdw[i] * cf_zb[i]);
    }
  }
  double tonce = 0.0, tonceabs = 0.0;
  if (CF_OUT_REP) { tonce = vdot * cf_rb; tonceabs = fabs(tonce); }
  else { tl += vdot * cf_rb; tlabs += fabs(vdot * cf_rb); }
  MPI_Bcast(&tonce, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&tonceabs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double tg = cf_sum(tl) + tonce, tgabs = cf_sum(tlabs) + tonceabs;

  double scale = adabs > tgabs ? adabs : tgabs;
  if (scale < 1e-12)
    scale = 1e-12;
  cf_check("dot-product test <F'dx, yb> vs <dx, F'^T yb>", tg, ad, scale, CF_FLOAT ? 1e-4 : 1e-10);

  /* central differences.  Strongly curved programs need a second try: the
   * Richardson extrapolation (4 D(h) - D(2h)) / 3 (error O(h^4)) and a
   * smaller step h / 10, then the same at h / 10 and h / 100; one must
   * agree.  (A branch threshold
   * inside the step would make all three wrong; the random point makes
   * that unlikely.) */
  double h1 = CF_FLOAT ? 1e-3 : 1e-6;
  double rt = CF_FLOAT ? 3e-3 : 1e-6;
  /* rounding noise of a difference quotient: eps |J| / h, |J| bounded by the
   * sum of the absolute terms of the objective (float: float's eps) */
  double jloc = CF_OUT_REP ? 0.0 : fabs(v0 * cf_rb);
  for (int i = 0; i < (CF_HAS_Y ? cf_n : 0); i++)
    jloc += fabs(y0[i] * cf_yb[i]);
  for (int i = 0; i < (CF_HAS_Z ? cf_n : 0); i++)
    jloc += fabs(z0[i] * cf_zb[i]);
  double jabs = cf_sum(jloc) + (CF_OUT_REP ? fabs(v0 * cf_rb) : 0.0);
  double noise = 20.0 * (CF_FLOAT ? 1.2e-7 : 2.3e-16) * jabs / h1;
  double fd1 = cf_fd(h1);
  double fscale = scale > fabs(fd1) ? scale : fabs(fd1);
  fscale += noise / rt;
  double fd = fd1;
  if (!(fabs(fd1 - ad) <= rt * fscale)) {
    double fd2 = cf_fd(2.0 * h1), fd3 = cf_fd(0.1 * h1);
    double rich = (4.0 * fd1 - fd2) / 3.0;
    if (cf_rank == 0)
      printf("central differences: D(h) %.17g D(2h) %.17g D(h/10) %.17g Richardson %.17g (h = %g)\n",
             fd1, fd2, fd3, rich, h1);
    if (fabs(rich - ad) < fabs(fd - ad))
      fd = rich;
    if (fabs(fd3 - ad) < fabs(fd - ad))
      fd = fd3;
    if (!(fabs(fd - ad) <= rt * fscale)) {
      /* extreme curvature (seen: a third derivative of 1e12): the same one
       * and two decades further down */
      double fd5 = cf_fd(0.2 * h1), fd4 = cf_fd(0.01 * h1);
      double rich2 = (4.0 * fd3 - fd5) / 3.0;
      if (cf_rank == 0)
        printf("central differences: D(h/5) %.17g D(h/100) %.17g Richardson(h/10) %.17g\n",
               fd5, fd4, rich2);
      if (fabs(rich2 - ad) < fabs(fd - ad))
        fd = rich2;
      if (fabs(fd4 - ad) < fabs(fd - ad))
        fd = fd4;
      /* for triage: difference quotients that disagree among themselves
       * point at the check (a threshold or extreme curvature within the
       * steps), not at the derivative */
      double lo = fd1, hi = fd1, c[4] = {fd2, fd3, fd4, fd5};
      for (int i = 0; i < 4; i++) {
        lo = c[i] < lo ? c[i] : lo;
        hi = c[i] > hi ? c[i] : hi;
      }
      if (cf_rank == 0 && hi - lo > rt * fscale)
        printf("note: the difference quotients disagree among themselves (spread %.3g, "
               "err/scale %.3e)\n", hi - lo, (hi - lo) / fscale);
    }
  }
  cf_check("reverse vs central differences", ad, fd, fscale, rt);
#ifdef CF_REPLICAS
  /* replicas(x, th, s, y, z): cf_bv for CF_REPLICAS replicas (each its own
   * point and seed) against cf_b on each replica */
  {
    enum { R = CF_REPLICAS };
    int n = cf_n;
    double X[R * NX_MAX], TH[R * 4], S[R], Y[R * NX_MAX] = {0}, YB[R * NX_MAX];
    double Z[R * NX_MAX], ZB[R * NX_MAX], XB[R * NX_MAX] = {0}, THB[R * 4] = {0};
    double SB[R] = {0}, BAR[R], VAL[R];
    for (int k = 0; k < R; k++) {
      for (int i = 0; i < n; i++) {
        X[k * n + i] = cf_x[i] + 0.1 * k * cf_dx[i];
        Z[k * n + i] = cf_z[i] + 0.1 * k * cf_dz[i];
        YB[k * n + i] = cf_yb[i] * (1.0 + 0.5 * k);
        ZB[k * n + i] = cf_zb[i] * (1.0 - 0.25 * k);
      }
      for (int i = 0; i < 4; i++)
        TH[k * 4 + i] = cf_th[i] + 0.1 * k * cf_dth[i];
      S[k] = cf_s + 0.1 * k * cf_ds;
      BAR[k] = cf_rb * (1.0 + k);
    }
    double YB0[R * NX_MAX], Z0[R * NX_MAX], ZB0[R * NX_MAX]; /* cf_bv updates these */
    for (int i = 0; i < R * n; i++) {
      YB0[i] = YB[i];
      Z0[i] = Z[i];
      ZB0[i] = ZB[i];
    }
    CF_BV(R, X, XB, TH, THB, S, SB, Y, YB, Z, ZB, BAR, VAL);
    cf_check("tape empty after cf_bv", cf_sum((double)mpiad_tape_bytes()), 0.0, 1.0, 0.0);
    for (int k = 0; k < R; k++) {
      double y1[NX_MAX] = {0}, yb1[NX_MAX], z1[NX_MAX], zb1[NX_MAX], xb1[NX_MAX] = {0};
      double thb1[4] = {0}, sb1 = 0.0;
      for (int i = 0; i < n; i++) {
        yb1[i] = YB0[k * n + i];
        z1[i] = Z0[k * n + i];
        zb1[i] = ZB0[k * n + i];
      }
      double v = CF_B(X + k * n, xb1, TH + k * 4, thb1, S[k], &sb1, y1, yb1, z1, zb1, BAR[k]);
      double worst = fabs(VAL[k] - v) / (fabs(v) + 1e-300), wscale = 0.0;
      double got[4 * NX_MAX + 5], want[4 * NX_MAX + 5];
      int m = 0;
      for (int i = 0; i < n; i++) {
        got[m] = XB[k * n + i]; want[m++] = xb1[i];
#if !defined(CF_Y_RESTORED)
        if (CF_HAS_Y) { got[m] = Y[k * n + i]; want[m++] = y1[i]; }
#endif
#if !defined(CF_Z_RESTORED)
        if (CF_HAS_Z) { got[m] = Z[k * n + i]; want[m++] = z1[i]; }
#endif
        if (CF_HAS_Z) { got[m] = ZB[k * n + i]; want[m++] = zb1[i]; }
      }
      for (int i = 0; i < 4; i++) { got[m] = THB[k * 4 + i]; want[m++] = thb1[i]; }
      got[m] = SB[k]; want[m++] = sb1;
      for (int i = 0; i < m; i++)
        wscale = fabs(want[i]) > wscale ? fabs(want[i]) : wscale;
      for (int i = 0; i < m; i++) {
        double e = fabs(got[i] - want[i]) / (wscale + 1e-300);
        if (!(e <= worst))
          worst = e;
      }
      char what[96];
      snprintf(what, sizeof what, "replica %d of cf_bv against cf_b (worst rel. error)", k);
      cf_check(what, worst, 0.0, 1.0, CF_FLOAT ? 1e-5 : 1e-11);
    }
  }
#endif
  if (cf_rank == 0) {
    printf("%s\n", cf_fails ? "SOME CHECKS FAILED" : "ALL PASSED");
    fflush(stdout);
  }
  MPI_Finalize();
  return cf_fails ? 1 : 0;
}
"""


COMM_HELPERS = {
    "gsum": [
        "static double cf_gsum(double v, MPI_Comm comm) {",
        "  double s = 0.0;",
        "  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, comm);",
        "  return s;",
        "}", ""],
    "gmsq": [
        "static double cf_gmsq(double a, double b, MPI_Comm comm) {",
        "  double q = cf_gsum(a * a + 0.5 * b, comm);",
        "  int P;",
        "  MPI_Comm_size(comm, &P);",
        "  return q / P;",
        "}", ""],
    "gsum_inplace": [
        "static void cf_gsum_inplace(double *v, MPI_Comm comm) {",
        "  MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, comm);",
        "}", ""],
    "post2": [
        "static void cf_post2(double *rbuf, double *sbuf, int tag, MPI_Comm comm,",
        "                     MPI_Request *rq) {",
        "  int me, np;",
        "  MPI_Comm_rank(comm, &me);",
        "  MPI_Comm_size(comm, &np);",
        "  MPI_Irecv(rbuf, 2, MPI_DOUBLE, (me + np - 1) % np, tag, comm, &rq[0]);",
        "  MPI_Isend(sbuf, 2, MPI_DOUBLE, (me + 1) % np, tag, comm, &rq[1]);",
        "}", ""],
    "wait2": [
        "static void cf_wait2(MPI_Request *rq) {",
        "  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);",
        "}", ""],
}


def generate(seed, replicas=False):
    """The program of `seed`; with `replicas`, also checks cf_bv."""
    return Prog(seed).text(replicas)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--out", default=".")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for s in range(args.seed, args.seed + args.count):
        with open(os.path.join(args.out, "cf_%d.c" % s), "w") as f:
            f.write(generate(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
