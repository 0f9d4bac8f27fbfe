"""Tests of mxlite.profiler: recording from the engine's hook, Chrome traces, aggregate stats."""

import json
import os
import threading
from collections import OrderedDict

import pytest

import mxlite as mx
from mxlite import engine, profiler
from mxlite.base import MXNetError, ParamError


@pytest.fixture
def trace(tmp_path):
    """A profiler configured to write tmp_path/trace.json; left clean and stopped afterwards."""
    path = tmp_path / "trace.json"
    profiler.set_config(filename=str(path), continuous_dump=False, aggregate_stats=True)
    yield path
    # run once more and dump, so that nothing this test recorded leaks into the next one
    profiler.resume()
    profiler.set_config(filename=str(tmp_path / "teardown.json"), continuous_dump=False)
    profiler.set_state("run")
    profiler.set_state("stop")
    profiler.dump(True)


def run_ops(names, ctx=None, threads=None):
    """Push one engine function per name (in order, on one var) and wait for them."""
    eng = engine.get()
    var = eng.new_var()

    def body(rctx):
        if threads is not None:
            threads.append(threading.get_ident())

    for name in names:
        eng.push_sync(body, ctx or mx.cpu(), [], [var], name=name)
    eng.wait_for_var(var)


def load(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def events_named(events, name):
    return [e for e in events if e.get("name") == name and e["ph"] != "M"]


def process_names(events):
    return {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}


def thread_names(events):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}


def stats(**kwargs):
    return json.loads(profiler.dumps(format="json", **kwargs), object_pairs_hook=OrderedDict)


# -- the trace --------------------------------------------------------------------------------


def test_dump_writes_each_engine_function_with_duration_and_thread(trace):
    profiler.set_state("run")
    threads = []
    run_ops(["prof_first", "prof_second", "prof_third"], threads=threads)
    profiler.set_state("stop")
    profiler.dump()
    events = load(trace)
    for name, tid in zip(["prof_first", "prof_second", "prof_third"], threads, strict=True):
        (ev,) = events_named(events, name)
        assert ev["ph"] == "X" and ev["cat"] == "operator"
        assert ev["dur"] >= 0 and ev["ts"] > 0
        assert ev["tid"] == tid
        assert process_names(events)[ev["pid"]] == "cpu/0"
        assert (ev["pid"], tid) in thread_names(events)
    order = [
        e["ts"]
        for n in ("prof_first", "prof_second", "prof_third")
        for e in events_named(events, n)
    ]
    assert order == sorted(order)  # the three share a var, so they ran in push order
    assert not [f for f in os.listdir(trace.parent) if f.endswith(".tmp")]


def test_functions_on_another_device_get_its_process(trace):
    profiler.set_state("run")
    run_ops(["prof_on_cpu1"], ctx=mx.cpu(1))
    profiler.set_state("stop")
    profiler.dump()
    events = load(trace)
    (ev,) = events_named(events, "prof_on_cpu1")
    assert process_names(events)[ev["pid"]] == "cpu/1"


def test_nothing_is_recorded_while_stopped(trace):
    run_ops(["prof_before"])
    profiler.set_state("run")
    run_ops(["prof_during"])
    profiler.set_state("stop")
    run_ops(["prof_after"])
    profiler.dump()
    events = load(trace)
    assert len(events_named(events, "prof_during")) == 1
    assert events_named(events, "prof_before") == []
    assert events_named(events, "prof_after") == []


def test_nothing_is_recorded_while_paused(trace):
    profiler.set_state("run")
    profiler.pause()
    run_ops(["prof_paused"])
    event = profiler.Event("prof_paused_event")
    event.start()
    event.stop()
    profiler.resume()
    run_ops(["prof_resumed"])
    profiler.set_state("stop")
    profiler.dump()
    events = load(trace)
    assert events_named(events, "prof_paused") == []
    assert events_named(events, "prof_paused_event") == []
    assert len(events_named(events, "prof_resumed")) == 1


