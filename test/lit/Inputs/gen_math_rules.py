#!/usr/bin/env python3
"""Writes a C file that checks every rule of rules/math.rules in reverse and
forward mode (exec/math_rules_all.c).

usage: gen_math_rules.py RULES_FILE

For each rule `math NAME(args) ...` it writes two marked functions around one
call of NAME, `r_NAME` (reverse) and `t_NAME` (forward), and a table entry
with three points inside NAME's domain, away from its singularities and
kinks.  main() compares, at each point, the reverse gradient and the forward
tangent with central differences of the primal, and the two modes with each
other (the dot-product test <grad, d> = tangent along d).  The expected values
come from the C library through central differences, never from the tool.
A rule this script has no domain for stops it: a new rule must say where it
may be evaluated.
"""
import re
import sys

# Points per function: inside the domain, away from singularities, kinks
# (fabs at 0, fmin/fmax ties) and jumps (floor, round ... at integers).
DOMAIN = {
    "sqrt": [0.3, 1.2, 2.5], "cbrt": [-0.7, 0.3, 1.2], "exp": [-0.7, 0.3, 1.2],
    "expm1": [-0.7, 0.3, 1.2], "log": [0.3, 1.2, 2.5], "log10": [0.3, 1.2, 2.5],
    "log1p": [-0.7, 0.3, 1.2], "pow": [(0.7, 1.3), (1.2, -0.4), (2.5, 2.0)],
    "sin": [-0.7, 0.3, 1.2], "cos": [-0.7, 0.3, 1.2], "tan": [-0.7, 0.3, 1.2],
    "asin": [-0.7, 0.3, 0.6], "acos": [-0.7, 0.3, 0.6], "atan": [-0.7, 0.3, 1.2],
    "atan2": [(0.3, 1.2), (-0.7, 0.4), (1.1, -0.5)], "sinh": [-0.7, 0.3, 1.2],
    "cosh": [-0.7, 0.3, 1.2], "tanh": [-0.7, 0.3, 1.2], "fabs": [-0.7, 0.3, 1.2],
    "fmin": [(0.3, 1.2), (1.1, -0.5), (-0.7, -0.2)],
    "fmax": [(0.3, 1.2), (1.1, -0.5), (-0.7, -0.2)],
    "hypot": [(0.3, 1.2), (-0.7, 0.4), (1.1, -0.5)], "erf": [-0.7, 0.3, 1.2],
    "erfc": [-0.7, 0.3, 1.2], "floor": [-0.7, 0.3, 1.2], "ceil": [-0.7, 0.3, 1.2],
    "round": [-0.7, 0.3, 1.2], "trunc": [-0.7, 0.3, 1.2],
}


def domain(name):
    if name in DOMAIN:
        return DOMAIN[name], False
    if name.endswith("f") and name[:-1] in DOMAIN:
        return DOMAIN[name[:-1]], True
    sys.exit("gen_math_rules.py: no domain for the rule '%s': add it to DOMAIN"
             % name)


