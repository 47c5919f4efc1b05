"""Presenting a diagnosis: the report model, the terminal report, JSON, tables, graphs and
the self-contained HTML page. Everything that needs pandas or plotly imports it lazily, so
`tcpdiag analyze` starts without them.
"""
