"""Evaluation harness: datasets, seed 002 replay, metrics, suites, reports (`frontdesk eval`)."""
