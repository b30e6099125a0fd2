"""Host TMA descriptors and global scratch on the launch path, against the
stand-in driver (mock_libcuda.c): a `tensordesc<...>` parameter becomes a
CUtensorMap encoded with the compiler's box and swizzle plus the shape
(int32) and strides (int64); encodings are cached; every rule the TMA has is
checked at launch with an error naming the argument; kernels that need
global scratch get it, last, from warpforge.set_allocator's allocator.
Each test runs in a fresh interpreter (the `mocked` fixture)."""

import textwrap

import pytest

from warpforge import _C
from test_driver_mock import mock_libcuda, mocked  # noqa: F401 - fixtures

PRELUDE = """
import types
from warpforge.tools.tensor_descriptor import TensorDescriptor
from warpforge.runtime.allocation import NoAllocatorError
import warpforge

def u32(i):
    return params(i + 1)[i] & 0xFFFFFFFF

def param_bytes(i):
    return bytes((ctypes.c_ubyte * 128).from_buffer(
        (ctypes.c_ubyte * (64 * 128)).in_dll(mock, "mock_param_bytes"), 128 * i))

def param_addr(i):
    return (ctypes.c_ulonglong * 64).in_dll(mock, "mock_param_addrs")[i]

def tma():
    get = lambda t, name: t.in_dll(mock, name).value
    rank = get(ctypes.c_uint, "mock_tma_rank")
    return dict(
        dtype=get(ctypes.c_int, "mock_tma_dtype"), rank=rank,
        address=get(ctypes.c_ulonglong, "mock_tma_address"),
        dims=list((ctypes.c_ulonglong * 5).in_dll(mock, "mock_tma_dims")[:rank]),
        strides=list((ctypes.c_ulonglong * 5).in_dll(mock, "mock_tma_strides")[:rank - 1]),
        box=list((ctypes.c_uint * 5).in_dll(mock, "mock_tma_box")[:rank]),
        elem_strides=list((ctypes.c_uint * 5).in_dll(mock, "mock_tma_elem_strides")[:rank]),
        interleave=get(ctypes.c_int, "mock_tma_interleave"),
        swizzle=get(ctypes.c_int, "mock_tma_swizzle"), l2=get(ctypes.c_int, "mock_tma_l2"),
        fill=get(ctypes.c_int, "mock_tma_fill"))

def encodes():
    return ctypes.c_int.in_dll(mock, "mock_tma_encodes").value

def map_serial(i):
    raw = param_bytes(i)
    assert raw[:4] == b"TMAP", raw[:16]
    return struct.unpack_from("<I", raw, 4)[0]

def image(sizes, name="k"):
    return ("MOCK name=%s nparams=%d psizes=%s" % (name, len(sizes),
                                                   ",".join(map(str, sizes)))).encode()

class Tensor2(Tensor):
    \"\"\"A torch-like tensor TensorDescriptor.from_tensor reads.\"\"\"
    def __init__(self, ptr, shape, strides, dtype="torch.float16", device="cuda:0"):
        super().__init__(ptr, dtype, device)
        self.shape, self._strides = list(shape), list(strides)
    def stride(self):
        return self._strides

DESC_MAP = 6  # CU_TENSOR_MAP_DATA_TYPE_FLOAT16
"""


@pytest.fixture
def run(mocked):
    def go(code, **env):
        return mocked(PRELUDE + textwrap.dedent(code), **env)
    return go