def main():
    rules = []
    for line in open(sys.argv[1]):
        m = re.match(r"\s*math\s+(\w+)\s*\(([^)]*)\)", line)
        if m:
            args = [a.strip() for a in m.group(2).split(",")]
            rules.append((m.group(1), len(args)))
    out = ["#include <math.h>", "#include <mpi.h>", "#include <stdio.h>", "",
           '#include "harness.h"', ""]
    table = []
    for name, nargs in rules:
        pts, single = domain(name)
        t = "float" if single else "double"
        if nargs == 1:
            params, call = "%s x" % t, "%s(x)" % name
            rp = "%s x, double *x_b, double r_bar" % t
            tp = "%s x, double x_d, double *t_dot" % t
            wrt = "x"
        else:
            params, call = "%s x, %s y" % (t, t), "%s(x, y)" % name
            rp = "%s x, double *x_b, %s y, double *y_b, double r_bar" % (t, t)
            tp = "%s x, double x_d, %s y, double y_d, double *t_dot" % (t, t)
            wrt = "x, y"
        # The primal squares nothing: the derivative is the rule's alone,
        # times a constant factor so that a dropped seed shows.
        body = "{ return 1.5 * %s; }" % call
        out += ["#pragma mpiad differentiate wrt(%s) varying(%s)" % (wrt, wrt),
                "%s r_%s(%s) %s" % (t, name, params, body),
                "#pragma mpiad differentiate forward wrt(%s) varying(%s)" % (wrt, wrt),
                "%s t_%s(%s) %s" % (t, name, params, body),
                "%s r_%s_b(%s);" % (t, name, rp),
                "%s t_%s_d(%s);" % (t, name, tp), ""]
        for p in pts:
            x, y = (p if nargs == 2 else (p, 0.0))
            table.append((name, nargs, single, x, y))
    out.append("typedef struct { const char *name; int nargs, single; double x, y; } point_t;")
    out.append("static const point_t points[] = {")
    for name, nargs, single, x, y in table:
        out.append('  {"%s", %d, %d, %r, %r},' % (name, nargs, int(single), x, y))
    out.append("};")
    out.append("#define NPOINTS %d" % len(table))
    # Dispatch: the primal, the reverse gradient, the forward tangent.
    out.append("static void run(int k, double x, double y, double dx, double dy,")
    out.append("                double *f, double *gx, double *gy, double *tan) {")
    out.append("  *gx = *gy = *tan = 0.0;")
    out.append("  switch (k) {")
    seen = {}
    for i, (name, nargs, single, x, y) in enumerate(table):
        seen.setdefault(name, []).append(i)
    for name, nargs in rules:
        _, single = domain(name)
        t = "float" if single else "double"
        for i in seen[name]:
            out.append("  case %d:" % i)
        if nargs == 1:
            out.append("    *f = r_%s((%s)x);" % (name, t))
            out.append("    r_%s_b((%s)x, gx, 1.0);" % (name, t))
            out.append("    t_%s_d((%s)x, dx, tan);" % (name, t))
        else:
            out.append("    *f = r_%s((%s)x, (%s)y);" % (name, t, t))
            out.append("    r_%s_b((%s)x, gx, (%s)y, gy, 1.0);" % (name, t, t))
            out.append("    t_%s_d((%s)x, dx, (%s)y, dy, tan);" % (name, t, t))
        out.append("    break;")
    out.append("  }")
    out.append("  (void)dy;")
    out.append("}")
    out += [
        "int main(int argc, char **argv) {",
        "  MPI_Init(&argc, &argv);",
        "  hx_init(MPI_COMM_WORLD);",
        "  char label[256];",
        "  for (int k = 0; k < NPOINTS; k++) {",
        "    const point_t *p = &points[k];",
        "    double f, gx, gy, tan, g2, g3, t2;",
        "    const double dx = 1.0, dy = p->nargs == 2 ? 0.5 : 0.0;",
        "    run(k, p->x, p->y, dx, dy, &f, &gx, &gy, &tan);",
        "    /* central differences of the primal, per input and along d */",
        "    const double h = p->single ? 1e-3 : 1e-6;",
        "    const double tol = p->single ? 2e-3 : 1e-6;",
        "    double fp, fm;",
        "    run(k, p->x + h, p->y, dx, dy, &fp, &g2, &g3, &t2);",
        "    run(k, p->x - h, p->y, dx, dy, &fm, &g2, &g3, &t2);",
        "    double fdx = (fp - fm) / (2 * h), fdy = 0.0;",
        "    if (p->nargs == 2) {",
        "      run(k, p->x, p->y + h, dx, dy, &fp, &g2, &g3, &t2);",
        "      run(k, p->x, p->y - h, dx, dy, &fm, &g2, &g3, &t2);",
        "      fdy = (fp - fm) / (2 * h);",
        "    }",
        "    snprintf(label, sizeof label, \"%s(%g, %g): reverse d/dx\", p->name, p->x, p->y);",
        "    hx_check_each(label, gx, fdx, tol, 1e-6);",
        "    if (p->nargs == 2) {",
        "      snprintf(label, sizeof label, \"%s(%g, %g): reverse d/dy\", p->name, p->x, p->y);",
        "      hx_check_each(label, gy, fdy, tol, 1e-6);",
        "    }",
        "    snprintf(label, sizeof label, \"%s(%g, %g): forward vs central differences\", p->name, p->x, p->y);",
        "    hx_check_each(label, tan, fdx * dx + fdy * dy, tol, 1e-6);",
        "    snprintf(label, sizeof label, \"%s(%g, %g): forward vs reverse\", p->name, p->x, p->y);",
        "    hx_check_each(label, tan, gx * dx + gy * dy, p->single ? 1e-6 : 1e-14, 1e-14);",
        "    (void)f;",
        "  }",
        "  int rc = hx_finish();",
        "  MPI_Finalize();",
        "  return rc;",
        "}",
    ]
    print("\n".join(out))


main()
