# Fairdeal: `make run` starts the service, `make test` runs the whole test suite.
# Both install what they need into .venv first (and Pyodide, for the check in the browser,
# into node_modules); nothing but Python 3.11+ and npm is assumed.
# `make worker` runs a Celery worker with beat against CELERY_BROKER_URL (Redis in production).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000
# The tests talk to a real PostgreSQL; override DATABASE_URL to point elsewhere.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/fairdeal
# Throttles count in Redis in the tests, as in production (each xdist worker under its own prefix).
TEST_CACHE_URL ?= redis://127.0.0.1:6379/1

.PHONY: install run worker test lint typecheck bench check-replays clean browser-verifier

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) browser-verifier

# The check in the browser (docs/pages.md, fairplay/browser_check.py): Pyodide's core from
# npm (package.json pins it; npm ci, never a CDN), and beside the verifier's wheel the wheel
# of rfc8785, the one package it needs, at the version the server runs. Fairdeal serves them.
PYODIDE_STAMP := node_modules/.installed-stamp

browser-verifier: $(PYODIDE_STAMP) verifier
	$(BIN)/python -m pip download --quiet --no-deps --only-binary=:all: --dest verifier/dist \
		"rfc8785==$$($(BIN)/python -c 'import importlib.metadata as m; print(m.version("rfc8785"))')"

$(PYODIDE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		echo "make: npm is missing. The check in the browser serves Pyodide from its npm package" >&2; \
		echo "      (package.json): install Node.js and npm (apt-get install npm), then run make again." >&2; \
		exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# The web server, and a Celery worker with beat (deadlines, mail) on the embedded
# filesystem broker: no Redis needed. Ctrl-C stops both.
run: install
	$(BIN)/python manage.py migrate --noinput
	@echo
	@echo "  Fairdeal is running at http://$(HOST):$(PORT)/  (API docs: http://$(HOST):$(PORT)/api/docs/)"
	@echo
	$(BIN)/celery -A config worker --beat --pool=solo --loglevel=WARNING & \
	worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# The strict type check of the engine and the verifier comes first: it takes seconds.
# --dist loadgroup: the tests of a module marked xdist_group (a cluster of hosts, a read
# replica) run on one process, which starts its processes once.
test: install typecheck
	DATABASE_URL=$${DATABASE_URL:-$(TEST_DATABASE_URL)} CACHE_URL=$${CACHE_URL:-$(TEST_CACHE_URL)} \
		FAIRDEAL_ENV=test $(BIN)/pytest -n 2 --dist loadgroup

worker: install
	$(BIN)/celery -A config worker --beat --loglevel=INFO

# The stand-alone verifier as a wheel of its own, fairdeal-verify (verifier/pyproject.toml),
# built from the repository's source files into verifier/dist/ (docs/fairplay.md, section 14).
.PHONY: verifier
verifier: $(STAMP)
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir verifier/dist ./verifier
	@ls -l verifier/dist/fairdeal_verify-*.whl

# The release: one wheel, dist/fairdeal-<version>-py3-none-any.whl, that installs and runs
# outside the checkout (`fairdeal migrate`, gunicorn config.wsgi): the packages, and the
# site's templates, static files, Pyodide and the verifier's wheels (hatch_build.py).
.PHONY: release
release: install
	$(BIN)/python -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir dist .
	@ls -l dist/fairdeal-*.whl

lint: install typecheck
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# mypy --strict over the Django-free code ([tool.mypy] in pyproject.toml).
typecheck: install
	$(BIN)/mypy

bench: install
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/verify.py
	$(BIN)/python bench/deadlines.py
	$(BIN)/python bench/broker.py
	$(BIN)/python bench/ratings.py
	$(BIN)/python bench/api.py
	$(BIN)/python bench/web.py
	$(BIN)/python bench/browser.py
	$(BIN)/python bench/browser_verify.py

check-replays: install
	$(BIN)/python manage.py check_replays

clean:
	rm -rf $(VENV) var .hypothesis node_modules