def test_profiling_objects_appear_in_the_trace(trace):
    profiler.set_state("run")
    domain = profiler.Domain("PythonDomain")
    task = domain.new_task("prof_task")
    task.start()
    task.stop()
    frame = profiler.Frame(domain, "prof_frame")
    frame.start()
    frame.stop()
    event = profiler.Event("prof_event")
    event.start()
    event.stop()
    counter = domain.new_counter("prof_counter", 5)
    counter += 3
    counter -= 1
    counter.increment()
    counter.decrement(2)
    domain.new_marker("prof_marker").mark("thread")
    profiler.Marker(domain, "prof_marker_global").mark("global")
    profiler.set_state("stop")
    profiler.dump()
    events = load(trace)
    me = threading.get_ident()
    assert [(e["ph"], e["cat"]) for e in events_named(events, "prof_task")] == [
        ("b", "PythonDomain"),
        ("e", "PythonDomain"),
    ]
    (fr,) = events_named(events, "prof_frame")
    assert fr["ph"] == "X" and fr["cat"] == "PythonDomain,frame" and fr["dur"] >= 0
    ev = events_named(events, "prof_event")
    assert [e["ph"] for e in ev] == ["B", "E"] and ev[0]["ts"] <= ev[1]["ts"]
    counts = events_named(events, "prof_counter")
    assert {e["ph"] for e in counts} == {"C"}
    assert [e["args"]["prof_counter"] for e in counts] == [5, 8, 7, 8, 6]
    (mark,) = events_named(events, "prof_marker")
    assert (mark["ph"], mark["s"], mark["cat"]) == ("i", "t", "PythonDomain,instant_marker")
    assert events_named(events, "prof_marker_global")[0]["s"] == "g"
    for name in ("prof_task", "prof_frame", "prof_event", "prof_counter", "prof_marker"):
        assert all(e["tid"] == me for e in events_named(events, name))
    assert process_names(events)[fr["pid"]] == "PythonDomain,frame"


def test_custom_operator_parts_get_their_category(trace):
    profiler.set_state("run")
    run_ops(["MySigmoid::_zeros", "Custom"])
    profiler.set_state("stop")
    table = stats()["Time"]
    assert "MySigmoid::_zeros" in table["Custom Operator"]
    assert "Custom" not in table.get("operator", {})  # MXNet leaves the wrapper out


def test_custom_op_scope_times_python_and_names_pushed_functions(trace):
    from mxlite.profiler.custom_op import custom_op_scope, display_name

    profiler.set_state("run")
    with custom_op_scope("MySigmoid"):
        inner = display_name("_zeros")
        with custom_op_scope("_backward_MySigmoid"):
            nested = display_name("_zeros")
        run_ops([display_name("_plus_scalar")])
    run_ops([display_name("_plus_scalar")])
    profiler.set_state("stop")
    assert (inner, nested) == ("MySigmoid::_zeros", "_backward_MySigmoid::_zeros")
    table = stats()["Time"]
    assert {"MySigmoid::pure_python", "_backward_MySigmoid::pure_python"} <= set(
        table["Custom Operator"]
    )
    assert table["Custom Operator"]["MySigmoid::_plus_scalar"]["Count"] == 1
    assert table["operator"]["_plus_scalar"]["Count"] == 1


def test_custom_op_scope_records_only_imperative_profiling(trace, tmp_path):
    from mxlite.profiler.custom_op import custom_op_scope

    profiler.set_config(
        filename=str(tmp_path / "t.json"), profile_imperative=False, profile_symbolic=True,
        aggregate_stats=True,
    )  # fmt: skip
    profiler.set_state("run")
    with custom_op_scope("MyOp"):
        pass
    profiler.set_state("stop")
    assert "Custom Operator" not in stats().get("Time", {})


# -- continuous and one-shot dumps --------------------------------------------------------------


def test_dump_fails_until_the_profiler_has_run(tmp_path):
    profiler.set_config(filename=str(tmp_path / "never.json"), continuous_dump=False)
    with pytest.raises(MXNetError, match="dump.*set_state"):
        profiler.dump()
    assert not (tmp_path / "never.json").exists()


def test_one_shot_dump_ends_the_output(trace):
    profiler.set_state("run")
    run_ops(["prof_one"])
    profiler.dump(False)
    with pytest.raises(MXNetError, match="dump"):
        profiler.dump()
    profiler.set_state("run")  # running again starts a new file with what came since
    run_ops(["prof_two"])
    profiler.set_state("stop")
    profiler.dump()
    events = load(trace)
    assert events_named(events, "prof_one") == [] and len(events_named(events, "prof_two")) == 1


def test_continuous_dump_rewrites_a_growing_valid_file(trace):
    profiler.set_config(filename=str(trace), continuous_dump=True, dump_period=3600)
    profiler.set_state("run")
    sizes = []
    for i in range(3):
        run_ops([f"prof_iter{i}"])
        profiler.Marker(profiler.Domain("loop"), f"iteration{i}").mark()
        profiler.dump(False)
        events = load(trace)  # valid JSON after every dump
        assert len(events_named(events, "prof_iter0")) == 1
        assert len(events_named(events, f"prof_iter{i}")) == 1
        sizes.append(os.path.getsize(trace))
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    profiler.dump(True)
    with pytest.raises(MXNetError, match="dump"):
        profiler.dump()


