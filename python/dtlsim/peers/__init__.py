"""Other DTLS implementations driven from Python, one module per peer, for
the experiments that measure them beside dtlsim's own stack."""