def test_tensor_map_encoding_and_packing(run):
    """The map gets the descriptor's dtype, dims and byte strides innermost
    first, the compiler's box and swizzle (TMA.h), element strides 1, no
    interleave, L2 promotion 128B; the kernel gets the 128 bytes (64-byte
    aligned), the shape as int32 and the strides as int64, outermost first."""
    run("""
        sig = {"a_desc": "tensordesc<fp16[128, 64]>", "n": "i32"}
        k = _C.Kernel(image([128, 4, 4, 8, 8, 4]), "k", sig, 4)
        assert k.num_kernel_params == 6
        t = Tensor2(DEV0 + 512, [1000, 300], [304, 1])
        desc = TensorDescriptor.from_tensor(t, [128, 64])
        k.launch(2, 1, 1, 0, (desc, 77))
        assert tma() == dict(dtype=6, rank=2, address=DEV0 + 512, dims=[300, 1000],
                             strides=[608], box=[64, 128], elem_strides=[1, 1], interleave=0,
                             swizzle=3, l2=2, fill=0)
        raw = param_bytes(0)
        assert raw[:4] == b"TMAP" and struct.unpack_from("<Q", raw, 8)[0] == DEV0 + 512
        assert param_addr(0) % 64 == 0
        p = params(6)
        assert [p[1] & 0xFFFFFFFF, p[2] & 0xFFFFFFFF] == [1000, 300]
        assert p[3:5] == [304, 1] and p[5] & 0xFFFFFFFF == 77
        assert launches() == 1

        # The box and swizzle of each block: TMA.h's rule, innermost first.
        cases = [
            ("fp32", [64, 64], "torch.float32", [32, 64], 3, 7),   # 256-byte rows: 2 copies
            ("fp16", [16, 16], "torch.float16", [16, 16], 1, 6),   # 32-byte rows
            ("bf16", [8, 32], "torch.bfloat16", [32, 8], 2, 9),    # 64-byte rows
            ("fp16", [32, 8], "torch.float16", [8, 32], 0, 6),     # 16-byte rows: none
            ("fp8e4nv", [64, 128], "torch.float8_e4m3fn", [128, 64], 3, 0),
            ("i8", [16, 32], "torch.int8", [32, 16], 1, 0),
            ("i16", [16, 16], "torch.int16", [16, 16], 1, 1),
            ("i32", [16, 16], "torch.int32", [16, 16], 2, 3),
            ("u32", [16, 16], "torch.uint32", [16, 16], 2, 2),
            # 64-bit elements are never swizzled (no NVMMA layout holds them).
            ("i64", [16, 16], "torch.int64", [16, 16], 0, 5),
            ("u64", [16, 16], "torch.uint64", [16, 16], 0, 4),
            ("fp64", [16, 16], "torch.float64", [16, 16], 0, 8),
        ]
        for elem, block, dtype, box, swizzle, code in cases:
            sig = {"d": "tensordesc<%s[%s]>" % (elem, ", ".join(map(str, block)))}
            k = _C.Kernel(image([128, 4, 4, 8, 8]), "k", sig, 4)
            t = Tensor2(DEV0, [256, 256], [256, 1], dtype)
            k.launch(1, 1, 1, 0, (TensorDescriptor.from_tensor(t, block),))
            got = tma()
            assert (got["box"], got["swizzle"], got["dtype"]) == (box, swizzle, code), \\
                (elem, block, got)

        # 1-D and 3-D blocks: dense, unswizzled, the whole block in one box.
        k = _C.Kernel(image([128, 4, 8]), "k", {"d": "tensordesc<fp32[128]>"}, 4)
        k.launch(1, 1, 1, 0, (TensorDescriptor(Tensor(DEV0), [1000], [1], [128]),))
        assert tma()["dims"] == [1000] and tma()["strides"] == [] and tma()["box"] == [128]
        assert params(3)[1:] == [1000, 1]
        k = _C.Kernel(image([128, 4, 4, 4, 8, 8, 8]), "k", {"d": "tensordesc<fp16[2, 4, 64]>"},
                      4)
        t = Tensor2(DEV0, [3, 40, 100], [40 * 112, 112, 1])
        k.launch(1, 1, 1, 0, (TensorDescriptor.from_tensor(t, [2, 4, 64]),))
        got = tma()
        assert got["dims"] == [100, 40, 3] and got["strides"] == [224, 40 * 224]
        assert got["box"] == [64, 4, 2] and got["swizzle"] == 0 and got["elem_strides"] == [1] * 3
        p = params(7)
        assert [v & 0xFFFFFFFF for v in p[1:4]] == [3, 40, 100] and p[4:] == [4480, 112, 1]

        # padding="nan": NaN fill for out-of-bounds reads.
        k = _C.Kernel(image([128, 4, 4, 8, 8]), "k", {"d": "tensordesc<fp32[16, 16]>"}, 4)
        t = Tensor2(DEV0, [20, 20], [32, 1], "torch.float32")
        k.launch(1, 1, 1, 0, (TensorDescriptor.from_tensor(t, [16, 16], padding="nan"),))
        assert tma()["fill"] == 1
        k.launch(1, 1, 1, 0, (TensorDescriptor.from_tensor(t, [16, 16]),))
        assert tma()["fill"] == 0
    """)


