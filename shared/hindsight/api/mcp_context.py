"""Per-request context for MCP tools: the process's container and the authenticated principal."""

from __future__ import annotations

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from hindsight.container import Container
from hindsight.domain.auth import Principal
from hindsight.domain.errors import Unauthorized


class ContainerHolder:
    """The per-process container, filled in by the server lifespan (once per Lambda instance)."""

    container: Container | None = None

    def get(self) -> Container:
        if self.container is None:
            raise RuntimeError("the MCP server lifespan has not started")
        return self.container


class ApiKeyVerifier:
    """MCP SDK TokenVerifier over Hindsight API keys: the principal travels in the token's claims."""

    def __init__(self, holder: ContainerHolder) -> None:
        self._holder = holder

    async def verify_token(self, token: str) -> AccessToken | None:
        principal = await self._holder.get().authenticate(token)
        if principal is None:
            return None
        scopes = ["memory:read"] if principal.read_only else ["memory:read", "memory:write"]
        return AccessToken(
            token=token,
            client_id=principal.key_id,
            scopes=scopes,
            claims={"principal": principal.model_dump(mode="json")},
        )


def current_principal() -> Principal:
    """The caller of the current request. Raises Unauthorized outside an authenticated request."""
    token = get_access_token()
    if token is None or not token.claims or "principal" not in token.claims:
        raise Unauthorized("no authenticated principal")
    return Principal.model_validate(token.claims["principal"])
