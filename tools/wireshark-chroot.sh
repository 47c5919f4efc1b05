#!/usr/bin/env bash
# A newer Wireshark for the plugin tests: Debian 13's tshark (4.4, Lua 5.4) and testing's
# (4.6) each in a Debian minbase chroot, kept in a cache outside the checkout, and every
# tshark (the host's too) run as an unprivileged test user — Wireshark >= 4.4 skips Lua
# plugins for root.
#
#   tools/wireshark-chroot.sh build [SUITE...]   build what is absent or stale (default: trixie testing)
#   tools/wireshark-chroot.sh list               one line per usable tshark: NAME VERSION
#   tools/wireshark-chroot.sh run NAME [--bind DIR]... [--root] -- tshark|editcap|capinfos ARGS...
#                                                NAME is "host" or a suite; DIR (absolute) is
#                                                visible at the same path inside; --root runs
#                                                as root (to see what Wireshark does for root)
#
# Must run as root (debootstrap, chroot, bind mounts). Cache: $TCPDIAG_WIRESHARK_CACHE
# (default /var/cache/tcpdiag/wireshark), one directory per suite, reused while its stamp
# matches RECIPE below; a failed build leaves nothing behind. Mirror: $TCPDIAG_DEBIAN_MIRROR.
# The chroots hold Debian's own packages; nothing from the checkout is copied into them.
set -euo pipefail

CACHE="${TCPDIAG_WIRESHARK_CACHE:-/var/cache/tcpdiag/wireshark}"
MIRROR="${TCPDIAG_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
TEST_USER="${TCPDIAG_TEST_USER:-tcpdiag-test}"
# Bumped whenever the steps below change: a chroot with another stamp is rebuilt.
RECIPE="tcpdiag-wireshark-chroot 1"
APT=(apt-get -o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false -y -q)

die() { echo "wireshark-chroot: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and bind mounts need it)"

# The unprivileged user every tshark runs as; the same uid and gid inside each chroot.
ensure_user() {
    if ! id -u "$TEST_USER" >/dev/null 2>&1; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent \
                --shell /usr/sbin/nologin "$TEST_USER"
    fi
}

stamp_of() { cat "$CACHE/$1/.tcpdiag-stamp" 2>/dev/null || true; }
current() { [ -x "$CACHE/$1/usr/bin/tshark" ] && [ "$(stamp_of "$1")" = "$RECIPE $1" ]; }

in_root() {  # in_root DIR CMD...: a command inside a chroot being built
    local dir="$1"; shift
    chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"
}

build_one() {
    local suite="$1" dir="$CACHE/$1" tmp="$CACHE/.$1.building"
    if current "$suite"; then
        echo "wireshark-chroot: $suite: reusing $dir" >&2
        return 0
    fi
    command -v debootstrap >/dev/null || {
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
    }
    mkdir -p "$CACHE"
    rm -rf "$tmp"
    local t0=$SECONDS
    echo "wireshark-chroot: $suite: building in $dir (debootstrap from $MIRROR)" >&2
    # "testing" from a copy of a current Debian 13 chroot: only the packages that changed
    # are fetched.
    if [ "$suite" != trixie ] && current trixie; then
        cp -a "$CACHE/trixie" "$tmp"
        rm -f "$tmp/etc/apt/sources.list.d/"* "$tmp/.tcpdiag-stamp"
        echo "deb $MIRROR $suite main" >"$tmp/etc/apt/sources.list"
    else
        debootstrap --variant=minbase "$suite" "$tmp" "$MIRROR" >"$CACHE/.$suite.debootstrap.log" 2>&1 ||
            { rm -rf "$tmp"; die "$suite: debootstrap failed (see $CACHE/.$suite.debootstrap.log)"; }
    fi
    if ! { in_root "$tmp" "${APT[@]}" update && in_root "$tmp" "${APT[@]}" dist-upgrade &&
           in_root "$tmp" "${APT[@]}" install tshark && in_root "$tmp" "${APT[@]}" clean; } \
           >"$CACHE/.$suite.apt.log" 2>&1; then
        rm -rf "$tmp"; die "$suite: installing tshark failed (see $CACHE/.$suite.apt.log)"
    fi
    ensure_user
    local uid gid
    uid=$(id -u "$TEST_USER"); gid=$(id -g "$TEST_USER")
    grep -q "^$TEST_USER:" "$tmp/etc/group" || echo "$TEST_USER:x:$gid:" >>"$tmp/etc/group"
    grep -q "^$TEST_USER:" "$tmp/etc/passwd" ||
        echo "$TEST_USER:x:$uid:$gid::/nonexistent:/usr/sbin/nologin" >>"$tmp/etc/passwd"
    echo "$RECIPE $suite" >"$tmp/.tcpdiag-stamp"
    rm -rf "$dir"
    mv "$tmp" "$dir"
    echo "wireshark-chroot: $suite: $(tshark_version "$suite") built in $((SECONDS - t0)) s" >&2
}

tshark_version() {  # the first line of `tshark --version`, as the test user
    run_as "$1" tshark --version 2>/dev/null | head -n 1 | sed 's/^TShark (Wireshark) //; s/ (.*//; s/\.$//'
}

run_as() {  # run_as NAME [--bind DIR]... [--] PROGRAM ARGS...
    local name="$1"; shift
    local binds=() user="$TEST_USER"
    while [ $# -gt 0 ]; do
        case "$1" in
            --bind) binds+=("$2"); shift 2 ;;
            --root) user=root; shift ;;
            --) shift; break ;;
            *) break ;;
        esac
    done
    [ $# -gt 0 ] || die "run: which program?"
    case "$1" in tshark|editcap|capinfos) ;; *) die "run: $1: only tshark, editcap and capinfos" ;; esac
    ensure_user
    local env=(env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 WIRESHARK_CONFIG_DIR=/nonexistent)
    if [ "$name" = host ]; then
        [ "$user" = root ] && exec "${env[@]}" "$@"
        exec setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- "${env[@]}" "$@"
    fi
    current "$name" || die "$name: no current chroot in $CACHE (run: $0 build $name)"
    local root="$CACHE/$name"
    # A private mount namespace: the binds, /proc and a fresh /tmp vanish with the process.
    exec unshare --mount --propagation private -- /bin/bash -c '
        set -e
        root=$1; user=$2; shift 2
        mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
        while [ "$1" != -- ]; do
            mkdir -p "$root$1"
            mount --bind "$1" "$root$1"
            mount -o remount,bind,ro "$root$1"
            shift
        done
        shift
        mount -t proc proc "$root/proc"
        exec chroot --userspec="$user:$user" "$root" "$@"
    ' bash "$root" "$user" "${binds[@]}" -- "${env[@]}" "$@"
}

cmd="${1:-}"; shift || true
case "$cmd" in
    build)
        [ $# -gt 0 ] || set -- trixie testing
        for suite in "$@"; do build_one "$suite"; done ;;
    list)
        ensure_user
        echo "host $(tshark_version host)"
        for d in "$CACHE"/*/; do
            [ -d "$d" ] || continue
            suite=$(basename "$d")
            current "$suite" && echo "$suite $(tshark_version "$suite")"
        done ;;
    run)
        [ $# -gt 0 ] || die "run: which tshark (host or a suite)?"
        run_as "$@" ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
