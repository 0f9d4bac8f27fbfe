"""``mx.runtime``: which features this build has (MXNet's ``Features``), for mxlite.

The names are MXNet 1.9.1's; a feature is enabled when mxlite provides it here: GPU support
needs CuPy and a GPU, the distributed KVStore needs mpi4py, image decoding an image library.
"""

from __future__ import annotations

import collections
import importlib.util

__all__ = ["Feature", "Features", "feature_list"]

_NAMES = (
    "CUDA CUDNN NCCL CUDA_RTC TENSORRT CPU_SSE CPU_SSE2 CPU_SSE3 CPU_SSE4_1 CPU_SSE4_2 "
    "CPU_SSE4A CPU_AVX CPU_AVX2 OPENMP SSE F16C JEMALLOC BLAS_OPEN BLAS_ATLAS BLAS_MKL "
    "BLAS_APPLE LAPACK MKLDNN OPENCV CAFFE PROFILER DIST_KVSTORE CXX14 INT64_TENSOR_SIZE "
    "SIGNAL_HANDLER DEBUG TVM_OP"
).split()


def _has(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _enabled() -> set[str]:
    from .context import num_gpus

    on = {"BLAS_OPEN", "LAPACK", "PROFILER", "CXX14", "INT64_TENSOR_SIZE", "SSE"}
    if num_gpus() > 0:
        on.add("CUDA")
    if _has("mpi4py"):
        on.add("DIST_KVSTORE")
    if _has("cv2"):
        on.add("OPENCV")
    return on


class Feature:
    """One feature: ``name`` and whether it is ``enabled``."""

    __slots__ = ("name", "enabled")

    def __init__(self, name: str, enabled: bool) -> None:
        self.name = name
        self.enabled = enabled

    def __repr__(self) -> str:
        return f"✔ {self.name}" if self.enabled else f"✖ {self.name}"


def feature_list() -> list[Feature]:
    """Every feature MXNet 1.9.1 knows, with whether mxlite provides it."""
    on = _enabled()
    return [Feature(n, n in on) for n in _NAMES]


class Features(collections.OrderedDict):
    """The features by name (``mx.runtime.Features().is_enabled('CUDA')``)."""

    _instance: Features | None = None

    def __new__(cls) -> Features:
        # one instance per process, as MXNet's (the build does not change while it runs)
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            collections.OrderedDict.__init__(cls._instance, ((f.name, f) for f in feature_list()))
        return cls._instance

    def __init__(self) -> None:
        pass

    def __repr__(self) -> str:
        return str(list(self.values()))

    def is_enabled(self, feature_name: str) -> bool:
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError(
                f"Feature '{feature_name}' is unknown, known features are: {list(self.keys())}"
            )
        return self[name].enabled
