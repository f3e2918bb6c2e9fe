#!/usr/bin/env python3
"""Semantics-preserving rewrites of the marked functions of a C file.

Equivalence modulo inputs (Le, Afshari, Su, PLDI 2014) for an AD compiler:
two C programs that compute the same thing must get the same gradients.  This
module rewrites the bodies of the functions marked `#pragma mpiad
differentiate` (and the same-file `static` functions they call) with rewrites
that C defines to mean the same thing, chained 1 to 4 at random from a seed:

  compound-expand    `a op= e;` -> `a = a op (e);`  (op in + - * /, `a` pure)
  compound-fold      `a = a op e;` -> `a op= e;`
  incdec-to-compound `x++;` / `++x;` -> `x += 1;`  (statement or for increment)
  compound-to-incdec `x += 1;` -> `x++;`
  temp-intro         `a = e;` -> `{ T mpiad_mtN = (e); a = mpiad_mtN; }`
                     (T the declared type of `a`; also `T v = e;`, `return e;`)
  macro-read         reads of a variable through `#define MT_x_N x`, placed
                     before the function and `#undef`'d after it
  ptr-alias          reads `p[i]` of a pointer parameter through
                     `const T *mpiad_mtN = p;` declared at the top of the body
  index-to-ptr       a read `a[i]` of a pointer parameter -> `*(a + (i))`
  ptr-to-index       `*(a + e)` -> `a[e]`, `*p` -> `p[0]`
  for-to-while       `for (I; C; S) B` -> `{ I; while (C) { { B } S; } }`
                     (no `continue` in B)
  while-to-for       `while (C) B` -> `for (; C;) B`
  counter-hoist      `for (int i = A; ...)` -> the counter renamed to a fresh
                     `int mpiad_mtN;` declared at the top of the function
  unroll2            `for (int i = A; i < B; i++) S` -> a loop of step 2 that
                     runs S and S[i := i + 1], then a remainder loop (B made of
                     int constants and int variables S never writes, S without
                     break/continue/goto/labels/static and not writing i)
  identity           `e` -> `(e) * 1.0` or `(e) - 0.0` (`1.0f`, `0.0f` in
                     float) where e converts to a known floating type (`- 0.0`,
                     not `+ 0.0`, which would turn -0.0 into +0.0)
  dead-store         `double mpiad_mtN = v; (void)mpiad_mtN;` inserted
  branch-invert      `if (c) A else B` -> `if (!(c)) { B } else { A }`
  allreduce-split    `MPI_Allreduce(s, r, n, T, OP, comm);` ->
                     `MPI_Reduce(s, r, n, T, OP, 0, comm); MPI_Bcast(r, n, T, 0, comm);`
                     (s not MPI_IN_PLACE, s and r different, all arguments pure)
  reduce-bcast-join  the inverse of allreduce-split, for two adjacent statements

A site whose safety cannot be established syntactically is skipped: a rewrite
never touches preprocessor lines, statements right after a `#pragma` inside
a body, the arguments of function-like macros defined in the file, or `main`.

Usage:
  metamorphic.py FILE --seed S [-o OUT]      rewrite; the chain goes to stderr
  metamorphic.py FILE --sites                list every site of every rewrite
  metamorphic.py FILE --seed S --kinds unroll2,identity   only these rewrites

As a module: rewrite(src, seed) -> (new_src, [(kind, line), ...]).
"""

import argparse
import random
import re
import sys

# ---------------------------------------------------------------------------
# Tokenizer
# ---------------------------------------------------------------------------

PUNCTS = [">>=", "<<=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
          "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=",
          "##"]


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line")

    def __init__(self, kind, text, start, end, line):
        self.kind, self.text, self.start, self.end, self.line = (
            kind, text, start, end, line)

    def __repr__(self):
        return "Tok(%s,%r,L%d)" % (self.kind, self.text, self.line)


def tokenize(src):
    """C tokens (kinds id, num, str, chr, punct, pp) without comments.  A
    preprocessor line (continuations included) is one 'pp' token."""
    toks = []
    i, n, line = 0, len(src), 1
    bol = True  # only whitespace since the last newline
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            bol = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and i + 1 < n and src[i + 1] == "\n":
            i += 2
            line += 1
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += src.count("\n", i, j)
            i = j
            continue
        if c == "#" and bol:
            j = i
            start_line = line
            while j < n:
                if src[j] == "\\" and j + 1 < n and src[j + 1] == "\n":
                    j += 2
                    line += 1
                    continue
                if src.startswith("/*", j):
                    k = src.find("*/", j + 2)
                    k = n if k < 0 else k + 2
                    line += src.count("\n", j, k)
                    j = k
                    continue
                if src.startswith("//", j):
                    k = src.find("\n", j)
                    j = n if k < 0 else k
                    continue
                if src[j] == "\n":
                    break
                j += 1
            toks.append(Tok("pp", src[i:j], i, j, start_line))
            i = j
            continue
        bol = False
        if c.isalpha() or c == "_":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            # string/char prefixes
            if j < n and src[j] in "\"'" and src[i:j] in ("L", "u", "U", "u8"):
                pass
            else:
                toks.append(Tok("id", src[i:j], i, j, line))
                i = j
                continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            j = i + 1
            while j < n:
                d = src[j]
                if d in "eEpP" and j + 1 < n and src[j + 1] in "+-":
                    j += 2
                elif d.isalnum() or d in "._":
                    j += 1
                else:
                    break
            toks.append(Tok("num", src[i:j], i, j, line))
            i = j
            continue
        if c in "\"'" or (c.isalpha()):
            j = i
            while src[j] != '"' and src[j] != "'":
                j += 1
            q = src[j]
            j += 1
            while j < n and src[j] != q:
                if src[j] == "\\":
                    j += 1
                j += 1
            j += 1
            toks.append(Tok("str" if q == '"' else "chr", src[i:j], i, j, line))
            i = j
            continue
        for p in PUNCTS:
            if src.startswith(p, i):
                toks.append(Tok("punct", p, i, i + len(p), line))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, i, i + 1, line))
            i += 1
    return toks


# ---------------------------------------------------------------------------
# AST (spans are token indices [s, e))
# ---------------------------------------------------------------------------

class Node:
    def __init__(self, kind, s, e, **kw):
        self.kind, self.s, self.e = kind, s, e
        self.__dict__.update(kw)

    def children(self):
        for k, v in self.__dict__.items():
            if k in ("kind", "s", "e", "parent"):
                continue
            if isinstance(v, Node):
                yield v
            elif isinstance(v, list):
                for x in v:
                    if isinstance(x, Node):
                        yield x
                    elif isinstance(x, tuple):
                        for y in x:
                            if isinstance(y, Node):
                                yield y

    def walk(self):
        yield self
        for c in self.children():
            yield from c.walk()

    def __repr__(self):
        return "<%s %d:%d>" % (self.kind, self.s, self.e)


class ParseError(Exception):
    pass


TYPE_KEYWORDS = {"void", "char", "short", "int", "long", "float", "double",
                 "signed", "unsigned", "_Bool", "_Complex", "const", "volatile",
                 "restrict", "__restrict", "__restrict__", "static", "extern",
                 "register", "auto", "inline", "struct", "union", "enum",
                 "_Atomic", "_Thread_local", "typeof", "__typeof__"}
KNOWN_TYPEDEFS = {"size_t", "ptrdiff_t", "ssize_t", "int8_t", "int16_t",
                  "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                  "uint64_t", "intptr_t", "uintptr_t", "MPI_Comm", "MPI_Request",
                  "MPI_Status", "MPI_Datatype", "MPI_Op", "MPI_Aint",
                  "MPI_Offset", "MPI_Win", "MPI_Group", "MPI_Info", "MPI_Count",
                  "MPI_Fint", "FILE", "bool"}
ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
BIN_PREC = [
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="),
    ("<", ">", "<=", ">="), ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
]
STMT_KEYWORDS = {"if", "else", "for", "while", "do", "return", "break",
                 "continue", "switch", "case", "default", "goto"}


