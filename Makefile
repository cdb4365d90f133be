# learntorch -- the course's commands. `make` (or `make help`) lists them.
#
# Everything runs from the project's own virtual environment in .venv,
# installed from the exact pins in requirements/lock.txt. The install is
# stamped (.venv/.installed) and redone only when the lock or pyproject.toml
# changes, so every target is cheap to re-run.

SHELL        := /bin/bash
.SHELLFLAGS  := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed

# Parallel pytest workers (pytest-xdist) for tests/ and the notebooks.
# 2 = this course's reference machine (2 cores); JOBS=0 runs in one process.
JOBS ?= 2
# Extra arguments for the pytest runs, e.g. PYTEST_ARGS="-k tensor -x".
PYTEST_ARGS ?=
# Seconds a single notebook cell may run under nbval.
NBVAL_CELL_TIMEOUT ?= 300
# ORACLE=0 skips installing torch (the differential tests then skip).
ORACLE ?= 1
# The seed of the perturbed-arithmetic notebook pass (tests/perturbed/perturb.py).
PERTURB_SEED ?= 1
# Extra arguments for `make lab`, e.g. LAB_ARGS=--no-browser.
LAB_ARGS ?=

# Jupyter inside the venv prefers the venv's kernels (the `python3` and
# `learntorch` kernelspecs installed by setup) over any in ~/.local.
export JUPYTER_PREFER_ENV_PATH := 1

LAB_START := $(if $(wildcard notebooks/01_tensors.ipynb),/lab/tree/notebooks/01_tensors.ipynb,/lab/tree/notebooks)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: help setup dot oracle lab test test-pytest test-notebooks test-notebooks-perturbed test-release test-gpu test-explore
.PHONY: notebooks exercises bench lock clean
.PHONY: grade
.PHONY: slides site

help: ## list the commands
	@echo "learntorch -- make targets:"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)$$/  make \1\t\2/' | expand -t 28
	@echo
	@echo "Variables: JOBS=$(JOBS) (pytest workers), PYTEST_ARGS, LAB_ARGS, BENCH_ARGS, ORACLE=0|1, PERTURB_SEED=$(PERTURB_SEED), PYTHON=$(PYTHON)"
	@echo
	@echo "make test runs four steps: pytest tests/ (Hypothesis derandomized), the notebooks under nbval,"
	@echo "the notebooks under nbval again with PERTURBED ARITHMETIC (a test-only mode: matmul, reductions and"
	@echo "transcendental functions nudged by a few ulps, seeded, standing in for another CPU's BLAS and libm;"
	@echo "see tests/perturbed/perturb.py), and the exercises/solutions check."

setup: $(STAMP) dot ## create .venv from requirements/lock.txt, install learntorch (editable) and its Jupyter kernel, ensure Graphviz's dot

$(STAMP): requirements/lock.txt pyproject.toml
	@if [ ! -x $(PY) ]; then \
	  if ! $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then \
	    echo "setup: requirements/lock.txt needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) --version 2>&1)." >&2; \
	    echo "setup: run e.g. 'make setup PYTHON=python3.11' (or use environment.yml with conda)." >&2; \
	    exit 1; \
	  fi; \
	  echo "setup: creating $(VENV) with $(PYTHON) ($$($(PYTHON) --version 2>&1))"; \
	  if ! $(PYTHON) -m venv $(VENV); then \
	    rm -rf $(VENV); \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	      echo "setup: '$(PYTHON) -m venv' failed; installing Debian's python3-venv ..."; \
	      export DEBIAN_FRONTEND=noninteractive; \
	      apt-get update -q && apt-get install -y -q --no-install-recommends python3-venv </dev/null; \
	      $(PYTHON) -m venv $(VENV); \
	    else \
	      echo "setup: '$(PYTHON) -m venv' failed. On Debian/Ubuntu: sudo apt-get install python3-venv" >&2; \
	      exit 1; \
	    fi; \
	  fi; \
	fi
	$(PIP) install -r requirements/lock.txt
	$(PIP) install --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name learntorch --display-name "Python 3 (learntorch)"
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)"
	@touch $@
	@echo "setup: done ($(VENV) installed from requirements/lock.txt)"