def test_descriptor_arguments_with_other_parameters_and_params(run):
    """Descriptors among pointers and scalars, picked out of all the
    parameters, two descriptors each with its own map."""
    run("""
        sig = {"a": "tensordesc<fp16[64, 64]>", "x": "*fp32", "b": "tensordesc<fp32[32]>",
               "n": "i32"}
        k = _C.Kernel(image([128, 4, 4, 8, 8, 8, 128, 4, 8, 4]), "k", sig, 4,
                      params=["a", "x", "BLOCK", "b", "n"])
        assert k.num_kernel_params == 10
        a = TensorDescriptor.from_tensor(Tensor2(DEV0, [64, 64], [64, 1]), [64, 64])
        b = TensorDescriptor(Tensor(DEV0 + 0x10000), [100], [1], [32])
        k.launch(1, 1, 1, 0, (a, DEV0 + 0x20000, 64, b, 9))
        p = params(10)
        assert map_serial(0) == 1 and map_serial(6) == 2
        assert struct.unpack_from("<Q", param_bytes(6), 8)[0] == DEV0 + 0x10000
        assert p[5] == DEV0 + 0x20000 and p[7] & 0xFFFFFFFF == 100 and p[8] == 1
        assert p[9] & 0xFFFFFFFF == 9
        assert param_addr(0) % 64 == 0 and param_addr(6) % 64 == 0
        k.launch(1, 1, 1, 0, (a, None, b, 10))  # the run-time parameters only
        assert params(10)[9] & 0xFFFFFFFF == 10 and encodes() == 2
        # Many descriptors: more maps and parameters than the launcher keeps
        # inline (4 and 32).
        sig = {"d%d" % i: "tensordesc<fp16[16, 16]>" for i in range(7)}
        k = _C.Kernel(image([128, 4, 4, 8, 8] * 7), "k", sig, 4)
        assert k.num_kernel_params == 35
        descs = [TensorDescriptor.from_tensor(Tensor2(DEV0 + 4096 * i, [16, 16], [16, 1]),
                                              [16, 16]) for i in range(7)]
        k.launch(1, 1, 1, 0, descs)
        assert params(35)[34] == 1 and params(35)[33] == 16
        for i in range(7):
            assert struct.unpack_from("<Q", param_bytes(5 * i), 8)[0] == DEV0 + 4096 * i
            assert param_addr(5 * i) % 64 == 0
    """)


def test_encodings_are_cached(run):
    """The same tensor, described by the same or a new descriptor, encodes
    once; another address, shape, stride or padding encodes again; a few
    recent maps per parameter are kept (ping-pong buffers)."""
    run("""
        k = _C.Kernel(image([128, 4, 4, 8, 8]), "k", {"a": "tensordesc<fp16[64, 64]>"}, 4)
        t = Tensor2(DEV0, [256, 128], [128, 1])
        d = TensorDescriptor.from_tensor(t, [64, 64])
        for _ in range(3):
            k.launch(1, 1, 1, 0, (d,))
        assert encodes() == 1 and k.descriptor_encodes("a") == 1
        k.launch(1, 1, 1, 0, (TensorDescriptor.from_tensor(t, [64, 64]),))  # a new object
        k.launch(1, 1, 1, 0, [types.SimpleNamespace(base=t, shape=(256, 128), strides=[128, 1],
                                                    block_shape=[64, 64])])
        assert encodes() == 1 and map_serial(0) == 1
        other = TensorDescriptor.from_tensor(Tensor2(DEV0 + 0x8000, [256, 128], [128, 1]),
                                             [64, 64])
        k.launch(1, 1, 1, 0, (other,))
        assert encodes() == 2 and map_serial(0) == 2 and tma()["address"] == DEV0 + 0x8000
        k.launch(1, 1, 1, 0, (d,))  # ping-pong: back to the first, still cached
        assert encodes() == 2 and map_serial(0) == 1
        k.launch(1, 1, 1, 0, (other,))
        assert encodes() == 2 and map_serial(0) == 2
        # Each field is part of the key.
        variants = [TensorDescriptor(t, [255, 128], [128, 1], [64, 64]),
                    TensorDescriptor(t, [128, 128], [256, 1], [64, 64]),
                    TensorDescriptor(Tensor2(DEV0, [256, 128], [128, 1], "torch.float16"),
                                     [256, 128], [128, 1], [64, 64], padding="nan")]
        for i, v in enumerate(variants):
            k.launch(1, 1, 1, 0, (v,))
            assert encodes() == 3 + i and map_serial(0) == 3 + i
        assert tma()["fill"] == 1
        # Four are kept: d was evicted by now, the last three are not.
        for i, v in enumerate(variants):
            k.launch(1, 1, 1, 0, (v,))
            assert map_serial(0) == 3 + i
        assert encodes() == 5
        k.launch(1, 1, 1, 0, (d,))
        assert encodes() == 6 and map_serial(0) == 6
        # Kernels keep their own caches.
        k2 = _C.Kernel(image([128, 4, 4, 8, 8]), "k", {"a": "tensordesc<fp16[64, 64]>"}, 4)
        k2.launch(1, 1, 1, 0, (d,))
        assert encodes() == 7
        print(error(lambda: k.descriptor_encodes("b")))
    """)


