"""`python -m tcpdiag.cli`: the `tcpdiag` command."""

from tcpdiag.cli.main import main

main()
