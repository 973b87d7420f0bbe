# Two commands: `make run` starts the demo, `make test` runs every check.
# Both bootstrap from bare Python: they create .venv and install what they need.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH  := torch==2.13.0

.PHONY: run test lint typecheck unit eval bench clean help browser-deps

help:
	@echo "make run    - set up and start the demo on http://127.0.0.1:8000/"
	@echo "make test   - set up and run ruff, mypy, the test suite and the evaluation gate"
	@echo "make eval   - run the evaluation suite on the demo site (report in reports/)"
	@echo "make clean  - remove the virtualenv and local data"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

# The CPU build of torch is installed first and pinned, so nothing pulls the CUDA wheels.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e ".[openai,postgres,redis]" --group dev
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/frontdesk demo

browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "installing Debian's chromium for browser tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "warning: could not install chromium; browser tests will be skipped"; \
	  else echo "warning: /usr/bin/chromium missing and not root; browser tests will be skipped"; fi; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -m unit -q

test: $(STAMP) browser-deps lint typecheck
	$(BIN)/pytest -q
	$(BIN)/frontdesk eval all --site demo

eval: $(STAMP)
	$(BIN)/frontdesk eval all --site demo

clean:
	rm -rf $(VENV) .frontdesk .pytest_cache .mypy_cache .ruff_cache test-artifacts
