# canasta-teach: make venv | app | lab | test | lint | bench | browser | postgres | redis | hub
# Everything runs from .venv (created with python3 when missing).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.stamp-install
PORT   ?= 8866

LAB_PORT ?= 8888

.PHONY: venv app lab test lint bench browser postgres redis hub

venv: $(STAMP)

# setuptools prints a boxed "Editable installation" notice while it builds the editable install
# (a warning meant for package authors): `make app` shows a learner only the start page's address.
QUIET_BUILD := PYTHONWARNINGS="ignore:Editable installation"

# Re-installs only when pyproject.toml changes (the stamp is newer otherwise).
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(QUIET_BUILD) $(PY) -m pip install --quiet -e '.[app,test,dev,hub]'
	touch $@

# Serves lessons/ with Voilà and the canasta template on 127.0.0.1:$(PORT);
# prints the start page URL (http://127.0.0.1:$(PORT)/voila/render/index.ipynb) once it answers.
app: venv
	$(PY) -m canasta_teach.app --port $(PORT)

# The lessons in JupyterLab (127.0.0.1:$(LAB_PORT), with a token; prints the address), with the
# project's Lab settings (no news pop-up) written into .venv.
lab: venv
	$(PY) -m canasta_teach.app lab --port $(LAB_PORT)

# Debian's Chromium (driven by Playwright's Python API; never `playwright install`) and the Noto
# fonts; installed only when missing and we are root.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
	      --no-install-recommends chromium fonts-noto-core; \
	  else \
	    echo "browser: /usr/bin/chromium is missing and we are not root; browser tests will not run" >&2; \
	  fi; \
	fi

# Debian's PostgreSQL server binaries (initdb, pg_ctl), for the leaderboard tests, which start
# and stop a throwaway server of their own; installed only when missing and we are root.
postgres:
	@if ! command -v pg_ctl >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
	      --no-install-recommends postgresql; \
	  else \
	    echo "postgres: PostgreSQL is missing and we are not root; its leaderboard tests will be skipped" >&2; \
	  fi; \
	fi

# Debian's Redis server, for the room store's tests, which start and stop a throwaway server of
# their own on a free loopback port; installed only when missing and we are root.
redis:
	@if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y \
	      --no-install-recommends redis-server; \
	  else \
	    echo "redis: redis-server is missing and we are not root; the Redis store tests will be skipped" >&2; \
	  fi; \
	fi

# JupyterHub (the `hub` extra, into .venv) and its proxy, configurable-http-proxy from npm, into
# .hub/node_modules (project-local); each installed only when missing. deploy/jupyterhub_config.py
# and tests/test_hub.py use them.
hub: venv
	@$(PY) -c "import jupyterhub" 2>/dev/null || $(PY) -m pip install --quiet 'jupyterhub>=5'
	@if [ ! -x .hub/node_modules/.bin/configurable-http-proxy ]; then \
	  if command -v npm >/dev/null 2>&1; then \
	    mkdir -p .hub && npm install --no-audit --no-fund --prefix .hub configurable-http-proxy; \
	  else \
	    echo "hub: npm is missing; the JupyterHub test will be skipped" >&2; \
	  fi; \
	fi

# Every test: unit, property, CLI and widget tests, the browser tests, then every lesson
# notebook run by nbval (--nbval-lax: each cell must run without error; outputs are compared
# only where marked). The unit tests run on every core (pytest-xdist, at most
# $(TEST_WORKERS) workers); the browser tests run one at a time against one server: two servers
# starting kernels at once raced for the kernels' TCP ports ("Address already in use"), and a
# page whose kernel died so never finished loading. Every part runs even when an earlier one
# fails, and the exit code says if any did.
# The notebooks run one at a time too: two nbval workers starting kernels at once raced for
# ports the same way (a kernel "died before replying to kernel_info" in CI); serial they take
# about a minute.
# Saved games and the leaderboard go to a fresh data folder, never the home's (CANASTA_DATA_DIR).
TEST_WORKERS ?= 4
XDIST := -n auto --maxprocesses $(TEST_WORKERS)
test: venv browser postgres redis hub
	@status=0; \
	$(PY) -m pytest -q $(XDIST) tests --ignore=tests/browser || status=1; \
	$(PY) -m pytest -q tests/browser || status=1; \
	CANASTA_DATA_DIR=$$(mktemp -d) $(PY) -m pytest -q -p no:cacheprovider \
	  --nbval-lax --nbval-current-env lessons || status=1; \
	exit $$status

# Ruff, then mypy --strict on the whole package and the import contracts (layers, no cycles),
# both configured in pyproject.toml. CI (.ci/run) runs this before `make test`.
lint: venv
	$(PY) -m ruff check canasta_teach tests benchmarks
	$(PY) -m ruff format --check canasta_teach tests benchmarks
	$(PY) -m mypy
	$(VENV)/bin/lint-imports --no-cache --no-logo

bench: venv
	$(PY) -m benchmarks
