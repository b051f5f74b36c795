"""What the app owning a kind of stream tells the readers of every stream that may not import it.

The auditors' app (``audit``) reads every stream of the log, but sits beside ``tournaments`` in the layers
(``config`` > ``audit`` | ``tournaments`` > ``tables`` > ``eventstore`` > ``engine``): neither imports the
other. So the owner of a stream prefix registers here, in its ``AppConfig.ready()`` (as it registers its
projections, :mod:`eventstore.projections`, and subscribers, :mod:`eventstore.subscriptions`):

- a :class:`Folding` of its streams: how to fold one (the owner's event types, upcasters and extra page
  data), what its snapshots hold, and the owner's invariant after every transaction (a tournament's chips
  conserved). ``take_snapshots`` and ``verify_all`` use it;
- a :class:`Directory` of the named things owning streams (tournaments): find them by name, id or player,
  their stream and the tables they opened. The auditors' search, stream and verification pages use it;
- a :class:`Check` over the whole log that no single stream's fold can make (the cashier's: the chips on
  every balance and at the tables they bought into equal the operator's grants, credits and debits, issue
  21). ``verify_all`` runs each once.

Table streams need none of this: ``audit`` imports ``tables`` and reaches every game through the registry.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from eventstore.store import RecordedEvent


@dataclass(frozen=True)
class Folding:
    """How the streams named ``prefix`` + id fold (see the module doc).

    - ``fold(stream_id, state, events) -> state``: ``state`` ``None`` is the stream's start; ``events`` in
      version order, as read from the store (upcast);
    - ``snapshot_data(state) -> dict``: the JSON a snapshot of schema ``snapshot_schema`` holds;
    - ``load(stream_id) -> (version, state)``: the stream as it is now, from its newest snapshot on;
    - ``may_snapshot(state)``: whether a snapshot may be taken at that state;
    - ``balanced(state)``: the owner's invariant, true after every transaction that wrote to the stream
      (``None``: none); ``invariant``: the name of that check in a verification report, ``broken``: its
      message when it fails;
    - ``results(stream_id) -> [(version, problem)]``: the owner's checks of the stream against other streams
      (a tournament of matches: each recorded match against its table's ``MatchEnded``), run once after the
      fold (``None``: none); reported under ``invariant``."""

    prefix: str
    snapshot_schema: int
    fold: Callable[[str, Any, Sequence[RecordedEvent]], Any]
    snapshot_data: Callable[[Any], dict[str, Any]]
    load: Callable[[str], tuple[int, Any]]
    may_snapshot: Callable[[Any], bool] = lambda state: True
    balanced: Callable[[Any], bool] | None = None
    invariant: str = "invariant"
    broken: str = "the invariant does not hold"
    results: Callable[[str], list[tuple[int, str]]] | None = None
    counted: str = "tournaments"
    """The name under which a verification report counts these streams (``"ledgers"``…)."""


@dataclass(frozen=True, slots=True)
class Listed:
    """A named thing owning a stream, as a list shows it: ``kind`` (``"sitgo"``, ``"mtt"``), ``object_id``,
    ``name``, its ``stream_id`` and (from ``Directory.get``) its tables' ids."""

    kind: str
    object_id: int
    name: str
    stream_id: str
    tables: tuple[int, ...] = ()


Find = Callable[[str, "Collection[int] | None", str, "Collection[int]", "int | None"], list[Listed]]
"""``(text, within, player, also, limit) -> listed``, newest first: those whose name contains ``text``
(case-insensitive) or whose id it is (``""``: any), among the ids ``within`` (``None``: any), where
``player`` registered or whose id is in ``also`` (``""``: any player), at most ``limit`` (``None``: all)."""


@dataclass(frozen=True)
class Directory:
    """The owner's listing of its named things (``kind``: what they are, e.g. ``"tournament"``): ``find``
    (:data:`Find`), ``get(id) -> Listed | None`` (with the tables its read models list), and
    ``stream_tables(stream_id) -> ids``: the tables its stream names (from the log alone)."""

    kind: str
    find: Find
    get: Callable[[int], Listed | None]
    stream_tables: Callable[[str], set[int]]


@dataclass(frozen=True)
class Check:
    """A check of the whole log (see the module doc): ``run() -> ([(stream_id, version, problem)], counts)``,
    ``counts`` the numbers a report shows (``{"ledgers": 12, "chips_on_balances": …}``); ``name``: the
    check's name in a report."""

    name: str
    run: Callable[[], tuple[list[tuple[str, int, str]], dict[str, int]]]


_FOLDINGS: dict[str, Folding] = {}
_DIRECTORIES: dict[str, Directory] = {}
_CHECKS: dict[str, Check] = {}


def register_folding(folding: Folding) -> Folding:
    """Register ``folding`` for its prefix (again: replaces it)."""
    _FOLDINGS[folding.prefix] = folding
    return folding


def foldings() -> list[Folding]:
    return list(_FOLDINGS.values())


def folding_of(stream_id: str) -> Folding | None:
    """The folding registered for the stream's prefix, or ``None``."""
    return next((f for prefix, f in _FOLDINGS.items() if stream_id.startswith(prefix)), None)


def register_directory(directory: Directory) -> Directory:
    """Register ``directory`` for its kind (again: replaces it)."""
    _DIRECTORIES[directory.kind] = directory
    return directory


def directory(kind: str) -> Directory | None:
    """The directory registered for ``kind``, or ``None`` (its app is not installed)."""
    return _DIRECTORIES.get(kind)


def register_check(check: Check) -> Check:
    """Register ``check`` under its name (again: replaces it)."""
    _CHECKS[check.name] = check
    return check


def checks() -> list[Check]:
    return list(_CHECKS.values())
