"""The DLPack capsule reader of the extension (python/src/bind_dlpack.cpp), on this machine's
memory: NumPy arrays export kDLCPU capsules, and what the reader finds in them (pointer, shape,
strides, dtype) is compared with NumPy's own __array_interface__; made-up producers
(dlpack_fakes.py) check the versioned capsule, the consumption protocol (read once, the
producer's deleter called once) and malformed content (clean errors naming the operand).
"""

import gc
import sys
import weakref

import numpy as np
import pytest

import tcemu
from dlpack_fakes import BFLOAT, COMPLEX, CPU, CUDA, FLOAT, FLOAT4_E2M1FN, FLOAT8_E4M3FN, INT, UINT, FakeDlpack

dlpack_import = tcemu._tcemu.dlpack_import
dlpack_info = tcemu._tcemu._dlpack_info


def c_strides(shape, itemsize):
    out, s = [], itemsize
    for n in reversed(shape):
        out.append(s)
        s *= max(n, 1)
    return tuple(reversed(out))


def expect_numpy(arr):
    ai = arr.__array_interface__
    strides = ai["strides"] if ai["strides"] is not None else c_strides(arr.shape, arr.itemsize)
    return dict(device=(CPU, 0), ptr=ai["data"][0], shape=arr.shape, strides=tuple(strides), dtype=arr.dtype.name,
                itemsize=arr.itemsize)


def numpy_cases():
    rng = np.random.default_rng(2)
    out = []
    for dt in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64, np.float16,
               np.float32, np.float64, np.complex64):
        for shape in ((3, 4), (1, 7), (5,), (2, 3, 4), (0, 3), ()):
            out.append(rng.integers(0, 100, size=shape).astype(dt))
    base = np.arange(7 * 9, dtype=np.uint16).reshape(7, 9)
    out += [base.T, base[2:5, 3:], base[1:, ::2], base[::-1, ::-3], base[3], np.asfortranarray(base)]
    return out


@pytest.mark.parametrize("arr", numpy_cases(), ids=lambda a: f"{a.dtype}{a.shape}{a.strides}")
def test_numpy_capsules_read_as_numpy_describes_them(arr):
    info = dlpack_info(arr)
    want = expect_numpy(arr)
    if arr.size == 0:
        # the strides of an empty array describe no element, and NumPy's vary: NumPy 2.4 gives
        # the array and its capsule 0 strides, NumPy 1.24 the array 0 and the capsule C strides
        assert len(info["strides"]) == arr.ndim
        want["strides"] = info["strides"]
    assert {k: info[k] for k in ("device", "ptr", "shape", "strides", "dtype", "itemsize")} == want
    assert info["versioned"] in (False, True) and not info["read_only"]


def test_a_capsule_is_read_once():
    a = np.arange(12, dtype=np.uint8).reshape(3, 4)
    cap = a.__dlpack__()
    t = dlpack_import(cap, "a")
    assert (t.shape, t.strides, t.dtype, t.ptr) == ((3, 4), (4, 1), "uint8", a.__array_interface__["data"][0])
    with pytest.raises(ValueError, match=r"^a: this DLPack capsule was already consumed \(a capsule is read once\)$"):
        dlpack_import(cap, "a")
    assert not t.released
    t.release()
    t.release()  # once only
    assert t.released
    with pytest.raises(ValueError, match="^b: this DLPack capsule was already consumed"):
        dlpack_import(cap, "b")


def test_the_producer_is_given_back_when_released():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    alive = weakref.ref(a)
    cap = a.__dlpack__()
    t = dlpack_import(cap, "a")
    del a, cap
    gc.collect()
    assert alive() is not None  # the tensor holds the producer's memory
    t.release()
    gc.collect()
    assert alive() is None
    # Without release(): when the tensor object goes.
    b = np.arange(6, dtype=np.int16)
    alive = weakref.ref(b)
    t = dlpack_import(b.__dlpack__(), "b")
    del b
    gc.collect()
    assert alive() is not None
    del t
    gc.collect()
    assert alive() is None
    # _dlpack_info gives it back before returning.
    c = np.zeros((4, 4), np.uint8)
    before = sys.getrefcount(c)
    for _ in range(3):
        dlpack_info(c)
    assert sys.getrefcount(c) == before


@pytest.mark.parametrize("versioned", [False, True])
def test_the_deleter_is_called_once(versioned):
    f = FakeDlpack((4, 8), versioned=versioned)
    t = dlpack_import(f, "a", None)
    assert f.deleted == 0 and f.calls == [dict(stream=None, max_version=(1, 0))]
    t.release()
    assert f.deleted == 1
    t.release()
    del t
    gc.collect()
    assert f.deleted == 1
    info = dlpack_info(f)
    assert f.deleted == 2 and info["versioned"] == versioned
    assert info == dict(device=(CUDA, 0), ptr=0x7F0000000000, shape=(4, 8), strides=(8, 1), dtype="uint8", itemsize=1,
                        versioned=versioned, read_only=False)


def test_producers_older_than_dlpack_1_are_asked_without_max_version():
    f = FakeDlpack((2, 3), code=INT, bits=32, old_producer=True)
    t = dlpack_import(f, "a", 1)
    assert f.calls == [dict(stream=1, max_version=None)]
    assert (t.shape, t.strides, t.dtype) == ((2, 3), (12, 4), "int32")


