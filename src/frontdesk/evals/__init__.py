"""Evaluation harness: datasets, multi-turn replay, metrics, suites, reports (`frontdesk eval`)."""
