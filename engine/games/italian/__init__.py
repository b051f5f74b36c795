"""Poker all'italiana (rules IT-*): ``NIT``, ``PIT``, ``FIT`` (one game per limit, IT-LIMIT-1).

- :mod:`~engine.games.italian.game`: :class:`ItalianGame`, the registry's games (imported by
  :mod:`engine.games`, which registers them);
- :mod:`~engine.games.italian.spec`: the game as data for the core (:class:`engine.core.spec.GameSpec`) and
  its hooks (IT-RANK-4's pot winners: ``winners_hook``);
- :mod:`~engine.games.italian.rules`: the decider still Italian-only (``initial_state``, ``apply``,
  ``evolve``, ``dealer_command``; see ``docs/architecture.md``, "Poker all'italiana onto the core");
- :mod:`~engine.games.italian.model` (config, commands, events, state), :mod:`~engine.games.italian.errors`
  (refusals in Italian and English), :mod:`~engine.games.italian.legal`, :mod:`~engine.games.italian.view`,
  :mod:`~engine.games.italian.bot`.

This ``__init__`` imports nothing, so that :mod:`engine.phh` may import the model without the registry's
game (no import circle); ``engine.italian`` re-exports these modules under their former names.
"""