def test_descriptor_checks_name_the_argument(run):
    out = run("""
        k = _C.Kernel(image([128, 4, 4, 8, 8], "matmul"), "matmul",
                      {"a_desc": "tensordesc<fp16[128, 64]>"}, 4)
        ok = TensorDescriptor.from_tensor(Tensor2(DEV0, [1000, 300], [304, 1]), [128, 64])
        NS = types.SimpleNamespace
        def desc(ptr=DEV0, shape=(1000, 300), strides=(304, 1), block=(128, 64),
                 dtype="torch.float16", **kw):
            return NS(base=Tensor(ptr, dtype), shape=shape, strides=strides,
                      block_shape=block, **kw)
        f32 = TensorDescriptor.from_tensor(Tensor2(DEV0, [1000, 300], [304, 1],
                                                   "torch.float32"), [128, 64])
        cases = [
            Tensor(DEV0, "torch.float16"),                  # not a descriptor
            NS(base=Tensor(DEV0), shape=[1]),               # missing fields
            f32,                                            # its dtype
            desc(dtype="torch.float32"),                    # its base's dtype
            desc(block=(64, 64)),
            desc(block=(1, 128, 64)),                       # rank
            desc(shape=(4, 1000, 300), strides=(304000, 304, 1)),
            desc(ptr=DEV1),                                 # another device
            desc(ptr=0x1000),                               # host memory
            desc(ptr=0),
            desc(ptr=DEV0 + 8),                             # misaligned
            desc(strides=(301, 1)),                         # 602 bytes
            desc(strides=(304, 2)),
            desc(strides=(-304, 1)),
            desc(shape=(2**32 + 1, 300)),
            desc(shape=(2**31, 300)),                       # over int32
            desc(shape=(0, 300)),
            desc(strides=(2**39, 1)),                       # 2**40 bytes
            desc(strides=[2**70, 1]),
            desc(shape=(1000, "x")),
            desc(shape=5),
            desc(padding="inf"),
            "a string",
        ]
        for d in cases:
            print(error(lambda: k.launch(1, 1, 1, 0, (d,))))
        ki = _C.Kernel(image([128, 4, 4, 8, 8]), "k", {"d": "tensordesc<i32[16, 16]>"}, 4)
        print(error(lambda: ki.launch(1, 1, 1, 0, (desc(block=(16, 16), dtype="torch.int32",
                                                        padding="nan"),))))
        mock_tma_result = ctypes.c_int.in_dll(mock, "mock_tma_result")
        mock_tma_result.value = 1
        print(error(lambda: k.launch(1, 1, 1, 0, (ok,))))
        mock_tma_result.value = 0
        assert launches() == 0
        k.launch(1, 1, 1, 0, (ok,))  # and then all is well
        k.launch(0, 1, 1, 0, (ok,))
        assert launches() == 1
        print(error(lambda: k.launch(0, 1, 1, 0, (desc(ptr=DEV1),))))  # an empty grid checks too
    """)
    head = "kernel 'matmul': argument 'a_desc' (index 0, tensordesc<fp16[128, 64]>)"
    assert out.splitlines() == [
        f"TypeError: {head} must be a TensorDescriptor (warpforge.tools.tensor_descriptor."
        "TensorDescriptor.from_tensor(tensor, block_shape)) or an object with base, shape, "
        "strides and block_shape, not Tensor",
        f"TypeError: {head} must be a TensorDescriptor (warpforge.tools.tensor_descriptor."
        "TensorDescriptor.from_tensor(tensor, block_shape)) or an object with base, shape, "
        "strides and block_shape, not types.SimpleNamespace",
        f"TypeError: {head}: the kernel was compiled for fp16 elements, but the descriptor's "
        "dtype is fp32",
        f"TypeError: {head}: the kernel was compiled for fp16 elements, but the base is a "
        "torch.float32 tensor",
        f"TypeError: {head}: its block shape [64, 64] differs from [128, 64], the one the "
        "kernel was compiled for",
        f"TypeError: {head}: its block_shape has 3 dimensions, but the kernel was compiled for "
        "a rank-2 descriptor",
        f"TypeError: {head}: its shape has 3 dimensions, but the kernel was compiled for a "
        "rank-2 descriptor",
        f"ValueError: {head}: its base is memory on cuda:1, but the kernel runs on cuda:0 (the "
        "current device): move it, or launch with cuda:1 current (torch.cuda.device(1))",
        f"ValueError: {head}: its base points to host memory (0x1000): it is a tensor on "
        "cuda:0; kernels take GPU memory (a CPU tensor? move it to cuda:0)",
        f"ValueError: {head}: its base is a null pointer",
        f"ValueError: {head}: its base address 0x10000008 is not 16-byte aligned (the TMA "
        "needs 16)",
        f"ValueError: {head}: its strides [301, 1] have dimension 0 = 301 elements, 602 bytes; "
        "the TMA needs a multiple of 16 bytes",
        f"ValueError: {head}: its strides [304, 2] do not end in 1: the TMA needs the "
        "innermost dimension contiguous",
        f"ValueError: {head}: its strides [-304, 1] have dimension 0 = -304; the TMA takes no "
        "negative strides",
        f"ValueError: {head}: its shape [4294967297, 300] has dimension 0 = 4294967297, over "
        "the TMA's limit of 2**32",
        f"ValueError: {head}: its shape [2147483648, 300] has dimension 0 = 2147483648, which "
        "does not fit the kernel's int32 shape parameter",
        f"ValueError: {head}: its shape [0, 300] has dimension 0 = 0; every dimension must be "
        "positive",
        f"ValueError: {head}: its strides [549755813888, 1] have dimension 0 = 549755813888 "
        "elements, 2**40 bytes or more: over the TMA's limit",
        f"ValueError: {head}: its strides [1180591620717411303424, 1] has dimension 0 = "
        "1180591620717411303424, which does not fit in 64 bits (the kernel's int64 stride "
        "parameter)",
        f"TypeError: {head}: its shape must be a sequence of ints, got str at dimension 1",
        f"TypeError: {head}: its shape must be a sequence of ints, not int",
        f"ValueError: {head}: its padding must be 'zero' or 'nan', got 'inf'",
        f"TypeError: {head} must be a TensorDescriptor (warpforge.tools.tensor_descriptor."
        "TensorDescriptor.from_tensor(tensor, block_shape)) or an object with base, shape, "
        "strides and block_shape, not str",
        "ValueError: kernel 'k': argument 'd' (index 0, tensordesc<i32[16, 16]>): padding='nan' "
        "needs 16-, 32- or 64-bit floats, but the TMA moves i32 elements as INT32",
        f"ValueError: {head}: cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE (invalid "
        "argument); it was given (innermost dimension first) data type FLOAT16, rank 2, address "
        "0x10000000, dims [300, 1000], strides [608] bytes, box [64, 128], swizzle 128B, "
        "padding zero",
        f"ValueError: {head}: its base is memory on cuda:1, but the kernel runs on cuda:0 (the "
        "current device): move it, or launch with cuda:1 current (torch.cuda.device(1))",
    ]


