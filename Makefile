# The two newcomer commands: `make plan` (the offline plan of the default stack)
# and `make test` (the test suite). Each creates .venv and installs on first use.
VENV ?= .venv
PYTHON ?= python3
STACK ?= aws-dev
STAMP := $(VENV)/.installed

.PHONY: plan test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $(STAMP)

plan: $(STAMP)
	$(VENV)/bin/nodepools plan --stack $(STACK)

test: $(STAMP)
	$(VENV)/bin/python -m pytest

bench: $(STAMP)
	$(VENV)/bin/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
