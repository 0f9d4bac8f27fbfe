"""``ImageRecordIter`` and its uint8/int8 variants: MXNet's C++ image record iterator.

Design note
-----------
At construction the ``.rec`` file is scanned once for the byte span of every record (or the
``.idx`` file is read), and the shard ``part_index`` of ``num_parts`` is chosen as MXNet's
splitters choose it: by bytes without an index file, by record count with one. An epoch is
the array of record spans in reading order (shuffled with ``seed`` when ``shuffle``).

A producer thread builds the batches ahead (``prefetch_buffer`` of them) into a queue. For
each batch it draws every random number the augmenter may use (``NUM_DRAWS`` uniforms per
image, from a generator seeded by ``seed``, the epoch and the batch, or by ``seed_aug`` alone),
then hands contiguous slices of the batch to ``preprocess_threads`` worker threads. A worker
reads its records with ``os.pread`` (no shared file position), decodes and augments them with
OpenCV, which releases the GIL, and writes each crop into the batch's preallocated uint8
``(N, H, W, C)`` array. The producer then converts the whole batch at once: BGR to RGB,
``NCHW``, mean/std/scale. Because each image's randomness is fixed before any worker runs,
the output does not depend on the number of threads.

``round_batch`` fills the last batch of an epoch from the start of the data, and, as MXNet,
the next epoch then begins after the records used to fill it.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .. import recordio
from ..base import MXNetError, ParamError
from .image_aug import NUM_DRAWS, AugParams, DefaultAug, Draws
from .io import BatchIter, DataBatch, DataDesc
from .params import parse_params, read_label_list

__all__ = ["ImageRecordIter", "ImageRecordUInt8Iter", "ImageRecordInt8Iter"]

_ITER_DEFAULTS: dict[str, Any] = {
    "path_imglist": "",
    "path_imgrec": "",
    "path_imgidx": "",
    "aug_seq": "aug_default",
    "label_width": 1,
    "data_shape": None,
    "preprocess_threads": 4,
    "verbose": True,
    "num_parts": 1,
    "part_index": 0,
    "device_id": 0,
    "shuffle_chunk_size": 0,
    "shuffle_chunk_seed": 0,
    "seed_aug": None,
    "shuffle": False,
    "seed": 0,
    "batch_size": None,
    "round_batch": True,
    "prefetch_buffer": 4,
    "ctx": "gpu",
    "dtype": None,
    "mirror": False,
    "rand_mirror": False,
    "mean_img": "",
    "mean_r": 0.0,
    "mean_g": 0.0,
    "mean_b": 0.0,
    "mean_a": 0.0,
    "std_r": 1.0,
    "std_g": 1.0,
    "std_b": 1.0,
    "std_a": 1.0,
    "scale": 1.0,
    "max_random_contrast": 0.0,
    "max_random_illumination": 0.0,
    "data_name": "data",
    "label_name": "softmax_label",
}
_AUG_DEFAULTS = {f.name: f.default for f in dataclasses.fields(AugParams)}


class _Source:
    """The records of one shard of a ``.rec`` file, as ``(start, end)`` byte spans."""

    def __init__(self, name: str, path: str, path_idx: str, num_parts: int, part: int) -> None:
        if not path:
            raise ParamError(f"{name}: argument 'path_imgrec' is required")
        self.path = path
        if path_idx:
            spans = _spans_from_index(path, path_idx)
            step = (len(spans) + num_parts - 1) // num_parts
            self.spans = spans[min(step * part, len(spans)) : min(step * (part + 1), len(spans))]
        else:
            spans = recordio.scan_records(path)
            total = int(spans[-1, 1]) if len(spans) else 0
            step = (total + num_parts - 1) // num_parts
            step = (step + 3) // 4 * 4
            lo, hi = step * part, step * (part + 1)
            self.spans = spans[(spans[:, 0] >= lo) & (spans[:, 0] < hi)]
        self.fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))

    def read(self, span: np.ndarray) -> bytes:
        start, end = int(span[0]), int(span[1])
        return recordio.record_payload(os.pread(self.fd, end - start, start), self.path, start)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _spans_from_index(path: str, path_idx: str) -> np.ndarray:
    size = os.path.getsize(path)
    reader = recordio.MXIndexedRecordIO(path_idx, path, "r")
    try:
        starts = np.unique(np.fromiter(reader.idx.values(), np.int64, len(reader.idx)))
    finally:
        reader.close()
    if len(starts) and (starts[0] < 0 or starts[-1] >= size):
        raise MXNetError(f"index file {path_idx!r}: an offset lies outside {path!r} ({size} bytes)")
    return np.stack([starts, np.append(starts[1:], size)], axis=1)


class ImageRecordIter(BatchIter):
    """Iterates on image RecordIO files (MXNet's C++ ``ImageRecordIter``).

    Reads batches of images from a ``.rec`` file, decodes them with OpenCV, augments them with
    MXNet's default augmenter and returns ``(batch, c, h, w)`` data, RGB, normalised as
    ``(pixel - mean) / std * scale``. Takes MXNet's parameters: ``path_imgrec``,
    ``path_imglist``, ``path_imgidx``, ``data_shape``, ``batch_size``, ``label_width``,
    ``shuffle``, ``seed``, ``seed_aug``, ``round_batch``, ``preprocess_threads``,
    ``prefetch_buffer``, ``num_parts``, ``part_index``, ``resize``, ``rand_crop``,
    ``random_resized_crop``, ``rand_mirror``, ``mirror``, ``max_rotate_angle``,
    ``max_aspect_ratio``, ``min_aspect_ratio``, ``max_shear_ratio``, ``max_crop_size``,
    ``min_crop_size``, ``max_random_scale``, ``min_random_scale``, ``max_random_area``,
    ``min_random_area``, ``max_img_size``, ``min_img_size``, ``brightness``, ``contrast``,
    ``saturation``, ``pca_noise``, ``random_h``, ``random_s``, ``random_l``, ``rotate``,
    ``fill_value``, ``inter_method``, ``pad``, ``mean_img``, ``mean_r/g/b/a``,
    ``std_r/g/b/a``, ``scale``, ``max_random_contrast``, ``max_random_illumination``,
    ``dtype``, ``data_name``, ``label_name`` (and ``verbose``, ``ctx``, ``device_id``,
    ``shuffle_chunk_size``, ``shuffle_chunk_seed``, ``aug_seq``, accepted).

    Shuffling and random augmentation are reproducible under ``seed`` (and ``seed_aug``) but
    are not MXNet's random sequences.
    """

    _out_dtype = "float32"

    def __init__(self, **kwargs: Any) -> None:
        name = type(self).__name__
        params = parse_params(name, kwargs, self._param_table())
        for req in ("data_shape", "batch_size"):
            if params[req] is None:
                raise ParamError(f"{name}: argument '{req}' is required")
        shape = tuple(int(v) for v in params["data_shape"])
        if len(shape) != 3 or shape[0] not in (1, 3, 4):
            raise ParamError(f"{name}: data_shape must be (c, h, w) with c in 1, 3, 4, got {shape}")
        params["data_shape"] = shape
        super().__init__(int(params["batch_size"]))
        self.p = params
        from ..opencv import require_cv2

        self._cv2 = require_cv2(name)
        self._aug = self._make_aug()
        if not 0 <= params["part_index"] < params["num_parts"]:
            raise ParamError(
                f"{name}: part_index must be in [0, num_parts={params['num_parts']}), got "
                f"{params['part_index']}"
            )
        self._src = _Source(
            name,
            params["path_imgrec"],
            params["path_imgidx"],
            params["num_parts"],
            params["part_index"],
        )
        if len(self._src.spans) == 0:
            raise MXNetError(
                f"{name}: no records in part {params['part_index']} of {params['path_imgrec']!r}"
            )
        self._labels = None
        if params["path_imglist"]:
            self._labels = read_label_list(name, params["path_imglist"], self._list_width())
        dtype = params["dtype"] or self._out_dtype
        if dtype not in ("float32", "float16", "float64", "uint8", "int8", "int32"):
            raise ParamError(f"{name}: unsupported dtype {dtype!r}")
        self._dtype = np.dtype(dtype)
        self._flag = {1: 0, 3: 1, 4: -1}[shape[0]]
        self._set_normalisation()
        self.provide_data = [DataDesc(params["data_name"], (self.batch_size,) + shape, self._dtype)]
        lw = self._label_size()
        label_shape = (self.batch_size,) if lw == 1 else (self.batch_size, lw)
        self.provide_label = [DataDesc(params["label_name"], label_shape, np.float32)]
        threads = max(1, int(params["preprocess_threads"]))
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="mxlite-imgrec")
        self._threads = threads
        self._epoch = 0
        self._start = 0  # where the next epoch begins (after round_batch's wrap-around)
        self._queue: queue.Queue | None = None
        self._stop: threading.Event | None = None
        self._producer: threading.Thread | None = None
        self.current_batch: DataBatch | None = None
        self._begin_epoch()

    def _param_table(self) -> dict:
        return {**_AUG_DEFAULTS, **_ITER_DEFAULTS}

    def _make_aug(self) -> Any:
        if self.p["label_width"] < 1:
            raise ParamError(
                f"{type(self).__name__}: argument 'label_width' must be >= 1, got "
                f"{self.p['label_width']}"
            )
        return DefaultAug(AugParams(**{k: self.p[k] for k in _AUG_DEFAULTS}), self._cv2)

    def _list_width(self) -> int:
        return self.p["label_width"]

    def _num_draws(self) -> int:
        return NUM_DRAWS

    # ---- normalisation ---------------------------------------------------------------------
    def _set_normalisation(self) -> None:
        p, c = self.p, self.p["data_shape"][0]
        mean = np.array([p["mean_r"], p["mean_g"], p["mean_b"], p["mean_a"]][:c], np.float32)
        std = np.array([p["std_r"], p["std_g"], p["std_b"], p["std_a"]][:c], np.float32)
        self._mean_img = None
        if p["mean_img"]:
            self._mean_img = self._load_mean_img(p["mean_img"])
        self._mean = mean.reshape(1, c, 1, 1)
        inv = np.divide(1.0, std, out=np.zeros_like(std), where=std != 0)
        self._inv_std = inv.astype(np.float32).reshape(1, c, 1, 1)
        self._random_norm = p["max_random_contrast"] > 0 or p["max_random_illumination"] > 0

    def _load_mean_img(self, path: str) -> np.ndarray:
        from .. import ndarray as nd

        if not os.path.exists(path):
            self._save_mean_img(path)
        loaded = nd.load(path)
        arr = loaded["mean_img"] if isinstance(loaded, dict) else loaded[0]
        mean = arr.asnumpy().astype(np.float32)
        if mean.shape != self.p["data_shape"]:
            raise MXNetError(
                f"{type(self).__name__}: mean_img {path!r} has shape {mean.shape}, expected "
                f"{self.p['data_shape']}"
            )
        return mean[None]

    def _save_mean_img(self, path: str) -> None:
        """As MXNet: average the images of the data (decoded, resized and cropped without
        randomness, RGB, ``(c, h, w)``) and save it under the key ``mean_img``."""
        from .. import ndarray as nd

        c, h, w = self.p["data_shape"]
        total = np.zeros((c, h, w), np.float64)
        still = np.zeros(NUM_DRAWS, np.float64) + 0.5  # the centre of every random range
        for span in self._src.spans:
            _, data = recordio.unpack(self._src.read(span))
            img = self._cv2.imdecode(np.frombuffer(data, np.uint8), self._flag)
            img = img[:, :, None] if img.ndim == 2 else img
            res = self._aug.process(img, Draws(still))
            chw = res.transpose(2, 0, 1)
            total += chw[[2, 1, 0, 3][:c]] if c >= 3 else chw
        mean = (total / max(len(self._src.spans), 1)).astype(np.float32)
        nd.save(path, {"mean_img": nd.array(mean)})

    # ---- epochs and the producer -----------------------------------------------------------
    def _order(self) -> np.ndarray:
        spans = self._src.spans
        if not self.p["shuffle"]:
            return spans
        rng = np.random.default_rng((int(self.p["seed"]), self._epoch))
        return spans[rng.permutation(len(spans))]

    def _begin_epoch(self) -> None:
        order = self._order()
        self._queue = queue.Queue(max(1, int(self.p["prefetch_buffer"])))
        self._stop = threading.Event()
        # The thread holds the iterator only weakly, so an iterator dropped mid-epoch is
        # collected (its __del__ stops the thread) instead of living on in a blocked put().
        self._producer = threading.Thread(
            target=_produce,
            args=(weakref.ref(self), order, self._start, self._epoch, self._queue, self._stop),
            name="mxlite-imgrec-prefetch",
            daemon=True,
        )
        self._producer.start()

    def _plan(self, order: np.ndarray, pos: int) -> tuple[np.ndarray, int, int]:
        """The spans of the batch at ``pos``, its pad and where the next epoch starts."""
        bs, n = self.batch_size, len(order)
        take = order[pos : pos + bs]
        pad = bs - len(take)
        if not (pad and self.p["round_batch"]):
            return take, pad, 0
        if n < bs:
            raise MXNetError(
                f"{type(self).__name__}: number of input images must be bigger than the batch size"
            )
        wrap = self._order() if self.p["shuffle"] else order
        return np.concatenate([take, wrap[:pad]]), pad, pad

    def _make_batch(self, spans: np.ndarray, epoch: int, k: int, bs: int) -> tuple:
        c, h, w = self.p["data_shape"]
        pixels = np.zeros((bs, h, w, c), dtype=np.uint8)
        labels = np.zeros((bs, self._label_size()), dtype=np.float32)
        seed = (
            (int(self.p["seed_aug"]),)
            if self.p["seed_aug"] is not None
            else (int(self.p["seed"]), epoch, k)
        )
        draws = np.random.default_rng(seed).random((bs, self._num_draws() + 4))
        ids = np.zeros(bs, np.uint64)  # the image ids (header.id), for getindex
        n = len(spans)
        step = (n + self._threads - 1) // self._threads
        futures = [
            self._pool.submit(self._work, spans, i, min(i + step, n), pixels, labels, draws, ids)
            for i in range(0, n, step)
        ]
        for f in futures:
            f.result()
        return (*self._finish(pixels, labels, draws), ids)

    def _work(
        self,
        spans: np.ndarray,
        lo: int,
        hi: int,
        pixels: np.ndarray,
        labels: np.ndarray,
        draws: np.ndarray,
        ids: np.ndarray,
    ) -> None:
        cv2, name = self._cv2, type(self).__name__
        for i in range(lo, hi):
            header, data = recordio.unpack(self._src.read(spans[i]))
            img = cv2.imdecode(np.frombuffer(data, np.uint8), self._flag)
            if img is None:
                raise MXNetError(
                    f"{name}: record at offset {spans[i][0]} of {self._src.path!r} (id "
                    f"{header.id}) is not a decodable image"
                )
            if img.ndim == 2:
                img = img[:, :, None]
            ids[i] = header.id
            res, labels[i] = self._augment(img, header, draws[i])
            rows, cols = res.shape[:2]
            if rows > pixels.shape[1] or cols > pixels.shape[2] or res.shape[2] != pixels.shape[3]:
                raise MXNetError(
                    f"{name}: augmented image has shape {res.shape}, expected {pixels.shape[1:]}"
                )
            pixels[i, :rows, :cols] = res

    def _record_label(self, header: Any) -> np.ndarray:
        lw, name = self.p["label_width"], type(self).__name__
        if self._labels is not None:
            if header.id not in self._labels:
                raise MXNetError(f"{name}: image id {header.id} is not in path_imglist")
            return self._labels[header.id]
        if header.flag > 0:
            if header.flag != lw:
                raise MXNetError(
                    f"{name}: the rec file provides {header.flag}-dimensional labels, but "
                    f"label_width is {lw}"
                )
            return header.label
        if lw != 1:
            raise MXNetError(
                f"{name}: label_width must be 1 unless an imglist is provided or the rec file "
                "is packed with multi dimensional label"
            )
        return np.array([header.label], np.float32)

    def _augment(self, img: np.ndarray, header: Any, row: np.ndarray) -> tuple:
        """The augmented (and mirrored) image and the label of one record."""
        label = self._record_label(header)
        res = self._aug.process(img, Draws(row[4:]))
        if self.p["mirror"] or (self.p["rand_mirror"] and row[0] < 0.5):
            res = res[:, ::-1]
        return res, label

    def _label_size(self) -> int:
        return self.p["label_width"]

    def _finish(self, pixels: np.ndarray, labels: np.ndarray, draws: np.ndarray) -> tuple:
        c = pixels.shape[3]
        chw = pixels.transpose(0, 3, 1, 2)
        if c >= 3:
            chw = chw[:, [2, 1, 0, 3][:c]]  # OpenCV's BGR(A) to RGB(A)
        if self._dtype == np.uint8:
            data = np.ascontiguousarray(chw)
        elif self._dtype == np.int8:
            mean = self._mean_img if self._mean_img is not None else self._mean
            shifted = chw.astype(np.int16, order="C") - np.round(mean).astype(np.int16)
            data = np.clip(shifted, -128, 127).astype(np.int8)
        else:
            data = np.empty(chw.shape, np.float32)
            mean = self._mean_img if self._mean_img is not None else self._mean
            np.subtract(chw, mean, out=data)
            mult = self._inv_std * np.float32(self.p["scale"])
            if self._random_norm:
                p = self.p
                contrast = (
                    draws[:, 1] * p["max_random_contrast"] * 2 - p["max_random_contrast"] + 1
                ) * p["scale"]
                illum = (
                    draws[:, 2] * p["max_random_illumination"] * 2 - p["max_random_illumination"]
                ) * p["scale"]
                mult = self._inv_std * contrast.astype(np.float32).reshape(-1, 1, 1, 1)
                data *= mult
                data += self._inv_std * illum.astype(np.float32).reshape(-1, 1, 1, 1)
            elif not np.all(mult == 1):
                data *= mult
            if self._dtype != np.float32:
                data = data.astype(self._dtype)
        lab = labels[:, 0] if self._label_size() == 1 else labels
        return data, np.ascontiguousarray(lab)

    def _shutdown_producer(self) -> None:
        if self._producer is None:
            return
        self._stop.set()
        if threading.current_thread() is self._producer:
            return  # collected on its own thread: it ends once this returns
        while self._producer.is_alive():
            try:
                self._queue.get(timeout=0.05)
            except queue.Empty:
                pass
        self._producer = None

    # ---- DataIter ----------------------------------------------------------------------------
    def reset(self) -> None:
        self._shutdown_producer()
        self._epoch += 1
        self._begin_epoch()

    def iter_next(self) -> bool:
        from ..ndarray import from_numpy

        if self._queue is None:
            return False
        item = self._queue.get()
        if item is None:
            self._queue.put(None)  # later calls see the end again
            return False
        if isinstance(item, BaseException):
            self._queue.put(item)
            raise item
        (data, label, ids), pad, next_start = item
        self._start = next_start
        self.current_batch = DataBatch(
            [from_numpy(data)],
            [from_numpy(label)],
            pad=pad,
            index=ids,
            provide_data=self.provide_data,
            provide_label=self.provide_label,
        )
        return True

    def close(self) -> None:
        """Stops the workers and closes the file."""
        self._shutdown_producer()
        self._pool.shutdown(wait=True)
        self._src.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing can be reported from a finaliser
            pass


def _produce(
    ref: Any, order: np.ndarray, start: int, epoch: int, out: queue.Queue, stop: Any
) -> None:
    """The prefetch thread of one epoch: puts ``(batch, pad, next_start)`` items, then None
    (or the exception that stopped it)."""

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                out.put(item, timeout=0.2)
                return True
            except queue.Full:
                if ref() is None:
                    return False
        return False

    try:
        pos, k = start, 0
        while pos < len(order) and not stop.is_set():
            it = ref()
            if it is None:
                return
            take, pad, next_start = it._plan(order, pos)
            batch = it._make_batch(take, epoch, k, it.batch_size)
            pos += it.batch_size
            del it
            if not put((batch, pad, next_start)):
                return
            k += 1
        put(None)
    except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
        put(exc)


class ImageRecordUInt8Iter(ImageRecordIter):
    """``ImageRecordIter`` returning the raw uint8 pixels (no mean, std or scale)."""

    _out_dtype = "uint8"


class ImageRecordInt8Iter(ImageRecordIter):
    """``ImageRecordIter`` returning int8 pixels: ``saturate(pixel - round(mean))``."""

    _out_dtype = "int8"
