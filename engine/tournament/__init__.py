"""Tournaments as pure deciders (rules T-*). :mod:`engine.tournament.sitgo`: the single-table sit-and-go."""
