//! ③ flow: TCP segments → bidirectional flows numbered as Wireshark numbers `tcp.stream`.
