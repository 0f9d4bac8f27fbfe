"""``ImageDetRecordIter``: MXNet's C++ detection record iterator.

It reads the same ``.rec`` files as ``ImageRecordIter`` whose records carry a detection label
``[header_width, object_width, (extra header...), (id, xmin, ymin, xmax, ymax, ...) x N]``
(coordinates in ``[0, 1]``), and returns for each image the row
``[channels, height, width, label_length, label..., label_pad_value...]`` of width
``label_pad_width + 4`` (``label_pad_width`` defaults to the longest label of the data), as
MXNet does. Augmentation follows MXNet's ``det_aug_default``: shorter-edge ``resize``,
HSL and contrast jitter, random mirroring, padding and cropping (with MXNet's crop samplers
and constraints), then ``resize_mode`` ('force', 'shrink' or 'fit') to ``data_shape`` (see
``image_det_aug``); normalisation subtracts ``mean_*`` and divides by the positive
``std_*``, then multiplies by ``scale``. Random choices are reproducible under ``seed`` but are
not MXNet's sequences.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import recordio
from ..base import MXNetError
from .image_aug import Draws
from .image_det_aug import DetAug
from .image_record_iter import _ITER_DEFAULTS, ImageRecordIter

__all__ = ["ImageDetRecordIter"]

_DET_DEFAULTS: dict[str, Any] = {
    **_ITER_DEFAULTS,
    "aug_seq": "det_aug_default",
    "label_width": -1,
    "label_pad_width": 0,
    "label_pad_value": -1.0,
    "std_r": 0.0,
    "std_g": 0.0,
    "std_b": 0.0,
    "std_a": 0.0,
    "resize": -1,
    "rand_crop_prob": 0.0,
    "min_crop_scales": (0.0,),
    "max_crop_scales": (1.0,),
    "min_crop_aspect_ratios": (1.0,),
    "max_crop_aspect_ratios": (1.0,),
    "min_crop_overlaps": (0.0,),
    "max_crop_overlaps": (1.0,),
    "min_crop_sample_coverages": (0.0,),
    "max_crop_sample_coverages": (1.0,),
    "min_crop_object_coverages": (0.0,),
    "max_crop_object_coverages": (1.0,),
    "num_crop_sampler": 1,
    "crop_emit_mode": "center",
    "emit_overlap_thresh": 0.3,
    "max_crop_trials": (25,),
    "rand_pad_prob": 0.0,
    "max_pad_scale": 1.0,
    "max_random_hue": 0,
    "random_hue_prob": 0.0,
    "max_random_saturation": 0,
    "random_saturation_prob": 0.0,
    "max_random_illumination": 0,
    "random_illumination_prob": 0.0,
    "max_random_contrast": 0.0,
    "random_contrast_prob": 0.0,
    "rand_mirror_prob": 0.0,
    "fill_value": 127,
    "inter_method": 1,
    "resize_mode": "force",
}
for _key in ("mirror", "rand_mirror", "max_random_contrast", "max_random_illumination"):
    _DET_DEFAULTS.pop(_key, None)
_DET_DEFAULTS.update(max_random_contrast=0.0, max_random_illumination=0)


class ImageDetRecordIter(ImageRecordIter):
    """Iterates on image RecordIO files with detection labels (MXNet's C++
    ``ImageDetRecordIter``); see the module note for its parameters and label layout."""

    def _param_table(self) -> dict:
        return dict(_DET_DEFAULTS)

    def _make_aug(self) -> Any:
        return DetAug(self.p, self._cv2)

    def _num_draws(self) -> int:
        return self._aug.max_draws

    def _list_width(self) -> int:
        return max(self.p["label_width"], 0)

    def _set_normalisation(self) -> None:
        super()._set_normalisation()
        p, c = self.p, self.p["data_shape"][0]
        std = np.array([p["std_r"], p["std_g"], p["std_b"], p["std_a"]][:c], np.float32)
        # As MXNet's ImageDetNormalizeIter: only a positive std divides.
        self._std = np.where(std > 0, std, 1).astype(np.float32).reshape(1, c, 1, 1)
        self._pad_width = self._estimate_pad_width()

    def _finish(self, pixels: np.ndarray, labels: np.ndarray, draws: np.ndarray) -> tuple:
        c = pixels.shape[3]
        chw = pixels.transpose(0, 3, 1, 2)
        if c >= 3:
            chw = chw[:, [2, 1, 0, 3][:c]]
        mean = self._mean_img if self._mean_img is not None else self._mean
        data = np.empty(chw.shape, np.float32)
        np.subtract(chw, mean, out=data)
        data /= self._std
        data *= np.float32(self.p["scale"])
        return data.astype(self._dtype, copy=False), labels

    def _estimate_pad_width(self) -> int:
        widths = []
        if self._labels is not None:
            widths = [len(v) for v in self._labels.values()]
        else:
            for span in self._src.spans:
                header, _ = recordio.unpack(self._src.read(span))
                widths.append(header.flag)
        longest = max(widths) if widths else 0
        wanted = self.p["label_pad_width"]
        if wanted > 0 and longest > wanted:
            raise MXNetError(
                f"ImageDetRecordIter: label_pad_width {wanted} is smaller than the longest "
                f"label ({longest})"
            )
        return max(wanted, longest)

    def _label_size(self) -> int:
        return self._pad_width + 4

    def _augment(self, img: np.ndarray, header: Any, row: np.ndarray) -> tuple:
        if self._labels is not None:
            if header.id not in self._labels:
                raise MXNetError(f"ImageDetRecordIter: image id {header.id} is not in path_imglist")
            raw = np.array(self._labels[header.id], np.float32)
        elif header.flag > 0:
            raw = np.array(header.label, np.float32)
        else:
            raise MXNetError("ImageDetRecordIter: not enough label packed in img_list or rec file")
        lw = self.p["label_width"]
        if lw > 0 and len(raw) != lw:
            raise MXNetError(
                f"ImageDetRecordIter: rec file provides {len(raw)}-dimensional label but "
                f"label_width is set to {lw}"
            )
        if len(raw) < 7 or int(raw[0]) < 2 or int(raw[1]) < 5:
            raise MXNetError(f"ImageDetRecordIter: record {header.id} has a bad label {raw}")
        hw, ow = int(raw[0]), int(raw[1])
        if (len(raw) - hw) % ow:
            raise MXNetError(f"ImageDetRecordIter: record {header.id}: label length mismatch")
        res, objects = self._aug.process(img, raw[hw:].reshape(-1, ow), Draws(row[4:]))
        flat = np.concatenate([raw[:hw], objects.reshape(-1)])
        label = np.full(self._pad_width + 4, self.p["label_pad_value"], np.float32)
        label[:4] = (res.shape[2], res.shape[0], res.shape[1], len(flat))
        label[4 : 4 + len(flat)] = flat
        return res, label
