"""The event store: one append-only PostgreSQL table of events (``shared/ARCHITECTURE.md``, "Events").

Public API in :mod:`eventstore.store` (append, read), :mod:`eventstore.subscriptions` (checkpointed
catch-up readers), :mod:`eventstore.upcasting` (schema evolution) and :mod:`eventstore.projections`
(rebuild and verify).
"""
