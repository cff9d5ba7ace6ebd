#!/usr/bin/env bash
# Provides the Julia toolchain of the Julia bindings (see docs/julia.md):
#
#   1. Julia itself. The only Julia obtainable on Debian bookworm is 1.5.3 from Debian bullseye:
#      the bullseye suite is added to the apt sources with a low pin priority (100, so nothing
#      already installed is ever upgraded from it) and Julia is installed with
#      `apt-get install -t bullseye julia`.
#   2. bullseye's libunwind8 1.3.2. With bookworm's libunwind 1.6.2 every exception thrown from
#      Julia-compiled code segfaults, so `libunwind8=1.3.2-2` is downloaded with `apt-get download`,
#      unpacked with `dpkg-deb -x` into the git-ignored .deps/julia-libunwind/, and its
#      libunwind.so.8 copied into Julia's private library folder /usr/lib/x86_64-linux-gnu/julia,
#      which libjulia searches before the system folders (its RUNPATH is `$ORIGIN/julia:$ORIGIN`).
#      Julia then runs with it without any environment variable; the system's libunwind stays and
#      nothing else uses the copy.
#   3. An empty placeholder Pkg registry in the Julia depot if it has none (so that Pkg.test()
#      works offline).
#   4. A check that the wrapper scripts/julia (which execs Julia, or $FFIHUB_JULIA; everything
#      else calls the wrapper) runs Julia and survives a thrown-and-caught exception.
#
# Idempotent: a second run only re-checks. Needs root (apt) only when something is missing.
#
# Environment:
#   FFIHUB_JULIA  use this Julia executable instead of Debian's /usr/bin/julia (then nothing is
#                 installed: such a Julia brings its own libunwind)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
UNWIND_VERSION="1.3.2-2"
UNWIND_DIR="$ROOT/.deps/julia-libunwind"
UNWIND_STAMP="$UNWIND_DIR/.installed-version"
UNWIND_LIB="$UNWIND_DIR/usr/lib/x86_64-linux-gnu/libunwind.so.8"
JULIA_PRIVATE_UNWIND="/usr/lib/x86_64-linux-gnu/julia/libunwind.so.8"
APT_SOURCES="/etc/apt/sources.list.d/ffihub-bullseye.sources"
APT_PIN="/etc/apt/preferences.d/ffihub-bullseye.pref"
WRAPPER="$ROOT/scripts/julia"

say() { echo "setup-julia.sh: $*"; }
die() {
    echo "setup-julia.sh: error: $*" >&2
    exit 1
}

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# Adds the bullseye suite (pinned low) to apt's sources once; returns 0 if apt lists must be
# refreshed.
ensure_bullseye_source() {
    local changed=1
    if [[ ! -f "$APT_SOURCES" ]]; then
        is_root || die "$APT_SOURCES is missing and this is not root: run scripts/setup-julia.sh as root"
        say "adding Debian bullseye to the apt sources ($APT_SOURCES)"
        cat >"$APT_SOURCES" <<'EOF'
# Added by ffihub scripts/setup-julia.sh: Julia 1.5.3 and libunwind8 1.3.2 come from bullseye.
Types: deb
URIs: http://deb.debian.org/debian
Suites: bullseye
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        changed=0
    fi
    if [[ ! -f "$APT_PIN" ]]; then
        is_root || die "$APT_PIN is missing and this is not root: run scripts/setup-julia.sh as root"
        say "pinning bullseye to priority 100 ($APT_PIN): nothing installed is upgraded from it"
        cat >"$APT_PIN" <<'EOF'
# Added by ffihub scripts/setup-julia.sh: bullseye packages are only installed when asked for.
Package: *
Pin: release n=bullseye
Pin-Priority: 100
EOF
        changed=0
    fi
    return $changed
}

# apt lists must know bullseye (after adding the source, or on a machine whose lists are stale).
apt_knows_bullseye() {
    apt-cache madison libunwind8 2>/dev/null | grep -q "$UNWIND_VERSION"
}

refresh_apt() {
    is_root || die "apt lists do not know Debian bullseye and this is not root: run scripts/setup-julia.sh as root"
    say "apt-get update"
    apt-get update -qq || die "apt-get update failed"
}

# ---------------------------------------------------------------------------------------------
# 1. Julia

if [[ -n "${FFIHUB_JULIA:-}" ]]; then
    [[ -x "$FFIHUB_JULIA" ]] || die "FFIHUB_JULIA=$FFIHUB_JULIA is not an executable"
    say "using FFIHUB_JULIA=$FFIHUB_JULIA (not installing Debian's Julia or libunwind)"
