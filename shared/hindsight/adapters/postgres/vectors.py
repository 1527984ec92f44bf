"""Embeddings sent to Postgres in pgvector's binary form, on the worker's write path (issue 15).

The text form (``rows.vector_literal``) costs the worker ~65 µs of Python per 384-dim vector to format
and the server a ``strtof`` per value to parse — for every job twice (its near-duplicate and conflict
queries, then its row), inside the JSON of the batch's insert, which the server parses as a whole. The
binary form is the float32 values themselves: one ``numpy`` conversion per segment, no parse.

* one vector: ``vector_param`` — a big-endian float32 ``numpy`` array, which pgvector's psycopg adapter
  (``register_vector_async``, on every pool connection) sends as a binary ``vector``;
* many vectors as one ``vector[]`` parameter: ``VectorRows``, sent by ``register_vector_rows``' dumper
  as one binary array (its bytes built by one ``numpy`` copy, not value by value).

Every vector is rounded once, float64 → the nearest float32 (IEEE round-to-nearest); the text form kept
7 significant digits, which the server rounded again, so a stored value may differ from what the text
form stored in its last bit. Both the batch path and the job-by-job path send the binary form, so they
store the same values.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
from psycopg import AsyncConnection
from psycopg.adapt import Dumper
from psycopg.pq import Format

FLOAT32 = np.dtype(">f4")
"""pgvector's binary value: big-endian float32."""


def vector_param(embedding: Sequence[float] | np.ndarray) -> np.ndarray:
    """``embedding`` as a query parameter for ``%s::vector`` (binary): a 1-D big-endian float32 array.

    Raises:
        ValueError: ``embedding`` is not one sequence of numbers.
    """
    value = np.asarray(embedding, dtype=FLOAT32)
    if value.ndim != 1:
        raise ValueError(f"an embedding is one sequence of numbers, not an array of shape {value.shape}")
    return value


class VectorRows:
    """Vectors of one dimension sent as one ``vector[]`` parameter in binary (``register_vector_rows``).

    ``matrix``: (rows, dim) big-endian float32, built by ``of``."""

    __slots__ = ("matrix",)

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = matrix

    @classmethod
    def of(cls, vectors: Sequence[Sequence[float] | np.ndarray]) -> VectorRows:
        """``vectors`` (lists of floats or ``vector_param`` arrays) as one parameter.

        Raises:
            ValueError: vectors of different dimensions (a malformed embedding: the caller's batch then
                fails, and its jobs are stored one by one, where the store refuses that one).
        """
        if not vectors:
            return cls(np.empty((0, 0), dtype=FLOAT32))
        matrix = np.asarray(vectors, dtype=FLOAT32)
        if matrix.ndim != 2:
            raise ValueError("the vectors of one parameter must all have the same dimension")
        return cls(matrix)

    def __len__(self) -> int:
        return int(self.matrix.shape[0])


class _VectorRowsDumper(Dumper):
    """A ``VectorRows`` as PostgreSQL's binary array: a header (1 dimension, no NULL, the element type,
    the length, lower bound 1), then per element its length and pgvector's ``vector_send`` bytes
    (uint16 dimension, uint16 unused, the float32 values), all big-endian."""

    format = Format.BINARY
    element_oid = 0

    def dump(self, obj: VectorRows) -> bytes:
        rows, dim = obj.matrix.shape
        if rows == 0:
            return struct.pack(">iiI", 0, 0, self.element_oid)
        element = np.dtype([("size", ">i4"), ("dim", ">u2"), ("unused", ">u2"), ("x", FLOAT32, (dim,))])
        body = np.zeros(rows, dtype=element)
        body["size"] = 4 + 4 * dim
        body["dim"] = dim
        body["x"] = obj.matrix
        return struct.pack(">iiIii", 1, 0, self.element_oid, rows, 1) + body.tobytes()


def register_vector_rows(conn: AsyncConnection[Any]) -> None:
    """Let ``conn`` send ``VectorRows``: after pgvector's ``register_vector_async`` (the ``vector`` type's
    oids, which the extension's installation chose).

    Raises:
        LookupError: the ``vector`` type is not registered on ``conn``.
    """
    info = conn.adapters.types.get("vector")
    if info is None:
        raise LookupError("the vector type is not registered on this connection")
    dumper = type("VectorRowsDumper", (_VectorRowsDumper,), {"oid": info.array_oid, "element_oid": info.oid})
    conn.adapters.register_dumper(VectorRows, dumper)
