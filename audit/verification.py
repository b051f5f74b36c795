"""Verification of the whole log for auditors (issue 6 §3; ``manage.py verify_all``).

:func:`verify` runs, over every stream (or the ones asked for):

1. **hash chains** (:mod:`eventstore.chain`): no event edited, deleted, inserted, reordered or swapped;
   and, given the heads a tournament's results published (an auditor's saved copy), no stream cut short or
   rewritten from some version on with every hash recomputed (``head`` failures);
2. **shuffles** (:mod:`audit.shuffles`): every hand's seed matches its commitment, the deck is the seed's
   shuffle and every card dealt (replacements included) came from it in order, no card twice;
3. **hands** (:mod:`audit.hands`): chips conserved at every hand's end, and the engine replaying the hand's
   history reaches the recorded finishing stacks; at a poker cinese table every token accounted for
   (:mod:`audit.tokens`: staked = won + discarded per game, points and match totals the tokens won, no
   token staked twice in a match);
4. **tournaments** (and the cashier's ledgers, issue 21): the invariant the owner of a stream registered
   (:class:`eventstore.catalog.Folding`;
   a multi-table tournament: its chips conserved after every transaction; a tournament of poker cinese
   matches: its ranking a permutation of its entrants), checked after every transaction, and the owner's
   checks against other streams (a tournament of matches: every match recorded agrees with its table's
   ``MatchEnded``);
5. **snapshots**: every snapshot of a table or tournament stream equals the fold of the log up to its
   version (loads and projection rebuilds start from the newest snapshot, so a wrong one would pass into
   both the live state and the rebuilt one unseen);
6. **projections**: every read model rebuilt from the log (from the verified snapshots on) equals the live
   one;
7. **whole-log checks** the owners registered (:class:`eventstore.catalog.Check`; the cashier's: the chips
   on every balance and at the tables bought into equal the operator's grants, credits and debits, every
   transfer on both its streams in one transaction).

Every stream is read once (the tournament's and each table's), in version order; the chains are read in
keyset batches (:func:`eventstore.chain.verify_chains`). Table streams are read through ``tables`` and the
game registry (each game's event types); the other streams through what their owner registered in
:mod:`eventstore.catalog` (``audit`` does not import ``tournaments``: they are independent layers).

Each failure names the stream and the first failing version. A stream whose chain is broken is reported
once, as such: its content is not checked further (it proves nothing).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit import hands, shuffles, tokens
from eventstore import catalog, chain, projections
from eventstore.parallel import map_streams
from eventstore.store import RecordedEvent, read_stream, snapshots, streams
from tables import service


@dataclass(frozen=True, slots=True)
class Failure:
    check: str
    stream_id: str
    version: int
    message: str


@dataclass
class Report:
    """What was checked (``counts``: streams, events, hands, tournaments) and every :class:`Failure`;
    ``heads``: each stream's last hash (hex), to publish and compare with a later run."""

    counts: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    heads: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures


