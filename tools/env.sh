# Shared by tools/demo.sh and tools/test.sh: a virtualenv at .venv with tcpdiag built in it.
# Installs what a fresh Debian 12 (Python 3.11, Rust, apt) lacks. Source it, don't run it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TCPDIAG_VENV:-$ROOT/.venv}"

apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "tools: installing Debian packages: ${missing[*]}" >&2
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_python() {
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
        apt_install python3-venv python3-pip
    fi
    if ! command -v cargo >/dev/null; then
        [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
    fi
    command -v cargo >/dev/null || { echo "tools: Rust (cargo) is required: https://rustup.rs" >&2; exit 1; }
    command -v cc >/dev/null || apt_install gcc libc6-dev
    apt_install libpcap-dev  # --filter and `tcpdiag live` load libpcap at run time
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
}

# Builds and installs tcpdiag (release build of the native core) into the venv.
install_tcpdiag() {
    local extras="${1:-}"
    ensure_python
    (cd "$ROOT" && "$VENV/bin/python" -m pip install -q ".${extras}")
}
