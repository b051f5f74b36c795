"""Poker cinese (seed 001, rules CN-1 … CN-5, CN-TIME-1): model, decider, solver, hand histories."""
