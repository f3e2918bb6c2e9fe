#!/usr/bin/env python3
"""Runs the code blocks of README.md and docs/*.md (CTest: docs.examples).

A block is marked by an HTML comment on the line just before its opening fence
(docs/testing.md, "Examples in the documentation"):

  <!-- doctest: emit [file=NAME] [args=ARGS] -->   (```c) the block is a C file;
        `mpiad-cc --emit-source` (and --emit-header) must accept it. Unmarked ```c
        blocks get this check too: it is the default.
  <!-- doctest: generated [from=NAME [args=ARGS]] -->   (```c) text that mpiad-cc
        writes: it must occur in the output of the document's last `emit` (the
        source, then the header), or with from=NAME in that of mpiad-cc on the
        saved file NAME (or the repository's file NAME), whitespace aside. A
        line that is only `...` (or starts with `... `) stands for any text.
  <!-- doctest: run [np=N] [expect=TEXT] [file=NAME] [args=ARGS] -->   (```c) a
        whole program: `mpiad-cc NAME ARGS -o prog`, then mpirun -np N (default 1);
        it must exit 0 and print TEXT when given.
  <!-- doctest: file PATH -->    the block is the repository's file PATH,
        whitespace aside (recipes that a test runs).
  <!-- doctest: excerpt PATH -->  each line of the block is a line of the
        repository's file PATH, in the same order, whitespace aside (lines
        may be left out between them).
  <!-- doctest: save file=NAME --> the block is only saved as NAME, for later
        blocks (an input that a `console` block shows rejected, for instance).
  <!-- doctest: sh -->           (```sh) run with bash -e in the document's scratch
        directory, where the files of earlier blocks are.
  <!-- doctest: console -->      lines starting with `$ ` are commands, run by one
        bash in the scratch directory; the other lines must match their output
        (stdout and stderr together), whitespace aside, with `...` lines as
        above, after the scratch directory is removed from the paths in it. The
        exit status is not checked.
  <!-- doctest: skip (REASON) --> not checked; the reason is required.

Blocks of other languages (```sh, ```console, plain ```) that carry no marking
are only shown, never run. Each document gets one scratch directory; its blocks
run in order, so `file=NAME` saves a block for later blocks. In commands,
`mpiad-cc` is the build's (its bin/ comes first in PATH), and $MPIAD_SRC and
$MPIAD_BUILD are the source and build trees.

usage: doctest.py --build BUILD [--src SRC] [--mpirun "mpirun ... -np"]
                  [--cflags FLAGS] [-v] [FILE.md...]
--cflags: flags for every program mpiad-cc builds (the sanitizer flags of a
sanitizer build); commands then find an `mpiad-cc` that adds them.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

MARK = re.compile(r"^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+)\s*([A-Za-z0-9_+-]*)\s*$")
KINDS = {"emit", "generated", "run", "file", "excerpt", "save", "sh", "console", "skip"}


class Block:
    def __init__(self, doc, line, lang, text, mark):
        self.doc, self.line, self.lang, self.text, self.mark = doc, line, lang, text, mark

    def where(self):
        return f"{self.doc}:{self.line}"


def parse_blocks(path, rel):
    """Fenced blocks of a Markdown file, with the marking on the line before each."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.group(1), m.group(2), m.group(3)
        start = i
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*" + ticks + r"\s*$", lines[i]):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        if i >= len(lines):
            raise SystemExit(f"{rel}:{start + 1}: unterminated code block")
        i += 1
        mark = None
        if start > 0:
            mm = MARK.match(lines[start - 1])
            if mm:
                mark = mm.group(1)
        blocks.append(Block(rel, start + 1, lang, "\n".join(body) + "\n", mark))
    return blocks


def parse_mark(mark):
    """'run np=2 expect="a b"' -> ('run', {'np': '2', 'expect': 'a b'}, [])."""
    if mark.startswith("skip"):
        reason = mark[4:].strip()
        return "skip", {"reason": reason}, []
    words = shlex.split(mark)
    kind, opts, rest = words[0], {}, []
    for w in words[1:]:
        if "=" in w and kind not in ("file", "excerpt"):
            k, v = w.split("=", 1)
            opts[k] = v
        else:
            rest.append(w)
    return kind, opts, rest


def squash(text):
    return " ".join(text.split())