class Parser:
    """Recursive descent over the tokens of one function body."""

    def __init__(self, toks, typedefs):
        self.t = toks
        self.typedefs = typedefs

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else Tok("eof", "", 0, 0, 0)

    def at(self, text, k=0):
        tk = self.peek(k)
        return tk.kind in ("punct", "id") and tk.text == text

    def expect(self, text):
        if not self.at(text):
            raise ParseError("expected %r at line %d, got %r" %
                             (text, self.peek().line, self.peek().text))
        self.i += 1

    def is_type_name(self, k=0):
        tk = self.peek(k)
        if tk.kind != "id":
            return False
        return (tk.text in TYPE_KEYWORDS or tk.text in self.typedefs or
                tk.text in KNOWN_TYPEDEFS)

    def starts_decl(self):
        tk = self.peek()
        if tk.kind != "id":
            return False
        if tk.text in TYPE_KEYWORDS:
            return True
        if tk.text in self.typedefs or tk.text in KNOWN_TYPEDEFS:
            nx = self.peek(1)
            return nx.kind == "id" or (nx.kind == "punct" and nx.text in ("*", "("))
        return False

    # ---- statements ----
    def parse_compound(self):
        s = self.i
        self.expect("{")
        items = []
        while not self.at("}"):
            if self.peek().kind == "eof":
                raise ParseError("unterminated block")
            items.append(self.parse_stmt())
        self.expect("}")
        return Node("compound", s, self.i, items=items)

    def parse_stmt(self):
        tk = self.peek()
        s = self.i
        if tk.kind == "pp":
            self.i += 1
            return Node("pp", s, self.i, text=tk.text)
        if tk.kind == "punct":
            if tk.text == "{":
                return self.parse_compound()
            if tk.text == ";":
                self.i += 1
                return Node("empty", s, self.i)
        if tk.kind == "id":
            w = tk.text
            if w == "if":
                self.i += 1
                self.expect("(")
                c = self.parse_expr()
                self.expect(")")
                th = self.parse_stmt()
                el = None
                if self.at("else"):
                    self.i += 1
                    el = self.parse_stmt()
                return Node("if", s, self.i, cond=c, then=th, els=el)
            if w == "while":
                self.i += 1
                self.expect("(")
                c = self.parse_expr()
                self.expect(")")
                b = self.parse_stmt()
                return Node("while", s, self.i, cond=c, body=b)
            if w == "do":
                self.i += 1
                b = self.parse_stmt()
                self.expect("while")
                self.expect("(")
                c = self.parse_expr()
                self.expect(")")
                self.expect(";")
                return Node("do", s, self.i, cond=c, body=b)
            if w == "for":
                self.i += 1
                self.expect("(")
                init = None
                if self.at(";"):
                    self.i += 1
                elif self.starts_decl():
                    init = self.parse_decl()
                else:
                    init = self.parse_expr()
                    self.expect(";")
                cond = None if self.at(";") else self.parse_expr()
                self.expect(";")
                inc = None if self.at(")") else self.parse_expr()
                self.expect(")")
                b = self.parse_stmt()
                return Node("for", s, self.i, init=init, cond=cond, inc=inc,
                            body=b)
            if w == "return":
                self.i += 1
                x = None if self.at(";") else self.parse_expr()
                self.expect(";")
                return Node("return", s, self.i, expr=x)
            if w in ("break", "continue"):
                self.i += 1
                self.expect(";")
                return Node(w, s, self.i)
            if w == "goto":
                self.i += 2
                self.expect(";")
                return Node("goto", s, self.i)
            if w == "switch":
                self.i += 1
                self.expect("(")
                c = self.parse_expr()
                self.expect(")")
                b = self.parse_stmt()
                return Node("switch", s, self.i, cond=c, body=b)
            if w == "case":
                self.i += 1
                self.parse_cond()
                self.expect(":")
                return Node("label", s, self.i)
            if w == "default" and self.at(":", 1):
                self.i += 2
                return Node("label", s, self.i)
            if self.at(":", 1) and w not in TYPE_KEYWORDS:
                self.i += 2
                return Node("label", s, self.i)
            if self.starts_decl():
                return self.parse_decl()
        x = self.parse_expr()
        self.expect(";")
        return Node("exprstmt", s, self.i, expr=x)

    def parse_decl(self):
        """`specifiers declarator [= init], ... ;`"""
        s = self.i
        spec = []
        while True:
            tk = self.peek()
            if tk.kind != "id":
                break
            if tk.text in ("struct", "union", "enum"):
                spec.append(tk.text)
                self.i += 1
                if self.peek().kind == "id":
                    spec.append(self.peek().text)
                    self.i += 1
                if self.at("{"):
                    raise ParseError("struct definition in body")
                continue
            if tk.text in TYPE_KEYWORDS:
                spec.append(tk.text)
                self.i += 1
                continue
            if (tk.text in self.typedefs or tk.text in KNOWN_TYPEDEFS) and not any(
                    x not in TYPE_KEYWORDS for x in spec):
                # a typedef name, unless a type was given already
                if any(x in ("int", "double", "float", "char", "long", "short",
                             "unsigned", "signed", "void", "_Bool") for x in spec):
                    break
                spec.append(tk.text)
                self.i += 1
                continue
            break
        decls = []
        while True:
            ds = self.i
            ptr = 0
            quals = []
            while self.at("*") or self.at("const") or self.at("restrict") or \
                    self.at("__restrict") or self.at("volatile"):
                if self.at("*"):
                    ptr += 1
                else:
                    quals.append(self.peek().text)
                self.i += 1
            opaque = False
            name = None
            name_tok = None
            if self.at("("):
                # function pointer or parenthesized declarator: skip
                opaque = True
                self.skip_balanced("(", ")")
                m = [t for t in self.t[ds:self.i] if t.kind == "id"
                     and t.text not in TYPE_KEYWORDS]
                name = m[0].text if m else None
            elif self.peek().kind == "id":
                name = self.peek().text
                name_tok = self.i
                self.i += 1
            dims = 0
            while self.at("[") or self.at("("):
                if self.at("["):
                    dims += 1
                    self.skip_balanced("[", "]")
                else:
                    opaque = True
                    self.skip_balanced("(", ")")
            init = None
            brace = False
            if self.at("="):
                self.i += 1
                if self.at("{"):
                    bs = self.i
                    self.skip_balanced("{", "}")
                    init = Node("initlist", bs, self.i)
                    brace = True
                else:
                    init = self.parse_assign()
            decls.append(dict(name=name, name_tok=name_tok, ptr=ptr, dims=dims,
                              init=init, brace=brace, opaque=opaque, s=ds,
                              e=self.i, quals=quals))
            if self.at(","):
                self.i += 1
                continue
            break
        self.expect(";")
        return Node("decl", s, self.i, spec=spec, decls=decls,
                    inits=[d["init"] for d in decls if d["init"] is not None])

    def skip_balanced(self, o, c):
        depth = 0
        while True:
            tk = self.peek()
            if tk.kind == "eof":
                raise ParseError("unbalanced %s" % o)
            if tk.kind == "punct" and tk.text == o:
                depth += 1
            elif tk.kind == "punct" and tk.text == c:
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return
            self.i += 1

    # ---- expressions ----
    def parse_expr(self):
        s = self.i
        x = self.parse_assign()
        while self.at(","):
            self.i += 1
            y = self.parse_assign()
            x = Node("comma", s, self.i, l=x, r=y)
        return x

    def parse_assign(self):
        s = self.i
        x = self.parse_cond()
        tk = self.peek()
        if tk.kind == "punct" and tk.text in ASSIGN_OPS:
            self.i += 1
            y = self.parse_assign()
            return Node("assign", s, self.i, op=tk.text, l=x, r=y)
        return x

    def parse_cond(self):
        s = self.i
        c = self.parse_bin(0)
        if self.at("?"):
            self.i += 1
            a = self.parse_expr()
            self.expect(":")
            b = self.parse_cond()
            return Node("cond", s, self.i, c=c, a=a, b=b)
        return c

    def parse_bin(self, level):
        if level == len(BIN_PREC):
            return self.parse_cast()
        s = self.i
        x = self.parse_bin(level + 1)
        while True:
            tk = self.peek()
            if tk.kind == "punct" and tk.text in BIN_PREC[level]:
                self.i += 1
                y = self.parse_bin(level + 1)
                x = Node("bin", s, self.i, op=tk.text, l=x, r=y)
            else:
                return x

    def parse_cast(self):
        s = self.i
        if self.at("(") and self.is_type_name(1):
            self.i += 1
            ts = self.i
            self.skip_type()
            te = self.i
            self.expect(")")
            if self.at("{"):
                self.skip_balanced("{", "}")
                return Node("opaque", s, self.i)
            x = self.parse_cast()
            return Node("cast", s, self.i, ts=ts, te=te, x=x,
                        tname=" ".join(t.text for t in self.t[ts:te]))
        return self.parse_unary()

    def skip_type(self):
        depth = 0
        while True:
            tk = self.peek()
            if tk.kind == "eof":
                raise ParseError("bad type")
            if tk.kind == "punct" and tk.text in "([":
                depth += 1
            elif tk.kind == "punct" and tk.text in ")]":
                if depth == 0:
                    return
                depth -= 1
            self.i += 1

    def parse_unary(self):
        s = self.i
        tk = self.peek()
        if tk.kind == "punct" and tk.text in ("++", "--"):
            self.i += 1
            x = self.parse_unary()
            return Node("preinc", s, self.i, op=tk.text, x=x)
        if tk.kind == "punct" and tk.text in ("-", "+", "!", "~", "*", "&"):
            self.i += 1
            x = self.parse_cast()
            return Node("unary", s, self.i, op=tk.text, x=x)
        if tk.kind == "id" and tk.text in ("sizeof", "_Alignof", "__alignof__"):
            self.i += 1
            if self.at("(") and self.is_type_name(1):
                self.skip_balanced("(", ")")
            else:
                self.parse_unary()
            return Node("sizeof", s, self.i)
        return self.parse_postfix()

    def parse_postfix(self):
        s = self.i
        x = self.parse_primary()
        while True:
            tk = self.peek()
            if tk.kind != "punct":
                return x
            if tk.text == "[":
                self.i += 1
                idx = self.parse_expr()
                self.expect("]")
                x = Node("index", s, self.i, a=x, idx=idx)
            elif tk.text == "(":
                self.i += 1
                args = []
                if not self.at(")"):
                    args.append(self.parse_assign())
                    while self.at(","):
                        self.i += 1
                        args.append(self.parse_assign())
                self.expect(")")
                x = Node("call", s, self.i, f=x, args=args)
            elif tk.text in (".", "->"):
                self.i += 1
                name = self.peek().text
                self.i += 1
                x = Node("member", s, self.i, x=x, op=tk.text, name=name)
            elif tk.text in ("++", "--"):
                self.i += 1
                x = Node("postinc", s, self.i, op=tk.text, x=x)
            else:
                return x

    def parse_primary(self):
        s = self.i
        tk = self.peek()
        if tk.kind == "id" and tk.text not in STMT_KEYWORDS:
            self.i += 1
            return Node("ident", s, self.i, name=tk.text)
        if tk.kind == "num":
            self.i += 1
            return Node("num", s, self.i, text=tk.text)
        if tk.kind in ("str", "chr"):
            self.i += 1
            while self.peek().kind == "str":
                self.i += 1
            return Node("lit", s, self.i)
        if tk.kind == "punct" and tk.text == "(":
            self.i += 1
            x = self.parse_expr()
            self.expect(")")
            return Node("paren", s, self.i, x=x)
        raise ParseError("unexpected %r at line %d" % (tk.text, tk.line))


