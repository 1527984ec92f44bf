"""Postgres + pgvector adapters."""
