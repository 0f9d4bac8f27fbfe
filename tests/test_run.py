"""The opt-in ``import mxnet`` alias (mxlite/run.py): each way of opting in, propagation to the
processes a script starts, one module object per module, and no shadowing when off. Each case
runs in a fresh interpreter, so the test process itself never gets the alias."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str, *args: str, env: dict | None = None, cwd: Path | None = None) -> str:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MXLITE_")}
    full["PYTHONPATH"] = os.pathsep.join([str(ROOT), *(env or {}).pop("PYTHONPATH", [])])
    full.update(env or {})
    out = subprocess.run(
        [sys.executable, *args] if not code else [sys.executable, "-c", code, *args],
        env=full, cwd=cwd, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


CHECK = textwrap.dedent(
    """
    import mxnet, mxlite
    import mxnet.gluon, mxnet.ndarray.ndarray as ndmod
    from mxnet.test_utils import *
    assert mxnet is mxlite
    assert mxnet.base.MXNetError is mxlite.base.MXNetError
    assert ndmod is mxlite.ndarray.ndarray and mxnet.gluon is mxlite.gluon
    assert assert_almost_equal is mxlite.test_utils.assert_almost_equal
    print("alias ok", mxnet.nd.ones((2,)).sum().asscalar())
    """
)


def test_as_mxnet_in_code() -> None:
    assert _python("import mxlite; mxlite.as_mxnet()\n" + CHECK) == "alias ok 2.0"


def test_run_a_script_and_its_child_processes(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(
        textwrap.dedent(
            """
            import subprocess, sys, multiprocessing as mp
            import mxnet as mx

            def child(q):
                import mxnet
                q.put(mxnet.__name__)

            if __name__ == "__main__":
                print("script", mx.__name__, sys.argv[1:])
                out = subprocess.run([sys.executable, "-c", "import mxnet; print(mxnet.__name__)"],
                                     capture_output=True, text=True).stdout.strip()
                print("subprocess", out)
                ctx = mp.get_context("spawn")
                q = ctx.Queue()
                p = ctx.Process(target=child, args=(q,))
                p.start(); print("spawn", q.get()); p.join()
            """
        )
    )
    out = _python("", "-m", "mxlite.run", str(script), "--epochs", "2", cwd=tmp_path)
    assert out.splitlines() == [
        "script mxlite ['--epochs', '2']",
        "subprocess mxlite",
        "spawn mxlite",
    ]


def test_run_a_module(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "job.py").write_text(
        "import sys, mxnet\nprint(mxnet.__name__, __name__, sys.argv[1:])\n"
    )
    out = _python("", "-m", "mxlite.run", "-m", "pkg.job", "x", env={"PYTHONPATH": [str(tmp_path)]})
    assert out == "mxlite __main__ ['x']"


def test_the_startup_hook_acts_only_with_the_variable(tmp_path: Path) -> None:
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    (site_dir / "mxlite-as-mxnet.pth").write_text((ROOT / "mxlite-as-mxnet.pth").read_text())
    fake = tmp_path / "fake"
    (fake / "mxnet").mkdir(parents=True)
    (fake / "mxnet" / "__init__.py").write_text("REAL = 'the other mxnet'\n")
    code = (
        f"import site; site.addsitedir({str(site_dir)!r})\n"
        "import mxlite, mxnet\nprint(getattr(mxnet, 'REAL', mxnet.__name__))"
    )
    paths = {"PYTHONPATH": [str(fake)]}
    assert _python(code, env=dict(paths)) == "the other mxnet"  # off: never shadowed
    on = dict(paths, MXLITE_AS_MXNET="1")
    assert _python(code, env=on) == "mxlite"


def test_as_mxnet_refuses_when_another_mxnet_is_imported(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    (fake / "mxnet").mkdir(parents=True)
    (fake / "mxnet" / "__init__.py").write_text("")
    code = (
        "import mxnet, mxlite\ntry:\n    mxlite.as_mxnet()\n"
        "except ImportError as e:\n    print('refused', 'mxnet' in str(e))"
    )
    assert _python(code, env={"PYTHONPATH": [str(fake)]}) == "refused True"


@pytest.mark.parametrize("flag", [True, False])
def test_numpy_aliases_only_when_asked(tmp_path: Path, flag: bool) -> None:
    script = tmp_path / "old.py"
    script.write_text("import numpy as np\nprint(hasattr(np, 'int') and np.int is int)\n")
    args = ["-W", "always", "-m", "mxlite.run", *(["--numpy-aliases"] if flag else []), str(script)]
    out = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert out.stdout.strip() == str(flag)
    assert ("np.int" in out.stderr) is flag


def test_numpy_aliases_restore_binary_fromstring(tmp_path: Path) -> None:
    script = tmp_path / "old.py"
    script.write_text(
        "import numpy as np\n"
        "a = np.fromstring(b'\\x01\\x02', dtype=np.uint8)\n"
        "a[0] = 7\n"  # a writable copy, as fromstring gave
        "print(a.tolist(), np.fromstring('1 2', sep=' ').tolist())\n"
    )
    out = _python("", "-m", "mxlite.run", "--numpy-aliases", str(script))
    assert out == "[7, 2] [1.0, 2.0]"


def test_numpy_aliases_reach_child_processes(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    child = "import mxnet, numpy as np; print(np.int is int)"
    script.write_text(
        "import subprocess, sys\n"
        f"print(subprocess.run([sys.executable, '-c', {child!r}], capture_output=True,"
        " text=True).stdout.strip())\n"
    )
    assert _python("", "-m", "mxlite.run", "--numpy-aliases", str(script)) == "True"
