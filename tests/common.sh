# Paths and helpers of the cross-language test scripts (sourced after setting ROOT, the
# repository root): the two runtimes and the generator as the workspace builds them, and
# generated packages made usable in place, offline.

APACHE="$ROOT/.deps/apache-tvm-ffi/tvm_ffi"  # Apache's wheel: include/, lib/libtvm_ffi.so
OURS="$ROOT/target/release"                  # ffihub's libtvm_ffi.so
FFIHUB="$ROOT/target/debug/ffihub"

# runtime_dir apache|ours: the folder of that runtime's libtvm_ffi.so.
runtime_dir() {
    if [ "$1" = apache ]; then echo "$APACHE/lib"; else echo "$OURS"; fi
}

# node_support PKG_DIR: makes the support package `@ffihub/tvm-ffi` resolvable from the
# generated Node package in PKG_DIR.
node_support() {
    mkdir -p "$1/node_modules/@ffihub"
    ln -sfn "$ROOT/bindings/node" "$1/node_modules/@ffihub/tvm-ffi"
}

# tsc_strict DIR FILE...: `tsc --strict` over FILE... (relative to DIR: declarations, or
# JavaScript with JSDoc types, checked too) with a default modern tsconfig, as a user's project
# would check its use of the generated declarations.
tsc_strict() {
    local dir="$1"
    shift
    local files
    files="$(printf '"%s",' "$@")"
    cat >"$dir/tsconfig.json" <<JSON
{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2022", "module": "nodenext",
  "moduleResolution": "nodenext", "skipLibCheck": false, "allowJs": true, "checkJs": true },
  "files": [${files%,}] }
JSON
    "$ROOT/tests/node/node_modules/.bin/tsc" -p "$dir/tsconfig.json"
}

# package_uuid PKG_DIR: the uuid in a Julia package's Project.toml.
package_uuid() { sed -n 's/^uuid = "\(.*\)"/\1/p' "$1/Project.toml"; }

# julia_env ENV_DIR NAME=PKG_DIR...: an environment with the generated Julia packages and the
# support package TVMFFI as path entries (Pkg is not asked to resolve anything). TVMFFI's
# standard-library dependencies are read from its Project.toml, so they cannot drift.
julia_env() {
    local env="$1" tvmffi="$ROOT/bindings/julia/TVMFFI" spec name dir stdlibs uuid
    shift
    mkdir -p "$env"
    # `Name = "uuid"` lines of TVMFFI's [deps] section.
    stdlibs="$(sed -n '/^\[deps\]/,/^\[/{/^[A-Za-z].* = "/p}' "$tvmffi/Project.toml")"
    {
        echo "[deps]"
        for spec in "$@"; do
            echo "${spec%%=*} = \"$(package_uuid "${spec#*=}")\""
        done
        echo "TVMFFI = \"$(package_uuid "$tvmffi")\""
    } >"$env/Project.toml"
    {
        for spec in "$@"; do
            name="${spec%%=*}" dir="${spec#*=}"
            printf '[[%s]]\ndeps = ["TVMFFI"]\npath = "%s"\nuuid = "%s"\nversion = "0.1.0"\n\n' \
                "$name" "$dir" "$(package_uuid "$dir")"
        done
        printf '[[TVMFFI]]\ndeps = [%s]\npath = "%s"\nuuid = "%s"\nversion = "0.1.0"\n' \
            "$(sed 's/^\([^ ]*\) = .*/"\1"/' <<<"$stdlibs" | paste -sd, | sed 's/,/, /g')" \
            "$tvmffi" "$(package_uuid "$tvmffi")"
        while read -r name _ uuid; do
            printf '\n[[%s]]\nuuid = %s\n' "$name" "$uuid"
        done <<<"$stdlibs"
    } >"$env/Manifest.toml"
}
