"""The `tcpdiag` command line (entry point: `tcpdiag.cli.main:main`)."""
