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
