"""Installs the start-up hook ``mxlite-as-mxnet.pth`` into site-packages beside the package
(pyproject.toml holds everything else). The hook does nothing unless MXLITE_AS_MXNET=1; see
mxlite/run/__init__.py. Editable installs (pip install -e) do not install data files: there, use
``python -m mxlite.run`` or ``mxlite.as_mxnet()``."""

import sysconfig

from setuptools import setup

SITE = sysconfig.get_path("purelib", vars={"base": ".", "platbase": "."})

setup(data_files=[(SITE, ["mxlite-as-mxnet.pth"])])