def set_parents(node, parent=None):
    node.parent = parent
    for c in node.children():
        set_parents(c, node)


# ---------------------------------------------------------------------------
# The file: functions, macros, typedefs
# ---------------------------------------------------------------------------

MATH_DOUBLE = {"sin", "cos", "tan", "exp", "log", "sqrt", "pow", "tanh", "atan",
               "atan2", "fabs", "cbrt", "sinh", "cosh", "asin", "acos", "log10",
               "log2", "exp2", "expm1", "log1p", "fmax", "fmin", "hypot", "erf",
               "erfc", "floor", "ceil", "fmod", "round", "trunc", "copysign"}
MATH_FLOAT = {f + "f" for f in MATH_DOUBLE}


class Func:
    """One function definition: header and body token ranges."""

    def __init__(self, name, static, head_s, body_s, body_e, pragma_s, marked):
        self.name, self.static = name, static
        self.head_s, self.body_s, self.body_e = head_s, body_s, body_e
        self.pragma_s, self.marked = pragma_s, marked


class SourceFile:
    def __init__(self, src):
        self.src = src
        self.toks = tokenize(src)
        self.macros = {}      # name -> (is_function_like, replacement text)
        self.typedefs = set()
        self.funcs = []
        self._scan()

    def _scan(self):
        t = self.toks
        for tk in t:
            if tk.kind == "pp":
                m = re.match(r"#\s*define\s+([A-Za-z_]\w*)(\()?(.*)", tk.text, re.S)
                if m:
                    self.macros[m.group(1)] = (bool(m.group(2)), m.group(3).strip())
                    words = m.group(3).split()
                    if not m.group(2) and words and all(w in TYPE_KEYWORDS for w in words):
                        self.typedefs.add(m.group(1))
                        TYPE_ALIASES[m.group(1)] = words
        # typedef names
        depth = 0
        for k, tk in enumerate(t):
            if tk.kind == "punct" and tk.text in "{(":
                depth += 1
            elif tk.kind == "punct" and tk.text in "})":
                depth -= 1
            if tk.kind == "id" and tk.text == "typedef":
                d = 0
                j = k + 1
                last = None
                while j < len(t):
                    x = t[j]
                    if x.kind == "punct" and x.text in "{([":
                        d += 1
                    elif x.kind == "punct" and x.text in "})]":
                        d -= 1
                    elif x.kind == "punct" and x.text == ";" and d == 0:
                        break
                    if x.kind == "id" and d <= 1:
                        last = x.text
                        if d == 1 and j > 0 and t[j - 1].text == "*" and \
                                t[j - 2].text == "(":
                            self.typedefs.add(x.text)  # function pointer type
                    j += 1
                if last:
                    self.typedefs.add(last)
                    words = [x.text for x in t[k + 1:j - 1]]
                    if t[j - 1].text == last and words and \
                            all(w in TYPE_KEYWORDS for w in words):
                        TYPE_ALIASES[last] = words
        # function definitions at top level
        depth = 0
        pending_pragmas = []  # token indices of differentiate pragmas
        stmt_start = 0
        k = 0
        while k < len(t):
            tk = t[k]
            if tk.kind == "pp":
                if depth == 0 and re.match(r"#\s*pragma\s+mpiad\s+differentiate",
                                           tk.text):
                    pending_pragmas.append(k)
                if depth == 0:
                    stmt_start = k + 1
                k += 1
                continue
            if tk.kind == "punct" and tk.text == "{" and depth == 0:
                if k > 0 and t[k - 1].kind == "punct" and t[k - 1].text == ")":
                    # function definition: find the name
                    j = k - 1
                    d = 0
                    while j >= 0:
                        if t[j].text == ")":
                            d += 1
                        elif t[j].text == "(":
                            d -= 1
                            if d == 0:
                                break
                        j -= 1
                    # the name precedes the parameter list (skip attributes)
                    name = t[j - 1].text if j > 0 else "?"
                    e = self._match(k)
                    head = [x.text for x in t[stmt_start:j]]
                    marked = bool(pending_pragmas) and all(
                        p >= stmt_start - len(pending_pragmas) - 1 for p in pending_pragmas)
                    self.funcs.append(Func(name, "static" in head, stmt_start, k, e,
                                           pending_pragmas[0] if pending_pragmas else None,
                                           bool(pending_pragmas)))
                    pending_pragmas = []
                    k = e
                    stmt_start = k
                    continue
                depth += 1
            elif tk.kind == "punct" and tk.text == "{":
                depth += 1
            elif tk.kind == "punct" and tk.text == "}":
                depth -= 1
                if depth == 0:
                    stmt_start = k + 1
            elif tk.kind == "punct" and tk.text == ";" and depth == 0:
                stmt_start = k + 1
                # a pragma before a prototype applies to the later definition
            k += 1

    def _match(self, k):
        """Index after the '}' matching the '{' at k."""
        d = 0
        t = self.toks
        while k < len(t):
            if t[k].kind == "punct":
                if t[k].text == "{":
                    d += 1
                elif t[k].text == "}":
                    d -= 1
                    if d == 0:
                        return k + 1
            k += 1
        raise ParseError("unbalanced braces")

    def targets(self):
        """The marked functions and the static functions they call (transitively),
        never main."""
        by_name = {f.name: f for f in self.funcs}
        out = [f for f in self.funcs if f.marked and f.name != "main"]
        seen = {f.name for f in out}
        work = list(out)
        while work:
            f = work.pop()
            for k in range(f.body_s, f.body_e - 1):
                tk = self.toks[k]
                if tk.kind == "id" and self.toks[k + 1].text == "(" and \
                        tk.text in by_name and tk.text not in seen:
                    g = by_name[tk.text]
                    if g.static and g.name != "main":
                        seen.add(g.name)
                        out.append(g)
                        work.append(g)
        out.sort(key=lambda f: f.body_s)
        return out


