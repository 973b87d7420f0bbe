"""The local engine: intent, routes and answers without an LLM."""