def verify(
    only: list[str] | None = None,
    progress: Callable[[str, int], None] | None = None,
    jobs: int = 1,
    published: Sequence[chain.PublishedHead] = (),
) -> Report:
    """Run every check over the streams ``only`` (default: all). ``progress(stage, n)``: n more units done.
    ``jobs``: the processes checking the table and tournament streams
    (:func:`eventstore.parallel.map_streams`; default 1, this process: ``manage.py verify_all`` passes the
    machine's cores; the progress of those stages is reported when all are done). ``published``: heads an
    auditor saved (a finished tournament's results, :func:`eventstore.chain.parse_heads`), each checked
    against its stream (:func:`eventstore.chain.check_heads`: ``head`` failures, a cut tail or a stream
    rewritten with every hash recomputed); their streams are verified too."""
    report = Report()
    if only is not None:
        only = sorted({*only, *(head.stream_id for head in published)}, key=str.encode)

    def step(stage: str) -> Callable[[int], None]:
        return lambda n: progress(stage, n) if progress is not None else None

    table_streams = [s for s in (only or streams("table-")) if s.startswith("table-")]
    foldings = catalog.foldings()
    owned = [[s for s in (only or streams(f.prefix)) if s.startswith(f.prefix)] for f in foldings]
    # Every table and folded stream is checked by one task (its chain, then, if the chain holds, its
    # content), the tasks spread over the cores (eventstore.parallel); the tournaments' streams first (the
    # longest folds). This process checks the chains of every other stream (cashier, preferences, and any
    # stream whose version 1 is gone, which streams() does not list) before. Results in stream order.
    tasks = [f"{index}:{s}" for index, ids in enumerate(owned) for s in ids]
    tasks += [f"t:{s}" for s in table_streams]
    in_tasks = sorted({task.split(":", 1)[1] for task in tasks})
    problems, heads = chain.verify_chains(only, progress=step("events"), exclude=in_tasks)
    results = dict(map_streams(_check_stream, tasks, jobs))
    chains: dict[str, tuple[list[chain.ChainProblem], dict[str, str]]] = {}
    for task, (checked, stream_problems, stream_heads, _, _) in results.items():
        chains[task.split(":", 1)[1]] = (stream_problems, stream_heads)
        step("events")(checked)
    for stream_problems, stream_heads in chains.values():
        problems += stream_problems
        heads.update(stream_heads)
    problems.sort(key=lambda p: p.stream_id.encode())  # PostgreSQL's order of stream ids (collation C)
    report.heads = {stream_id: heads[stream_id] for stream_id in sorted(heads, key=str.encode)}
    report.failures += [Failure("chain", p.stream_id, p.version, p.message) for p in problems]
    report.counts["streams"] = len(report.heads) + len(problems)
    broken = {p.stream_id for p in problems}  # a broken chain: its content is not evidence of anything
    if published:  # a broken chain is named as such above; the published heads of the others are compared
        heads_checked = chain.check_heads(h for h in published if h.stream_id not in broken)
        report.failures += [Failure("head", p.stream_id, p.version, p.message) for p in heads_checked]
        report.counts["published heads"] = len(published)
    hand_count = 0
    for stream_id in table_streams:
        step("tables")(1)
        if stream_id in broken:
            continue
        _, _, _, failures, hands_ended = results[f"t:{stream_id}"]
        hand_count += hands_ended
        report.failures += failures
    report.counts["tables"] = len(table_streams)
    report.counts["hands"] = hand_count
    report.counts["tournaments"] = 0
    for index, folding in enumerate(foldings):
        for stream_id in owned[index]:
            step(folding.counted)(1)
            if stream_id in broken:
                continue
            report.failures += results[f"{index}:{stream_id}"][3]
        report.counts[folding.counted] = report.counts.get(folding.counted, 0) + len(owned[index])
    if only is None:
        for check in catalog.checks():
            problems, counts = check.run()
            report.failures += [Failure(check.name, s, v, m) for s, v, m in problems]
            report.counts.update(counts)
        for projection in projections.registered():
            rows, unreadable = _computed(projection)
            report.failures += unreadable
            for difference in projections.differences(rows, projection.current()):
                report.failures.append(Failure("projection", projection.name, 0, difference))
    return report


def _computed(projection: projections.Projection) -> tuple[projections.Rows, list[Failure]]:
    """Every row of ``projection`` recomputed from the log, stream by stream, and a ``projection`` failure
    naming each stream that cannot be folded (a forged log, issue 23: an event deleted, inserted or
    reordered can leave a fold the engine refuses; the run goes on, that stream's rows missing)."""
    rows: projections.Rows = {}
    failures: list[Failure] = []
    for stream_id in streams(projection.prefix):
        try:
            projections.merge(rows, projection.compute(stream_id))
        except Exception as error:  # the log, not the run, is at fault: report it and go on
            message = f"{projection.name}: cannot be rebuilt from the log: {error!r}"
            failures.append(Failure("projection", stream_id, 0, message))
    return rows, failures


def _check_stream(task: str) -> tuple[int, list[chain.ChainProblem], dict[str, str], list[Failure], int]:
    """One task of :func:`verify` (``t:<stream>``: a table stream; ``<i>:<stream>``: a stream of the i-th
    folding of :func:`eventstore.catalog.foldings`): the stream's hash chain (the events checked, its
    problem, its head), then, if the chain holds, its content: the failures and the hands it ended."""
    kind, stream_id = task.split(":", 1)
    if kind == "t":  # one read for the chain and the checks (which read no time, transaction or event id)
        problems, heads, checked, events = chain.read_checked(stream_id)
        if problems:
            return checked, problems, heads, [], 0
        hands_ended = sum(1 for e in events if e.type == "HandEnded")
        return checked, problems, heads, _table_checks(stream_id, events), hands_ended
    counted: list[int] = []
    problems, heads = chain.verify_chains([stream_id], progress=counted.append)
    if problems:
        return sum(counted), problems, heads, [], 0
    return sum(counted), problems, heads, _folded(catalog.foldings()[int(kind)], stream_id), 0


def _shuffles(stream_id: str, events: Sequence[RecordedEvent], steps: hands.Steps | None) -> list[Failure]:
    decoded = None if steps is None else [event for event, _ in steps]
    problems = shuffles.verify_table_stream(events, decoded=decoded)
    return [Failure("shuffle", p.stream_id, p.version, p.message) for p in problems]


def _hands(stream_id: str, events: Sequence[RecordedEvent], steps: hands.Steps | None) -> list[Failure]:
    problems = hands.verify(stream_id, events, steps)
    return [Failure("hand", p.stream_id, p.version, p.message) for p in problems]