# ---------------------------------------------------------------------------
# Per-function analysis
# ---------------------------------------------------------------------------

# MPI calls whose first argument is a buffer they only read
MPI_SENDBUF0 = {"MPI_" + f for f in (
    "Send", "Ssend", "Isend", "Issend", "Bsend", "Rsend", "Allreduce", "Reduce",
    "Allgather", "Allgatherv", "Gather", "Gatherv", "Alltoall", "Alltoallv",
    "Sendrecv", "Iallreduce", "Ireduce", "Iallgather", "Scan", "Exscan",
    "Reduce_scatter", "Reduce_scatter_block")}


class Sym:
    def __init__(self, name, base, ptr, dims, param, const=False):
        self.name, self.base, self.ptr, self.dims = name, base, ptr, dims
        self.param, self.const = param, const

    def scalar_type(self):
        """'double', 'float', 'int' for an arithmetic scalar, else None."""
        if self.ptr or self.dims:
            return None
        return self.base

    def elem_type(self, depth=1):
        """Type after `depth` subscripts: 'double', 'float', 'int' or None."""
        if self.ptr + self.dims == depth and self.base in ("double", "float", "int"):
            return self.base
        return None


TYPE_ALIASES = {}  # typedef or macro name -> type keywords (double, ...)


def base_of(spec):
    spec = [w for x in spec for w in TYPE_ALIASES.get(x, [x])]
    ts = [x for x in spec if x not in ("const", "volatile", "static", "register",
                                       "restrict", "extern", "inline", "auto")]
    if ts == ["double"]:
        return "double"
    if ts == ["float"]:
        return "float"
    if ts == ["int"] or ts == ["signed", "int"] or ts == ["signed"]:
        return "int"
    return " ".join(ts) or None


class FuncInfo:
    """Parsed body and symbol table of one target function."""

    def __init__(self, sf, f):
        self.sf, self.f = sf, f
        t = sf.toks
        p = Parser(t, sf.typedefs)
        p.i = f.body_s
        self.body = p.parse_compound()
        set_parents(self.body)
        self.syms = {}          # name -> Sym (None when ambiguous)
        self.decl_count = {}    # name -> number of declarations (params too)
        self.ret_type = None
        self._params(t)
        for n in self.body.walk():
            if n.kind == "decl":
                for d in n.decls:
                    if d["name"]:
                        self._add(Sym(d["name"], None if d["opaque"] else base_of(n.spec),
                                      d["ptr"], d["dims"], False, "const" in n.spec))
        self.addr_taken = set()
        self.assigned = set()
        for n in self.body.walk():
            if n.kind == "unary" and n.op == "&":
                b = lvalue_base(n.x)
                if b:
                    self.addr_taken.add(b)
            if n.kind in ("assign", "preinc", "postinc"):
                tgt = n.l if n.kind == "assign" else n.x
                if tgt.kind == "ident":
                    self.assigned.add(tgt.name)
                elif tgt.kind == "paren" and tgt.x.kind == "ident":
                    self.assigned.add(tgt.x.name)

    def _add(self, sym):
        self.decl_count[sym.name] = self.decl_count.get(sym.name, 0) + 1
        if sym.name in self.syms:
            old = self.syms[sym.name]
            if old is None or (old.base, old.ptr, old.dims) != (sym.base, sym.ptr, sym.dims):
                self.syms[sym.name] = None
            return
        self.syms[sym.name] = sym

    def _params(self, t):
        f = self.f
        # parameter list: the last balanced (...) before the body
        j = f.body_s - 1
        close = j
        d = 0
        while j >= f.head_s:
            if t[j].text == ")":
                d += 1
            elif t[j].text == "(":
                d -= 1
                if d == 0:
                    break
            j -= 1
        open_ = j
        head = [x.text for x in t[f.head_s:open_ - 1]]
        stars = head.count("*")
        rb = base_of([h for h in head if h != "*"])
        self.ret_type = rb if stars == 0 else None
        # split params at depth-0 commas
        parts, cur, d = [], [], 0
        for k in range(open_ + 1, close):
            x = t[k]
            if x.text in "([":
                d += 1
            elif x.text in ")]":
                d -= 1
            if x.text == "," and d == 0:
                parts.append(cur)
                cur = []
            else:
                cur.append(x)
        if cur:
            parts.append(cur)
        self.params = []
        for part in parts:
            texts = [x.text for x in part]
            if texts in (["void"], ["..."]):
                continue
            if "(" in texts:
                # function pointer or array-of-pointer declarator
                ids = [x for x in texts if re.match(r"[A-Za-z_]", x)
                       and x not in TYPE_KEYWORDS and x not in sf_typedefs(self.sf)]
                if ids:
                    self._add(Sym(ids[0], None, 1, 0, True))
                continue
            dims = texts.count("[")
            # strip [..]
            clean, d = [], 0
            for x in texts:
                if x == "[":
                    d += 1
                    continue
                if x == "]":
                    d -= 1
                    continue
                if d == 0:
                    clean.append(x)
            names = [x for x in clean if re.match(r"[A-Za-z_]\w*$", x)
                     and x not in TYPE_KEYWORDS and x not in ("restrict",)]
            if not names:
                continue
            name = names[-1]
            if name in self.sf.typedefs or name in KNOWN_TYPEDEFS:
                continue
            spec = [x for x in clean if x != name and x != "*"]
            ptr = clean.count("*")
            sym = Sym(name, base_of(spec), ptr, dims, True, "const" in spec)
            self.params.append(sym)
            self._add(sym)

    def text(self, node_or_s, e=None):
        if e is None:
            s, e = node_or_s.s, node_or_s.e
        else:
            s = node_or_s
        t = self.sf.toks
        return self.sf.src[t[s].start:t[e - 1].end]

    def toktexts(self, node):
        return [x.text for x in self.sf.toks[node.s:node.e]]

    def sym(self, name):
        return self.syms.get(name)

    # ---- purity and types ----
    def is_macro_ident(self, name):
        return name in self.sf.macros

    def pure(self, n):
        """No side effects, no calls, no macros that may hide them."""
        k = n.kind
        if k == "ident":
            if n.name in self.sf.macros:
                fl, rep = self.sf.macros[n.name]
                return not fl and re.fullmatch(r"\(?\s*[\w.+\- ]*\)?", rep) is not None
            return True
        if k in ("num", "lit", "sizeof"):
            return True
        if k == "index":
            return self.pure(n.a) and self.pure(n.idx)
        if k == "member":
            return self.pure(n.x)
        if k in ("unary", "paren", "cast"):
            return self.pure(n.x)
        if k == "bin":
            return self.pure(n.l) and self.pure(n.r)
        if k == "cond":
            return self.pure(n.c) and self.pure(n.a) and self.pure(n.b)
        if k == "comma":
            return self.pure(n.l) and self.pure(n.r)
        return False

    def etype(self, n):
        """'double', 'float', 'int' or None (unknown) for an expression."""
        k = n.kind
        if k == "num":
            txt = n.text.lower()
            if txt.startswith("0x"):
                return "int" if re.fullmatch(r"0x[0-9a-f]+", txt) else None
            if any(c in txt for c in ".e"):
                return "float" if txt.endswith("f") else (
                    None if txt.endswith("l") else "double")
            return "int" if re.fullmatch(r"[0-9]+", txt) else None
        if k == "ident":
            if n.name in self.sf.macros:
                fl, rep = self.sf.macros[n.name]
                if fl:
                    return None
                rep = rep.strip()
                while rep.startswith("(") and rep.endswith(")"):
                    rep = rep[1:-1].strip()
                if re.fullmatch(r"[0-9]+", rep):
                    return "int"
                if re.fullmatch(r"[0-9]*\.[0-9]*(e[+-]?[0-9]+)?", rep):
                    return "double"
                return None
            s = self.sym(n.name)
            return s.scalar_type() if s else None
        if k == "paren":
            return self.etype(n.x)
        if k == "index":
            depth, a = 1, n.a
            while a.kind == "index":
                depth += 1
                a = a.a
            if a.kind == "ident":
                s = self.sym(a.name)
                return s.elem_type(depth) if s else None
            return None
        if k == "unary":
            if n.op == "*":
                if n.x.kind == "paren" and n.x.x.kind == "bin" and n.x.x.op == "+" \
                        and n.x.x.l.kind == "ident":
                    s = self.sym(n.x.x.l.name)
                    return s.elem_type(1) if s and self.etype(n.x.x.r) == "int" else None
                if n.x.kind == "ident":
                    s = self.sym(n.x.name)
                    return s.elem_type(1) if s else None
                return None
            if n.op in ("-", "+"):
                return self.etype(n.x)
            if n.op == "!":
                return "int"
            return None
        if k == "bin":
            if n.op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
                return "int"
            a, b = self.etype(n.l), self.etype(n.r)
            if a is None or b is None:
                return None
            if n.op in ("+", "-", "*", "/"):
                if "double" in (a, b):
                    return "double"
                if "float" in (a, b):
                    return "float"
                return "int"
            return "int" if a == b == "int" else None
        if k == "cast":
            tn = n.tname.replace("const ", "")
            return tn if tn in ("double", "float", "int") else None
        if k == "call" and n.f.kind == "ident":
            if n.f.name in MATH_DOUBLE and n.f.name not in self.sf.macros:
                return "double"
            if n.f.name in MATH_FLOAT and n.f.name not in self.sf.macros:
                return "float"
            return None
        if k == "cond":
            a, b = self.etype(n.a), self.etype(n.b)
            return a if a == b else None
        if k == "assign":
            return self.etype(n.l)
        return None

    def lvalue_type(self, n):
        if n.kind == "paren":
            return self.lvalue_type(n.x)
        if n.kind in ("ident", "index") or (n.kind == "unary" and n.op == "*"):
            return self.etype(n)
        return None


