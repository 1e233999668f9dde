# The entry points of the README; each sets everything up first.
.PHONY: setup reproduce test fuzz

setup:
	bash scripts/setup.sh

reproduce: setup
	.venv/bin/dtlsim reproduce

test: setup
	bash scripts/test.sh

# Every fuzz target for FUZZ_SECONDS each (default 60), at the lowest
# priority; installs cargo-fuzz if missing (scripts/fuzz.sh).
fuzz: setup
	bash scripts/fuzz.sh run
