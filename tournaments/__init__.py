"""Tournaments: the sit-and-go service, level clock, process manager reacting to hand results, pages."""