HOST_MAPS = """
BIG = 2**31 - 1
def recipe(param, base, block, stride_arg, stride=0):
    return dict(param=param, base=base, block=block, shape=[BIG, BIG], shape_args=[-1, -1],
                strides=[stride, 1], stride_args=[stride_arg, -1])
"""


def test_host_tensor_maps(run):
    """The compiler's maps of pointer blocks (tilegpu.host-tensor-maps):
    after the signature's parameters, each encoded at launch from its base
    pointer and its row stride (an argument, sign-extended from i32, or a
    constant), with the base's element type and the compiler's box and
    swizzle; cached like a descriptor's; the TMA's rules checked with the
    pointer's name."""
    out = run(HOST_MAPS + textwrap.dedent("""
        sig = {"a": "*fp16", "b": "*fp16", "n": "i32", "lda": "i32"}
        maps = [recipe(4, 0, [128, 64], 3), recipe(5, 1, [64, 256], -1, stride=1024)]
        k = _C.Kernel(image([8, 8, 4, 4, 128, 128]), "k", sig, 4, host_tensor_maps=maps)
        assert k.num_kernel_params == 6
        k.launch(2, 1, 1, 0, (DEV0 + 512, DEV0 + 0x100000, 7, 304))
        assert encodes() == 2
        assert tma() == dict(dtype=6, rank=2, address=DEV0 + 0x100000, dims=[BIG, BIG],
                             strides=[2048], box=[64, 64], elem_strides=[1, 1], interleave=0,
                             swizzle=3, l2=2, fill=0)
        assert struct.unpack_from("<Q", param_bytes(4), 8)[0] == DEV0 + 512
        assert struct.unpack_from("<Q", param_bytes(5), 8)[0] == DEV0 + 0x100000
        assert param_addr(4) % 64 == 0 and param_addr(5) % 64 == 0
        p = params(4)
        assert p[0] == DEV0 + 512 and p[2] & 0xFFFFFFFF == 7 and p[3] & 0xFFFFFFFF == 304
        first = map_serial(4)
        k.launch(2, 1, 1, 0, (DEV0 + 512, DEV0 + 0x100000, 8, 304))  # n is not in the map
        assert encodes() == 2 and map_serial(4) == first
        k.launch(2, 1, 1, 0, (DEV0 + 512, DEV0 + 0x100000, 8, 320))  # lda is
        assert encodes() == 3 and map_serial(4) != first
        # With every parameter given (constexprs included) and global scratch.
        k = _C.Kernel(image([8, 8, 4, 4, 128, 128, 8]), "k", sig, 4,
                      params=["a", "b", "BLOCK", "n", "lda"], host_tensor_maps=maps,
                      global_scratch_size=128, global_scratch_align=128,
                      global_scratch_implicit=True)
        assert k.num_kernel_params == 7
        for bad in [(DEV0 + 8, DEV0, 1, 304), (DEV0, DEV0, 1, 301), (DEV0, DEV0, 1, -304),
                    (0, DEV0, 1, 304)]:
            print(error(lambda: k.launch(1, 1, 1, 0, (bad[0], bad[1], 64, bad[2], bad[3]))))
    """))
    head = ("kernel 'k': argument 'a' (index 0, *fp16, the base of a tensor map the compiler "
            "made for its block loads)")
    assert out.splitlines() == [
        f"ValueError: {head}: its base address 0x10000008 is not 16-byte aligned (the TMA "
        "needs 16)",
        f"ValueError: {head}: its strides [301, 1] have dimension 0 = 301 elements, 602 bytes; "
        "the TMA needs a multiple of 16 bytes",
        f"ValueError: {head}: its strides [-304, 1] have dimension 0 = -304; the TMA takes no "
        "negative strides",
        f"ValueError: {head}: a null pointer, but the kernel reads blocks of it",
    ]