def test_set_config_removes_the_old_file_and_parses_strings(tmp_path):
    path = tmp_path / "old.json"
    path.write_text("stale")
    profiler.set_config(filename=str(path), continuous_dump="False", aggregate_stats="True")
    assert not path.exists()
    profiler.set_state("run")
    run_ops(["prof_parsed"])
    profiler.set_state("stop")
    assert stats()["Time"]["operator"]["prof_parsed"]["Count"] == 1  # aggregate_stats="True"
    profiler.dump()
    assert len(events_named(load(path), "prof_parsed")) == 1
    profiler.set_config(filename=str(tmp_path / "end.json"), continuous_dump=False)


# -- aggregate statistics -----------------------------------------------------------------------


def test_dumps_counts_each_name(trace):
    profiler.dumps(reset=True)
    profiler.set_state("run")
    run_ops(["prof_sqrt", "prof_plus", "prof_plus"])
    domain = profiler.Domain("aggdomain")
    task = profiler.Task(domain, "prof_agg_task")
    for _ in range(4):
        task.start()
        task.stop()
    profiler.set_state("stop")
    result = stats()
    ops = result["Time"]["operator"]
    assert ops["prof_sqrt"]["Count"] == 1 and ops["prof_plus"]["Count"] == 2
    assert result["Time"]["aggdomain"]["prof_agg_task"]["Count"] == 4
    plus = ops["prof_plus"]
    assert plus["Min"] <= plus["Avg"] <= plus["Max"] <= plus["Total"]
    assert result["Memory"] == {} and result["Unit"] == {"Time": "ms", "Memory": "kB"}
    table = profiler.dumps(reset=True)
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines() if line[:5] == "prof_"}
    assert (
        rows["prof_plus"][0] == "2" and rows["prof_sqrt"][0] == "1" and len(rows["prof_plus"]) == 5
    )
    assert "prof_plus" not in profiler.dumps(format="json")  # reset cleared them


def test_dumps_table_has_mxnet_layout(trace):
    profiler.set_state("run")
    run_ops(["prof_layout"])
    profiler.set_state("stop")
    lines = profiler.dumps().splitlines()
    assert lines[:3] == [
        "",
        "Profile Statistics:",
        "\tNote the difference in units for different entries.",
    ]
    at = lines.index("operator")
    assert lines[at + 1] == "================="
    assert lines[at + 2] == (
        "Name                          Total Count        Time (ms)    Min Time (ms)"
        "    Max Time (ms)    Avg Time (ms)"
    )
    row = next(line for line in lines if line.startswith("prof_layout"))
    assert row[25:41] == "               1" and row[41] == " "


def test_counter_statistics_follow_mxnet(trace):
    profiler.set_state("run")
    counter = profiler.Counter(profiler.Domain("cdomain"), "prof_cnt", 5)
    counter += 3
    counter -= 1
    counter.increment()
    counter.decrement(2)
    profiler.set_state("stop")
    cnt = stats()["Time"]["cdomain"]["prof_cnt"]
    # MXNet's numbers: values / 1000; Total is the last value, Avg is (max - min) // 2
    assert cnt == {"Count": 5, "Total": 0.006, "Min": 0.005, "Max": 0.008, "Avg": 0.001}


@pytest.mark.parametrize("sort_by", ["total", "avg", "min", "max", "count"])
@pytest.mark.parametrize("ascending", [False, True])
def test_dumps_sorts_each_category(trace, sort_by, ascending):
    profiler.set_state("run")
    run_ops(["prof_s1", "prof_s2", "prof_s2", "prof_s3", "prof_s3", "prof_s3"])
    profiler.set_state("stop")
    key = sort_by.capitalize()
    for category in stats(sort_by=sort_by, ascending=ascending)["Time"].values():
        values = [item[key] for item in category.values()]
        assert values == sorted(values, reverse=not ascending)


def test_dumps_is_empty_without_aggregate_stats(tmp_path):
    profiler.set_config(filename=str(tmp_path / "p.json"), continuous_dump=False)
    profiler.set_state("run")
    run_ops(["prof_unaggregated"])
    profiler.set_state("stop")
    assert profiler.dumps() == ""
    profiler.dump()


