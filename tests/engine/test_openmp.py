"""engine.openmp: the thread counts of mxlite's kernels and of NumPy's BLAS."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mxlite.engine import openmp


def test_kernel_threads_follow_omp_num_threads(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert openmp.kernel_threads() == 3
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert openmp.kernel_threads() >= 1


def test_set_blas_threads_round_trip():
    before = openmp.blas_threads()
    if before is None:
        pytest.skip("threadpoolctl finds no BLAS it can set")
    try:
        assert openmp.set_blas_threads(2) == before
        assert openmp.blas_threads() == 2
        assert not openmp.blas_is_single()
        assert openmp.set_blas_threads(1) == 2
        assert openmp.blas_is_single()
    finally:
        openmp.set_blas_threads(before)


def test_blas_threads_are_numpys_as_threadpoolctl_reports_them():
    """mxlite sets and reads NumPy's own BLAS (scipy-openblas in NumPy's wheels) through
    threadpoolctl: what it sets is what threadpoolctl reports for that library."""
    from threadpoolctl import threadpool_info

    before = openmp.blas_threads()
    if before is None:
        pytest.skip("threadpoolctl finds no BLAS it can set")
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    numpys = [i for i in blas if "numpy" in i["filepath"]] or blas
    try:
        for n in (3, 1):
            openmp.set_blas_threads(n)
            info = {i["filepath"]: i["num_threads"] for i in threadpool_info()}
            assert info[numpys[0]["filepath"]] == n == openmp.blas_threads()
    finally:
        openmp.set_blas_threads(before)


def _blas_after_engine_start(env: dict[str, str]) -> str:
    code = (
        "import mxlite as mx, mxlite.engine as e; e.get(); "
        "from mxlite.engine import openmp; print(openmp.blas_threads())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, **env},
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


def test_engine_start_applies_mxlite_blas_threads():
    if openmp.blas_threads() is None:
        pytest.skip("threadpoolctl finds no BLAS it can set")
    assert (
        _blas_after_engine_start({"MXLITE_BLAS_THREADS": "1", "OPENBLAS_NUM_THREADS": "2"}) == "1"
    )
    # 0 leaves NumPy's BLAS as NumPy set it
    assert (
        _blas_after_engine_start({"MXLITE_BLAS_THREADS": "0", "OPENBLAS_NUM_THREADS": "2"}) == "2"
    )
