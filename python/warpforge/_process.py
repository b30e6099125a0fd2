"""Temporary files named by the process that made them: the disk cache's
writes and ptxas's PTX, cubin and log files carry `process_tag()`, by
which a later sweep removes those of a run that was killed as soon as its
process is gone, not an hour later. Shared
by the compiler and the runtime (the compiler does not import the
runtime)."""

import functools
import hashlib
import os
import re
import socket

__all__ = ["process_tag", "owner_is_gone"]


@functools.lru_cache(maxsize=1)
def _host_and_namespace() -> str:
    """This machine and PID namespace: process ids compare only within
    them (a cache directory on a shared file system, a container's /tmp)."""
    try:
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        namespace = 0
    host = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
    return f"n{namespace}.h{host}"


def process_tag() -> str:
    """`p<pid>.n<PID namespace>.h<host>`: the prefix of this process's
    temporary files, by which `owner_is_gone` tells a killed run's."""
    return f"p{os.getpid()}.{_host_and_namespace()}"


_TAG = re.compile(r"p(\d+)\.(n\d+\.h[0-9a-f]{8})-")


def owner_is_gone(name: str) -> bool:
    """Whether the file `name` (its base name), made by a process that
    tagged it with `process_tag()`, outlived that process: true only for a
    process of this machine and PID namespace that no longer runs (a
    reused PID keeps the file: an old one goes after an hour anyway)."""
    m = _TAG.search(name)
    if m is None or m.group(2) != _host_and_namespace():
        return False
    pid = int(m.group(1))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False
