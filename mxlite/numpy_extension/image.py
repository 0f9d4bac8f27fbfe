"""``mx.npx.image``: ``mx.image``'s functions and classes, and a function for every
``_npx__image_<name>`` operator (``crop``, ``resize``, ``to_tensor``, ``normalize``, the flips
and the random colour changes) with ``mx.np`` arrays in and out, as MXNet 1.9.1's
``mx.npx.image``; mxlite.numpy_extension generates those from the registry."""

from ..image import *  # noqa: F403

__all__: list[str] = []
