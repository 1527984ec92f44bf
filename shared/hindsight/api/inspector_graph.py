"""The inspector's relation graph, laid out for SVG: pure geometry over memories and their relations
(no HTTP, no templates), so the page's code only fetches and renders (``api.inspector``)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from uuid import UUID

from hindsight.domain.memory import Relation, StoredMemory

EDGE_COLOURS = {
    "caused_by": "#d9480f",
    "part_of": "#5f3dc4",
    "related": "#1971c2",
    "supersedes": "#868e96",
    "contradicts": "#e03131",
}
MAX_GRAPH_NODES = 40
"""Memories drawn at most (the first ones the relations touch)."""


def graph_layout(memories: list[StoredMemory], relations: list[Relation]) -> dict[str, Any]:
    """Nodes and edges of the relation graph, laid out in columns: causes to the left of their effects
    (longest causal path), other memories after them; ``caused_by`` edges point from effect to cause."""
    touched: list[UUID] = []
    for r in relations:
        for node in (r.to_id, r.from_id):
            if node not in touched:
                touched.append(node)
    by_id = {m.id: m for m in memories}
    nodes = [n for n in touched if n in by_id][:MAX_GRAPH_NODES]
    keep = set(nodes)
    edges = [r for r in relations if r.from_id in keep and r.to_id in keep]
    depth = dict.fromkeys(nodes, 0)
    for _ in range(len(nodes)):  # longest path over caused_by / part_of (effect → cause: cause first)
        changed = False
        for r in edges:
            if r.kind in ("caused_by", "part_of") and depth[r.from_id] < depth[r.to_id] + 1:
                depth[r.from_id] = depth[r.to_id] + 1
                changed = True
        if not changed:
            break
    columns: dict[int, list[UUID]] = defaultdict(list)
    for node in nodes:
        columns[depth[node]].append(node)
    width, height, x_gap, y_gap = 190, 46, 70, 26
    pos: dict[UUID, tuple[float, float]] = {}
    for col, members in sorted(columns.items()):
        for row, node in enumerate(sorted(members, key=lambda n: by_id[n].event_time)):
            pos[node] = (20 + col * (width + x_gap), 56 + row * (height + y_gap))
    out_nodes = [
        {
            "id": str(n),
            "x": pos[n][0],
            "y": pos[n][1],
            "w": width,
            "h": height,
            "label": by_id[n].content,
            "layer": by_id[n].layer,
            "status": by_id[n].status,
            "importance": by_id[n].importance,
        }
        for n in nodes
    ]
    out_edges = []
    for r in edges:
        (x1, y1), (x2, y2) = pos[r.from_id], pos[r.to_id]
        start = (x1 + (0 if x2 < x1 else width), y1 + height / 2)
        end = (x2 + (width if x2 < x1 else 0), y2 + height / 2)
        if x1 == x2:  # same column: leave and enter on the right, bending outwards
            start, end = (x1 + width, y1 + height / 2), (x2 + width, y2 + height / 2)
            bend = 40 + abs(y2 - y1) / 4
            path = (
                f"M{start[0]},{start[1]} C{start[0] + bend},{start[1]} "
                f"{end[0] + bend},{end[1]} {end[0]},{end[1]}"
            )
        elif abs(depth[r.from_id] - depth[r.to_id]) > 1 and y1 == y2:  # would cross the nodes between
            start, end = (x1 + width / 2, y1), (x2 + width / 2, y2)
            lift = 42.0
            path = (
                f"M{start[0]},{start[1]} C{start[0]},{start[1] - lift} "
                f"{end[0]},{end[1] - lift} {end[0]},{end[1]}"
            )
            start = end = ((x1 + x2 + width) / 2, y1 - lift * 0.75 - 2)
        else:
            mid = (start[0] + end[0]) / 2
            path = f"M{start[0]},{start[1]} C{mid},{start[1]} {mid},{end[1]} {end[0]},{end[1]}"
        out_edges.append(
            {
                "path": path,
                "kind": r.kind,
                "colour": EDGE_COLOURS.get(r.kind, "#495057"),
                "lx": (start[0] + end[0]) / 2,
                "ly": (start[1] + end[1]) / 2 - 4,
            }
        )
    columns_used = max(columns, default=-1) + 1
    rows_used = max((len(v) for v in columns.values()), default=0)
    return {
        "nodes": out_nodes,
        "edges": out_edges,
        "width": max(columns_used * (width + x_gap) + 40, 300),
        "height": max(rows_used * (height + y_gap) + 60, 120),
        "kinds": sorted({e["kind"] for e in out_edges}),
        "colours": EDGE_COLOURS,
    }
