"""``mx.image.detection``: augmenters that move bounding boxes with the pixels, and
``ImageDetIter``.

A detection label is a ``(num_objects, width)`` float array whose rows are
``[class_id, xmin, ymin, xmax, ymax, ...]`` with coordinates in ``[0, 1]``. On disk (in a
``.rec`` header or a ``.lst`` line) it is flattened behind a small header:
``[header_width, object_width, ..., objects...]``. A batch label is
``(batch, max_objects, width)``, padded with -1.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from .det_augmenters import *  # noqa: F403
from .det_augmenters import CreateDetAugmenter
from .det_augmenters import __all__ as _aug_all
from .image import require_cv2, to_numpy
from .image_iter import ImageIter

__all__ = [*_aug_all, "ImageDetIter"]


class ImageDetIter(ImageIter):
    """Image iterator with a large number of augmentation choices for detection.

    Parameters are those of ``ImageIter`` (``label_name`` defaults to 'label'); the remaining
    keyword arguments create augmenters with ``CreateDetAugmenter``.
    """

    def __init__(
        self,
        batch_size: int,
        data_shape: tuple,
        path_imgrec: str | None = None,
        path_imglist: str | None = None,
        path_root: str | None = None,
        path_imgidx: str | None = None,
        shuffle: bool = False,
        part_index: int = 0,
        num_parts: int = 1,
        aug_list: list | None = None,
        imglist: list | None = None,
        data_name: str = "data",
        label_name: str = "label",
        last_batch_handle: str = "pad",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            batch_size=batch_size,
            data_shape=data_shape,
            path_imgrec=path_imgrec,
            path_imglist=path_imglist,
            path_root=path_root,
            path_imgidx=path_imgidx,
            shuffle=shuffle,
            part_index=part_index,
            num_parts=num_parts,
            aug_list=[],
            imglist=imglist,
            data_name=data_name,
            label_name=label_name,
            last_batch_handle=last_batch_handle,
        )
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        label_shape = self._estimate_label_shape()
        self.provide_label = [(label_name, (self.batch_size,) + label_shape)]
        self.label_shape = label_shape

    def _check_valid_label(self, label: np.ndarray) -> None:
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError(f"Label with shape (1+, 5+) required, {label} received.")
        valid = (label[:, 0] >= 0) & (label[:, 3] > label[:, 1]) & (label[:, 4] > label[:, 2])
        if not valid.any():
            raise RuntimeError("Invalid label occurs.")

    def _estimate_label_shape(self) -> tuple:
        max_count, width = 0, 5
        self.reset()
        try:
            while True:
                label = self._parse_label(self.next_sample()[0])
                max_count = max(max_count, label.shape[0])
                width = label.shape[1]
        except StopIteration:
            pass
        self.reset()
        return (max_count, width)

    def _parse_label(self, label: Any) -> np.ndarray:
        raw = to_numpy(label).ravel()
        if raw.size < 7:
            raise RuntimeError(f"Label shape is invalid: {raw.shape}")
        header_width, obj_width = int(raw[0]), int(raw[1])
        if obj_width <= 0 or (raw.size - header_width) % obj_width != 0:
            raise RuntimeError(
                f"Label shape {raw.shape} inconsistent with annotation width {obj_width}."
            )
        out = raw[header_width:].reshape(-1, obj_width)
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2])
        if not valid.any():
            raise RuntimeError("Encounter sample with no valid label.")
        return out[valid]

    def reshape(self, data_shape: tuple | None = None, label_shape: tuple | None = None) -> None:
        """Reshape iterator for data_shape or label_shape."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [(self.provide_data[0][0], (self.batch_size,) + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [
                (self.provide_label[0][0], (self.batch_size,) + tuple(label_shape))
            ]
            self.label_shape = tuple(label_shape)

    def _checked_sample(self, data: Any, label: Any) -> tuple:
        # the labels are parsed and the image augmented here, so that a RuntimeError from
        # either skips the image
        self.check_valid_image([data])
        label = self._parse_label(label)
        data, label = self.augmentation_transform(data, label)
        self._check_valid_label(label)
        return data, label

    def _augmented_sample(self, data: Any, label: Any) -> tuple:
        return data, label

    @staticmethod
    def _store_label(batch_label: Any, i: int, label: Any) -> None:
        from .. import ndarray as nd

        num = label.shape[0]
        batch_label[i][0:num] = nd.array(label)
        if num < batch_label[i].shape[0]:
            batch_label[i][num:] = -1

    def _new_batch(self) -> tuple:
        from .. import ndarray as nd

        batch_data, _ = super()._new_batch()
        return batch_data, nd.full(self.provide_label[0][1], -1.0)

    def augmentation_transform(self, data: Any, label: np.ndarray) -> tuple:  # type: ignore[override]
        """Override Transforms input data with specified augmentations."""
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def check_label_shape(self, label_shape: tuple) -> None:
        """Checks if the new label shape is valid"""
        if len(label_shape) != 2:
            raise ValueError("label_shape should have length 2")
        if label_shape[0] < self.label_shape[0]:
            raise ValueError(
                f"Attempts to reduce label count from {self.label_shape[0]} to {label_shape[0]}, "
                "not allowed."
            )
        if label_shape[1] != self.provide_label[0][1][2]:
            raise ValueError(
                f"label_shape object width inconsistent: {self.provide_label[0][1][2]} vs "
                f"{label_shape[1]}."
            )

    def draw_next(
        self,
        color: Any = None,
        thickness: int = 2,
        mean: Any = None,
        std: Any = None,
        clip: bool = True,
        waitKey: int | None = None,  # noqa: N803 - MXNet's argument name
        window_name: str = "draw_next",
        id2labels: dict | None = None,
    ) -> Any:
        """Yield the next augmented images (BGR uint8, as OpenCV shows them) with their boxes
        drawn; with ``waitKey`` each is also shown in a window. ``mean``/``std`` (True for
        ImageNet's) undo the normalisation, ``id2labels`` names the classes."""
        cv2 = require_cv2("ImageDetIter.draw_next")
        std = np.array([58.395, 57.12, 57.375]) if std is True else std
        mean = np.array([123.68, 116.28, 103.53]) if mean is True else mean
        while True:
            try:
                label, s = self.next_sample()
            except StopIteration:
                return
            data = self.imdecode(s)
            try:
                self.check_valid_image([data])
                data, label = self.augmentation_transform(data, self._parse_label(label))
            except RuntimeError as exc:
                logging.debug("Invalid image, skipping:  %s", exc)
                continue
            image = to_numpy(data).astype(np.float64)
            if std is not None:
                image *= std
            if mean is not None:
                image += mean
            image = image[:, :, ::-1]
            if clip:
                image = np.clip(image, 0, 255)
            image = np.ascontiguousarray(image.astype(np.uint8))
            height, width = image.shape[:2]
            for obj in label:
                if obj[1] < 0:
                    continue
                p1 = (int(obj[1] * width), int(obj[2] * height))
                p2 = (int(obj[3] * width), int(obj[4] * height))
                box_color = tuple(color[::-1]) if color else tuple(np.random.rand(3) * 255)
                cv2.rectangle(image, p1, p2, box_color, thickness)
                if id2labels is not None and int(obj[0]) in id2labels:
                    text = str(id2labels[int(obj[0])])
                    font = cv2.FONT_HERSHEY_SIMPLEX
                    text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                    pos = (p1[0] + 5, p1[1] + text_height + 5)
                    cv2.putText(image, text, pos, font, 0.5, (255, 255, 255), 2)
            if waitKey is not None:
                cv2.imshow(window_name, image)
                cv2.waitKey(waitKey)
            yield image

    def sync_label_shape(self, it: ImageDetIter, verbose: bool = False) -> ImageDetIter:
        """Synchronize label shape with the input iterator (max object count of the two)."""
        if not isinstance(it, ImageDetIter):
            raise TypeError("sync_label_shape: synchronize with an ImageDetIter only")
        if self.label_shape[1] != it.label_shape[1]:
            raise ValueError("sync_label_shape: object width mismatch")
        max_count = max(self.label_shape[0], it.label_shape[0])
        if max_count > self.label_shape[0]:
            self.reshape(None, (max_count, self.label_shape[1]))
        if max_count > it.label_shape[0]:
            it.reshape(None, (max_count, it.label_shape[1]))
        if verbose:
            logging.info("Resized label_shape to (%d, %d).", max_count, self.label_shape[1])
        return it
