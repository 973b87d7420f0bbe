"""Handoff delivery: outbox rows written with the turn, channels, and the dispatcher.

The decision to hand off is made upstream (routes, qualification); this package only
delivers, with retries, per-attempt records and an email fallback.
"""
