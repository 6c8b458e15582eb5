# The two newcomer commands: `make plan` (the offline plan of the default stack)
# and `make test` (the test suite). Each creates .venv and installs on first use.
VENV ?= .venv
PYTHON ?= python3
STACK ?= aws-dev
# The examples' app workloads are sized for the aws-dev pools: the default plan
# places them there (matrix + Mermaid report); other stacks plan the platform alone
# unless WORKLOADS is given.
EXAMPLE_WORKLOADS := examples/gpu-inference examples/spot-training examples/batch-cronjob
WORKLOADS ?= $(if $(filter aws-dev,$(STACK)),$(EXAMPLE_WORKLOADS),)
STAMP := $(VENV)/.installed

.PHONY: plan test bench clean refresh-upstream

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

# Re-read the vendored upstream facts (chart keys, autoscaler releases and flags, CRDs)
# from fetched git directories and rewrite them; then read `git diff`. Any subset works.
refresh-upstream: $(STAMP)
	$(VENV)/bin/python tools/refresh_upstream.py \
		$(if $(AUTOSCALER_GIT),--autoscaler-git $(AUTOSCALER_GIT)) $(if $(KUEUE_GIT),--kueue-git $(KUEUE_GIT)) \
		$(if $(NVIDIA_GIT),--nvidia-git $(NVIDIA_GIT)) $(if $(GMP_GIT),--gmp-git $(GMP_GIT))

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
