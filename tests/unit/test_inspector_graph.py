"""The inspector's graph layout, without HTTP: causes left of their effects, only memories a relation
touches, at most MAX_GRAPH_NODES, edges coloured by kind."""

from __future__ import annotations

from hindsight.api.inspector_graph import EDGE_COLOURS, MAX_GRAPH_NODES, graph_layout
from hindsight.domain.memory import Relation
from tests.unit.fakes import memory


def test_causes_stand_left_of_their_effects_and_unrelated_memories_are_left_out() -> None:
    error, fix, outcome, alone = memory("HTTP 429"), memory("waited 30 s"), memory("retry ok"), memory("x")
    relations = [
        Relation(from_id=fix.id, to_id=error.id, kind="caused_by", strength=1.0),
        Relation(from_id=outcome.id, to_id=fix.id, kind="caused_by", strength=1.0),
        Relation(from_id=outcome.id, to_id=error.id, kind="related", strength=0.5),
    ]
    graph = graph_layout([error, fix, outcome, alone], relations)
    x = {n["label"]: n["x"] for n in graph["nodes"]}
    assert set(x) == {"HTTP 429", "waited 30 s", "retry ok"}
    assert x["HTTP 429"] < x["waited 30 s"] < x["retry ok"]
    assert [e["kind"] for e in graph["edges"]] == ["caused_by", "caused_by", "related"]
    assert [e["colour"] for e in graph["edges"]] == [
        EDGE_COLOURS[k] for k in ("caused_by", "caused_by", "related")
    ]
    assert graph["kinds"] == ["caused_by", "related"]
    assert all(e["path"].startswith("M") for e in graph["edges"])
    assert graph["width"] >= max(x.values()) + graph["nodes"][0]["w"]


def test_a_large_graph_is_cut_to_the_first_memories_its_relations_touch() -> None:
    hub = memory("hub")
    spokes = [memory(f"spoke {i}") for i in range(MAX_GRAPH_NODES + 10)]
    relations = [Relation(from_id=s.id, to_id=hub.id, kind="related", strength=0.5) for s in spokes]
    graph = graph_layout([hub, *spokes], relations)
    assert len(graph["nodes"]) == MAX_GRAPH_NODES
    kept = {n["id"] for n in graph["nodes"]}
    assert len(graph["edges"]) == MAX_GRAPH_NODES - 1  # only edges between drawn memories
    assert str(hub.id) in kept
    assert graph_layout([hub], []) == {
        "nodes": [],
        "edges": [],
        "width": 300,
        "height": 120,
        "kinds": [],
        "colours": EDGE_COLOURS,
    }
