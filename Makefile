# lakeshift: `make demo` and `make test` bootstrap everything they need into .venv.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.lakeshift-installed
FORMAT ?= iceberg
# Each format's demo has its own state directory (and embedded metastore): lakeshift migrates a
# source into one format only, and the demo always uses the same sample table.
HOME_DIR ?= $(if $(filter iceberg,$(FORMAT)),.lakeshift,.lakeshift-$(FORMAT))

.PHONY: demo docs test faults differential extended lint typecheck contracts unit integration e2e bench clean stop check-java browser

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "lakeshift needs Python 3.10+")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,docs]'
	@touch $(STAMP)

# Spark's S3A connector for the object-store tests, from a hash-pinned PyPI sdist (never installed).
TEST_JARS := $(VENV)/test-jars/.ready
$(TEST_JARS): tests/requirements-s3a.txt | $(STAMP)
	$(PY) -m tests.helpers.s3a_jars $(VENV)/test-jars
	@touch $@

check-java:
	@command -v java >/dev/null 2>&1 || { echo "Java 17+ is required: apt-get install openjdk-17-jdk-headless" >&2; exit 5; }

# The HTML report test screenshots the report in Debian's headless Chromium.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the HTML report test (once)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	    $(SUDO) apt-get install -y -qq chromium >/dev/null; }

demo: $(STAMP) check-java
	$(VENV)/bin/lakeshift --home $(HOME_DIR) demo --format $(FORMAT)

# The manual, from docs/ and the code (docsite/ writes the reference at build time), into
# site/ (git-ignored): open site/index.html. --strict: a broken link or a missing page fails.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir site

lint: $(STAMP)
	$(VENV)/bin/ruff check lakeshift tests benchmarks docsite
	$(VENV)/bin/ruff format --check lakeshift tests benchmarks docsite

typecheck: $(STAMP)
	$(VENV)/bin/mypy

contracts: $(STAMP)
	$(VENV)/bin/lint-imports

test: lint typecheck contracts check-java browser $(TEST_JARS)
	LAKESHIFT_REQUIRE_BROWSER=1 $(VENV)/bin/pytest -q -m "not faults and not differential and not extended" --durations=15 tests

# Every fault-injection case (each kills and re-runs lakeshift as a subprocess: minutes).
faults: $(STAMP) check-java $(TEST_JARS)
	LAKESHIFT_FAULTS_SUMMARY=$(HOME_DIR)/reports/faults.md $(VENV)/bin/pytest -q -m faults tests

# make test's flows repeated in more formats (every command on S3 with the Hive Metastore for
# Delta and Hudi; make test runs it for Iceberg, and every format's on S3 with Glue), and slow
# checks whose fast subset make test keeps (docs/development.md has the table).
extended: $(STAMP) check-java $(TEST_JARS)
	$(VENV)/bin/pytest -q -m extended tests

# Random tables read by Hive 2.3.9 itself and by both readers (minutes; LAKESHIFT_DIFF_SEED,
# LAKESHIFT_DIFF_COLUMNS choose the run). One pytest (one Spark driver) per module: run as
# one session, the fifteenth test found the 2 GB driver full (Spark's SQL parser caches
# every generated expression it parses, ~600 MB by then) and spent 30 minutes in GC.
differential: $(STAMP) check-java
	@rc=0; for module in tests/differential/test_*.py; do \
	  $(VENV)/bin/pytest -q -m differential $$module || rc=1; done; exit $$rc

unit: $(STAMP)
	$(VENV)/bin/pytest -q tests/unit

bench: $(STAMP) check-java $(TEST_JARS)
	$(PY) -m benchmarks.run

stop: $(STAMP)
	-$(VENV)/bin/lakeshift --home $(HOME_DIR) hiveserver2 stop
	-$(VENV)/bin/lakeshift --home $(HOME_DIR) metastore stop

clean: stop
	rm -rf $(HOME_DIR) site .pytest_cache .mypy_cache .ruff_cache
