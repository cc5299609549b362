# Lagrum developer commands. Two matter: `make run` and `make test`.
SHELL := /bin/bash
PY := .venv/bin/python
PIP := .venv/bin/pip
STAMP := .venv/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install services stop-services migrate demo worker beat browser bench eval clean-data

$(STAMP): pyproject.toml
	@test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --disable-pip-version-check -e ".[dev]"
	@rm -f .venv/.installed-*; touch $(STAMP)

install: $(STAMP)

services: install
	@$(PY) scripts/devservices.py start >/dev/null

stop-services:
	@$(PY) scripts/devservices.py stop

migrate: services
	$(PY) manage.py migrate --noinput -v 0

demo: migrate
	$(PY) manage.py setup_demo

# Runs Postgres, Redis, a Celery worker and the web server; Ctrl-C stops them all.
run: demo
	@bash scripts/run.sh $(HOST) $(PORT)

worker: services
	.venv/bin/celery -A compliance worker -l info --concurrency 1 -Q lagrum,lagrum-bulk

beat: services
	.venv/bin/celery -A compliance beat -l info

# Debian's Chromium for the end-to-end browser tests (a test tool's own browser download fails offline).
browser:
	@command -v chromium >/dev/null || { (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The deploy check runs with production settings (DEBUG=false, a throwaway key) and fails on any warning.
# The tests that read today or now (marked `clock`) first run with the clock moved to fixed instants
# (tests/clocks.py): before noon, just after midnight (UTC still on the day before) and the night clocks
# go back, so a rule or a test that holds only at some hours fails here whatever the hour of the run;
# then the whole suite runs on the real clock.
FIXED_CLOCKS ?= morning just-after-midnight dst-autumn
test: services browser
	$(PY) manage.py check
	DEBUG=false SECRET_KEY=$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(50))') $(PY) manage.py check --deploy --fail-level WARNING
	$(PY) manage.py makemigrations --check --dry-run >/dev/null
	@for clock in $(FIXED_CLOCKS); do echo "== clock-marked tests at the fixed clock $$clock"; \
		$(PY) -m pytest -q -p no:cacheprovider --clock $$clock || exit 1; done
	$(PY) -m pytest $(PYTEST_ARGS)

bench: migrate
	$(PY) manage.py bench_ingest --json
	$(PY) manage.py bench_retrieval --json
	$(PY) manage.py bench_context --json
	$(PY) manage.py bench_legal_refs --json

eval: migrate
	$(PY) manage.py eval_retrieval --questions data/sfs/dev_questions.jsonl.gz --json

clean-data: stop-services
	rm -rf .data
