"""`python -m dtlsim.cli`: the command line, as `dtlsim` runs it."""

from dtlsim.cli import main

main()
