"""``mx.test_utils``: MXNet 1.9.1's public helpers for testing, on mxlite's NDArrays.

``common.py`` holds contexts, random data and environment helpers, ``compare.py`` tolerances
and comparisons, ``symbolic.py`` the symbol-based checkers, ``stats.py`` the statistical
checks, ``data.py`` downloads and datasets, ``optimizer.py`` ``compare_optimizer``.

No ``__all__`` on purpose: MXNet's tests do ``from mxnet.test_utils import *`` and then use
``np``, ``rnd``, ``npt``, ``os``, ``sys``, ``time``, ``logging``... without importing them:
the modules MXNet's ``test_utils`` imports are handed on under the same names.
"""

import bz2 as bz2
import errno as errno
import gzip as gzip
import json as json
import logging as logging
import numbers as numbers
import os as os
import platform as platform
import struct as struct
import sys as sys
import time as time
import traceback as traceback
import zipfile as zipfile
from collections import OrderedDict as OrderedDict
from contextlib import contextmanager as contextmanager

import numpy as np  # noqa: F401  (handed on for ``import *``, as above)
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

from ..base import MXNetError as MXNetError
from ..context import Context as Context
from ..context import current_context as current_context
from ..context import num_gpus as num_gpus
from ..ndarray import array as array  # re-exported: MXNet's tests use it after import *
from ..runtime import Features as Features  # re-exported, as above
from ..symbol import Symbol as Symbol  # re-exported, as above
from ..util import getenv as getenv
from ..util import setenv as setenv
from ..util import use_np as use_np
from ._hybridize_check import (
    check_gluon_hybridize_consistency as check_gluon_hybridize_consistency,
)
from .checks import check_speed as check_speed
from .checks import same_symbol_structure as same_symbol_structure
from .common import assert_exception as assert_exception
from .common import assert_raises_cuda_not_satisfied as assert_raises_cuda_not_satisfied
from .common import assert_raises_cudnn_not_satisfied as assert_raises_cudnn_not_satisfied
from .common import assign_each as assign_each
from .common import assign_each2 as assign_each2
from .common import create_2d_tensor as create_2d_tensor
from .common import create_sparse_array as create_sparse_array
from .common import create_sparse_array_zd as create_sparse_array_zd
from .common import create_vector as create_vector
from .common import default_context as default_context
from .common import default_dtype as default_dtype
from .common import environment as environment
from .common import get_identity_mat as get_identity_mat
from .common import get_identity_mat_batch as get_identity_mat_batch
from .common import has_tvm_ops as has_tvm_ops
from .common import is_aarch64_run as is_aarch64_run
from .common import is_cd_run as is_cd_run
from .common import is_op_runnable as is_op_runnable
from .common import list_gpus as list_gpus
from .common import np_reduce as np_reduce
from .common import rand_coord_2d as rand_coord_2d
from .common import rand_ndarray as rand_ndarray
from .common import rand_shape_2d as rand_shape_2d
from .common import rand_shape_3d as rand_shape_3d
from .common import rand_shape_nd as rand_shape_nd
from .common import rand_sparse_ndarray as rand_sparse_ndarray
from .common import random_arrays as random_arrays
from .common import random_sample as random_sample
from .common import random_uniform_arrays as random_uniform_arrays
from .common import retry as retry
from .common import set_default_context as set_default_context
from .common import set_env_var as set_env_var
from .common import shuffle_csr_column_indices as shuffle_csr_column_indices
from .common import with_environment as with_environment
from .compare import almost_equal as almost_equal
from .compare import assert_allclose as assert_allclose
from .compare import assert_almost_equal as assert_almost_equal
from .compare import (
    assert_almost_equal_ignore_nan as assert_almost_equal_ignore_nan,
)
from .compare import assert_almost_equal_with_err as assert_almost_equal_with_err
from .compare import checkShapes as checkShapes
from .compare import compare_ndarray_tuple as compare_ndarray_tuple
from .compare import default_atols as default_atols
from .compare import default_numeric_eps as default_numeric_eps
from .compare import default_rtols as default_rtols
from .compare import effective_dtype as effective_dtype
from .compare import find_max_violation as _find_max_violation  # noqa: F401
from .compare import get_atol as get_atol
from .compare import get_etol as get_etol
from .compare import get_rtol as get_rtol
from .compare import get_tolerance as get_tolerance
from .compare import get_tols as get_tols
from .compare import locationError as locationError
from .compare import same as same
from .compare import same_array as same_array
from .data import DummyIter as DummyIter
from .data import discard_stderr as discard_stderr
from .data import download as download
from .data import download_model as download_model
from .data import get_bz2_data as get_bz2_data
from .data import get_cifar10 as get_cifar10
from .data import get_im2rec_path as get_im2rec_path
from .data import get_mnist as get_mnist
from .data import get_mnist_iterator as get_mnist_iterator
from .data import get_mnist_pkl as get_mnist_pkl
from .data import get_mnist_ubyte as get_mnist_ubyte
from .data import get_zip_data as get_zip_data
from .optimizer import compare_optimizer as compare_optimizer
from .stats import chi_square_check as chi_square_check
from .stats import collapse_sum_like as collapse_sum_like
from .stats import gen_buckets_probs_with_ppf as gen_buckets_probs_with_ppf
from .stats import mean_check as mean_check
from .stats import new_matrix_with_real_eigvals_2d as new_matrix_with_real_eigvals_2d
from .stats import new_matrix_with_real_eigvals_nd as new_matrix_with_real_eigvals_nd
from .stats import new_orthonormal_matrix_2d as new_orthonormal_matrix_2d
from .stats import (
    new_sym_matrix_with_real_eigvals_2d as new_sym_matrix_with_real_eigvals_2d,
)
from .stats import (
    new_sym_matrix_with_real_eigvals_nd as new_sym_matrix_with_real_eigvals_nd,
)
from .stats import var_check as var_check
from .stats import verify_generator as verify_generator
from .symbolic import check_consistency as check_consistency
from .symbolic import check_numeric_gradient as check_numeric_gradient
from .symbolic import check_symbolic_backward as check_symbolic_backward
from .symbolic import check_symbolic_forward as check_symbolic_forward
from .symbolic import numeric_grad as numeric_grad
from .symbolic import simple_forward as simple_forward

# MXNet's test_utils does `import mxnet as mx`, so `from mxnet.test_utils import *` hands `mx`
# on. The root package is being imported when this runs (it imports us): take it from
# sys.modules rather than importing it back, which would tie the top and bottom in a circle.
mx = sys.modules[__name__.partition(".")[0]]
