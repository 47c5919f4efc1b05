"""The sweep accuracy eval: tcpdiag against kernel truth (docs/accuracy.md)."""
