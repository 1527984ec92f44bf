"""trial19 LOW, through the official MCP client in both protocol eras: an entity type's name outside its
grammar is refused with the grammar in words (as keys and agent ids are, ``limits.PATTERN_FORMATS``), not
pydantic's "String should match pattern '^[A-Za-z][\\w.-]*$'", on memory_write and on memory_search's
filter; the message keeps saying it is about a name, and quotes which one (h-errs: with several names a
model could not tell which to fix)."""

from __future__ import annotations

import pytest

from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_an_entity_name_outside_the_grammar_is_refused_in_words(
    server: BackgroundServer, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        write = await tool_error(client, "memory_write", {"content": "Lunch", "entities": {'we"ird': "v1"}})
        search = await tool_error(client, "memory_search", {"query": "lunch", "entities": {"1st": "v1"}})
    for error, name in ((write, "'we\"ird'"), (search, "'1st'")):
        (detail,) = error["errors"]
        assert detail["field"] == "entities"
        assert (
            detail["message"] == f"entity type name {name}: must be a letter, then letters, digits, _ . or - "
            "only (e.g. person, order_id)"
        )
        assert "pattern" not in error["message"]
