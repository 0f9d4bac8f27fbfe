"""AttrScope.current and NameManager.current as MXNet 1.9.1 has them: class properties holding
the calling thread's scope, which assignment replaces in that thread only."""

import threading

import mxlite as mx
from mxlite.attribute import AttrScope
from mxlite.name import NameManager


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_attrscope_current_is_a_per_thread_property():
    saved = AttrScope.current
    try:
        AttrScope.current = AttrScope(y="hi")
        assert AttrScope.current._attr == {"y": "hi"}
        assert mx.attribute.current() is AttrScope.current
        assert _in_thread(lambda: AttrScope.current._attr) == {}
        with AttrScope(x="1"):
            assert mx.sym.var("v").attr("x") == "1"
            assert AttrScope.current.get(None) == {"y": "hi", "x": "1"}
        assert AttrScope.current._attr == {"y": "hi"}
    finally:
        AttrScope.current = saved


def test_namemanager_current_is_a_per_thread_property():
    saved = NameManager.current
    try:
        NameManager.current = NameManager()
        NameManager.current.get(None, "main")
        assert "main" in NameManager.current._counter
        assert "main" not in _in_thread(lambda: NameManager.current._counter)
        with mx.name.Prefix("p_"):
            assert mx.sym.FullyConnected(num_hidden=2).name == "p_fullyconnected0"
        assert isinstance(NameManager.current, NameManager)
    finally:
        NameManager.current = saved