else
    command -v apt-get >/dev/null || die "apt-get not found: this script supports Debian only (or set FFIHUB_JULIA)"
    if [[ ! -x /usr/bin/julia ]]; then
        is_root || die "Julia is not installed and this is not root: run scripts/setup-julia.sh as root"
        if ensure_bullseye_source || ! apt_knows_bullseye; then refresh_apt; fi
        say "installing julia from bullseye (apt-get install -t bullseye julia)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bullseye julia ||
            die "apt-get install -t bullseye julia failed"
        [[ -x /usr/bin/julia ]] || die "the julia package did not install /usr/bin/julia"
    else
        say "julia present: /usr/bin/julia"
    fi

    # -----------------------------------------------------------------------------------------
    # 2. libunwind8 1.3.2 in .deps/julia-libunwind

    if [[ -f "$UNWIND_LIB" && -f "$UNWIND_STAMP" && "$(cat "$UNWIND_STAMP")" == "$UNWIND_VERSION" ]]; then
        say "libunwind8=$UNWIND_VERSION present in $UNWIND_DIR"
    else
        if ensure_bullseye_source || ! apt_knows_bullseye; then refresh_apt; fi
        mkdir -p "$ROOT/.deps"
        WORK="$(mktemp -d "$ROOT/.deps/.julia-libunwind.XXXXXX")"
        trap 'rm -rf "$WORK"' EXIT
        say "downloading libunwind8=$UNWIND_VERSION (apt-get download)"
        apt_opts=()
        # As root apt drops privileges to _apt, which cannot write into our private folder.
        is_root && apt_opts=(-o APT::Sandbox::User=root)
        (cd "$WORK" && apt-get download -qq "${apt_opts[@]}" "libunwind8=$UNWIND_VERSION") ||
            die "apt-get download libunwind8=$UNWIND_VERSION failed"
        deb="$(ls "$WORK"/libunwind8_*.deb 2>/dev/null | head -n1)"
        [[ -n "$deb" ]] || die "apt-get download produced no libunwind8 .deb"
        dpkg-deb -x "$deb" "$WORK/unpacked" || die "dpkg-deb -x $deb failed"
        [[ -f "$WORK/unpacked/usr/lib/x86_64-linux-gnu/libunwind.so.8" ]] ||
            die "$deb has no usr/lib/x86_64-linux-gnu/libunwind.so.8"
        echo "$UNWIND_VERSION" >"$WORK/unpacked/.installed-version"
        rm -rf "$UNWIND_DIR"
        mv "$WORK/unpacked" "$UNWIND_DIR"
        say "unpacked libunwind8=$UNWIND_VERSION into $UNWIND_DIR"
    fi
    if cmp -s "$(readlink -f "$UNWIND_LIB")" "$JULIA_PRIVATE_UNWIND"; then
        say "libunwind8=$UNWIND_VERSION present in Julia's library folder ($JULIA_PRIVATE_UNWIND)"
    else
        is_root || die "$JULIA_PRIVATE_UNWIND is missing or another version and this is not root: run scripts/setup-julia.sh as root"
        [[ -d "$(dirname "$JULIA_PRIVATE_UNWIND")" ]] ||
            die "$(dirname "$JULIA_PRIVATE_UNWIND") is missing: is this Debian's julia package?"
        install -m 644 "$(readlink -f "$UNWIND_LIB")" "$JULIA_PRIVATE_UNWIND"
        say "installed libunwind8=$UNWIND_VERSION as $JULIA_PRIVATE_UNWIND (Julia finds it first)"
    fi
fi

# ---------------------------------------------------------------------------------------------
# 3. A registry for Pkg. The bindings need no package outside Julia's standard library, but
#    `Pkg.test()` / `Pkg.instantiate()` insist on a registry and would try to clone the General
#    registry (no network to it here). An empty local placeholder registry satisfies them offline.
#    Only created when the first Julia depot has no registry at all.

ensure_placeholder_registry() {
    local depot registries
    depot="$("$WRAPPER" --startup-file=no -e 'print(DEPOT_PATH[1])')" ||
        die "scripts/julia cannot start Julia to locate its depot"
    registries="$depot/registries"
    if [[ -d "$registries" ]] && [[ -n "$(ls -A "$registries" 2>/dev/null)" ]]; then
        say "Pkg registry present in $registries"
        return 0
    fi
    mkdir -p "$registries/FFIHubPlaceholder"
    cat >"$registries/FFIHubPlaceholder/Registry.toml" <<'EOF'
name = "FFIHubPlaceholder"
uuid = "3b2f0a55-5e0c-4c8e-9a49-7f3a3c2b9d11"
repo = ""
description = "Empty offline registry made by ffihub's scripts/setup-julia.sh: the bindings need only Julia's standard library."

[packages]
EOF
    say "created an empty placeholder Pkg registry in $registries/FFIHubPlaceholder"
}

[[ -x "$WRAPPER" ]] || die "$WRAPPER is missing or not executable"
ensure_placeholder_registry

# ---------------------------------------------------------------------------------------------
# 4. Check the wrapper: Julia starts and a thrown-and-caught exception does not crash it.

# The throw must come from compiled code (a function): top-level code is interpreted and does not
# show the libunwind crash.
check='f(x) = try; x > 0 && error("boom"); 0; catch e; e isa ErrorException ? 1 : 2; end
       sum(f, 1:3) == 3 || exit(3); println(VERSION)'
version="$("$WRAPPER" --startup-file=no -e "$check")" ||
    die "scripts/julia failed the exception check (exit $?): Julia crashes on a caught exception; is $JULIA_PRIVATE_UNWIND bullseye's libunwind 1.3.2?"
say "ok: scripts/julia runs Julia $version; a thrown-and-caught exception works"
