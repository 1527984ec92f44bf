"""Prompt texts and response schemas for the LLM providers (reflection, write judge).

Plain text and JSON Schema only: no client code here, so any adapter (OpenAI-compatible today) can use
them, and a prompt change is reviewable on its own. Nothing is computed at import time.
"""
