"""Inbound adapters: MCP over HTTP (ASGI), the Lambda HTTP adapter and the SQS worker entry."""