def contains(haystack, pattern):
    """Whether pattern's pieces (split at `...` lines) occur in haystack in order,
    whitespace aside. Returns (ok, first piece not found)."""
    pieces, cur = [], []
    for line in pattern.split("\n"):
        s = line.strip()
        if s == "..." or s.startswith("... "):
            pieces.append("\n".join(cur))
            cur = []
        else:
            cur.append(line)
    pieces.append("\n".join(cur))
    hay = squash(haystack)
    pos = 0
    for piece in pieces:
        p = squash(piece)
        if not p:
            continue
        at = hay.find(p, pos)
        if at < 0:
            return False, piece
        pos = at + len(p)
    return True, None


class Runner:
    def __init__(self, args):
        self.args = args
        self.src = os.path.abspath(args.src)
        self.build = os.path.abspath(args.build)
        self.cc = os.path.join(self.build, "bin", "mpiad-cc")
        self.mpirun = shlex.split(args.mpirun)
        self.cflags = shlex.split(args.cflags)
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.join(self.build, "bin") + os.pathsep + self.env.get("PATH", "")
        self.wrapdir = None
        if self.cflags:
            # Commands run `mpiad-cc`: give them one that adds the flags.
            self.wrapdir = tempfile.mkdtemp(prefix="mpiad-doctest-bin-")
            wrapper = os.path.join(self.wrapdir, "mpiad-cc")
            with open(wrapper, "w") as f:
                f.write("#!/bin/sh\nexec %s \"$@\" %s\n"
                        % (shlex.quote(self.cc), " ".join(map(shlex.quote, self.cflags))))
            os.chmod(wrapper, 0o755)
            self.env["PATH"] = self.wrapdir + os.pathsep + self.env["PATH"]
        self.env["MPIAD_SRC"] = self.src
        self.env["MPIAD_BUILD"] = self.build
        self.failures = []
        self.counts = {}

    def fail(self, block, msg):
        self.failures.append(f"{block.where()}: {msg}")
        print(f"FAIL {block.where()}: {msg}", flush=True)

    def sh(self, cmd, cwd, timeout=120):
        return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], cwd=cwd,
                              env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def run_doc(self, path, rel):
        blocks = parse_blocks(path, rel)
        with tempfile.TemporaryDirectory(prefix="mpiad-doctest-") as scratch:
            state = {"emitted": None}
            for b in blocks:
                try:
                    self.run_block(b, scratch, state)
                except subprocess.TimeoutExpired:
                    self.fail(b, "timed out")

    def save(self, b, scratch, opts):
        """Writes the block into the scratch directory; returns its name there."""
        name = opts.get("file") or f"block{b.line}.c"
        path = os.path.join(scratch, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(b.text)
        return name

    def emit(self, b, scratch, name, opts):
        """mpiad-cc --emit-source and --emit-header on a saved file: their output,
        or None (and a failure) when the tool rejects it."""
        extra = shlex.split(opts.get("args", ""))
        if not os.path.exists(os.path.join(scratch, name)):
            name = os.path.join(self.src, name)  # a file of the repository
        out = []
        for mode in ("--emit-source", "--emit-header"):
            r = subprocess.run([self.cc, mode, name, "-o", "-"] + extra, cwd=scratch,
                               env=self.env, capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                self.fail(b, f"mpiad-cc {mode} rejects {name}:\n{r.stderr}")
                return None
            out.append(r.stdout)
        return "\n".join(out)

    def run_block(self, b, scratch, state):
        if b.mark is None:
            kind, opts, rest = ("emit", {}, []) if b.lang == "c" else ("shown", {}, [])
        else:
            kind, opts, rest = parse_mark(b.mark)
            if kind not in KINDS:
                self.fail(b, f"unknown doctest marking '{b.mark}'")
                return
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if self.args.verbose:
            print(f"{b.where()}: {kind}", flush=True)
        if kind == "shown":
            return
        if kind == "skip":
            if not opts["reason"]:
                self.fail(b, "'doctest: skip' needs a reason: skip (why)")
            return
        if kind in ("file", "excerpt"):
            if len(rest) != 1:
                self.fail(b, f"'doctest: {kind}' takes one path")
                return
            try:
                want = open(os.path.join(self.src, rest[0]), encoding="utf-8").read()
            except OSError as e:
                self.fail(b, f"cannot read {rest[0]}: {e}")
                return
            if kind == "file" and squash(want) != squash(b.text):
                self.fail(b, f"the block differs from {rest[0]}")
            if kind == "excerpt":
                lines = [squash(x) for x in want.split("\n")]
                at = 0
                for line in b.text.split("\n"):
                    if not squash(line):
                        continue
                    try:
                        at = lines.index(squash(line), at) + 1
                    except ValueError:
                        self.fail(b, f"this line is not in {rest[0]} (after the lines "
                                  f"before it):\n{line}")
                        break
            return
        if kind == "save":
            if "file" not in opts:
                self.fail(b, "'doctest: save' needs file=NAME")
            else:
                self.save(b, scratch, opts)
            return
        if kind in ("emit", "run") and b.lang != "c":
            self.fail(b, f"'doctest: {kind}' is for ```c blocks")
            return
        if kind == "emit":
            name = self.save(b, scratch, opts)
            state["emitted"] = self.emit(b, scratch, name, opts)
            return
        if kind == "generated":
            if "from" in opts:
                state["emitted"] = self.emit(b, scratch, opts["from"], opts)
                if state["emitted"] is None:
                    return
            if state["emitted"] is None:
                self.fail(b, "no accepted 'emit' block before this 'generated' block")
                return
            ok, piece = contains(state["emitted"], b.text)
            if not ok:
                self.fail(b, "not in the output of mpiad-cc; first missing part:\n"
                          + piece.strip())
            return
        if kind == "run":
            name = self.save(b, scratch, opts)
            extra = shlex.split(opts.get("args", ""))
            exe = os.path.splitext(name)[0] + ".exe"
            r = subprocess.run([self.cc, name] + extra + self.cflags + ["-o", exe], cwd=scratch,
                               env=self.env, capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                self.fail(b, f"mpiad-cc does not build the program:\n{r.stderr}")
                return
            np = opts.get("np", "1")
            r = subprocess.run(self.mpirun + [np, "./" + exe], cwd=scratch, env=self.env,
                               capture_output=True, text=True, timeout=120)
            output = r.stdout + r.stderr
            if r.returncode != 0:
                self.fail(b, f"the program exited with {r.returncode}:\n{output}")
            elif "expect" in opts and opts["expect"] not in output:
                self.fail(b, f"the output lacks '{opts['expect']}':\n{output}")
            return
        if kind == "sh":
            r = self.sh(b.text, scratch)
            if r.returncode != 0:
                self.fail(b, f"exit status {r.returncode}:\n{r.stdout}{r.stderr}")
            return
        if kind == "console":
            cmds, expected = [], []
            for line in b.text.rstrip("\n").split("\n"):
                if line.startswith("$ "):
                    cmds.append(line[2:])
                else:
                    expected.append(line)
            # One shell for the whole block (so that `echo $?` sees the command
            # before it), stderr into stdout in order.
            r = subprocess.run(["bash", "-c", "\n".join(cmds) + "\n"], cwd=scratch,
                               env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120)
            output = r.stdout
            # Clang prints the absolute paths of the scratch directory's files.
            output = output.replace(os.path.realpath(scratch) + "/", "")
            output = output.replace(scratch + "/", "")
            ok, piece = contains(output, "\n".join(expected))
            if not ok:
                self.fail(b, f"the output differs; first missing part:\n{piece.strip()}\n"
                          f"actual output:\n{output}")
            return


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="build tree (bin/mpiad-cc)")
    ap.add_argument("--src", default=os.path.join(os.path.dirname(__file__), ".."),
                    help="source tree (default: this script's ..)")
    ap.add_argument("--mpirun", default="mpirun -np", help="mpirun command up to -np")
    ap.add_argument("--cflags", default="", help="flags for the programs mpiad-cc builds")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("docs", nargs="*", help="Markdown files (default README.md docs/*.md)")
    args = ap.parse_args()
    r = Runner(args)
    docs = args.docs
    if not docs:
        docs = [os.path.join(r.src, "README.md")] + sorted(
            os.path.join(r.src, "docs", f) for f in os.listdir(os.path.join(r.src, "docs"))
            if f.endswith(".md"))
    try:
        for d in docs:
            rel = os.path.relpath(os.path.abspath(d), r.src)
            r.run_doc(d, rel)
    finally:
        if r.wrapdir:
            shutil.rmtree(r.wrapdir)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(r.counts.items()))
    print(f"doctest: {len(docs)} documents, blocks: {summary}")
    if r.failures:
        print(f"doctest: {len(r.failures)} FAILED")
        return 1
    print("doctest: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
