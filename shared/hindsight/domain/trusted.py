"""Pydantic instances built without validation, from values this program made or read back itself.

A search builds a few hundred models (each candidate of its pool, the rows and scores of the hits it
returns) from values that are of their fields' types already: columns read from Postgres (typed by the
driver, constrained by the schema's CHECKs), floats computed by ranking. Validating them again only costs
time (issue 15: ~430 candidate instances took 3–4 ms of a search through ``model_construct``). Only for
such values: anything that comes from a caller is validated.

No I/O.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

_Model = TypeVar("_Model", bound=BaseModel)

_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def trusted(cls: type[_Model], values: dict[str, Any], fields_set: set[str]) -> _Model:
    """An instance of the pydantic model ``cls`` holding ``values`` as they are: every field of ``cls``,
    in its order, each already of its field's type (what validation would return for it, e.g. a
    ``float``, not a numpy float). What ``model_construct`` makes, without its per-field pass over
    aliases and defaults. ``fields_set`` may be shared by the instances of one call: pydantic copies it
    before changing it (``model_copy``). The slots are set through BaseModel's own descriptors (what
    ``object.__setattr__`` ends in, a lookup less each)."""
    instance = cls.__new__(cls)
    _set_dict(instance, values)
    _set_fields_set(instance, fields_set)
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance
