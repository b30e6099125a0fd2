"""The on-disk kernel cache.

Entries live in `$WARPFORGE_CACHE_DIR` (default `~/.cache/warpforge`), one
JSON file per compiled kernel, named by a SHA-256 of everything that decides
the compiled code: the kernel's source and that of every @jit function it
calls, the constexpr globals they read, the specialization, the options, the
target, the compiler's own version and build, and the CUDA tools that shape
the cubin (ptxas and its version, libdevice).

Writes go to a temporary file in the same directory and are renamed into
place, so concurrent processes never see a partial entry. One process at a
time compiles a given key (`compile_lock`, an advisory file lock): the
others wait and load what it stored. The cache is bounded
(`WARPFORGE_CACHE_MAX_BYTES`, default 1 GiB): past it, the least recently
used entries go (loading an entry marks it used) with their lock files
(those no process holds), checked at a process's first store, every 64
stores after (for what other processes stored) and at any store that takes
the cache past the limit by the process's own count: one process never
leaves the cache more than the entry it is storing over the limit. Each
entry carries
a checksum of its payload; an entry that does not parse, or whose checksum
or format does not match, is ignored (and replaced by the next compile),
never loaded.

The large stage texts (LLVM dialect and LLVM IR are megabytes for a
matmul) go to a second file beside the entry, `<key>.stages.json`, read
only when a stage is looked at (`load_stages`): a hit reads the small entry,
the cubin and the metadata (a millisecond, not the ten it took to parse and
checksum everything). The two files are evicted together.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

from .._process import owner_is_gone, process_tag

FORMAT = 2
TARGET = "cuda:sm_90a"


def cache_dir() -> str:
    return os.environ.get("WARPFORGE_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "warpforge")


def always_compile() -> bool:
    return os.environ.get("WARPFORGE_ALWAYS_COMPILE", "0") not in ("", "0")


@functools.lru_cache(maxsize=1)
def compiler_fingerprint() -> str:
    """The compiler's version and build: the core library's identity and the
    source of the Python compiler (frontend changes change kernels too)."""
    import warpforge
    from .. import ir

    h = hashlib.sha256()
    h.update(ir.core_version().encode())
    package = os.path.dirname(os.path.abspath(warpforge.__file__))
    core = os.path.join(package, "libwarpforge.so")
    if os.path.exists(core):
        st = os.stat(core)
        h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    for sub in ("language", "compiler"):
        folder = os.path.join(package, sub)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as f:
                    h.update(name.encode() + f.read())
    h.update(toolchain_fingerprint().encode())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def toolchain_fingerprint() -> str:
    """The CUDA tools that shape a cubin: ptxas and libdevice, each by its
    path, size and modification time (a toolkit upgrade replaces the files).
    The cache never serves a cubin the new tools would not make. Asking
    ptxas for its `--version` said nothing more and cost a process start
    (3 ms) on every first cache hit of a process."""
    from .. import ir
    try:
        ptxas, libdevice = ir._core().find_toolchain()
    except Exception:  # no core library: nothing is compiled anyway
        return "no-toolchain"
    parts = []
    for path in (ptxas, libdevice):
        try:
            st = os.stat(path)
            parts.append(f"{path}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{path or '-'}:missing")
    return "\n".join(parts)


def entry_key(source_key: str, specialization: Any, options: Any) -> str:
    h = hashlib.sha256()
    from ..language.core import npot_blocks_enabled
    # The experimental switch changes what compiles (192-row blocks, three
    # consumer warpgroups) without changing the options.
    for part in (f"format={FORMAT}", f"target={TARGET}", compiler_fingerprint(), source_key,
                 repr(specialization), repr(options), f"npot={int(npot_blocks_enabled())}"):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _path(key: str) -> str:
    return os.path.join(cache_dir(), key[:2], key + ".json")


_STAGES_SUFFIX = ".stages.json"

# Stage texts at least this long are stored beside the entry.
DEFERRED_BYTES = 64 * 1024


def _stages_path(key: str) -> str:
    return os.path.join(cache_dir(), key[:2], key + _STAGES_SUFFIX)


def _checksum(payload: Dict) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


DEFAULT_MAX_BYTES = 1 << 30


def max_bytes() -> int:
    try:
        return int(os.environ.get("WARPFORGE_CACHE_MAX_BYTES", DEFAULT_MAX_BYTES))
    except ValueError:
        return DEFAULT_MAX_BYTES


# ---------------------------------------------------------------------------
# Locks
# ---------------------------------------------------------------------------


def _lock_path(key: str) -> str:
    return os.path.join(cache_dir(), key[:2], key + ".lock")


@contextlib.contextmanager
def compile_lock(key: str):
    """Held while the process compiles `key`, so that concurrent processes
    compile it once (the others wait, then find the entry). Advisory
    (fcntl.flock); where locking is not available, it does nothing.

    Eviction removes lock files, only while holding them itself: the lock
    held is the one whose file is still at the path (a lock taken on a
    file removed meanwhile is let go and taken again on the new one)."""
    path = _lock_path(key)
    try:
        import fcntl
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except (ImportError, OSError):
        yield
        return
    fd = -1
    try:
        for _ in range(100):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                break
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                here = os.stat(path)
                mine = os.fstat(fd)
                if (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino):
                    break
            except OSError:
                pass
            os.close(fd)  # evicted while we waited: lock the new file
            fd = -1
        yield
    finally:
        if fd >= 0:
            os.close(fd)  # releases the lock


def _remove_lock_if_free(path: str) -> bool:
    """Removes the lock file at `path` unless a process holds it (taking
    it first, so that no one holds it while it goes)."""
    try:
        import fcntl
        fd = os.open(path, os.O_RDWR)
    except (ImportError, OSError):
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False  # held: a compile of that key is under way
    try:
        return _unlink(path)
    finally:
        os.close(fd)


def evict(limit: Optional[int] = None) -> int:
    """Removes the least recently used entries, each with its stages and
    lock files, until the cache holds at most `limit` bytes (default:
    max_bytes()); returns the bytes removed. Temporary files of
    interrupted writes go too (at once when the process that wrote one is
    gone, else after an hour), and lock files without an entry that no
    process holds."""
    return _evict(limit)[0]


def _evict(limit: Optional[int] = None) -> Tuple[int, int]:
    """evict(): (bytes removed, bytes the cache holds after)."""
    limit = max_bytes() if limit is None else limit
    root = cache_dir()
    entries = []
    locks: List[str] = []
    try:
        subdirs = os.listdir(root)
    except OSError:
        return 0, 0
    now = time.time()
    stages: Dict[str, Tuple[int, float]] = {}  # entry path -> its stages file's size, mtime
    for sub in subdirs:
        folder = os.path.join(root, sub)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            if name.startswith(".tmp-"):
                if now - st.st_mtime > 3600 or owner_is_gone(name):
                    _unlink(path)  # a write killed midway
            elif name.endswith(".lock"):
                locks.append(path)
            elif name.endswith(_STAGES_SUFFIX):
                stages[path[:-len(_STAGES_SUFFIX)] + ".json"] = (st.st_size, st.st_mtime)
            elif name.endswith(".json"):
                entries.append((st.st_mtime, st.st_size, path))
    # An entry and its stages file go together, when the entry is least
    # recently used; a stages file whose entry is gone (an hour after it
    # was written: a store writes it first) is a leftover.
    sizes = {path: size + stages.pop(path, (0, 0))[0] for _, size, path in entries}
    leftovers = 0
    for entry, (size, mtime) in stages.items():
        if now - mtime > 3600 and _unlink(entry[:-len(".json")] + _STAGES_SUFFIX):
            leftovers += size
    total = sum(sizes.values())
    removed = 0
    for _, _, path in sorted(entries):
        if total - removed <= limit:
            break
        if _unlink(path):
            removed += sizes.pop(path)
            _unlink(path[:-len(".json")] + _STAGES_SUFFIX)
    # The locks of the entries gone and of compiles that stored nothing
    # (failed, or stopped before the cubin), unless held.
    for path in locks:
        if path[:-len(".lock")] + ".json" not in sizes:
            _remove_lock_if_free(path)
    return removed + leftovers, total - removed


# Eviction scans the whole cache: at a process's first store, every
# EVICT_EVERY stores (what other processes stored), and when the process's
# own count (the cache at its last scan plus what it stored since) passes
# the limit, so that its stores never leave the cache more than one entry
# over it.
EVICT_EVERY = 64
_stores = 0
_estimate: Optional[int] = None


def _maybe_evict(stored: int) -> None:
    global _stores, _estimate
    if _estimate is not None:
        _estimate += stored
    if _estimate is None or _stores % EVICT_EVERY == 0 or _estimate > max_bytes():
        _estimate = _evict()[1]
    _stores += 1


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def _read_entry(path: str, key: str) -> Optional[Dict]:
    """The checked payload of the entry file at `path`, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
        return None
    payload = entry.get("payload")
    if not isinstance(payload, dict) or entry.get("checksum") != _checksum(payload):
        return None
    return payload


