"""The `tcpdiag` command line (entry point: `tcpdiag.cli.main:main`)."""

import os

# The CLI does no linear algebra worth a thread pool: with one BLAS thread NumPy's import
# does not start (and leave spinning) a thread per core, which costs start-up time and,
# on a busy machine, CPU the analysis needs.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
