#!/usr/bin/env bash
# Installs everything the test suite needs (Debian packages, Python test deps, the newer
# Wireshark chroots) and runs the whole suite: Rust unit/integration tests, the fuzz smoke
# run, then pytest.
source "$(dirname "$0")/env.sh"
apt_install tshark tcpdump tcptrace lua5.2 lua5.3 lua5.4 libpcap-dev iproute2 ethtool time chromium fonts-liberation \
    zstd xz-utils bzip2
install_tcpdiag "[test]"
cd "$ROOT"
# Wireshark 4.4 and 4.6 for the plugin tests (tools/wireshark-chroot.sh): reused from
# /var/cache/tcpdiag when current, built when absent (about a minute from Debian's
# mirror); without root or a mirror those tests skip and say why.
if [ "$(id -u)" -eq 0 ]; then
    echo "== Wireshark chroots" >&2
    bash tools/wireshark-chroot.sh build trixie testing || echo "tools: no Wireshark chroot; its tests will skip" >&2
fi
echo "== cargo test" >&2
cargo test --quiet --workspace --exclude tcpdiag-native
echo "== fuzz smoke run" >&2
bash "$ROOT/tools/fuzz_smoke.sh"
echo "== pytest" >&2
"$VENV/bin/python" -m pytest -q "$@"
