# The two entry points of the README; both set everything up first.
.PHONY: setup reproduce test

setup:
	bash scripts/setup.sh

reproduce: setup
	.venv/bin/dtlsim reproduce

test: setup
	bash scripts/test.sh
