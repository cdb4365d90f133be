"""Start a learner's kernel inside limits: memory, CPU time, files it may touch.

The grader starts each submission's kernel through this launcher (a
kernelspec whose ``argv`` is ``python -m learntorch.grading.sandbox ...``).
Before it becomes the ordinary IPython kernel (``os.execv``: the limits stay
with the process), it:

- sets ``RLIMIT_AS`` (address space, so an allocation without bound ends in
  ``MemoryError``), ``RLIMIT_CPU`` (a busy loop that ignores interrupts is
  killed), ``RLIMIT_FSIZE`` (no file larger than the output limit) and
  ``RLIMIT_CORE`` 0;
- replaces the environment by a small one (no inherited variables, so no
  secret, path or token of the grader's reaches the learner's code);
- sends the kernel's own stdout and stderr (not the notebook's outputs,
  which travel over Jupyter's messages) to /dev/null, so nothing it writes
  there can pass for the grader's output;
- on Linux 5.13 or later, confines the files the process can open with
  Landlock (an unprivileged kernel feature): it may read Python, the
  installed packages and the ``learntorch`` package, read and write its
  scratch folder, and nothing else. So ``solutions/``, the grader's cache,
  the gradebook and other learners' submissions cannot be read or written.
  Where Landlock is missing (macOS, Windows, old kernels) this step is
  skipped and :func:`landlock_available` says so; see the threat model in
  ``learntorch.grading.grader``;
- on Linux x86-64 and arm64, installs a seccomp filter that refuses the
  system calls Landlock leaves open to any process of the same user:
  changing another process's resource limits (``prlimit``: an
  ``RLIMIT_CPU`` of 1 s kills the grader), its priority (``setpriority``
  with ``PRIO_USER`` renices every process of the user, for good) and I/O
  priority. The kernel may still change its own. (Another process's
  scheduling policy and CPU affinity stay open: see ``_SELF_ONLY_CALLS``.)
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

KERNEL_NAME = "learntorch-sandbox"

# Landlock (linux/landlock.h): system call numbers are the same on every architecture.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38
_PATH_BENEATH = 1
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_READ = _EXECUTE | _READ_FILE | _READ_DIR
_FILE_ONLY = _EXECUTE | _WRITE_FILE | _READ_FILE | (1 << 14)  # rights a rule on a file may hold
_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1}  # 4+: as 3 for files
_CONNECT_TCP = 1 << 1
_SCOPES = (1 << 0) | (1 << 1)  # abstract unix sockets, signals
_SAFE_ENV = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
#: The device files a kernel may open; not all of /dev: /dev/shm would let it fill memory with files
#: that outlive it (and pass notes to other learners' kernels), /dev/pts/N is the instructor's terminal.
DEVICES = tuple(Path("/dev", name) for name in ("null", "zero", "full", "random", "urandom"))


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The Landlock ABI version of the running kernel, 0 where there is none."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def landlock_available() -> bool:
    """True where kernels can be confined to their scratch folder (Linux 5.13+)."""
    return landlock_abi() >= 1


def confine(read_only: Sequence[Path], read_write: Sequence[Path]) -> None:
    """Allow this process (and what it starts) only the given folders, for good.

    Raises OSError when a system call fails; does nothing where Landlock is missing.
    """
    abi = landlock_abi()
    if abi < 1:
        return
    handled = _RIGHTS_BY_ABI[min(abi, 3)]
    libc = _libc()
    # handled_access_fs; handled_access_net (ABI 4: outgoing TCP connections are refused, while the
    # kernel may still bind the ports Jupyter talks to it on); scoped (ABI 6: no signals to, and no
    # abstract sockets of, processes outside the sandbox, e.g. other learners' kernels).
    attr = (ctypes.c_uint64 * 3)(handled, _CONNECT_TCP if abi >= 4 else 0, _SCOPES if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path, rights in [*((p, _READ) for p in read_only), *((p, handled) for p in read_write)]:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a folder that does not exist needs no rule
            try:
                if not os.path.isdir(path):
                    rights &= _FILE_ONLY
                rule = _PathBeneath(rights & handled, fd)
                if libc.syscall(_ADD_RULE, ruleset, ctypes.c_int(_PATH_BENEATH), ctypes.byref(rule),
                                ctypes.c_uint32(0)) < 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) < 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)


# seccomp (linux/seccomp.h, linux/filter.h): classic BPF over struct seccomp_data {int nr; u32 arch;
# u64 ip; u64 args[6]}. Per architecture: the audit arch and the numbers of the calls that may name
# another process, each with the (argument, value) pairs that mean "this process only".
_SECCOMP_FILTER_MODE, _PR_SET_SECCOMP = 2, 22
_LD_ABS, _JEQ, _JGE, _RET = 0x20, 0x15, 0x35, 0x06
_ALLOW, _EPERM = 0x7FFF0000, 0x00050000 | 1
# sched_setscheduler/sched_setaffinity are not listed: libzmq calls them with its threads' ids (the
# filter cannot tell those from other processes' ids) and aborts when refused.
_SELF_ONLY_CALLS = {  # setpriority(PRIO_PROCESS, 0, ...), ioprio_set(IOPRIO_WHO_PROCESS, 0, ...), prlimit(0, ...)
    "x86_64": (0xC000003E, {141: ((0, 0), (1, 0)), 251: ((0, 1), (1, 0)), 302: ((0, 0),)}),
    "aarch64": (0xC00000B7, {140: ((0, 0), (1, 0)), 30: ((0, 1), (1, 0)), 261: ((0, 0),)}),
}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_SockFilter))]


def _self_only_program(arch: int, calls: dict[int, tuple[tuple[int, int], ...]]) -> list[tuple[int, int, int, int]]:
    """BPF: each listed call is allowed only with its "this process" arguments (else EPERM); all else runs.

    Calls of another ABI (i386's ``int 0x80``, x32's numbers from 0x40000000) are refused: their
    numbers differ, so they would pass the list unseen; Python and its packages never make them.
    """
    program = [(_LD_ABS, 0, 0, 4), (_JEQ, 1, 0, arch), (_RET, 0, 0, _EPERM), (_LD_ABS, 0, 0, 0),
               (_JGE, 0, 1, 0x40000000), (_RET, 0, 0, _EPERM)]
    for number, conditions in calls.items():
        # both 32-bit halves of each 64-bit argument (little-endian), so that -1 is not read as 0
        words = [(16 + 8 * arg + half, value if half == 0 else 0) for arg, value in conditions for half in (0, 4)]
        program.append((_JEQ, 0, 2 * len(words) + 2, number))
        for i, (offset, value) in enumerate(words):
            program += [(_LD_ABS, 0, 0, offset), (_JEQ, 0, 2 * (len(words) - 1 - i) + 1, value)]
        program += [(_RET, 0, 0, _ALLOW), (_RET, 0, 0, _EPERM)]
    return program + [(_RET, 0, 0, _ALLOW)]


def refuse_other_processes() -> bool:
    """Install the seccomp filter of the module docstring; True if it is in place (for good)."""
    import platform

    if not sys.platform.startswith("linux") or platform.machine() not in _SELF_ONLY_CALLS:
        return False
    program = _self_only_program(*_SELF_ONLY_CALLS[platform.machine()])
    filters = (_SockFilter * len(program))(*(_SockFilter(*instruction) for instruction in program))
    fprog = _SockFprog(len(program), filters)
    libc = _libc()
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    # A kernel built without seccomp filters, or a container that forbids them: skipped, as Landlock
    # is where it is missing (:func:`seccomp_available` says so; the threat model lists what is then open).
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_FILTER_MODE, ctypes.byref(fprog), 0, 0) == 0


def seccomp_available() -> bool:
    """Whether :func:`refuse_other_processes` can install its filter here (tried in a throw-away
    child process: a filter, once in place, stays for the life of the process)."""
    probe = "from learntorch.grading.sandbox import refuse_other_processes as r; raise SystemExit(0 if r() else 1)"
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, timeout=60)
    return done.returncode == 0


def readable_roots() -> list[Path]:
    """What a kernel must read: Python itself, installed packages, the learntorch package.

    Only the ``learntorch`` package folder is allowed, never the repository
    holding it, whose ``solutions/`` would otherwise be readable.
    """
    package = Path(__file__).resolve().parents[1]  # learntorch/ (this file is learntorch/grading/sandbox.py)
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix), package}
    roots |= {Path(p) for p in sys.path if p and Path(p).is_dir() and Path(p).name.endswith("-packages")}
    roots |= {Path(p) for p in ("/usr", "/lib", "/lib64", "/bin", "/etc", "/proc", "/sys", "/opt/conda")}
    roots |= {r.resolve() for r in list(roots) if r.exists()}
    return sorted(r for r in roots if r.exists())


def kernelspec(folder: Path, scratch: Path, memory_mb: int, cpu_seconds: int, max_file_mb: int,
               log: Path | None = None) -> Path:
    """Write a kernelspec folder ``folder/kernels/learntorch-sandbox`` and return ``folder/kernels``."""
    spec_dir = folder / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "learntorch.grading.sandbox", "--scratch", str(scratch),
            "--memory-mb", str(memory_mb), "--cpu-seconds", str(cpu_seconds),
            "--max-file-mb", str(max_file_mb), "--connection-file", "{connection_file}"]
    if log is not None:
        argv += ["--log", str(log)]
    spec = {"argv": argv, "display_name": "learntorch grader sandbox", "language": "python"}
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    return folder / "kernels"


def _limit(kind: int, value: int) -> None:
    _soft, hard = resource.getrlimit(kind)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (value, hard))


def main(argv: Sequence[str] | None = None) -> None:
    """Apply the limits, then become ``python -m ipykernel_launcher -f CONNECTION_FILE``."""
    parser = argparse.ArgumentParser(prog="python -m learntorch.grading.sandbox")
    parser.add_argument("--scratch", type=Path, required=True)
    parser.add_argument("--memory-mb", type=int, required=True)
    parser.add_argument("--cpu-seconds", type=int, required=True)
    parser.add_argument("--max-file-mb", type=int, required=True)
    parser.add_argument("--connection-file", type=Path, required=True)
    parser.add_argument("--log", type=Path, help="where the kernel's own stderr goes (default: nowhere)")
    args = parser.parse_args(argv)
    # Opened before confining: the kernel can write to this descriptor, never open the file again.
    log = os.open(args.log or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    scratch = args.scratch.resolve()
    env = {key: os.environ[key] for key in _SAFE_ENV if key in os.environ}
    env.update(HOME=str(scratch), TMPDIR=str(scratch), PATH=os.path.dirname(sys.executable) + ":/usr/bin:/bin",
               IPYTHONDIR=str(scratch / ".ipython"), MPLCONFIGDIR=str(scratch / ".matplotlib"),
               MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", JPY_PARENT_PID=os.environ.get("JPY_PARENT_PID", ""),
               PYDEVD_DISABLE_FILE_VALIDATION="1")
    connection = args.connection_file.resolve()
    confine(readable_roots() + [connection], [scratch, *DEVICES])
    refuse_other_processes()
    _limit(resource.RLIMIT_AS, args.memory_mb * 2**20)
    _limit(resource.RLIMIT_CPU, args.cpu_seconds)
    _limit(resource.RLIMIT_FSIZE, args.max_file_mb * 2**20)
    _limit(resource.RLIMIT_CORE, 0)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(log, 2)
    os.chdir(scratch)
    os.execve(sys.executable, [sys.executable, "-m", "ipykernel_launcher", "-f", str(connection)], env)


if __name__ == "__main__":
    main()
