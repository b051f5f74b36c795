"""The ledger's pure decider (:mod:`cashier.ledger`, issue 21): over any sequence of operator operations and
transfers the balance is its parts' sum and never below 0, a refused command decides nothing, and the
ledger round-trips through its snapshot."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cashier import ledger as rules
from cashier.ledger import Ledger, LedgerRefused

AMOUNTS = st.integers(-5, 3000)

COMMANDS = st.one_of(
    st.builds(rules.Grant, AMOUNTS, st.sampled_from(["benvenuto", ""])),
    st.builds(rules.Credit, AMOUNTS, st.just("bonus")),
    st.builds(rules.Debit, AMOUNTS, st.just("correzione")),
    st.builds(
        rules.BuyIn,
        st.integers(1, 3),
        st.integers(0, 5),
        AMOUNTS,
        st.sampled_from(["t1", "t2", "t3", "t4"]),
        st.none() | st.just(100),
        st.none() | st.just(2000),
    ),
    st.builds(rules.TopUp, st.integers(1, 3), AMOUNTS, st.sampled_from(["u1", "u2", "t1"])),
    st.builds(rules.CashOut, st.integers(1, 3), st.integers(0, 5000), st.sampled_from(["c1", "c2", "c3"])),
)


def apply(ledger: Ledger, command: rules.Command) -> Ledger:
    for number, (kind, data) in enumerate(rules.decide(ledger, command, "anna"), start=ledger.version + 1):
        assert data["player"] == "anna"
        ledger = rules.evolve(ledger, kind, data, number)
        assert data["balance"] == ledger.balance  # each event records the balance after it
    return ledger


@settings(max_examples=150, deadline=None)
@given(st.lists(COMMANDS, max_size=25))
def test_the_balance_is_its_parts_and_never_negative(commands: list[rules.Command]) -> None:
    ledger = Ledger()
    for command in commands:
        try:
            after = apply(ledger, command)
        except LedgerRefused as refused:
            assert refused.english and str(refused)
            continue
        assert after.balanced, after
        ledger = after
    assert rules.from_snapshot(ledger.snapshot()) == ledger


def test_a_transfer_is_refused_with_a_clear_message() -> None:
    ledger = apply(Ledger(), rules.Grant(500, "benvenuto"))
    with pytest.raises(rules.InsufficientBalance, match="superano il saldo di 500") as refused:
        rules.decide(ledger, rules.BuyIn(1, 0, 501, "t"), "anna")
    assert refused.value.english == "Buy-in: 501 chips is more than the balance of 500."
    with pytest.raises(rules.OutsideLimits, match="minimo di questo tavolo è 200"):
        rules.decide(ledger, rules.BuyIn(1, 0, 100, "t", 200, 400), "anna")
    ledger = apply(ledger, rules.BuyIn(1, 0, 300, "t", 200, 400))
    assert ledger.tables == ((1, 0),) and ledger.balance == 200
    with pytest.raises(rules.OutsideLimits, match="oltre il massimo del tavolo"):
        rules.decide(ledger, rules.TopUp(1, 150, "u", 300, 400), "anna")
    with pytest.raises(rules.AlreadyAtTable):
        rules.decide(ledger, rules.BuyIn(1, 2, 50, "t2"), "anna")
    ledger = apply(ledger, rules.CashOut(1, 420, "c"))
    assert (ledger.balance, ledger.tables, ledger.cashed_out) == (620, (), 420)
    with pytest.raises(rules.NotAtTable):
        rules.decide(ledger, rules.CashOut(1, 0, "c2"), "anna")
