# The two newcomer commands: `make plan` (the offline plan of the default stack)
# and `make test` (the test suite). Each creates .venv and installs on first use.
VENV ?= .venv
PYTHON ?= python3
STACK ?= aws-dev
# The examples' app workloads are sized for the aws-dev pools (aws-karpenter has the same): the plan
# places them there (matrix + Mermaid report); other stacks plan the platform alone
# unless WORKLOADS is given.
EXAMPLE_WORKLOADS := examples/gpu-inference examples/spot-training examples/batch-cronjob
WORKLOADS ?= $(if $(filter aws-dev aws-karpenter,$(STACK)),$(EXAMPLE_WORKLOADS),)
STAMP := $(VENV)/.installed

.PHONY: plan test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $(STAMP)

plan: $(STAMP)
	$(VENV)/bin/nodepools plan --stack $(STACK) $(foreach w,$(WORKLOADS),--workloads $(w)) --report plan-out/$(STACK).md

test: $(STAMP)
	$(VENV)/bin/python -m pytest

bench: $(STAMP)
	$(VENV)/bin/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
