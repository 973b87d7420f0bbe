"""Test doubles shared by the tests and the benchmarks (never shipped in the package):
scripted chat models, a simulated OpenAI-compatible provider, loopback receivers for
handoff channels. Import them as `tests.support.<module>`; pytest puts the repository
root on `sys.path` (`pythonpath` in pyproject.toml), and the benchmarks do it themselves.
"""