# -- threads ----------------------------------------------------------------------------------


def test_records_from_many_threads_are_all_kept(trace):
    profiler.set_state("run")
    eng = engine.get()
    vars_ = [eng.new_var() for _ in range(4)]
    for i in range(200):  # independent vars: the workers run these side by side
        eng.push_sync(lambda rctx: None, mx.cpu(), [], [vars_[i % 4]], name="prof_parallel")
    counter = profiler.Counter(profiler.Domain("threads"), "prof_shared", 0)
    barrier = threading.Barrier(4)

    def bump():
        barrier.wait()
        for _ in range(50):
            counter.increment()

    workers = [threading.Thread(target=bump) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    eng.wait_for_all()
    profiler.set_state("stop")
    result = stats()["Time"]
    assert result["operator"]["prof_parallel"]["Count"] == 200
    assert result["threads"]["prof_shared"]["Count"] == 201
    assert result["threads"]["prof_shared"]["Total"] == pytest.approx(0.2)  # last value: 200
    profiler.dump()
    values = [e["args"]["prof_shared"] for e in events_named(load(trace), "prof_shared")]
    assert sorted(values) == list(range(201))


# -- deprecated names and bad input -------------------------------------------------------------


def test_deprecated_aliases_warn_and_work(tmp_path):
    path = tmp_path / "old_api.json"
    with pytest.warns(UserWarning, match="set_config"):
        profiler.profiler_set_config(mode="all", filename=str(path))
    with pytest.warns(UserWarning, match="set_state"):
        profiler.profiler_set_state("run")
    run_ops(["prof_old_api"])
    profiler.set_state("stop")
    with pytest.warns(UserWarning, match="dump"):
        profiler.dump_profile()
    assert len(events_named(load(path), "prof_old_api")) == 1
    with pytest.warns(UserWarning), pytest.raises(ParamError, match="profiler_set_config.*mode"):
        profiler.profiler_set_config(mode="everything")
    profiler.set_config(filename=str(tmp_path / "end.json"), continuous_dump=False)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: profiler.set_config(profile_everything=True), "set_config.*'profile_everything'"),
        (lambda: profiler.set_config(aggregate_stats="maybe"), "set_config.*'aggregate_stats'"),
        (lambda: profiler.set_config(dump_period=0), "set_config.*'dump_period'"),
        (lambda: profiler.set_config(filename=""), "set_config.*'filename'"),
        (lambda: profiler.set_config(profile_process="client"), "set_config.*'profile_process'"),
        (lambda: profiler.set_state("running"), "set_state.*'state'"),
        (lambda: profiler.set_state("run", profile_process="x"), "set_state.*'profile_process'"),
        (lambda: profiler.dump(finished="yes"), "dump.*'finished'"),
        (lambda: profiler.dumps(format="xml"), "dumps.*'format'"),
        (lambda: profiler.dumps(sort_by="name"), "dumps.*'sort_by'"),
        (lambda: profiler.dumps(ascending=2), "dumps.*'ascending'"),
        (lambda: profiler.dumps(reset=None), "dumps.*'reset'"),
        (lambda: profiler.pause(profile_process="all"), "pause.*'profile_process'"),
        (lambda: profiler.Domain(""), "Domain.*'name'"),
        (lambda: profiler.Task("PythonDomain", "t"), "Task.*'domain'"),
        (lambda: profiler.Frame(profiler.Domain("d"), None), "Frame.*'name'"),
        (lambda: profiler.Counter(object(), "c"), "Counter.*'domain'"),
        (lambda: profiler.Counter(profiler.Domain("d"), "c").increment("a"), "increment.*'delta'"),
        (lambda: profiler.Counter(profiler.Domain("d"), "c", value=[]), "set_value.*'value'"),
        (lambda: profiler.Marker(profiler.Domain("d"), "m").mark("nowhere"), "mark.*'scope'"),
    ],
)
def test_bad_arguments_name_the_function_and_argument(call, match):
    with pytest.raises(ParamError, match=match):
        call()


def test_stop_before_start_is_an_error():
    with pytest.raises(MXNetError, match="Event.stop.*start"):
        profiler.Event("prof_unstarted").stop()


def test_server_profiling_needs_a_distributed_kvstore():
    with pytest.raises(MXNetError, match="set_state.*server.*kvstore"):
        profiler.set_state("run", profile_process="server")