def load(key: str) -> Optional[Dict]:
    """The payload stored under `key`, or None when missing or invalid. Its
    `asm` lacks the stages named in `asm_deferred`: `load_stages` reads
    them."""
    path = _path(key)
    payload = _read_entry(path, key)
    if payload is None:
        return None
    try:
        os.utime(path)  # used now: the last to be evicted
    except OSError:
        pass
    return payload


def load_stages(key: str) -> Optional[Dict[str, str]]:
    """The stage texts `store` put beside the entry of `key`, or None when
    they are gone or invalid."""
    stages = _read_entry(_stages_path(key), key)
    if stages is None or not all(isinstance(v, str) for v in stages.values()):
        return None
    return stages


def _write(path: str, entry: Dict) -> int:
    """Writes `entry` at `path` through a temporary file; returns its size."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=f".tmp-{process_tag()}-",
                               suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entry, f)
            size = f.tell()
        os.replace(tmp, path)
        return size
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def store(key: str, payload: Dict) -> None:
    """Atomically writes `payload` under `key`, its stage texts of
    DEFERRED_BYTES or more beside it (the entry's `asm_deferred` names
    them); failures to write are not errors (the kernel is compiled either
    way)."""
    path = _path(key)
    asm = payload.get("asm")
    deferred = {k: v for k, v in asm.items() if isinstance(v, str) and len(v) >= DEFERRED_BYTES} \
        if isinstance(asm, dict) else {}
    if deferred:
        order = list(asm) + [k for k in payload.get("asm_base64", {}) if k not in asm]
        payload = dict(payload, asm={k: v for k, v in asm.items() if k not in deferred},
                       asm_deferred=sorted(deferred), asm_order=order)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        stored = 0
        if deferred:  # first: an entry never names stages not yet written
            stored += _write(_stages_path(key), {"format": FORMAT, "key": key,
                                                 "checksum": _checksum(deferred),
                                                 "payload": deferred})
        stored += _write(path, {"format": FORMAT, "key": key, "checksum": _checksum(payload),
                                "payload": payload})
        _maybe_evict(stored)
    except OSError:
        pass
