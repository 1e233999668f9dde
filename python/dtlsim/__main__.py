"""`python -m dtlsim`: the command line, as `dtlsim` runs it."""

from dtlsim.cli import main

main()
