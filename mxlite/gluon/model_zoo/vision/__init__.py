"""``mx.gluon.model_zoo.vision``: MXNet 1.9.1's image classification networks, by name.

Every network has MXNet's block structure, so its parameter names and ``save_parameters``
names are MXNet's and MXNet's pretrained files load (``pretrained=True`` reads
``$MXNET_HOME/models/<name>-<hash>.params``).

Example::

    >>> net = get_model("resnet18_v1", classes=10)
    >>> net.initialize()
    >>> net(mx.nd.zeros((1, 3, 32, 32))).shape
    (1, 10)
"""

from __future__ import annotations

from typing import Any

from .alexnet import AlexNet as AlexNet
from .alexnet import alexnet as alexnet
from .densenet import DenseNet as DenseNet
from .densenet import densenet121 as densenet121
from .densenet import densenet161 as densenet161
from .densenet import densenet169 as densenet169
from .densenet import densenet201 as densenet201
from .densenet import get_densenet as get_densenet
from .inception import Inception3 as Inception3
from .inception import inception_v3 as inception_v3
from .mobilenet import MobileNet as MobileNet
from .mobilenet import MobileNetV2 as MobileNetV2
from .mobilenet import get_mobilenet as get_mobilenet
from .mobilenet import get_mobilenet_v2 as get_mobilenet_v2
from .mobilenet import mobilenet0_5 as mobilenet0_5
from .mobilenet import mobilenet0_25 as mobilenet0_25
from .mobilenet import mobilenet0_75 as mobilenet0_75
from .mobilenet import mobilenet1_0 as mobilenet1_0
from .mobilenet import mobilenet_v2_0_5 as mobilenet_v2_0_5
from .mobilenet import mobilenet_v2_0_25 as mobilenet_v2_0_25
from .mobilenet import mobilenet_v2_0_75 as mobilenet_v2_0_75
from .mobilenet import mobilenet_v2_1_0 as mobilenet_v2_1_0
from .resnet import BasicBlockV1 as BasicBlockV1
from .resnet import BasicBlockV2 as BasicBlockV2
from .resnet import BottleneckV1 as BottleneckV1
from .resnet import BottleneckV2 as BottleneckV2
from .resnet import ResNetV1 as ResNetV1
from .resnet import ResNetV2 as ResNetV2
from .resnet import get_resnet as get_resnet
from .resnet import resnet18_v1 as resnet18_v1
from .resnet import resnet18_v2 as resnet18_v2
from .resnet import resnet34_v1 as resnet34_v1
from .resnet import resnet34_v2 as resnet34_v2
from .resnet import resnet50_v1 as resnet50_v1
from .resnet import resnet50_v2 as resnet50_v2
from .resnet import resnet101_v1 as resnet101_v1
from .resnet import resnet101_v2 as resnet101_v2
from .resnet import resnet152_v1 as resnet152_v1
from .resnet import resnet152_v2 as resnet152_v2
from .squeezenet import SqueezeNet as SqueezeNet
from .squeezenet import get_squeezenet as get_squeezenet
from .squeezenet import squeezenet1_0 as squeezenet1_0
from .squeezenet import squeezenet1_1 as squeezenet1_1
from .vgg import VGG as VGG
from .vgg import get_vgg as get_vgg
from .vgg import vgg11 as vgg11
from .vgg import vgg11_bn as vgg11_bn
from .vgg import vgg13 as vgg13
from .vgg import vgg13_bn as vgg13_bn
from .vgg import vgg16 as vgg16
from .vgg import vgg16_bn as vgg16_bn
from .vgg import vgg19 as vgg19
from .vgg import vgg19_bn as vgg19_bn

_MODELS = {
    "resnet18_v1": resnet18_v1,
    "resnet34_v1": resnet34_v1,
    "resnet50_v1": resnet50_v1,
    "resnet101_v1": resnet101_v1,
    "resnet152_v1": resnet152_v1,
    "resnet18_v2": resnet18_v2,
    "resnet34_v2": resnet34_v2,
    "resnet50_v2": resnet50_v2,
    "resnet101_v2": resnet101_v2,
    "resnet152_v2": resnet152_v2,
    "vgg11": vgg11,
    "vgg13": vgg13,
    "vgg16": vgg16,
    "vgg19": vgg19,
    "vgg11_bn": vgg11_bn,
    "vgg13_bn": vgg13_bn,
    "vgg16_bn": vgg16_bn,
    "vgg19_bn": vgg19_bn,
    "alexnet": alexnet,
    "densenet121": densenet121,
    "densenet161": densenet161,
    "densenet169": densenet169,
    "densenet201": densenet201,
    "squeezenet1.0": squeezenet1_0,
    "squeezenet1.1": squeezenet1_1,
    "inceptionv3": inception_v3,
    "mobilenet1.0": mobilenet1_0,
    "mobilenet0.75": mobilenet0_75,
    "mobilenet0.5": mobilenet0_5,
    "mobilenet0.25": mobilenet0_25,
    "mobilenetv2_1.0": mobilenet_v2_1_0,
    "mobilenetv2_0.75": mobilenet_v2_0_75,
    "mobilenetv2_0.5": mobilenet_v2_0_5,
    "mobilenetv2_0.25": mobilenet_v2_0_25,
}


def get_model(name: str, **kwargs: Any) -> Any:
    """Returns a pre-defined model by name.

    Parameters
    ----------
    name : str
        Name of the model.
    pretrained : bool
        Whether to load the pretrained weights for model.
    classes : int
        Number of classes for the output layer.
    ctx : Context, default CPU
        The context in which to load the pretrained weights.
    root : str, default '$MXNET_HOME/models'
        Location for keeping the model parameters.

    Returns
    -------
    gluon.HybridBlock
        The model.
    """
    key = name.lower()
    if key not in _MODELS:
        raise ValueError(
            f"Model {name} is not supported. Available options are\n\t"
            + "\n\t".join(sorted(_MODELS))
        )
    return _MODELS[key](**kwargs)
