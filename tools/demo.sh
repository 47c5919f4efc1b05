#!/usr/bin/env bash
# Installs tcpdiag into .venv and runs the main job on a bundled sample.
source "$(dirname "$0")/env.sh"
install_tcpdiag
SAMPLE="$ROOT/samples/small_rcvbuf.sender.pcap.gz"
echo "\$ tcpdiag analyze $(realpath --relative-to="$ROOT" "$SAMPLE")"
"$VENV/bin/tcpdiag" analyze "$SAMPLE"
echo
echo "tcpdiag is installed in $VENV: run '. $VENV/bin/activate' to use it."