def sf_typedefs(sf):
    return sf.typedefs | KNOWN_TYPEDEFS


def lvalue_base(n):
    while n.kind in ("index", "member", "paren"):
        n = n.a if n.kind == "index" else n.x
    if n.kind == "unary" and n.op == "*":
        return lvalue_base(n.x)
    return n.name if n.kind == "ident" else None


def contains(node, pred):
    return any(pred(x) for x in node.walk())


# ---------------------------------------------------------------------------
# Sites and rewrites
# ---------------------------------------------------------------------------

class Site:
    """One applicable rewrite: edits to the source, char ranges -> text."""

    def __init__(self, kind, line, edits):
        self.kind, self.line, self.edits = kind, line, edits


class Rewriter:
    def __init__(self, src):
        self.src = src
        self.sf = SourceFile(src)
        self.infos = []
        self.fresh_used = set(int(m) for m in re.findall(r"mpiad_mt(\d+)", src))
        self.fresh_used |= set(int(m) for m in re.findall(r"MT_\w+?_(\d+)\b", src))
        for f in self.sf.targets():
            try:
                self.infos.append(FuncInfo(self.sf, f))
            except ParseError as e:
                print("metamorphic: skipping %s: %s" % (f.name, e), file=sys.stderr)
        self.fresh_n = max(self.fresh_used | {0}) + 1
        self.macro_arg_spans = []  # token ranges inside calls of file macros
        for info in self.infos:
            for n in info.body.walk():
                if n.kind == "call" and n.f.kind == "ident" and \
                        self.sf.macros.get(n.f.name, (False,))[0]:
                    self.macro_arg_spans.append((n.s, n.e))

    def fresh(self):
        n = self.fresh_n
        self.fresh_n += 1
        return n

    # -- helpers --
    def tk(self, i):
        return self.sf.toks[i]

    def cs(self, node):
        return self.tk(node.s).start

    def ce(self, node):
        return self.tk(node.e - 1).end

    def line(self, node):
        return self.tk(node.s).line

    def in_macro_call(self, node):
        return any(s <= node.s and node.e <= e for s, e in self.macro_arg_spans)

    def has_pp(self, node):
        return any(self.tk(k).kind == "pp" for k in range(node.s, node.e))

    def after_pragma(self, node):
        """The statement follows a preprocessor line in its block (a pragma
        applies to it), or is a loop/if body right after one."""
        return node.s > 0 and self.tk(node.s - 1).kind == "pp"

    def indent_of(self, node):
        src = self.src
        p = self.cs(node)
        q = src.rfind("\n", 0, p) + 1
        m = re.match(r"[ \t]*", src[q:p])
        return m.group(0) if m and src[q:p].strip() == "" else ""

    def stmt_ok(self, n):
        """A statement that structural rewrites may replace."""
        return not self.has_pp(n) and not self.after_pragma(n) and \
            not self.in_macro_call(n)

    def expr_stmts(self, info):
        """Expressions whose value is discarded: statement expressions, for
        increments, and the parts of commas at those places."""
        out = []
        for n in info.body.walk():
            roots = []
            if n.kind == "exprstmt" and self.stmt_ok(n):
                roots.append(n.expr)
            elif n.kind == "for" and n.inc is not None and not self.has_pp(n.inc):
                roots.append(n.inc)
            while roots:
                r = roots.pop()
                if r.kind == "comma":
                    roots += [r.l, r.r]
                else:
                    out.append(r)
        return out

    # -- each rewrite returns a list of Sites --
    def sites_compound_expand(self, info):
        out = []
        for x in self.expr_stmts(info):
            if x.kind == "assign" and x.op in ("+=", "-=", "*=", "/=") and \
                    info.pure(x.l) and not self.in_macro_call(x):
                op = x.op[0]
                new = "%s = %s %s (%s)" % (info.text(x.l), info.text(x.l), op,
                                           info.text(x.r))
                out.append(Site("compound-expand", self.line(x),
                                [(self.cs(x), self.ce(x), new)]))
        return out

    def sites_compound_fold(self, info):
        out = []
        for x in self.expr_stmts(info):
            if x.kind == "assign" and x.op == "=" and x.r.kind == "bin" and \
                    x.r.op in ("+", "-", "*", "/") and info.pure(x.l) and \
                    info.toktexts(x.l) == info.toktexts(x.r.l) and \
                    not self.in_macro_call(x):
                new = "%s %s= %s" % (info.text(x.l), x.r.op, info.text(x.r.r))
                out.append(Site("compound-fold", self.line(x),
                                [(self.cs(x), self.ce(x), new)]))
        return out

    def sites_incdec_to_compound(self, info):
        out = []
        for x in self.expr_stmts(info):
            if x.kind in ("preinc", "postinc") and info.pure(x.x) and \
                    not self.in_macro_call(x):
                new = "%s %s= 1" % (info.text(x.x), x.op[0])
                out.append(Site("incdec-to-compound", self.line(x),
                                [(self.cs(x), self.ce(x), new)]))
        return out

    def sites_compound_to_incdec(self, info):
        out = []
        for x in self.expr_stmts(info):
            if x.kind == "assign" and x.op in ("+=", "-=") and x.r.kind == "num" and \
                    x.r.text == "1" and info.pure(x.l) and not self.in_macro_call(x):
                new = "%s%s" % (info.text(x.l), x.op[0] * 2)
                out.append(Site("compound-to-incdec", self.line(x),
                                [(self.cs(x), self.ce(x), new)]))
        return out

    def sites_temp_intro(self, info):
        out = []
        for n in info.body.walk():
            if n.kind == "exprstmt" and self.stmt_ok(n) and n.expr.kind == "assign" \
                    and n.expr.op == "=" and info.pure(n.expr.l):
                ty = info.lvalue_type(n.expr.l)
                if ty not in ("double", "float", "int"):
                    continue
                v = "mpiad_mt%d" % self.fresh_n
                new = "{ %s %s = (%s); %s = %s; }" % (
                    ty, v, info.text(n.expr.r), info.text(n.expr.l), v)
                out.append(Site("temp-intro", self.line(n),
                                [(self.cs(n), self.ce(n), new)]))
            elif n.kind == "return" and n.expr is not None and self.stmt_ok(n) and \
                    info.ret_type in ("double", "float", "int"):
                v = "mpiad_mt%d" % self.fresh_n
                new = "{ %s %s = (%s); return %s; }" % (info.ret_type, v,
                                                       info.text(n.expr), v)
                out.append(Site("temp-intro", self.line(n),
                                [(self.cs(n), self.ce(n), new)]))
            elif n.kind == "decl" and len(n.decls) == 1 and self.stmt_ok(n) and \
                    n.parent is not None and n.parent.kind == "compound" and \
                    "static" not in n.spec and "extern" not in n.spec:
                d = n.decls[0]
                ty = base_of(n.spec)
                if d["init"] is None or d["brace"] or d["ptr"] or d["dims"] or \
                        d["opaque"] or ty not in ("double", "float", "int"):
                    continue
                v = "mpiad_mt%d" % self.fresh_n
                init = d["init"]
                edits = [(self.cs(n), self.cs(n), "%s %s = (%s);\n%s" % (
                    ty, v, info.text(init), self.indent_of(n))),
                    (self.cs(init), self.ce(init), v)]
                out.append(Site("temp-intro", self.line(n), edits))
        return out

    def read_positions(self, info, pred):
        """Nodes satisfying pred that are read (not assigned, incremented or
        address-taken)."""
        out = []
        for n in info.body.walk():
            if not pred(n) or self.in_macro_call(n):
                continue
            q = n
            # up through parentheses and to the whole lvalue (x in x[i].f)
            while q.parent is not None and (
                    q.parent.kind == "paren" or
                    (q.parent.kind == "index" and q.parent.a is q) or
                    (q.parent.kind == "member" and q.parent.x is q)):
                q = q.parent
            par = q.parent
            if par is None:
                continue
            if par.kind == "assign" and par.l is q:
                continue
            if par.kind in ("preinc", "postinc"):
                continue
            if par.kind == "unary" and par.op == "&":
                continue
            if par.kind == "call" and q is n and n.kind == "ident":
                # an array or pointer passed as such may be written through,
                # unless it points to const or is an MPI send buffer
                sy = info.sym(n.name)
                send = par.f.kind == "ident" and par.f.name in MPI_SENDBUF0 and \
                    par.args and par.args[0] is n
                if sy is None or ((sy.ptr or sy.dims) and not sy.const and not send):
                    continue
            out.append(n)
        return out

    def sites_macro_read(self, info):
        out = []
        # variables: parameters and locals declared once, read somewhere
        names = [s for s in info.syms if info.syms[s] is not None and
                 info.decl_count.get(s) == 1]
        for name in sorted(names):
            reads = self.read_positions(
                info, lambda n, name=name: n.kind == "ident" and n.name == name
                and (n.parent is None or not (n.parent.kind == "call" and
                                              n.parent.f is n)))
            if not reads:
                continue
            macro = "MT_%s_%d" % (name, self.fresh_n)
            out.append(Site("macro-read", self.line(reads[0]),
                            ("macro", info, name, macro, reads)))
        return out

    def sites_ptr_alias(self, info):
        out = []
        for p in info.params:
            if p.ptr + p.dims != 1 or p.base not in ("double", "float") or \
                    info.decl_count.get(p.name) != 1 or p.name in info.assigned or \
                    p.name in info.addr_taken:
                continue
            reads = self.read_positions(
                info, lambda n, name=p.name: n.kind == "index" and n.a.kind == "ident"
                and n.a.name == name)
            if not reads:
                continue
            alias = "mpiad_mt%d" % self.fresh_n
            body_open = self.tk(info.body.s).end
            out.append(Site("ptr-alias", self.line(reads[0]),
                            ("alias", info, p, alias, reads, body_open)))
        return out

    def sites_index_to_ptr(self, info):
        out = []
        for n in self.read_positions(info, lambda n: n.kind == "index" and
                                     n.a.kind == "ident"):
            s = info.sym(n.a.name)
            if s is None or not s.param or s.ptr + s.dims != 1 or \
                    info.decl_count.get(n.a.name) != 1:
                continue
            new = "(*(%s + (%s)))" % (n.a.name, info.text(n.idx))
            out.append(Site("index-to-ptr", self.line(n),
                            [(self.cs(n), self.ce(n), new)]))
        return out

    def sites_ptr_to_index(self, info):
        out = []
        for n in info.body.walk():
            if n.kind != "unary" or n.op != "*" or self.in_macro_call(n):
                continue
            x = n.x
            if x.kind == "paren" and x.x.kind == "bin" and x.x.op == "+" and \
                    x.x.l.kind == "ident":
                s = info.sym(x.x.l.name)
                if s and s.ptr + s.dims >= 1 and info.etype(x.x.r) == "int":
                    new = "%s[%s]" % (x.x.l.name, info.text(x.x.r))
                    out.append(Site("ptr-to-index", self.line(n),
                                    [(self.cs(n), self.ce(n), new)]))
            elif x.kind == "ident":
                s = info.sym(x.name)
                if s and s.ptr >= 1 and s.base in ("double", "float", "int"):
                    out.append(Site("ptr-to-index", self.line(n),
                                    [(self.cs(n), self.ce(n), "%s[0]" % x.name)]))
        return out

    def block_text(self, info, stmt):
        t = info.text(stmt)
        return t if stmt.kind == "compound" else "{ %s }" % t

    def sites_for_to_while(self, info):
        out = []
        for n in info.body.walk():
            if n.kind != "for" or not self.stmt_ok(n):
                continue
            if contains(n.body, lambda x: x.kind in ("continue", "label", "goto")):
                continue
            if n.init is None:
                init = ""
            elif n.init.kind == "decl":
                init = info.text(n.init) + " "
            else:
                init = info.text(n.init) + "; "
            cond = info.text(n.cond) if n.cond is not None else "1"
            inc = (" " + info.text(n.inc) + ";") if n.inc is not None else ""
            new = "{ %swhile (%s) { %s%s } }" % (init, cond,
                                                 self.block_text(info, n.body), inc)
            out.append(Site("for-to-while", self.line(n),
                            [(self.cs(n), self.ce(n), new)]))
        return out

    def sites_while_to_for(self, info):
        out = []
        for n in info.body.walk():
            if n.kind != "while" or not self.stmt_ok(n):
                continue
            new = "for (; %s;) %s" % (info.text(n.cond), info.text(n.body))
            out.append(Site("while-to-for", self.line(n),
                            [(self.cs(n), self.ce(n), new)]))
        return out

    def macro_mentions(self, name):
        return any(re.search(r"\b%s\b" % re.escape(name), rep)
                   for _, rep in self.sf.macros.values())

    def rename_edits(self, info, lo, hi, old, new):
        """Edits renaming identifier `old` to `new` in tokens [lo, hi), except
        member names."""
        edits = []
        for k in range(lo, hi):
            tk = self.tk(k)
            if tk.kind == "id" and tk.text == old:
                prev = self.tk(k - 1)
                if prev.kind == "punct" and prev.text in (".", "->"):
                    continue
                edits.append((tk.start, tk.end, new))
        return edits

    def declares(self, node, name):
        return contains(node, lambda x: x.kind == "decl" and
                        any(d["name"] == name for d in x.decls))

    def sites_counter_hoist(self, info):
        out = []
        for n in info.body.walk():
            if n.kind != "for" or self.has_pp(n) or n.init is None or \
                    n.init.kind != "decl" or len(n.init.decls) != 1:
                continue
            d = n.init.decls[0]
            ty = base_of(n.init.spec)
            if ty not in ("int", "double", "float", "long", "size_t", "unsigned",
                          "unsigned int", "long long") or d["ptr"] or d["dims"] or \
                    d["opaque"] or d["init"] is None or d["brace"] or \
                    "static" in n.init.spec:
                continue
            name = d["name"]
            if self.macro_mentions(name) or self.declares(n.body, name) or \
                    contains(d["init"], lambda x: x.kind == "ident" and x.name == name):
                continue
            v = "mpiad_mt%d" % self.fresh_n
            body_open = self.tk(info.body.s).end
            edits = [(body_open, body_open, "\n  %s %s;" % (ty, v)),
                     (self.cs(n.init), self.ce(n.init),
                      "%s = %s;" % (v, info.text(d["init"])))]
            edits += self.rename_edits(info, n.init.e, n.e, name, v)
            out.append(Site("counter-hoist", self.line(n), edits))
        return out

    def int_invariant(self, info, expr, body):
        """expr is an int expression whose value `body` cannot change."""
        for x in expr.walk():
            if x.kind == "ident":
                if x.name in self.sf.macros:
                    if info.etype(x) != "int":
                        return False
                    continue
                s = info.sym(x.name)
                if s is None or s.scalar_type() != "int" or \
                        info.decl_count.get(x.name) != 1 or x.name in info.addr_taken:
                    return False
                if contains(body, lambda y: y.kind in ("assign", "preinc", "postinc")
                            and lvalue_base(y.l if y.kind == "assign" else y.x)
                            == x.name):
                    return False
            elif x.kind == "num":
                if info.etype(x) != "int":
                    return False
            elif x.kind == "bin":
                if x.op not in ("+", "-", "*", "/", "%"):
                    return False
            elif x.kind == "paren":
                pass
            elif x.kind == "unary" and x.op == "-":
                pass
            else:
                return False
        return True

    def sites_unroll2(self, info):
        out = []
        for n in info.body.walk():
            if n.kind != "for" or not self.stmt_ok(n) or n.cond is None or \
                    n.inc is None or n.init is None:
                continue
            # the counter
            if n.init.kind == "decl":
                if len(n.init.decls) != 1 or base_of(n.init.spec) != "int":
                    continue
                d = n.init.decls[0]
                if d["ptr"] or d["dims"] or d["init"] is None or d["brace"] or \
                        "static" in n.init.spec:
                    continue
                i = d["name"]
                start = d["init"]
                decl = True
            elif n.init.kind == "assign" and n.init.op == "=" and \
                    n.init.l.kind == "ident":
                i = n.init.l.name
                s = info.sym(i)
                if s is None or s.scalar_type() != "int" or i in info.addr_taken:
                    continue
                start = n.init.r
                decl = False
            else:
                continue
            if contains(start, lambda x: x.kind == "ident" and x.name == i):
                continue
            c = n.cond
            if not (c.kind == "bin" and c.op == "<" and c.l.kind == "ident" and
                    c.l.name == i):
                continue
            bound = c.r
            inc = n.inc
            if not ((inc.kind in ("preinc", "postinc") and inc.op == "++" and
                     inc.x.kind == "ident" and inc.x.name == i) or
                    (inc.kind == "assign" and inc.op == "+=" and
                     inc.l.kind == "ident" and inc.l.name == i and
                     inc.r.kind == "num" and inc.r.text == "1")):
                continue
            b = n.body
            if contains(b, lambda x: x.kind in ("break", "continue", "goto", "label",
                                                "switch")):
                continue
            if contains(b, lambda x: x.kind == "decl" and "static" in x.spec):
                continue
            if self.has_pp(b) or self.declares(b, i) or self.macro_mentions(i):
                continue
            if contains(b, lambda x: (x.kind == "assign" and lvalue_base(x.l) == i) or
                        (x.kind in ("preinc", "postinc") and lvalue_base(x.x) == i) or
                        (x.kind == "unary" and x.op == "&" and lvalue_base(x.x) == i)):
                continue
            if contains(bound, lambda x: x.kind == "ident" and x.name == i):
                continue
            if not self.int_invariant(info, bound, b):
                continue
            btxt = info.text(bound)
            body1 = self.block_text(info, b)
            # body with i := (i + 1)
            edits = []
            base = self.tk(b.s).start
            for k in range(b.s, b.e):
                tk = self.tk(k)
                if tk.kind == "id" and tk.text == i and not (
                        self.tk(k - 1).text in (".", "->")):
                    edits.append((tk.start - base, tk.end - base, "(%s + 1)" % i))
            body2 = apply_edits(info.text(b), edits)
            if b.kind != "compound":
                body2 = "{ %s }" % body2
            head = ("int %s = %s;" % (i, info.text(start))) if decl else \
                ("%s = %s;" % (i, info.text(start)))
            new = ("{ %s for (; %s + 1 < (%s); %s += 2) { %s %s } "
                   "for (; %s < (%s); %s++) %s }") % (
                head, i, btxt, i, body1, body2, i, btxt, i, body1)
            out.append(Site("unroll2", self.line(n), [(self.cs(n), self.ce(n), new)]))
        return out

    def sites_identity(self, info):
        out = []

        def wrap(node, ty):
            if ty == "float":
                forms = ["(%s) * 1.0f", "(%s) - 0.0f"]
            else:
                forms = ["(%s) * 1.0", "(%s) - 0.0"]
            f = forms[node.s % 2]
            return [(self.cs(node), self.ce(node), "(" + f % info.text(node) + ")")]

        for n in info.body.walk():
            if self.in_macro_call(n):
                continue
            if n.kind == "assign" and n.op in ("=", "+=", "-=", "*=", "/="):
                ty = info.lvalue_type(n.l)
                if ty in ("double", "float") and info.etype(n.r) is not None:
                    out.append(Site("identity", self.line(n.r), wrap(n.r, ty)))
            elif n.kind == "return" and n.expr is not None and \
                    info.ret_type in ("double", "float") and \
                    info.etype(n.expr) is not None:
                out.append(Site("identity", self.line(n.expr),
                                wrap(n.expr, info.ret_type)))
            elif n.kind == "decl" and not self.has_pp(n):
                ty = base_of(n.spec)
                if ty not in ("double", "float"):
                    continue
                for d in n.decls:
                    if d["init"] is not None and not d["brace"] and not d["ptr"] \
                            and not d["dims"] and not d["opaque"] and \
                            info.etype(d["init"]) is not None:
                        out.append(Site("identity", self.line(d["init"]),
                                        wrap(d["init"], ty)))
            elif n.kind == "bin" and n.op in ("+", "-", "*", "/"):
                # an operand of floating arithmetic whose own type is floating
                # and equal to the operation's type
                ty = info.etype(n)
                for x in (n.l, n.r):
                    if ty in ("double", "float") and info.etype(x) == ty:
                        out.append(Site("identity", self.line(x), wrap(x, ty)))
        return out

    def sites_dead_store(self, info):
        out = []
        dparams = [p.name for p in info.params if p.scalar_type() == "double" and
                   info.decl_count.get(p.name) == 1]
        for n in info.body.walk():
            if n.kind != "compound" or self.has_pp(n):
                continue
            if any(x.kind == "label" for x in n.items):
                continue
            for k, it in enumerate(n.items):
                if k > 0 and n.items[k - 1].kind in ("return", "break", "continue",
                                                      "goto"):
                    continue
                v = "mpiad_mt%d" % self.fresh_n
                src = dparams[self.fresh_n % len(dparams)] + " * 2.0" if dparams \
                    else "0.5"
                new = "double %s = %s; (void)%s;\n%s" % (v, src, v, self.indent_of(it))
                out.append(Site("dead-store", self.line(it),
                                [(self.cs(it), self.cs(it), new)]))
        return out

    def sites_branch_invert(self, info):
        out = []
        for n in info.body.walk():
            if n.kind != "if" or not self.stmt_ok(n):
                continue
            a = self.block_text(info, n.then)
            b = self.block_text(info, n.els) if n.els is not None else "{ }"
            new = "if (!(%s)) %s else %s" % (info.text(n.cond), b, a)
            out.append(Site("branch-invert", self.line(n),
                            [(self.cs(n), self.ce(n), new)]))
        return out

    def mpi_call(self, n, name, nargs):
        return (n.kind == "exprstmt" and n.expr.kind == "call" and
                n.expr.f.kind == "ident" and n.expr.f.name == name and
                len(n.expr.args) == nargs)

    def sites_allreduce_split(self, info):
        out = []
        for n in info.body.walk():
            if not self.mpi_call(n, "MPI_Allreduce", 6) or not self.stmt_ok(n):
                continue
            a = n.expr.args
            s, r, cnt, ty, op, comm = a
            if info.text(s) == "MPI_IN_PLACE" or \
                    info.toktexts(s) == info.toktexts(r) or \
                    info.text(op) not in ("MPI_SUM", "MPI_MAX", "MPI_MIN", "MPI_PROD"):
                continue
            if not all(info.pure(x) for x in a):
                continue
            t = info.text
            new = "{ MPI_Reduce(%s, %s, %s, %s, %s, 0, %s); MPI_Bcast(%s, %s, %s, 0, %s); }" % (
                t(s), t(r), t(cnt), t(ty), t(op), t(comm), t(r), t(cnt), t(ty), t(comm))
            out.append(Site("allreduce-split", self.line(n),
                            [(self.cs(n), self.ce(n), new)]))
        return out

    def sites_reduce_bcast_join(self, info):
        out = []
        for n in info.body.walk():
            if n.kind != "compound":
                continue
            for k in range(len(n.items) - 1):
                x, y = n.items[k], n.items[k + 1]
                if not (self.mpi_call(x, "MPI_Reduce", 7) and
                        self.mpi_call(y, "MPI_Bcast", 5)) or not self.stmt_ok(x):
                    continue
                s, r, cnt, ty, op, root, comm = x.expr.args
                b, bc, bt, broot, bcomm = y.expr.args
                T = info.toktexts
                if T(r) != T(b) or T(cnt) != T(bc) or T(ty) != T(bt) or \
                        T(root) != T(broot) or T(comm) != T(bcomm) or \
                        info.text(s) == "MPI_IN_PLACE" or T(s) == T(r) or \
                        not all(info.pure(z) for z in x.expr.args):
                    continue
                t = info.text
                new = "MPI_Allreduce(%s, %s, %s, %s, %s, %s);" % (
                    t(s), t(r), t(cnt), t(ty), t(op), t(comm))
                out.append(Site("reduce-bcast-join", self.line(x),
                                [(self.cs(x), self.ce(y), new)]))
        return out

    KINDS = ["compound-expand", "compound-fold", "incdec-to-compound",
             "compound-to-incdec", "temp-intro", "macro-read", "ptr-alias",
             "index-to-ptr", "ptr-to-index", "for-to-while", "while-to-for",
             "counter-hoist", "unroll2", "identity", "dead-store", "branch-invert",
             "allreduce-split", "reduce-bcast-join"]

    def sites(self, kind):
        fn = getattr(self, "sites_" + kind.replace("-", "_"))
        out = []
        for info in self.infos:
            out += fn(info)
        return out

    def apply(self, site, rng):
        """The new source text after applying one site."""
        e = site.edits
        if isinstance(e, tuple):
            if e[0] == "macro":
                _, info, name, macro, reads = e
                k = rng.randint(1, len(reads))
                chosen = sorted(rng.sample(reads, k), key=lambda n: n.s)
                edits = [(self.cs(n), self.ce(n), macro) for n in chosen]
                f = info.f
                before = self.tk(f.pragma_s if f.pragma_s is not None else f.head_s).start
                after = self.tk(f.body_e - 1).end
                edits.append((before, before, "#define %s %s\n" % (macro, name)))
                edits.append((after, after, "\n#undef %s" % macro))
                site.line = self.tk(chosen[0].s).line
                return apply_edits(self.src, edits)
            if e[0] == "alias":
                _, info, p, alias, reads, body_open = e
                k = rng.randint(1, len(reads))
                chosen = sorted(rng.sample(reads, k), key=lambda n: n.s)
                edits = [(self.cs(n.a), self.ce(n.a), alias) for n in chosen]
                edits.append((body_open, body_open, "\n  const %s *%s = %s;" % (
                    p.base, alias, p.name)))
                site.line = self.tk(chosen[0].s).line
                return apply_edits(self.src, edits)
        return apply_edits(self.src, e)


