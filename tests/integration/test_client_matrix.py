"""The client matrix: what the official MCP clients give the model on a bad argument, a not-found id and
an argument a tool does not take — a tool result with ``isError`` whose text carries the message (MCP
2025-11-25, SEP-1303), never an exception — and that an unknown tool stays a protocol error.

Python: the official ``mcp`` client in both protocol eras. TypeScript: ``@modelcontextprotocol/sdk`` 1.x
(2025-11-25) and ``@modelcontextprotocol/client`` 2.x (2025-11-25 and 2026-07-28), pinned in
``tests/clients/typescript/package-lock.json`` and installed there by ``npm ci`` on first use (``make
ts-clients`` does the same). Skipped, saying so, only where node or npm is not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
TS_DIR = Path(__file__).resolve().parents[1] / "clients" / "typescript"
NODE, NPM = shutil.which("node"), shutil.which("npm")
NOT_FOUND_ID = "00000000-0000-7000-8000-000000000000"


def _assert_readable_errors(outcome: dict[str, Any], client: str) -> None:
    """The model-visible results of the probe's bad calls."""
    bad = outcome["bad_argument"]
    assert "thrown" not in bad, (client, bad)
    assert bad["isError"] is True, (client, bad)
    assert "top_k" in bad["text"]
    assert "less than or equal to 100" in bad["text"]
    assert '"le": 100' in bad["text"]  # the limit, as data the model can read
    assert bad["structuredContent"]["error"]["kind"] == "invalid_arguments"
    unknown = outcome["unknown_argument"]
    assert unknown["isError"] is True, (client, unknown)
    assert "top-k: not an argument of memory_search" in unknown["text"]
    missing = outcome["not_found"]
    assert missing["isError"] is True, (client, missing)
    assert "not found" in missing["text"]
    assert missing["structuredContent"]["error"]["kind"] == "not_found"


@pytest.mark.parametrize("era", PROTOCOL_ERAS)
async def test_the_python_client_hands_the_model_the_error(
    server: BackgroundServer, token: str, era: str
) -> None:
    outcome: dict[str, Any] = {}
    async with mcp_client(server.url, token, era) as client:
        await client.list_tools()
        for name, (tool, args) in {
            "bad_argument": ("memory_search", {"query": "tea", "top_k": 1000}),
            "unknown_argument": ("memory_search", {"query": "tea", "top-k": 5}),
            "not_found": ("memory_get", {"id": NOT_FOUND_ID}),
        }.items():
            result = await client.call_tool(tool, args)
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            outcome[name] = {
                "isError": result.is_error,
                "text": text,
                "structuredContent": result.structured_content,
            }
        # What is wrong with the request itself stays a protocol error, which the client raises.
        with pytest.raises(MCPError, match="unknown tool 'memory_wrte'") as raised:
            await client.call_tool("memory_wrte", {"content": "x"})
    _assert_readable_errors(outcome, f"python {era}")
    assert raised.value.error.code == -32602


@pytest.fixture(scope="module")
def ts_clients() -> Path:
    """tests/clients/typescript with its node_modules (``npm ci`` from the lock file on first use)."""
    if NODE is None or NPM is None:
        pytest.skip("node and npm are not installed: the TypeScript client matrix needs them")
    if not (TS_DIR / "node_modules" / "@modelcontextprotocol" / "client").is_dir():
        subprocess.run(
            [NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=TS_DIR, check=True, timeout=600
        )
    return TS_DIR


@pytest.mark.parametrize(
    ("library", "era"), [("sdk", "legacy"), ("client", "legacy"), ("client", "2026-07-28")]
)
async def test_the_typescript_clients_hand_the_model_the_error(
    server: BackgroundServer, token: str, ts_clients: Path, library: str, era: str
) -> None:
    assert NODE is not None
    command = [NODE, "probe.mjs", library, era, server.url, token]
    done = await anyio.run_process(command, cwd=ts_clients, check=False)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    outcome = json.loads(done.stdout)
    client = f"typescript {library} {era}"
    tools = {t["name"]: t for t in outcome["tools"]}
    assert tools["memory_search"]["title"] == "Search memory"
    assert tools["memory_search"]["annotations"]["readOnlyHint"] is False
    assert outcome["write"].get("isError") is False, (client, outcome["write"])
    assert outcome["search"].get("isError") is False, (client, outcome["search"])
    _assert_readable_errors(outcome, client)
    # What is wrong with the request itself stays a protocol error, which the client raises.
    assert outcome["unknown_tool"]["thrown"]["code"] == -32602, (client, outcome["unknown_tool"])
