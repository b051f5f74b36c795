# Mazziere — developer entry points. Every target creates .venv and installs the project when needed.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: run test fuzz soak-hidden soak-races lint bench bench-service bench-mtt bench-pm bench-web bench-replay cluster \
	cluster-test faults faults-run soak pitr-drill backup-test clean
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
## contracts of pyproject.toml's [tool.importlinter] (layers; games only through the registry). Two workers that
## steal queued tests from each other (with --dist load one worker sat idle for nine minutes while the other
## ran the queue of browser and live tests it had been given); then the backup test in a process of its own
## (it swaps the test database under the process).
test: $(STAMP)
	$(PY) -m ruff check engine config eventstore tables tournaments audit cashier tests benchmarks
	$(PY) -m mypy --strict engine
	$(VENV)/bin/lint-imports
	$(PY) -m config.devservices --test $(PY) -m pytest -n 2 --dist worksteal -q
	MAZZIERE_BACKUP_TEST=1 $(PY) -m config.devservices --test $(PY) -m pytest tests/tournaments/test_backup.py -q -p no:xdist

## Long fuzz runs (docs/reliability.md; `make test` runs the same checks bounded): Schemathesis against
## /api/schema/ for every role with its coverage phase and 100 examples per operation, and 3,000 garbage
## frames on a live table socket; figures in .dev/api-fuzz-*.json and .dev/socket-fuzz-*.json.
fuzz: $(STAMP)
	MAZZIERE_FUZZ_COVERAGE=1 MAZZIERE_FUZZ_EXAMPLES=100 MAZZIERE_FUZZ_FRAMES=3000 \
		$(PY) -m config.devservices --test $(PY) -m pytest tests/test_api_fuzz.py tests/tables/test_socket_fuzz.py -q

## Issue 23 §6: the hidden-card scan over mixed-game tournaments (every game of the rotation), one after
## another to their ends, until 100,000 socket messages were scanned: 0 leaks (docs/reliability.md).
soak-hidden: $(STAMP)
	MAZZIERE_SCAN_MESSAGES=$${MAZZIERE_SCAN_MESSAGES:-100000} \
		$(PY) -m config.devservices --test $(PY) -m pytest tests/tournaments/test_hidden_card_scan.py -q -s

## 10,000 timer-versus-action races (issue 23 §2, docs/reliability.md "Issue 23: races"; `make test` runs 100):
## an action against its timeout at the deadline, two sockets of one player, a director's pause or move against
## an action; exactly one effect each. Figures in .dev/races-*.json.
soak-races: $(STAMP)
	MAZZIERE_RACES=10000 $(PY) -m config.devservices --test $(PY) -m pytest tests/test_races.py -q -s -n 2

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

## issue 22: the web process's CPU per part of an action (the command, a viewer's render, the frame's
## validation), in one thread, on its own database mazziere_bench_web on 127.0.0.1 (dropped and created).
bench-web: $(STAMP)
	$(PY) -m benchmarks.web

## issue 22: the tournament process manager's CPU per HandEnded at 100, 1,000 and 10,000 players (its own
## database mazziere_bench_pm on 127.0.0.1, dropped and created); figures in .dev/bench-pm.json.
bench-pm: $(STAMP)
	$(PY) -m benchmarks.pm --json .dev/bench-pm.json

## issue 6: projection rebuild and verify_all on the simulator's store of ≥ 1,000,000 events (simulated first
## when smaller: 1,000-player tournaments into mazziere_bench on 127.0.0.1); summary in .dev/bench-replay.json.
bench-replay: $(STAMP)
	$(PY) -m benchmarks.replay --external --generate --verify --out .dev/bench-replay.json

## The loopback cluster of deploy/README.md: nginx on http://127.0.0.1:8100/ in front of three web processes
## (8101-8103), two Celery workers, the timekeeper and the subscribers, on the machine's PostgreSQL
## (database mazziere_cluster, user root) and Redis (db 12). Ctrl-C stops it; pids in .dev/cluster/state.json.
cluster: $(STAMP)
	deploy/local-cluster

## The cluster test (a few minutes, not part of `make test`): a bot tournament through nginx on a loopback
## cluster of its own (port 8110, database mazziere_cluster_test, Redis db 13), one web process and one worker
## killed in the middle; figures in .dev/cluster-test.json (docs/performance.md, "Loopback cluster").
cluster-test: $(STAMP)
	MAZZIERE_CLUSTER_TEST=1 DATABASE_URL=postgresql://root@127.0.0.1:5432/mazziere_cluster_test \
		REDIS_URL=redis://127.0.0.1:6379/13 $(PY) -m pytest tests/deploy/test_local_cluster.py -q -s -p no:xdist

## Issue 23 §1, faults under load (about six minutes, needs root; not part of `make test`): the loopback
## cluster (nginx on 8120) on a private PostgreSQL (a tmpfs of 300 MB) and redis-server, a mixed-game bot
## tournament and cash tables of bots; a worker, the timekeeper, a web process and the subscribers killed,
## PostgreSQL restarted (fast, immediate), Redis restarted empty, the disk filled, a socket dropped and its
## command resent, in turn; recovery times in .dev/faults-test.json (docs/reliability.md).
faults: $(STAMP)
	MAZZIERE_FAULTS_TEST=1 $(PY) -m pytest tests/deploy/test_faults.py -q -s -p no:xdist

## Issue 23 §1 on `make run` (6-8 minutes, needs root; not part of `make test`): the Makefile's run recipe
## (devservices' embedded PostgreSQL and Redis under a private MAZZIERE_DEV_DIR on a 400 MB tmpfs, honcho, the
## Procfile, web on a free port), the load and faults of `make faults` (the embedded servers' own: pgserver's
## pg_ctl restart, redis-server killed and left to devservices); figures in .dev/faults-run-test.json.
faults-run: $(STAMP)
	MAZZIERE_FAULTS_RUN_TEST=1 $(PY) -m pytest tests/deploy/test_faults_run.py -q -s -p no:xdist

## Issue 23 §5, the soak (an hour and a few minutes, needs root; not part of `make test`): the loopback cluster
## (nginx on 8130) on a private PostgreSQL and redis-server, mixed-game tournaments of club bots one after
## another and four cash tables for $${MAZZIERE_SOAK_MINUTES:-60} minutes with fast clocks; every process's memory,
## Redis keys and PostgreSQL connections sampled, no error in the logs, the invariants and verify_all at the end;
## figures in .dev/soak-test.json (docs/reliability.md, "Issue 23 §5: the soak").
soak: $(STAMP)
	MAZZIERE_SOAK_TEST=1 $(PY) -m pytest tests/deploy/test_soak.py -q -s -p no:xdist

## The point-in-time restore drill (docs/operations.md, "Backups"): WAL archiving, a base backup, a disaster and a
## recovery to a restore point, then a dump restored into a fresh cluster, on throwaway clusters in a temporary
## folder (Debian's initdb/pg_ctl; about 5 minutes). Last result: docs/reliability.md, "Issue 23: backups".
pitr-drill: $(STAMP)
	deploy/pitr-drill.sh

## Issue 23 §4: pg_dump of a running tournament restored into a new database, projections rebuilt, play goes on
## identically (tests/tournaments/test_backup.py; about a minute). `make test` runs it after the suite, in a
## process of its own: it swaps the test database under the test process.
backup-test: $(STAMP)
	MAZZIERE_BACKUP_TEST=1 $(PY) -m config.devservices --test $(PY) -m pytest tests/tournaments/test_backup.py -q -p no:xdist

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