dot: ## make sure Graphviz's `dot` program is installed (apt-get as root, else prints how)
	@bash scripts/ensure_dot.sh

# Not part of `make test`: without the browser, tests/course/test_browser.py skips with a reason. CI runs it.
.PHONY: browser
browser: ## install Debian's chromium + chromium-driver for the browser test of `make lab` (apt-get as root, else prints how)
	@bash scripts/ensure_browser.sh

# The differential-test oracle. Never a dependency of learntorch; installing
# it may fail (no wheel for this platform, no network): then say so loudly
# and carry on -- the differential tests skip with a reason.
oracle: $(STAMP) ## try to install torch==2.13.0 (requirements/oracle.txt), the differential-test oracle
	@want=$$(sed -n 's/^torch==//p' requirements/oracle.txt); \
	if [ "$(ORACLE)" = "0" ]; then \
	  echo "oracle: ORACLE=0, not installing torch"; \
	elif $(PY) -c "import importlib.metadata as m, sys; sys.exit(m.version('torch').split('+')[0] != '$$want')" 2>/dev/null; then \
	  echo "oracle: torch $$want installed"; \
	elif $(PIP) install -r requirements/oracle.txt; then \
	  echo "oracle: torch $$want installed"; \
	else \
	  echo "oracle: WARNING: could not install torch==$$want (requirements/oracle.txt)." >&2; \
	  echo "oracle: WARNING: differential tests against PyTorch will SKIP; all other tests still run." >&2; \
	fi

lab: setup ## open the course in JupyterLab (LAB_ARGS=--no-browser to not open a browser)
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=$(LAB_START) $(ROOT_FLAG) $(LAB_ARGS)

# `make test` runs its four steps in order and keeps going after a failing
# one (make -k), so one run reports everything; any failure fails it.
test: setup oracle ## run every test: pytest tests/, the notebooks (nbval), again with perturbed arithmetic, the exercises check
	@$(PY) -c "import torch" 2>/dev/null || echo "test: WARNING: torch is not installed: differential tests against PyTorch will skip." >&2
	@$(MAKE) --no-print-directory -k test-pytest test-notebooks test-notebooks-perturbed test-release

test-pytest:
	@echo "== 1/4 pytest tests/"
	$(PY) -m pytest -n $(JOBS) tests/ $(PYTEST_ARGS)

# Hypothesis draws new examples (the `explore` profile, tests/conftest.py);
# `make test` runs the derandomized `ci` profile, the same examples every time.
test-explore: setup ## run the property tests with fresh random examples (not part of make test)
	HYPOTHESIS_PROFILE=explore $(PY) -m pytest -n $(JOBS) tests/ -m hypothesis $(PYTEST_ARGS)

# nbval re-runs the stored notebooks and compares their outputs (a kernel that dies while
# starting is started again, and says so: tests/nbval_plugin/kernel_start_retry.py). Folders that
# do not exist or hold no notebook yet are left out; exit code 5 (nothing
# collected) is not a failure.
NBVAL_STEP ?= 2/4 notebooks (nbval)
test-notebooks:
	@echo "== $(NBVAL_STEP)"
	@dirs=""; \
	for d in notebooks solutions; do \
	  if [ -d "$$d" ] && [ -n "$$(find "$$d" -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*' -print -quit)" ]; then dirs="$$dirs $$d"; fi; \
	done; \
	if [ -z "$$dirs" ]; then \
	  echo "nbval: no notebooks in notebooks/ or solutions/ yet: nothing to run"; \
	else \
	  rc=0; \
	  set -x; \
	  PYTHONPATH="$(CURDIR)/tests/nbval_plugin$${PYTHONPATH:+:$$PYTHONPATH}" \
	  $(PY) -m pytest --nbval --nbval-current-env --nbval-cell-timeout=$(NBVAL_CELL_TIMEOUT) \
	    --nbval-sanitize-with tests/nbval_sanitize.cfg -p no:cacheprovider -p kernel_start_retry \
	    -n $(JOBS) --dist loadscope $$dirs $(PYTEST_ARGS) || rc=$$?; \
	  { set +x; } 2>/dev/null; \
	  if [ $$rc -eq 5 ]; then echo "nbval: no notebook cells to check"; \
	  elif [ $$rc -ne 0 ]; then exit $$rc; fi; \
	fi

