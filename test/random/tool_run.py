"""A command under a timeout, for the random testers (mutate_inputs.py,
csmith_run.py): (exit status, stdout + stderr), the status None on timeout.
The command runs in a session of its own, so that a timeout also ends what
it started (mpiad-cc's clang, a program's children)."""
import subprocess


def run(cmd, timeout, cwd):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                           errors="replace", timeout=timeout,
                           start_new_session=True)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return None, out
