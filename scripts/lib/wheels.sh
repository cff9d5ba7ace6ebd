# shellcheck shell=bash
# Sourced by the setup scripts that put pinned Python wheels into the project-local, git-ignored
# folder .deps/ (setup-apache.sh, setup-xgrammar.sh, setup-pysuite.sh, setup-tvm.sh,
# setup-tilelang.sh) once they have set ROOT, the repository.
# Two ways of installing are shared here:
#   - one wheel, fetched and unpacked (nothing installed): fetch_pinned_wheel, unpack_wheel;
#   - a wheel house (a folder of downloaded wheels, each checked against its hash in a
#     requirements file) installed from with no index: download_wheels, install_wheels,
#     make_wheel_venv, copy_venv_for_ffihub.

# The interpreter that runs pip (the scripts document it as their environment variable PYTHON).
PYTHON="${PYTHON:-python3}"
# The scratch folder of make_work_dir.
WORK=""

# Ends the calling script with an error message naming it.
die() {
    echo "${0##*/}: error: $*" >&2
    exit 1
}

# Whether <file> exists and holds <text>: a stamp recording what an installation was made from.
stamp_matches() { # <file> <text>
    [[ -f "$1" && "$(cat "$1")" == "$2" ]]
}

require_linux_x86_64() { # <what is pinned, as "wheel is" or "wheels are">
    [[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die "only Linux x86_64 is supported (the pinned $1)"
}

require_python() {
    command -v "$PYTHON" >/dev/null || die "$PYTHON not found"
}

require_python_version() { # <major.minor>
    require_python
    local version
    version="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    [[ "$version" == "$1" ]] || die "$PYTHON is Python $version; the pinned wheels need CPython $1 (set PYTHON)"
}

# Makes WORK, a scratch folder under .deps/ (on the same file system as the installation, so that
# finished parts are moved in, never copied), removed when the script exits.
make_work_dir() { # <name>
    mkdir -p "$ROOT/.deps"
    WORK="$(mktemp -d "$ROOT/.deps/.$1.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
}

check_sha256() { # <file> <expected sha256>
    local actual
    actual="$(sha256sum "$1" | cut -d' ' -f1)"
    [[ "$actual" == "$2" ]] || die "sha256 mismatch for $1: expected $2, got $actual"
}

unpack_wheel() { # <wheel> <folder>
    "$PYTHON" -m zipfile -e "$1" "$2" || die "cannot unpack $1"
}

# Puts the pinned wheel <file name> into WORK and checks its hash: the file named by the environment
# variable <override>, if set (offline setups), else a download from PyPI of <requirement> for the
# target that the further pip arguments select.
fetch_pinned_wheel() { # <override> <file name> <sha256> <requirement> <pip download argument>...
    local override="$1" file="$2" sha256="$3" requirement="$4"
    shift 4
    if [[ -n "${!override:-}" ]]; then
        [[ -f "${!override}" ]] || die "$override=${!override} does not exist"
        cp "${!override}" "$WORK/$file"
    else
        echo "downloading $requirement from PyPI"
        "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: "$@" \
            --dest "$WORK" "$requirement" || die "pip download of $requirement failed"
    fi
    [[ -f "$WORK/$file" ]] || die "expected $file, got: $(ls "$WORK")"
    check_sha256 "$WORK/$file" "$sha256"
}

# Downloads into <wheel house> the wheels of <requirements> (each pinned with its hash) that are not
# there yet; the further arguments go to `pip download`.
download_wheels() { # <wheel house> <requirements> <pip download argument>...
    local house="$1" requirements="$2"
    shift 2
    "$PYTHON" -m pip --disable-pip-version-check download --quiet --no-deps --only-binary :all: \
        --require-hashes "$@" --dest "$house" -r "$requirements"
}

# Installs <requirements> from <wheel house> only, checking the hashes again. With --python <venv
# python> before the wheel house, into that venv; else the further arguments say where (--target).
install_wheels() { # [--python <python>] <wheel house> <requirements> <pip install argument>...
    local python=()
    if [[ "$1" == "--python" ]]; then
        python=(--python "$2")
        shift 2
    fi
    local house="$1" requirements="$2"
    shift 2
    "$PYTHON" -m pip --disable-pip-version-check "${python[@]}" install --quiet --root-user-action ignore \
        --no-deps --no-index --find-links "$house" --require-hashes --only-binary :all: "$@" -r "$requirements"
}

# Makes a venv without pip holding <requirements> from <wheel house>, with <site> on its path
# through the file <pth name> in its site-packages.
make_wheel_venv() { # <venv> <wheel house> <requirements> <site> <pth name>
    local venv="$1" site="$4" pth="$5" site_packages
    "$PYTHON" -m venv --without-pip "$venv" &&
        install_wheels --python "$venv/bin/python" "$2" "$3" &&
        site_packages="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" &&
        echo "$site" >"$site_packages/$pth"
}

# Makes <folder>/venv-ffihub, a copy of <folder>/venv-apache (a venv finds its packages relative to
# its own python: a copy is a second venv) without the wheel's libtvm_ffi.so: venv-apache keeps the
# wheel's library, venv-ffihub's is a link to the library under test, which the tests (re)point
# before every run.
copy_venv_for_ffihub() { # <folder>
    cp -a "$1/venv-apache" "$1/venv-ffihub"
    rm "$1/venv-ffihub/lib/python3.11/site-packages/tvm_ffi/lib/libtvm_ffi.so"
}