def test_host_tensor_map_recipes_are_checked_when_the_kernel_is_made():
    ns = {}
    exec(HOST_MAPS, ns)
    recipe = ns["recipe"]
    sig = {"a": "*fp16", "n": "i32", "x": "fp32", "d": "tensordesc<fp16[64, 64]>"}
    cases = [
        ([recipe(3, 0, [64, 64], 1)], "map parameter 3 does not follow the 8 parameters"),
        ([recipe(8, 1, [64, 64], 1)], "argument 1 is not a pointer"),
        ([recipe(8, 0, [64, 64], 2)], "argument 2 is not a 32- or 64-bit integer"),
        ([recipe(8, 0, [64, 64], 3)], "argument 3 is not a 32- or 64-bit integer"),
        ([recipe(8, 0, [64, 64], 8)], "argument 8 is not one of the 8 kernel parameters"),
        ([recipe(8, 4, [64, 64], 6)], "argument 4 is not a pointer"),  # d's shape
        ([dict(recipe(8, 0, [64, 64], 1), strides=[0])], "each map needs a size and a stride per block"),
    ]
    for maps, message in cases:
        with pytest.raises(ValueError, match=f"kernel 'k': host_tensor_maps: {message}"):
            _C.Kernel(b"cubin", "k", sig, 4, host_tensor_maps=maps)


def test_descriptor_types_are_checked_when_the_kernel_is_made():
    """Before the driver: what no tensor map can encode."""
    cases = {
        "tensordesc<fp16[64, 64, 1, 1, 1, 1]>": "the TMA takes 1 to 5 dimensions, got 6",
        "tensordesc<fp99[64]>": "unknown element type 'fp99'",
        "tensordesc<fp16[2, 512, 8]>": "a box dimension of 512 is outside the TMA's \\[1, 256\\]",
        "tensordesc<fp16[4]>": "the innermost box spans 8 bytes; the TMA needs a multiple of 16",
        "tensordesc<fp16 64>": "expected tensordesc<ELEMENT\\[block shape\\]>",
        "tensordesc<fp16[]>": "the block shape must be integers, got ''",
        "tensordesc<fp16[64, x]>": "the block shape must be integers, got ' x'",
    }
    for signature, message in cases.items():
        with pytest.raises(ValueError, match=f"kernel 'k': parameter 'a' has type "
                                             f"'{signature.replace('[', '.').replace(']', '.')}'"
                                             f": {message}"):
            _C.Kernel(b"cubin", "k", {"a": signature}, 4)
    with pytest.raises(ValueError, match="global scratch of -1 bytes aligned to 1"):
        _C.Kernel(b"cubin", "k", {"x": "*fp32"}, 4, global_scratch_size=-1)
    with pytest.raises(ValueError, match="global scratch of 64 bytes aligned to 0"):
        _C.Kernel(b"cubin", "k", {"x": "*fp32"}, 4, global_scratch_size=64,
                  global_scratch_align=0)