def apply_edits(text, edits):
    """Apply (start, end, new) character edits; insertions at one position keep
    their order."""
    order = sorted(range(len(edits)), key=lambda k: (edits[k][0], edits[k][1], k))
    out = []
    pos = 0
    for k in order:
        s, e, new = edits[k]
        if s < pos:
            raise ValueError("overlapping edits")
        out.append(text[pos:s])
        out.append(new)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def rewrite(src, seed, kinds=None, length=None, max_steps=None):
    """Apply a chain of 1-4 rewrites chosen from `seed` (or `length`).
    max_steps stops after that many rewrites of the same chain: the prefixes
    of a chain, to find which rewrite of it matters.  Returns (new_src, chain)
    with chain a list of (kind, line)."""
    rng = random.Random(seed)
    n = rng.randint(1, 4)
    if length is not None:
        n = length
    if max_steps is not None:
        n = min(n, max_steps)
    chain = []
    kinds = kinds or Rewriter.KINDS
    for _ in range(n):
        rw = Rewriter(src)
        avail = []
        for k in kinds:
            s = rw.sites(k)
            if s:
                avail.append((k, s))
        if not avail:
            break
        k, sites = avail[rng.randrange(len(avail))]
        site = sites[rng.randrange(len(sites))]
        src = rw.apply(site, rng)
        chain.append((k, site.line))
    return src, chain


def describe(chain):
    return ", ".join("%s@L%d" % c for c in chain) or "(no rewrite)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--kinds", help="comma-separated rewrites to draw from")
    ap.add_argument("--length", type=int, help="chain length (default 1-4 from the seed)")
    ap.add_argument("--sites", action="store_true", help="list the sites and exit")
    args = ap.parse_args()
    src = open(args.file).read()
    kinds = args.kinds.split(",") if args.kinds else None
    for k in kinds or []:
        if k not in Rewriter.KINDS:
            ap.error("unknown rewrite %s (known: %s)" % (k, ", ".join(Rewriter.KINDS)))
    if args.sites:
        rw = Rewriter(src)
        print("functions: %s" % ", ".join(i.f.name for i in rw.infos))
        for k in kinds or Rewriter.KINDS:
            s = rw.sites(k)
            print("%-20s %3d  %s" % (k, len(s), " ".join("L%d" % x.line for x in s[:12])))
        return 0
    new, chain = rewrite(src, args.seed, kinds, args.length)
    print(describe(chain), file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(new)
    else:
        with open(args.output, "w") as fh:
            fh.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
