"""A made-up DLPack producer for the tests: ctypes structs of the DLPack ABI (written from the
published layout, https://dmlc.github.io/dlpack/latest/c_api.html) in a PyCapsule named as the
Python specification says (https://dmlc.github.io/dlpack/latest/python_spec.html). It can say
anything (a CUDA device, a made-up pointer, malformed shapes and dtypes), and it counts the
calls of its deleter. Its capsules have no destructor: an unconsumed one is never freed, so
`deleted` counts the consumer's calls only.
"""

import ctypes
from ctypes import POINTER, c_int32, c_int64, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER_V = ctypes.CFUNCTYPE(None, POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p), ("deleter", DELETER_V),
                                     ("flags", c_uint64), ("dl_tensor", DLTensor)]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [c_void_p, ctypes.c_char_p, c_void_p]
_NAMES = {False: b"dltensor", True: b"dltensor_versioned"}  # alive as long as the module (capsules keep the pointer)

# DLPack type codes used by the tests (DLDataTypeCode).
INT, UINT, FLOAT, BFLOAT, COMPLEX, BOOL = 0, 1, 2, 4, 5, 6
FLOAT8_E4M3FN, FLOAT8_E5M2, FLOAT8_E5M2FNUZ, FLOAT8_E8M0FNU, FLOAT4_E2M1FN = 10, 12, 13, 14, 17
CPU, CUDA, CUDA_MANAGED = 1, 2, 13


class FakeDlpack:
    """A 'CUDA array' that has only DLPack. shape/strides are what the tensor says (strides in
    elements, None for NULL); ndim overrides len(shape) (for hostile values; shape must then
    still have max(ndim, 0) entries or ndim must be refused before they are read)."""

    def __init__(self, shape, code=UINT, bits=8, lanes=1, strides=None, device=(CUDA, 0), ptr=0x7F0000000000,
                 byte_offset=0, versioned=False, version=(1, 0), ndim=None, old_producer=False):
        self.deleted, self.calls, self.dl_device = 0, [], device
        self.versioned, self.old_producer = versioned, old_producer
        self._shape = (c_int64 * max(len(shape), 1))(*shape)
        self._strides = None if strides is None else (c_int64 * max(len(strides), 1))(*strides)
        t = DLTensor(data=ptr, device=DLDevice(*device), ndim=len(shape) if ndim is None else ndim,
                     dtype=DLDataType(code, bits, lanes), shape=ctypes.cast(self._shape, POINTER(c_int64)),
                     strides=None if self._strides is None else ctypes.cast(self._strides, POINTER(c_int64)),
                     byte_offset=byte_offset)
        if versioned:
            self._deleter = DELETER_V(self._on_delete)
            self._managed = DLManagedTensorVersioned(version=DLPackVersion(*version), manager_ctx=None,
                                                     deleter=self._deleter, flags=0, dl_tensor=t)
        else:
            self._deleter = DELETER(self._on_delete)
            self._managed = DLManagedTensor(dl_tensor=t, manager_ctx=None, deleter=self._deleter)

    def _on_delete(self, _):
        self.deleted += 1

    def __dlpack_device__(self):
        return self.dl_device

    def __dlpack__(self, stream=None, max_version=None, **kw):
        if self.old_producer and max_version is not None:  # as a producer of before DLPack 1.0 signals it
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.calls.append(dict(stream=stream, max_version=max_version))
        versioned = self.versioned and max_version is not None and tuple(max_version) >= (1, 0)
        if self.versioned and not versioned:
            raise BufferError("this fake exports DLPack >= 1.0 only")
        return _capsule_new(ctypes.addressof(self._managed), _NAMES[versioned], None)


class HostDlpack(FakeDlpack):
    """A DLPack tensor that says CUDA but points at a NumPy array's host memory (for a stand-in of
    mma_device_codes that reads host memory): data + byte_offset is the array's first element."""

    def __init__(self, arr, code=None, offset=64, **kw):
        self.arr = arr
        code = {"u": UINT, "i": INT, "f": FLOAT}[arr.dtype.kind] if code is None else code
        base = arr.__array_interface__["data"][0]
        null = kw.pop("null_strides", True) and arr.flags.c_contiguous  # NULL strides mean C-contiguous
        strides = None if null else [s // arr.itemsize for s in arr.strides]
        super().__init__(arr.shape, code=code, bits=8 * arr.itemsize, strides=strides, ptr=base - offset,
                         byte_offset=offset, **kw)

    @property
    def T(self):
        return _Transposed(self)


class _Transposed:
    def __init__(self, h):
        self.h = h

    def copy(self):
        import numpy as np

        return HostDlpack(np.ascontiguousarray(self.h.arr.T))
