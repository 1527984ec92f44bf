"""Hindsight: long-term memory for LLM agents over MCP.

Layout (ports and adapters): ``domain`` (pure models and rules), ``ports`` (Protocols the use cases
need), ``usecases`` (the operations), ``adapters`` (Postgres, Redis, SQS, embedders), ``api`` (MCP
over HTTP, Lambda and SQS entry adapters), ``bootstrap`` (composition root; its factories are in
``factories`` and ``operator_tools``), ``local`` (the embedded stack) and ``cli``.
"""

__version__ = "0.1.0"