def test_server_commands_go_to_the_kvstore_handle(monkeypatch):
    sent = []

    class Handle:
        def set_server_profiler_command(self, command, body):
            sent.append((command, body))

    monkeypatch.setattr(profiler, "profiler_kvstore_handle", Handle())
    profiler.set_state("run", profile_process="server")
    profiler.pause(profile_process="server")
    profiler.resume(profile_process="server")
    profiler.dump(False, profile_process="server")
    assert sent == [("set_state", "1"), ("pause", "1"), ("pause", "0"), ("dump", "0")]


def test_engine_sink_is_installed_only_while_recording(trace, monkeypatch):
    eng = engine.get()
    installed = []
    real = eng.set_profile_sink

    def spy(sink, namer=None):
        installed.append(sink is not None)
        real(sink, namer)

    monkeypatch.setattr(eng, "set_profile_sink", spy)
    profiler.set_state("run")
    profiler.pause()
    profiler.resume()
    profiler.set_state("stop")
    profiler.resume()  # resuming a stopped profiler records nothing
    assert installed == [True, False, True, False, False]


# -- agreement with real MXNet 1.9.1 ------------------------------------------------------------

MXREF = "/tmp/mxref/bin/python"
COUNTER_SCRIPT = """
import json, sys
{imports}
profiler.set_config(filename=sys.argv[1], aggregate_stats=True, continuous_dump=False)
profiler.set_state('run')
counter = profiler.Counter(profiler.Domain('refdomain'), 'refcounter', 5)
counter += 3
counter -= 1
counter.increment()
counter.decrement(2)
profiler.set_state('stop')
print(json.dumps([profiler.dumps(), profiler.dumps(format='json', sort_by='count')]))
"""


def counter_stats(python, imports, path):
    import subprocess

    script = COUNTER_SCRIPT.format(imports=imports)
    out = subprocess.run(
        [python, "-c", script, str(path)], capture_output=True, text=True, check=True, timeout=120
    )
    table, as_json = json.loads(out.stdout.splitlines()[-1])
    lines = table.splitlines()
    at = lines.index("refdomain")
    return lines[:3] + lines[at : at + 5], json.loads(as_json)["Time"]["refdomain"]


@pytest.mark.skipif(not os.path.exists(MXREF), reason="real MXNet 1.9.1 is not at /tmp/mxref")
def test_counter_table_and_json_match_real_mxnet(tmp_path):
    import sys

    ours = counter_stats(sys.executable, "from mxlite import profiler", tmp_path / "a.json")
    theirs = counter_stats(MXREF, "from mxnet import profiler", tmp_path / "b.json")
    assert ours == theirs
    assert ours[1]["refcounter"]["Count"] == 5


def test_autostart_records_and_dumps_at_exit(tmp_path):
    import subprocess
    import sys

    script = (
        "import mxlite as mx\n"
        "from mxlite import engine, profiler\n"
        "eng = engine.get()\n"
        "eng.push_sync(lambda rctx: None, mx.cpu(), [], [eng.new_var()], name='prof_auto')\n"
    )
    env = dict(os.environ, MXNET_PROFILER_AUTOSTART="1")
    subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, check=True, timeout=120)
    assert len(events_named(load(tmp_path / "profile.json"), "prof_auto")) == 1


class _ProfiledSigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], 1 / (1 + mx.nd.exp(-in_data[0])))
        mx.nd.zeros((100, 100))  # MXNet's test looks for 'MySigmoid::_zeros'

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * (1 - y) * y)


@mx.operator.register("ProfiledSigmoid")
class _ProfiledSigmoidProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(True)

    def infer_shape(self, in_shapes):
        return (in_shapes[0],), (in_shapes[0],), ()

    def create_operator(self, ctx, shapes, dtypes):
        return _ProfiledSigmoid()


def test_a_custom_operator_and_what_it_launches_are_profiled_under_its_type(trace):
    # the names MXNet 1.9.1's test_custom_operator_profiling checks
    profiler.set_state("run")
    x = mx.nd.array([0, 1, 2, 3])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="ProfiledSigmoid")
    y.backward()
    mx.nd.waitall()
    profiler.set_state("stop")
    names = set(stats()["Time"]["Custom Operator"])
    assert {
        "ProfiledSigmoid::pure_python",
        "_backward_ProfiledSigmoid::pure_python",
        "ProfiledSigmoid::_zeros",
    } <= names
    mx.nd.zeros((2,)).wait_to_read()  # outside the operator: named as itself again
    assert mx.engine.get()._profile_namer is None
