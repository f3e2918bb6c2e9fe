#!/usr/bin/env python3
"""Runs `mpiad-cc ARGS...` with TMPDIR=DIR/tmp and a C compiler that sleeps,
sends SIGNAL to mpiad-cc once the compiler runs, and prints what it saw:
the temporaries during the compile, the exit status, what is left after.

usage: signal-during-compile.py SIGNAL DIR mpiad-cc ARGS...
"""
import os
import signal
import subprocess
import sys
import time

sig = getattr(signal, sys.argv[1])
work = os.path.abspath(sys.argv[2])
cmd = sys.argv[3:]
tmp = os.path.join(work, "tmp")
os.makedirs(tmp, exist_ok=True)
pidfile = os.path.join(work, "cc.pid")
slowcc = os.path.join(work, "slowcc")
with open(slowcc, "w") as f:
    f.write("#!/bin/sh\necho $$ > '%s.part' && mv '%s.part' '%s'\n"
            "exec sleep 60 </dev/null >/dev/null 2>&1\n"
            % (pidfile, pidfile, pidfile))
os.chmod(slowcc, 0o755)
env = dict(os.environ, TMPDIR=tmp, MPIAD_CC=slowcc)
# lit starts tests with SIGINT ignored, and mpiad-cc keeps an ignored signal
# ignored (as under nohup): give it the default action, as in a terminal.
proc = subprocess.Popen(
    cmd, env=env,
    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
deadline = time.time() + 60
while not os.path.exists(pidfile):
    if proc.poll() is not None or time.time() > deadline:
        print("the compiler never started (status %s)" % proc.poll())
        sys.exit(1)
    time.sleep(0.05)
for name in sorted(os.listdir(tmp)):
    print("during:", name)
proc.send_signal(sig)
status = proc.wait()
print("status:", "killed by " + signal.Signals(-status).name
      if status < 0 else status)
with open(pidfile) as f:
    try:
        os.kill(int(f.read()), signal.SIGKILL)  # the orphaned compiler
    except ProcessLookupError:
        pass
for name in sorted(os.listdir(tmp)):
    print("left:", name)
print("done")