def test_global_scratch(run):
    """Scratch of size x programs, aligned, from the allocator, passed last;
    none for an empty grid; NoAllocatorError without an allocator."""
    out = run("""
        import gc, weakref
        k = _C.Kernel(image([128, 4, 4, 8, 8, 8, 8]), "k",
                      {"a": "tensordesc<fp16[64, 64]>", "x": "*fp32"}, 4,
                      global_scratch_size=192, global_scratch_align=128)
        assert (k.global_scratch_size, k.global_scratch_align, k.num_kernel_params) == \\
            (192, 128, 7)
        d = TensorDescriptor.from_tensor(Tensor2(DEV0, [64, 64], [64, 1]), [64, 64])
        print(error(lambda: k.launch(2, 1, 1, 0, (d, DEV0))))
        assert launches() == 0
        calls, buffers = [], []
        class Buffer:
            def __init__(self, ptr):
                self.ptr = ptr
            def data_ptr(self):
                return self.ptr
        def alloc(size, alignment, stream):
            calls.append((size, alignment, stream))
            b = Buffer(DEV0 + 0x100000 + 0x1000 * len(calls))
            buffers.append(weakref.ref(b))
            return b
        warpforge.set_allocator(alloc)
        k.launch(4, 3, 2, 0x77, (d, DEV0 + 64))
        assert calls == [(192 * 24, 128, 0x77)]
        p = params(7)
        assert p[5] == DEV0 + 64 and p[6] == DEV0 + 0x101000
        assert map_serial(0) == 1
        gc.collect()
        assert buffers[0]() is None  # released once the launch is enqueued
        k.launch(0, 3, 2, 0, (d, DEV0))  # an empty grid allocates nothing
        assert len(calls) == 1 and launches() == 1
        k.launch(1, 1, 1, 0, (d, DEV0))
        assert calls[-1] == (192, 128, 0) and params(7)[6] == DEV0 + 0x102000
        # The allocator's checks, and its errors, reach the caller.
        warpforge.set_allocator(lambda size, alignment, stream: Buffer(DEV0 + 64))
        print(error(lambda: k.launch(1, 1, 1, 0, (d, DEV0))))
        def failing(size, alignment, stream):
            raise MemoryError("out of scratch")
        warpforge.set_allocator(failing)
        print(error(lambda: k.launch(1, 1, 1, 0, (d, DEV0))))
        assert launches() == 2
        # A kernel with no scratch never calls the allocator.
        plain = _C.Kernel(image([8]), "k", {"x": "*fp32"}, 4)
        plain.launch(1, 1, 1, 0, (DEV0,))
        assert plain.num_kernel_params == 1 and plain.global_scratch_size == 0
        # Scratch alone.
        warpforge.set_allocator(alloc)
        only = _C.Kernel(image([8, 8]), "k", {"n": "i64"}, 4, global_scratch_size=16,
                         global_scratch_align=16)
        only.launch(5, 1, 1, 0, (3,))
        assert params(2)[0] == 3 and params(2)[1] == DEV0 + 0x100000 + 0x1000 * len(calls)
        assert calls[-1] == (80, 16, 0)
        print(error(lambda: only.launch(2**31 - 1, 65535, 65535, 0, (3,))))
    """)
    assert out.splitlines() == [
        "NoAllocatorError: this kernel needs 384 bytes of global scratch (aligned to 128) for "
        "the tensor descriptors it makes on the device, but no allocator was set: call "
        "warpforge.set_allocator(lambda size, alignment, stream: torch.empty(size, "
        "dtype=torch.int8, device='cuda')) first",
        "ValueError: the allocator returned an address 0x10000040 not aligned to 128 bytes",
        "MemoryError: out of scratch",
        "ValueError: kernel 'k': 9223090559730712575 programs of 16 bytes of global scratch "
        "each overflow 64 bits",
    ]