def test_made_up_content_is_read_as_said():
    f = FakeDlpack((3, 5), code=UINT, bits=16, strides=(1, 3), ptr=0x1000, byte_offset=6, device=(13, 2))
    info = dlpack_info(f)
    assert (info["device"], info["ptr"], info["shape"], info["strides"]) == ((13, 2), 0x1006, (3, 5), (2, 6))
    for code, bits, name in ((BFLOAT, 16, "bfloat16"), (FLOAT8_E4M3FN, 8, "float8_e4m3fn"), (FLOAT, 16, "float16"),
                             (COMPLEX, 64, "complex64"), (INT, 8, "int8"), (12, 8, "float8_e5m2"),
                             (14, 8, "float8_e8m0fnu"), (13, 8, "float8_e5m2fnuz"), (6, 8, "bool")):
        assert dlpack_info(FakeDlpack((2, 2), code=code, bits=bits))["dtype"] == name
    assert dlpack_info(FakeDlpack((0, 4), ptr=0))["shape"] == (0, 4)  # an empty tensor may have no memory


HOSTILE = [
    (dict(shape=(2, 2), ndim=-1), ValueError, r"^a: a malformed DLPack tensor: ndim -1$"),
    (dict(shape=(2, 2), ndim=65), ValueError, r"^a: a malformed DLPack tensor: ndim 65$"),
    (dict(shape=(2, 2), ndim=1 << 30), ValueError, r"^a: a malformed DLPack tensor: ndim 1073741824$"),
    (dict(shape=(4, -3)), ValueError, r"^a: a malformed DLPack tensor: dimension 1 of negative extent -3$"),
    (dict(shape=(1 << 40, 1 << 40)), ValueError, r"element count overflows 64 bits"),
    (dict(shape=(1 << 31, 1 << 31), bits=64), ValueError, r"size in bytes overflows 64 bits"),
    (dict(shape=(0, 1 << 40, 1 << 40), bits=64), ValueError, r"size in bytes overflows 64 bits"),
    (dict(shape=(2, 2), strides=(1 << 62, 1), bits=32), ValueError, r"stride 4611686018427387904 of dimension 0 "
                                                                    r"overflows"),
    (dict(shape=(2, 2), ptr=0), ValueError, r"^a: a malformed DLPack tensor: a NULL data pointer for 4 elements$"),
    (dict(shape=(2, 2), ptr=(1 << 64) - 16, byte_offset=64), ValueError, r"byte_offset 64 past the end"),
    (dict(shape=(2, 2), lanes=4), TypeError, r"^a: a DLPack tensor of 4-lane vectors of uint8; tcemu takes one value"),
    (dict(shape=(2, 2), code=99), TypeError, r"^a: a DLPack tensor of dtype code 99 \(8 bits\), which DLPack does not "
                                             r"define$"),
    (dict(shape=(2, 2), code=FLOAT4_E2M1FN, bits=4), TypeError, r"^a: a DLPack tensor of 4-bit float4_e2m1fn "
                                                                r"elements; tcemu takes codes of whole bytes"),
    (dict(shape=(2, 2), bits=0), TypeError, r"^a: a DLPack tensor of 0-bit uint0"),
]


@pytest.mark.parametrize("kw, exc, match", HOSTILE, ids=[m for _, _, m in HOSTILE])
@pytest.mark.parametrize("versioned", [False, True])
def test_malformed_tensors_are_clean_errors(kw, exc, match, versioned):
    f = FakeDlpack(**kw, versioned=versioned)
    with pytest.raises(exc, match=match):
        dlpack_import(f, "a", None)
    assert f.deleted == 1  # consumed, then given back


def test_capsules_that_are_not_read():
    f = FakeDlpack((2, 2), versioned=True, version=(2, 0))
    with pytest.raises(ValueError, match=r"^a: a DLPack 2.0 tensor; tcemu reads DLPack 1.x$"):
        dlpack_import(f, "a", None)
    assert f.deleted == 0  # left in its capsule, whose destructor is the producer's

    class Returns:
        def __init__(self, v):
            self.v = v

        def __dlpack__(self, **kw):
            return self.v

    with pytest.raises(TypeError, match=r"^b: __dlpack__\(\) returned a int, not a DLPack capsule$"):
        dlpack_import(Returns(3), "b", None)
    import ctypes

    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    other = new(ctypes.addressof(ctypes.c_int(0)), b"something_else", None)
    with pytest.raises(TypeError, match=r"^b: a capsule named 'something_else', not a DLPack tensor"):
        dlpack_import(Returns(other), "b", None)
    with pytest.raises(TypeError, match=r"^c: a object has no __dlpack__$"):
        dlpack_import(object(), "c", None)

    class Fails:
        def __dlpack__(self, **kw):
            raise BufferError("cannot export this one")

    with pytest.raises(TypeError, match=r"^d: its __dlpack__\(\) failed: BufferError: cannot export this one$"):
        dlpack_import(Fails(), "d", None)
    # NumPy refuses a stream for CPU arrays (the specification: None only), as a clean error too.
    with pytest.raises(TypeError, match=r"^e: its __dlpack__\(\) failed"):
        dlpack_import(np.zeros((2, 2), np.uint8), "e", 1)
