"""python -m mxlite.launch: the mpiexec command it builds (jobs themselves run in
tests/kvstore/test_dist.py)."""

from __future__ import annotations

import os
import sys

import pytest

from mxlite import launch


@pytest.fixture
def fake_open_mpi(monkeypatch):
    monkeypatch.setattr(launch, "_is_open_mpi", lambda path: True)


def test_command_for_workers_and_servers(fake_open_mpi, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    cmd, env = launch.mpiexec_command(2, 1, None, ["train.py", "--lr", "0.1"], "/x/mpiexec")
    assert cmd[:3] == ["/x/mpiexec", "-n", "3"]
    assert "--allow-run-as-root" not in cmd and "--oversubscribe" in cmd
    assert cmd[cmd.index("--bind-to") + 1] == "none"
    tail = [sys.executable, "-m", "mxlite.launch", "--rank-entry", "train.py", "--lr", "0.1"]
    assert cmd[-7:] == tail
    assert env["MXLITE_NUM_SERVERS"] == "1"


def test_root_is_allowed(fake_open_mpi, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    cmd, env = launch.mpiexec_command(1, 0, "hosts.txt", ["t.py"], "/x/mpiexec")
    assert "--allow-run-as-root" in cmd
    assert env["OMPI_ALLOW_RUN_AS_ROOT"] == env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    assert cmd[cmd.index("--hostfile") + 1] == "hosts.txt"


def test_mpich_gets_its_own_flags(monkeypatch):
    monkeypatch.setattr(launch, "_is_open_mpi", lambda path: False)
    cmd, _ = launch.mpiexec_command(2, 0, None, ["t.py"], "/x/mpiexec")
    assert "--oversubscribe" not in cmd
    assert cmd[cmd.index("-genv") : cmd.index("-genv") + 3] == ["-genv", "MXLITE_NUM_SERVERS", "0"]


@pytest.mark.parametrize("argv", [["-n", "0", "t.py"], ["-n", "2"], ["-n", "2", "-s", "-1", "t"]])
def test_bad_arguments(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        launch.main(argv)
    assert exc.value.code == 2


def test_no_mpiexec_says_which_extra(monkeypatch):
    monkeypatch.setattr(launch.sys, "executable", "/nowhere/python")
    monkeypatch.setattr(launch.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match=r"mxlite\[dist\]"):
        launch._find_mpiexec()
