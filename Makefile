# Mazziere — developer entry points. Every target creates .venv and installs the project when needed.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test fuzz lint bench bench-service bench-mtt bench-replay clean
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

## The service with a live demo sit-and-go (embedded PostgreSQL and Redis unless DATABASE_URL/REDIS_URL are set),
## on ${MAZZIERE_HOST:-127.0.0.1}:${MAZZIERE_PORT:-8000}. The processes are the Procfile's; one that dies is started
## again (config/respawn.sh). Ctrl-C stops them all (docs/operations.md, "Processes").
run: $(STAMP)
	$(PY) -m config.devservices sh -c 'python manage.py migrate --noinput -v0 && python manage.py demo && exec honcho start -f Procfile'

## The whole test suite (also what CI runs), with static checks first: ruff, mypy on the engine, and the import
## contracts of pyproject.toml's [tool.importlinter] (layers; games only through the registry).
test: $(STAMP)
	$(PY) -m ruff check engine config eventstore tables tournaments audit cashier tests benchmarks
	$(PY) -m mypy --strict engine
	$(VENV)/bin/lint-imports
	$(PY) -m config.devservices --test $(PY) -m pytest -n 2 -q

## Long fuzz runs (docs/reliability.md; `make test` runs the same checks bounded): Schemathesis against
## /api/schema/ for every role with its coverage phase and 100 examples per operation, and 3,000 garbage
## frames on a live table socket; figures in .dev/api-fuzz-*.json and .dev/socket-fuzz-*.json.
fuzz: $(STAMP)
	MAZZIERE_FUZZ_COVERAGE=1 MAZZIERE_FUZZ_EXAMPLES=100 MAZZIERE_FUZZ_FRAMES=3000 \
		$(PY) -m config.devservices --test $(PY) -m pytest tests/test_api_fuzz.py tests/tables/test_socket_fuzz.py -q

lint: $(STAMP)
	$(PY) -m ruff check engine config eventstore tables tournaments audit cashier tests benchmarks
	$(PY) -m mypy --strict engine
	$(VENV)/bin/lint-imports

# the benchmarks also need the `bench` extra (PokerKit, the reference engine of benchmarks/italian.py,
# benchmarks/core.py and benchmarks/phh.py; the dev extra has it too, for the PHH tests)
$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	@touch $(BENCH_STAMP)

## Benchmarks: prints the machine and the numbers (copy them into docs/performance.md).
bench: $(BENCH_STAMP)
	$(PY) -m benchmarks.evaluation
	$(PY) -m benchmarks.italian
	$(PY) -m benchmarks.core
	$(PY) -m benchmarks.phh
	$(PY) -m benchmarks.cinese
	$(PY) -m benchmarks.telesina

## The service under load: concurrent tables of WebSocket players against uvicorn, Celery and the subscribers,
## poker all'italiana (PIT) then no-limit hold'em (NT) (issue 17: a hold'em action costs no more than an Italian one).
bench-service: $(STAMP)
	$(PY) -m benchmarks.service --tables 100 --seconds 60 --game PIT
	$(PY) -m benchmarks.service --tables 100 --seconds 60 --game NT

## Multi-table tournaments at scale (docs/performance.md): 1,000 bots to the end, 10,000 bots at human pace
## for 10 minutes, on the machine's PostgreSQL and Redis (127.0.0.1); summaries in .dev/bench-mtt-*.json.
bench-mtt: $(STAMP)
	$(PY) -m benchmarks.mtt --external --out .dev/bench-mtt-1000.json --players 1000 --seed 1000 \
		--fast-clock --level-seconds 120 --worker-processes 2 --concurrency 8 --duration 3600
	$(PY) -m benchmarks.mtt --external --out .dev/bench-mtt-10000.json --players 10000 --seed 10 \
		--think-ms 2000-4000 --duration 600 --worker-processes 2 --concurrency 8

## issue 6: projection rebuild and verify_all on the simulator's store of ≥ 1,000,000 events (simulated first
## when smaller: 1,000-player tournaments into mazziere_bench on 127.0.0.1); summary in .dev/bench-replay.json.
bench-replay: $(STAMP)
	$(PY) -m benchmarks.replay --external --generate --verify --out .dev/bench-replay.json

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