# The same notebooks, with the arithmetic of matmul, the reductions and the
# transcendental functions nudged by a few ulps (tests/perturbed/perturb.py,
# installed in each kernel by tests/perturbed/sitecustomize.py): a stored
# output that passes here does not depend on this machine's BLAS, libm or
# thread count. A test-only mode: learntorch itself knows nothing of it.
test-notebooks-perturbed:
	LEARNTORCH_PERTURB_SEED=$(PERTURB_SEED) PYTHONPATH="$(CURDIR)/tests/perturbed$${PYTHONPATH:+:$$PYTHONPATH}" \
	  $(MAKE) --no-print-directory test-notebooks NBVAL_STEP="3/4 notebooks (nbval) with perturbed arithmetic (PERTURB_SEED=$(PERTURB_SEED))"

test-release:
	@echo "== 4/4 exercises/ in step with solutions/"
	@if [ ! -f learntorch/grading/release.py ] && [ ! -d learntorch/grading/release ]; then \
	  echo "release check: learntorch.grading.release not written yet: nothing to check"; \
	elif [ ! -d solutions ] && [ ! -d exercises ]; then \
	  echo "release check: no solutions/ or exercises/ yet: nothing to check"; \
	else \
	  echo "$(PY) -m learntorch.grading.release --check"; \
	  $(PY) -m learntorch.grading.release --check; \
	fi

test-gpu: setup ## on a machine with an NVIDIA GPU: install the cuda extra (CuPy) and run the tests, GPU tests included
	@command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L || echo "test-gpu: WARNING: nvidia-smi not found: is there an NVIDIA GPU and driver here?" >&2
	$(PIP) install -c requirements/lock.txt -e '.[cuda]'
	LEARNTORCH_TEST_GPU=1 $(PY) -m pytest tests/ $(PYTEST_ARGS)

notebooks: setup ## re-execute the chapters and solutions in place (NB="notebooks/05_nn.ipynb ..." for some), then make exercises
	$(PY) scripts/execute_notebooks.py $(NB)

exercises: setup ## regenerate exercises/ from solutions/
	$(PY) -m learntorch.grading.release

# Grade a class: SUBMISSIONS=folder of submitted notebooks (layouts: README, "For instructors").
# GRADES=where feedback/ and the grader's cache go; GRADEBOOK=the CSV (default GRADES/gradebook.csv).
GRADES ?= grades
GRADEBOOK ?= $(GRADES)/gradebook.csv
grade: setup ## grade a class: make grade SUBMISSIONS=dir [GRADEBOOK=grades/gradebook.csv] -> gradebook + feedback
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=folder [GRADEBOOK=file.csv] [GRADES=folder]"; exit 2; }
	$(PY) -m learntorch.grading "$(SUBMISSIONS)" --out "$(GRADES)" --gradebook "$(GRADEBOOK)"

# Slides and website (scripts/build_site.py). The first run installs reveal.js
# and MathJax with `npm ci` into web/node_modules (exact versions from
# web/package-lock.json); the outputs run offline, without any CDN.
slides: setup ## reveal.js decks of the chapters into build/slides/NN_name.slides.html (offline; `s` = speaker notes)
	$(PY) scripts/build_site.py slides --out build/slides

site: setup ## the course website into build/site/ (chapters, exercises, slides, glossary, search); open build/site/index.html
	$(PY) scripts/build_site.py site --out build/site

# Extra arguments for benchmarks/run.py, e.g. BENCH_ARGS="--quick" or
# BENCH_ARGS="--json after.json --compare before.json" (--help lists them).
BENCH_ARGS ?=
bench: setup ## run the benchmarks: learntorch against PyTorch and hand-written NumPy, each ratio beside its target
	$(PY) benchmarks/run.py $(BENCH_ARGS)
	$(PY) benchmarks/train_mlp.py

lock: ## re-resolve requirements/lock.txt from the ranges in pyproject.toml (Python 3.11, Linux x86_64)
	PYTHON=$(PYTHON) bash scripts/lock.sh

clean: ## remove .venv, caches and build outputs
	rm -rf $(VENV) .pytest_cache .hypothesis build dist
	find . -path ./.git -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -type d -prune -exec rm -rf {} +
