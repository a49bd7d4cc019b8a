# Two commands do all set-up on a fresh machine:
#   make run   - create .venv, install, run the main job with a short default budget
#   make test  - create .venv if needed, install, run the whole test suite
# The set-up's independent steps run side by side (the venv's packages; chromium with apt; axe-core
# with npm): on a new machine apt and npm fetch while pip and uv unpack.
MAKEFLAGS += --jobs=3

PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: run test install clean bench bench-vector build-check

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# torch==2.13.0 first, with pip: that pin takes the CPU wheel on disk (an unpinned torch would pull a
# CUDA build). The rest with uv (from PyPI, into this venv): the same versions pip picks, fetched and
# unpacked in parallel and their bytecode written on every core, in about a third of pip's time; torch
# stays, pyproject's range admitting 2.13.0.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install torch==2.13.0
	$(BIN)/pip install uv
	$(BIN)/uv pip install --python $(BIN)/python --compile-bytecode -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python train/ppo.py --ruleset zonk --timesteps 150000 --eval-every 50000 --eval-games 200 \
		--final-games 400 --final-solo-turns 4000 --final-opponents random,greedy,heuristic,optimal-turn \
		--out runs/make-run/zonk

# The browser tests drive Debian's chromium (never `playwright install`): apt installs it when missing.
CHROMIUM := /usr/bin/chromium

$(CHROMIUM):
	apt-get update && apt-get install -y chromium

# Every core a worker (pytest-xdist); a test file's tests stay together, so a module's fixtures (a
# solved game, a trained model) are made once. A single file or test: $(BIN)/python -m pytest PATH.
# axe-core (npm) for the accessibility tests (tests/zilch_web/test_web_a11y.py), into .cache/npm.
AXE := .cache/npm/node_modules/axe-core/axe.min.js

$(AXE):
	npm install --no-save --prefix .cache/npm axe-core@4

# The project's bytecode is written first (compileall writes it even under PYTHONDONTWRITEBYTECODE=1,
# which this machine sets: Python then reads it but never writes it), so the suite's many Python
# processes (workers, subprocesses, spawned pools) do not each compile the sources again (0.2 s each).
# pytest runs with PYTHONDONTWRITEBYTECODE unset: it then keeps the test modules with their asserts
# rewritten, which each worker otherwise redoes at every run (about 9 s a worker).
# Before pytest, three processes compile the numba kernels the suite uses into the cache it reads
# (tests/warm_up.py: the batched engine, the vector env, the multi-player solver and the kernels a
# few tests reach in one; the turn and game solvers, their tables' queries, the evaluation's luck
# adjustment and the single-game view in the second, about as long; the single-game view in the
# other compile setting, which test_jit.py compares with, in a shorter third), with the suite's setting (tests/conftest.py:
# ZILCH_NUMBA_INLINE=never, NUMBA_CACHE_DIR=.numba-test-cache unless the shell sets them): the xdist
# workers then load them instead of each compiling them.
WARM_ENV := ZILCH_NUMBA_INLINE=$${ZILCH_NUMBA_INLINE:-never} NUMBA_CACHE_DIR=$${NUMBA_CACHE_DIR:-$(CURDIR)/.numba-test-cache}

test: $(STAMP) $(CHROMIUM) $(AXE)
	$(BIN)/python -m compileall -q zilch_env agents train zilch_cli zilch_web tests > /dev/null
	$(WARM_ENV) $(BIN)/python -m tests.warm_up engine & e=$$!; \
		$(WARM_ENV) $(BIN)/python -m tests.warm_up solvers & s=$$!; \
		$(WARM_ENV) $(BIN)/python -m tests.warm_up other-inline & o=$$!; \
		wait $$e && wait $$s && wait $$o
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n auto --dist loadfile

bench: $(STAMP)
	$(BIN)/python bench/engine.py

# The native vector env (Zilch-v1's vector_entry_point) against a SyncVectorEnv at N = 64.
bench-vector: $(STAMP)
	$(BIN)/python bench/vector.py --num-envs 64

# python -m build: the sdist and the wheel (from the sdist) install into a fresh venv and run
# `zilch --help` and a Zilch-v1 episode (also part of `make test`).
build-check: $(STAMP)
	$(BIN)/python -m pytest -q tests/test_build.py

clean:
	rm -rf $(VENV)