def _tokens(stream_id: str, events: Sequence[RecordedEvent], steps: hands.Steps | None) -> list[Failure]:
    """Every token accounted for (poker cinese, :mod:`audit.tokens`)."""
    return [Failure("tokens", p.stream_id, p.version, p.message) for p in tokens.verify(stream_id, events)]


def _table_checks(stream_id: str, events: Sequence[RecordedEvent]) -> list[Failure]:
    """The shuffles, the hands and the snapshots of a table stream, each on its own: a check that cannot
    fold the stream (the engine raises) is one ``replay`` failure naming it; the other checks still run.

    The stream is folded once (:func:`tables.service.fold` with ``steps``: each event decoded once, the
    table after each) and the checks share that fold; if the fold itself raises, each check folds the
    stream on its own as before, so that each failure is reported as it was."""
    failures: list[Failure] = []
    steps: list[tuple[Any, service.Loaded | None]] | None = []
    try:
        service.fold(None, events, int(stream_id.removeprefix("table-")), steps)
    except Exception:  # each check below then meets the error on its own
        steps = None
    checks = (("shuffle", _shuffles), ("hand", _hands), ("tokens", _tokens), ("snapshot", _table_snapshots))
    for name, check in checks:
        try:
            failures += check(stream_id, events, steps)
        except Exception as error:  # a stream the engine cannot fold: a failure of it, not of the run
            failures.append(Failure("replay", stream_id, 0, f"cannot be replayed ({name} check): {error!r}"))
    return failures


def _json(data: Any) -> Any:
    """``data`` as it comes back from a jsonb column (tuples as lists)."""
    return json.loads(json.dumps(data))


def _table_snapshots(
    stream_id: str, events: Sequence[RecordedEvent], steps: hands.Steps | None = None
) -> list[Failure]:
    """Each snapshot of the table stream against the fold of its events up to the snapshot's version
    (``steps``: the stream already folded, :data:`audit.hands.Steps`)."""
    stored = snapshots(stream_id, service.SNAPSHOT_SCHEMA)
    failures: list[Failure] = []
    table_id = int(stream_id.removeprefix("table-"))
    loaded = None
    for index, recorded in enumerate(events):
        if not stored:
            break
        loaded = service.fold(loaded, [recorded], table_id) if steps is None else steps[index][1]
        data = stored.pop(recorded.version, None)
        if data is not None and loaded is not None and not _same_snapshot(loaded, data):
            failures.append(Failure("snapshot", stream_id, recorded.version, _SNAPSHOT_DIFFERS))
    failures += [Failure("snapshot", stream_id, v, "snapshot past the stream's last event") for v in stored]
    return failures


def _same_snapshot(loaded: service.Loaded, data: Any) -> bool:
    """Whether the stored snapshot ``data`` holds exactly ``loaded``. A snapshot taken before issue 16 has no
    game in its ``meta``: it holds ``loaded`` if the game it is read as (:func:`tables.service.snapshot_game`)
    is the table's and everything else is equal."""
    expected = _json(service.snapshot_data(loaded))
    meta = data.get("meta") if isinstance(data, dict) else None
    if isinstance(meta, dict) and "game" not in meta:
        try:
            game = service.snapshot_game(data)
        except (KeyError, AttributeError, TypeError):
            return False
        expected["meta"].pop("game", None)
        return game == loaded.game and expected == data
    return bool(expected == data)


_SNAPSHOT_DIFFERS = "the snapshot differs from the fold of the log up to this version"


def _folded(folding: catalog.Folding, stream_id: str) -> list[Failure]:
    """A stream of another app (a multi-table tournament), folded once with what its owner registered: its
    invariant after every transaction (chips conserved; the version is the transaction's last event), and
    each snapshot equal to the fold up to its version."""
    stored = snapshots(stream_id, folding.snapshot_schema)
    failures: list[Failure] = []
    state = folding.fold(stream_id, None, [])
    balanced = folding.balanced or (lambda _state: True)
    transaction_id, last_version, conserved = None, 0, True
    for recorded in read_stream(stream_id):
        if conserved and recorded.tx_id != transaction_id and not balanced(state):
            failures.append(Failure(folding.invariant, stream_id, last_version, folding.broken))
            conserved = False
        transaction_id, last_version = recorded.tx_id, recorded.version
        state = folding.fold(stream_id, state, [recorded])
        data = stored.pop(recorded.version, None)
        if data is not None and _json(folding.snapshot_data(state)) != data:
            failures.append(Failure("snapshot", stream_id, recorded.version, _SNAPSHOT_DIFFERS))
    if conserved and not balanced(state):
        failures.append(Failure(folding.invariant, stream_id, last_version, folding.broken))
    failures += [Failure("snapshot", stream_id, v, "snapshot past the stream's last event") for v in stored]
    if folding.results is not None:
        failures += [Failure(folding.invariant, stream_id, v, m) for v, m in folding.results(stream_id)]
    return failures
