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
PLAN_ARGS ?=
STAMP := $(VENV)/.installed
PLAN := $(VENV)/bin/nodepools plan --stack $(STACK) $(foreach w,$(WORKLOADS),--workloads $(w)) \
	--report plan-out/$(STACK).md $(PLAN_ARGS)

.PHONY: plan test test-calendar test-dist test-all test-parity fuzz bench bench-smoke clean refresh-upstream vendor-upstream

# The first install takes a few minutes: say so, and let pip show what it collects and installs.
$(STAMP): pyproject.toml
	@echo "Creating $(VENV) and installing nodepools with its test and cloud dependencies (first run: a few minutes)..."
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --progress-bar on -e '.[test]'
	touch $(STAMP)
	@echo "Installed: $(VENV)"

# make exits 2 whenever a recipe fails, which would turn a mandatory policy violation
# (the plan's exit 1) into make's 2. So `make plan` alone runs the plan while make reads
# this file (its output goes to stderr: $(shell) keeps only stdout) and ends with the
# plan's own code: 0 planned, 1 a mandatory policy is violated (make's question mode,
# whose only failure status is 1), 2 config/program/pack error. tests/distribution/test_make_plan.py.
ifeq ($(MAKECMDGOALS),plan)
# The examples declare `virtualenv: venv` (as Pulumi's templates do) and install this checkout
# (their requirements.txt): in a checkout that is $(VENV), so each example's venv is a link to it
# unless `pulumi install` made a real one. The plan runs a program with its project's venv.
LINK_VENVS := for w in $(WORKLOADS); do d=$${w%%:*}; [ -e $$d/venv ] || ln -s $(abspath $(VENV)) $$d/venv; done
PLAN_STATUS := $(shell if $(MAKE) --no-print-directory -s $(STAMP) >&2; then $(LINK_VENVS); $(PLAN) >&2; echo $$?; \
	else echo 2; fi)
ifeq ($(PLAN_STATUS),1)
$(info make plan: a mandatory policy is violated (nodepools plan exited 1))
MAKEFLAGS += -q
else ifneq ($(PLAN_STATUS),0)
$(error nodepools plan exited $(PLAN_STATUS): the config is invalid, the program failed or the pack could not run)
endif
endif

plan:
	@:

test: $(STAMP)
	$(VENV)/bin/python -m pytest

# The policy suite on every calendar boundary of tests/suite_dates.py (for each minor's end of standard
# support on either cloud, and its end of life: the day before, the day, the day after; 2026-12-01 to
# 2028-12-31), then on the run's own UTC date, which the pack reads itself (--today run). About ten
# minutes on 2 cores; make test runs its fast slice: the date-dependent tests (@pytest.mark.dated) on every
# boundary, the rest on the suite's pinned date. One date: pytest tests/policy --today YYYY-MM-DD.
CALENDAR_TESTS ?= tests/policy
test-calendar: $(STAMP)
	@set -e; for day in $$($(VENV)/bin/python tests/suite_dates.py) run; do \
		echo "== $(CALENDAR_TESTS) on $$day"; $(VENV)/bin/python -m pytest $(CALENDAR_TESTS) --today $$day; done

# The whole distribution matrix: the pack's venv and nodepools[aws,gcp] resolved and
# installed from the built wheel and PyPI (make test borrows the installed dependencies).
test-dist: $(STAMP)
	NODEPOOLS_DIST_FULL=1 $(VENV)/bin/python -m pytest tests/distribution

# The policy suite, the policy fuzzer and the upstream corpus with every Analyzer call answered
# by both nodepools' servicer (policy/) and the reference server (tests/pack/pack_under_test.py),
# which must agree field for field.
test-parity: $(STAMP)
	NODEPOOLS_TEST_PACK=parity $(VENV)/bin/python -m pytest tests/policy tests/reliability/test_policy_fuzz.py tests/upstream

# The policy fuzzer at full size (make test runs a slice of it): the preview sentinel in every
# position of every resource type the pack reads, then FUZZ_COUNT random inputs (seed FUZZ_SEED,
# default today's date) through the real pack over gRPC, on FUZZ_JOBS workers, stopping after
# FUZZ_MAX_SECONDS if given; prints the counts (crashes, exception text in diagnostics, unknowns
# turned into violations) and fails on any. RELIABILITY.md.
FUZZ_COUNT ?= 100000
FUZZ_JOBS ?= 1
fuzz: $(STAMP)
	nice $(VENV)/bin/python tests/reliability/fuzz_run.py --count $(FUZZ_COUNT) --jobs $(FUZZ_JOBS) \
		$(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) $(if $(FUZZ_MAX_SECONDS),--max-seconds $(FUZZ_MAX_SECONDS))

bench: $(STAMP)
	$(VENV)/bin/python bench/run.py

# Every benchmark end to end at tiny sizes (numbers meaningless): they still run and print their table.
bench-smoke: $(STAMP)
	$(VENV)/bin/python -m pytest -m bench tests/bench

# Everything: the suite, the whole distribution matrix and the benchmark smoke run.
test-all: $(STAMP)
	NODEPOOLS_DIST_FULL=1 $(VENV)/bin/python -m pytest -m 'bench or not bench'

# Re-read the vendored upstream facts (chart keys, autoscaler releases and flags, CRDs)
# from fetched git directories and rewrite them; then read `git diff`. Any subset works.
refresh-upstream: $(STAMP)
	$(VENV)/bin/python tools/refresh_upstream.py \
		$(if $(AUTOSCALER_GIT),--autoscaler-git $(AUTOSCALER_GIT)) $(if $(KUEUE_GIT),--kueue-git $(KUEUE_GIT)) \
		$(if $(NVIDIA_GIT),--nvidia-git $(NVIDIA_GIT)) $(if $(GMP_GIT),--gmp-git $(GMP_GIT)) \
		$(if $(KARPENTER_GIT),--karpenter-git $(KARPENTER_GIT)) $(if $(DRA_GIT),--dra-git $(DRA_GIT))

# Copy the upstream manifests of tests/upstream/index.yaml into tests/upstream/vendored/ at
# their pinned commits. Needs a git clone (its git directory) of each repository to copy from:
#   make vendor-upstream UPSTREAM_GIT="NVIDIA/k8s-device-plugin=/path/to/clone/.git ..."
vendor-upstream: $(STAMP)
	$(if $(UPSTREAM_GIT),,$(error give UPSTREAM_GIT="owner/repo=<git dir> ...": a git clone per repository to copy from))
	$(VENV)/bin/python tests/upstream/vendor.py $(foreach g,$(UPSTREAM_GIT),--git $(g))

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
