"""A point of a sweep holds the core's settled point, which is what runs:
read once when the scenario is checked, handed back to the core as it is,
and sent to another process (a Dask worker) to the bit."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from dtlsim import plan
from dtlsim.scenario import builtin_scenarios, load_scenario
from dtlsim.simulation import run_unit


def test_every_shipped_point_pickles_to_the_same_settled_point():
    for name, path in builtin_scenarios().items():
        for point in load_scenario(path).points():
            again = pickle.loads(pickle.dumps(point))
            assert again.settled == point.settled, name
            # the JSON of a float is its shortest exact form: equal text, equal bits
            assert again.settled.json() == point.settled.json(), name
            assert dict(again) == dict(point), name
            assert copy.deepcopy(point).settled == point.settled, name


def test_the_values_python_reads_are_those_of_the_settled_point():
    point = next(load_scenario("exp1-xmac").points())
    tables = json.loads(point.settled.json())
    assert point["mac.xmac.check_interval_ms"] == tables["mac"]["xmac"]["check_interval_ms"]
    assert point["experiment.seed"] == tables["experiment"]["seed"]


def test_a_point_is_read_only():
    point = next(load_scenario("exp1-xmac").points())
    with pytest.raises(TypeError, match="read-only"):
        point["topology.hops"] = 3
    with pytest.raises(TypeError, match="read-only"):
        point.update({"topology.hops": 3})
    # a copy of its values is a plain dict, free to change (and not runnable)
    values = dict(point) | {"topology.hops": 3}
    with pytest.raises(TypeError, match=r"Scenario\.points"):
        run_unit(values, 0, 1)
    with pytest.raises(TypeError, match=r"Scenario\.points"):
        plan.why_not(values)
