"""The cashier's read model: one row per player's ledger (:mod:`cashier.ledger`), written in the transaction
that appends to the ledger, rebuilt from the log by ``rebuild_projections cashier-balances`` and checked by
``verify_projections`` / ``verify_all`` (the projection registered in :mod:`cashier.projection`)."""

from __future__ import annotations

from django.db import models


class Balance(models.Model):
    """The balance of the ledger ``ledger-<user_id>`` at ``version`` and its parts (chips, ``int``):
    ``granted`` the opening grant, ``credited`` / ``debited`` the operator's corrections, ``bought_in``
    the buy-ins and top-ups taken to tables, ``cashed_out`` the chips brought back."""

    user_id = models.BigIntegerField(primary_key=True)
    player = models.CharField(max_length=150, db_index=True)
    version = models.IntegerField(default=0)
    balance = models.BigIntegerField(default=0)
    granted = models.BigIntegerField(default=0)
    credited = models.BigIntegerField(default=0)
    debited = models.BigIntegerField(default=0)
    bought_in = models.BigIntegerField(default=0)
    cashed_out = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"balance of {self.player}: {self.balance}"


class CashTable(models.Model):
    """A cash table's record (the stream ``cashtable-<table_id>``, :mod:`cashier.ring`) as the cash lobby
    lists it: its game (variant code), ``stakes`` label and ``forced`` bets (JSON), ``seats``, buy-ins
    (chips), action time (ms), ``status`` (``open``, ``closing``, ``closed``), ``waiting`` (user names in
    order), ``opened_at_ms``. Disposable: ``rebuild_projections cash-tables`` rebuilds it from the log."""

    table_id = models.BigIntegerField(primary_key=True)
    version = models.IntegerField(default=0)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=20, db_index=True)
    stakes = models.CharField(max_length=100)
    forced = models.JSONField(default=dict)
    seats = models.IntegerField(default=0)
    min_buy_in = models.BigIntegerField(default=0)
    max_buy_in = models.BigIntegerField(default=0)
    action_time_ms = models.IntegerField(default=0)
    status = models.CharField(max_length=10, default="open", db_index=True)
    waiting = models.JSONField(default=list)
    opened_at_ms = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["table_id"]

    def __str__(self) -> str:
        return f"cash table {self.table_id} {self.stakes}"


class WaitingPool(models.Model):
    """The waiting list of any cash table of one game and stakes (the stream ``cashpool-<key>``,
    :func:`cashier.ring.pool_stream`): ``waiting`` user names in order. Disposable like :class:`CashTable`."""

    key = models.CharField(max_length=100, primary_key=True)
    version = models.IntegerField(default=0)
    waiting = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"waiting for {self.key}"