def test_compiled_kernel_and_jit_take_descriptors(run, tmp_path):
    """CompiledKernel[grid](...) and .launch take descriptors and pass the
    scratch metadata to the loaded kernel; the JIT specializes on the
    descriptor's signature type (a new block shape or dtype compiles again)
    and launches through its fast path."""
    source = tmp_path / "desc_kernels.py"
    source.write_text(
        "import warpforge as triton\n"
        "import warpforge.language as tl\n\n"
        "@triton.jit\n"
        "def copy_desc(a_desc, n, BM: tl.constexpr):\n"
        "    pass\n")
    run(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from warpforge.compiler.compiler import CompiledKernel, KernelOptions
        from warpforge.runtime import jit as jit_module
        ck = CompiledKernel("k", {{"a_desc": "tensordesc<fp16[64, 64]>", "n": "i32"}}, {{}},
                            KernelOptions(num_warps=4),
                            asm={{"cubin": image([128, 4, 4, 8, 8, 4, 8])}},
                            metadata={{"global_scratch_size": 32, "global_scratch_align": 64}})
        calls = []
        class Buffer:
            def data_ptr(self):
                return DEV0 + 0x4000
        warpforge.set_allocator(
            lambda size, align, stream: calls.append((size, align, stream)) or Buffer())
        t = Tensor2(DEV0, [128, 96], [96, 1])
        d = TensorDescriptor.from_tensor(t, [64, 64])
        ck[(2, 2)](d, 5)
        assert calls == [(128, 64, 0)] and params(7)[6] == DEV0 + 0x4000
        assert params(7)[5] & 0xFFFFFFFF == 5 and map_serial(0) == 1
        ck.launch((1,), (d, 6), stream=9)
        assert calls[-1] == (32, 64, 9) and encodes() == 1
        loaded = ck._kernels[0]
        assert (loaded.global_scratch_size, loaded.global_scratch_align) == (32, 64)
        print_ = error(lambda: ck[(1,)](Tensor(DEV0, "torch.float16"), 5))
        assert "argument 'a_desc' (index 0, tensordesc<fp16[64, 64]>) must be a " \\
            "TensorDescriptor" in print_, print_

        # The JIT: compile_kernel stands in for the GPU backend.
        compiled = []
        def fake_compile(fn, signature, constants, divisibility, options):
            compiled.append(dict(signature))
            return CompiledKernel(fn.__name__, dict(signature), dict(constants), options,
                                  asm={{"cubin": image([128, 4, 4, 8, 8, 4], fn.__name__)}},
                                  params=list(fn.signature.parameters))
        jit_module.compile_kernel = fake_compile
        import desc_kernels
        kern = desc_kernels.copy_desc
        kern[(3,)](d, 7, BM=64)
        assert compiled == [{{"a_desc": "tensordesc<fp16[64, 64]>", "n": "i32"}}]
        assert params(6)[5] & 0xFFFFFFFF == 7 and launch_config()[0] == [3, 1, 1]
        before = launches()
        for i in range(3):  # warm: the fast path, one encoding
            kern[(1,)](TensorDescriptor.from_tensor(t, [64, 64]), 8 + i, BM=64)
        assert len(compiled) == 1 and launches() == before + 3 and encodes() == 2
        kern[(1,)](TensorDescriptor.from_tensor(t, [64, 32]), 7, BM=64)
        t32 = Tensor2(DEV0, [128, 96], [96, 1], "torch.float32")
        kern[(1,)](TensorDescriptor.from_tensor(t32, [64, 64]), 7, BM=64)
        kern[(1,)](types.SimpleNamespace(base=t32, shape=[128, 96], strides=[96, 1],
                                         block_shape=[16, 16]), 7, BM=64)
        assert [c["a_desc"] for c in compiled] == [
            "tensordesc<fp16[64, 64]>", "tensordesc<fp16[64, 32]>", "tensordesc<fp32[64, 64]>",
            "tensordesc<fp32[16, 16]>"]
        assert tma()["box"] == [16, 16] and tma()["dtype"] == 7
        msg = error(lambda: (kern[(1,)](TensorDescriptor(t, [128, 96], [96, 1], [64, 64]), 7,
                                        BM=64), kern[(1,)](
            types.SimpleNamespace(base="x", shape=[1], strides=[1], block_shape=[16]), 1, BM=64)))
        assert msg == "TypeError: copy_desc: argument 'a_desc': the base of a SimpleNamespace " \\
            "must be a tensor or an array, got str", msg
    """, WARPFORGE_ALWAYS_COMPILE="1")


def test_compiled_metadata_carries_global_scratch(monkeypatch):
    """The backend reads the per-program scratch the stages recorded on the
    module (tilegpu.global-scratch-bytes / -align) into the metadata the
    launcher gets; a kernel that records none needs none."""
    import numpy as np

    import warpforge as triton
    import warpforge.language as tl
    from warpforge import ir
    from warpforge.compiler import attrs

    @triton.jit
    def fill(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    x = np.zeros(128, np.float32)
    plain = fill.warmup(x, BLOCK=128)
    assert "cubin" in plain.asm
    assert (plain.metadata.global_scratch_size, plain.metadata.global_scratch_align) == (0, 1)

    # The last stage (the LLVM dialect, on to PTX) records what the
    # metadata reads.
    run_stage_to_ptx = ir.run_stage_to_ptx

    def recording_scratch(*args, **kwargs):
        text, attributes, llvm_ir, ptx = run_stage_to_ptx(*args, **kwargs)
        return text, {**attributes, attrs.GLOBAL_SCRATCH_BYTES: 384,
                      attrs.GLOBAL_SCRATCH_ALIGN: 128}, llvm_ir, ptx

    monkeypatch.setattr(ir, "run_stage_to_ptx", recording_scratch)
    fill.cache.clear()
    k = fill.warmup(x, BLOCK=64)
    assert (k.metadata["global_scratch_size"], k.metadata["global_scratch_align"]) == (384, 128)
