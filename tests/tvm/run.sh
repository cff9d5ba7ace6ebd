#!/usr/bin/env bash
# Bindings for Apache TVM 0.27 (libtvm_runtime.so + libtvm_compiler.so, scripts/setup-tvm.sh, in .deps/apache-tvm/site/tvm/lib):
# dump on Apache's runtime (where TVM loads today), generate from the dump with the signatures
# harvested from TVM's Python package, then check each
# language: the C++ headers (the umbrella, and one namespace's alone) compile with -Wall -Wextra
# -Werror -pedantic into programs that make typed calls; the Node declarations pass
# `tsc --strict` under a default modern tsconfig and the same calls run, every value they return
# checked against its declared type (tests/node/type_truth.mjs); the Julia package precompiles and the same calls run (the time of `using` is
# printed). The calls of all three languages, the IR program among them, run on Apache's
# runtime and then on ffihub's. Usage: tests/tvm/run.sh OUT_DIR [FFIHUB_LIB_DIR] (the workspace
# built: target/debug/ffihub, and ffihub's libtvm_ffi.so in FFIHUB_LIB_DIR, by default
# target/release).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$1"
FFIHUB_RUNTIME="${2:-$ROOT/target/release}"
APACHE="$ROOT/.deps/apache-tvm-ffi/tvm_ffi/lib"
TVM="$ROOT/.deps/apache-tvm/site/tvm/lib"
FFIHUB="$ROOT/target/debug/ffihub"
export LD_LIBRARY_PATH="$APACHE:$TVM"
rm -rf "$OUT" && mkdir -p "$OUT"

"$FFIHUB" dump --runtime "$APACHE/libtvm_ffi.so" --lib "$TVM/libtvm_runtime.so" \
    --lib "$TVM/libtvm_compiler.so" -o "$OUT/tvm.yaml" 2>"$OUT/dump.log"
cat "$OUT/dump.log"
# At least 95% of the functions that carry a signature and of the fields are typed.
python3 - "$OUT/dump.log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
f_typed, f_all = map(int, re.search(r"typed: (\d+) of (\d+) functions", text).groups())
d_typed, d_all = map(int, re.search(r"(\d+) of (\d+) fields", text).groups())
packed = int((re.search(r"(\d+) registered without a type_schema", text) or [0, 0])[1] or 0)
assert f_typed >= 0.95 * (f_all - packed), text
assert d_typed >= 0.95 * d_all, text
PY

# Parameter names, defaults and docs harvested from TVM's own Python package (no hand overlay):
# at least 1,100 functions, methods and constructors named from it, and at most 20% of the Node
# declarations of functions, methods and constructors left with a positional `argN`.
"$FFIHUB" generate --lang all --name tvm --metadata "$OUT/tvm.yaml" \
    --harvest --python "$ROOT/.deps/apache-tvm/site/tvm" --out "$OUT" 2>"$OUT/generate.log"
cat "$OUT/generate.log"
python3 - "$OUT/generate.log" "$OUT/node/index.d.ts" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
harvested = int(re.search(r"(\d+) from the harvest", log).group(1))
assert harvested >= 1100, log
decl = re.compile(r"^\s*(export function [\w$]+|static [\w$]+|constructor|[\w$]+)\(")
def top_level(rest):
    depth, out, prev = 0, "", ""
    for c in rest:
        if c in "(<[{":
            depth += 1
        elif c in ")>]}" and not (c == ">" and prev == "="):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            out += c
        prev = c
    return out
total = positional = 0
for line in open(sys.argv[2]):
    m = decl.match(line)
    if not m:
        continue
    total += 1
    positional += bool(re.search(r"(^|,)\s*(\.\.\.)?arg\d+\??\s*:", top_level(line[m.end():])))
print(f"harvest: {harvested} named from the Python package; {positional} of {total} Node "
      f"declarations keep a positional argN ({100 * positional / total:.1f}%)")
assert positional <= 0.2 * total, (positional, total)
PY

# Every constructor role the harvest writes is a constructor of its class in Node and C++. In
# C++ a role whose parameter types are those of the class's own constructor (68 of TVM's) is
# that constructor, whose doc names the global (the own one wins there, as in Julia; ADR 0019).
# The packed ones (TVM's `target.Target`) are counted apart: a range of any count in Node, a
# constrained variadic template in C++.
"$FFIHUB" harvest --metadata "$OUT/tvm.yaml" --python "$ROOT/.deps/apache-tvm/site/tvm" \
    -o "$OUT/harvested.yaml" 2>/dev/null
python3 - "$OUT/harvested.yaml" "$OUT/node/index.js" "$OUT/cpp" <<'PY'
import pathlib, re, sys
harvested = open(sys.argv[1]).read()
roles = harvested.count("role: { kind: constructor,")
# A packed global's entry has nothing but its role.
packed_roles = len(re.findall(r"^    \S+:\n      role: \{ kind: constructor,", harvested, re.M))
node_js = open(sys.argv[2]).read()
node = len(re.findall(r"\[\d+, (?:\d+|Infinity), exports\.[\w.$]+\]", node_js))
packed_node = len(re.findall(r"\[0, Infinity, exports\.[\w.$]+\]", node_js))
headers = [p.read_text() for p in pathlib.Path(sys.argv[3]).rglob("*.hpp")]
cpp = sum(h.count("([&] {") for h in headers)
cpp_own = sum(h.count("constructs it through the global `") for h in headers)
packed_cpp = sum(h.count("enable_packed_constructor<") for h in headers)
print(f"constructors from globals: {roles} harvested, {node} in Node, {cpp} in C++ (and {cpp_own} "
      f"the class's own with the same parameter types); of them packed: {packed_roles} "
      f"harvested, {packed_node} in Node, {packed_cpp} in C++")
assert roles >= 200 and node == roles and cpp + cpp_own == roles, (roles, node, cpp, cpp_own)
assert packed_roles >= 1 and packed_node == packed_roles and packed_cpp >= 1, (
    packed_roles, packed_node, packed_cpp)
assert any("enable_packed_constructor<Target," in h for h in headers), "no packed Target(...)"
PY

# The IR program that C++, Node and Julia build through the constructors, methods and properties
# TVM's Python API gives its globals: what TVM's Python prints for it (ADR 0019).
export TVM_IR_EXPECTED="$OUT/ir_program.txt"
"$ROOT/.deps/apache-tvm/venv-apache/bin/python" "$ROOT/tests/tvm/ir_program.py" >"$TVM_IR_EXPECTED"

# C++: the umbrella header (every namespace) and one namespace's header alone (tvm/ir.hpp), each
# compiled once into a program that makes typed calls (linked by name against libtvm_ffi.so, so
# the library path picks the runtime); the compile times are printed.
INC=(-I "$OUT/cpp" -I "$ROOT/bindings/cpp/include" -I "$ROOT/runtime/include")
for program in tvm tvm_ir; do
    start=$(date +%s%N)
    g++ -std=c++17 -Wall -Wextra -Werror -pedantic "${INC[@]}" "$ROOT/tests/tvm/$program.cpp" \
        -L "$APACHE" -L "$TVM" -ltvm_compiler -ltvm_runtime -ltvm_ffi -o "$OUT/${program}_cpp"
    echo "g++ $program.cpp: $((($(date +%s%N) - start) / 1000000)) ms"
done

# Node: tsc --strict with a default modern tsconfig (no `lib` entries).
mkdir -p "$OUT/node/node_modules/@ffihub"
ln -sfn "$ROOT/bindings/node" "$OUT/node/node_modules/@ffihub/tvm-ffi"
cat >"$OUT/node/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "noEmit": true, "target": "es2022", "module": "nodenext",
  "moduleResolution": "nodenext", "skipLibCheck": false }, "files": ["index.d.ts"] }
JSON
"$ROOT/tests/node/node_modules/.bin/tsc" -p "$OUT/node/tsconfig.json"
# Type truth: the values the calls return are checked against the declared types.
mkdir -p "$OUT/node-types"
node "$ROOT/tests/node/type_truth.mjs" declare "$OUT/node" >"$OUT/node-types/tvm.types.json"

# Julia: an offline environment with path entries (as tests/julia/run.rs makes), a private depot.
uuid() { sed -n 's/^uuid = "\(.*\)"/\1/p' "$1/Project.toml"; }
TVMFFI="$ROOT/bindings/julia/TVMFFI"
mkdir -p "$OUT/julia-env"
cat >"$OUT/julia-env/Project.toml" <<TOML
[deps]
Tvm = "$(uuid "$OUT/julia")"
TVMFFI = "$(uuid "$TVMFFI")"
TOML
cat >"$OUT/julia-env/Manifest.toml" <<TOML
[[Tvm]]
deps = ["TVMFFI"]
path = "$OUT/julia"
uuid = "$(uuid "$OUT/julia")"
version = "0.1.0"

[[TVMFFI]]
deps = ["Libdl", "Pkg", "SHA"]
path = "$TVMFFI"
uuid = "$(uuid "$TVMFFI")"
version = "0.1.0"

[[Libdl]]
uuid = "8f399da3-3557-5675-b5ff-fb832c97cbdb"

[[Pkg]]
uuid = "44cfe95a-1eb2-52ea-b672-e2afdf69b78f"

[[SHA]]
uuid = "ea8e919c-243c-51af-8825-aaa63cd721ce"
TOML
export JULIA_DEPOT_PATH="$OUT/julia-depot" FFIHUB_LIBRARY_PATH="$TVM"
start=$(date +%s%N)
TVM_FFI_LIB="$APACHE/libtvm_ffi.so" "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" \
    -e 'import Tvm' 2>"$OUT/precompile.err"
echo "precompile + first load of Tvm: $((($(date +%s%N) - start) / 1000000)) ms"
cat "$OUT/precompile.err" >&2
# A method overwritten while precompiling is an error on Julia 1.10+ (1.5 warns): none is.
if grep -q "overwritten" "$OUT/precompile.err"; then
    echo "precompiling Tvm overwrote a method" >&2
    exit 1
fi
# Every constructor role the harvest writes is a constructor of its class in Julia (ADR 0019).
python3 "$ROOT/tests/tvm/julia_constructors.py" "$OUT/harvested.yaml" "$OUT/julia/src/Tvm.jl"

# The calls of every language, on one runtime: NAME and the folder of its libtvm_ffi.so, which
# the library path (C++, Node) and TVM_FFI_LIB (Julia) select; TVM's libraries find it there too
# (their RUNPATH is only $ORIGIN). Each program checks its own results, the IR programs against
# what TVM's Python prints ($TVM_IR_EXPECTED).
calls_on() {
    local name="$1" dir="$2"
    echo "== the calls on $name's runtime ($dir/libtvm_ffi.so)"
    export LD_LIBRARY_PATH="$dir:$TVM" TVM_FFI_LIB="$dir/libtvm_ffi.so"
    # C++
    for program in tvm tvm_ir; do
        "$OUT/${program}_cpp"
    done
    # Node
    node "$ROOT/tests/tvm/calls.js" "$OUT/node/index.js" "$OUT/node-types/tvm.types.json"
    # Julia
    "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" "$ROOT/tests/tvm/calls.jl"
    "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" "$ROOT/tests/tvm/ir_program.jl"
    # `using` it next to Base's names prints no warning (a name both export, or any other).
    "$ROOT/scripts/julia" --startup-file=no --project="$OUT/julia-env" "$ROOT/tests/tvm/using.jl" \
        2>"$OUT/using.err"
    cat "$OUT/using.err" >&2
    if grep -q WARNING "$OUT/using.err"; then
        echo "using Tvm printed a warning on $name's runtime (tests/tvm/using.jl)" >&2
        exit 1
    fi
}
calls_on apache "$APACHE"
calls_on ffihub "$FFIHUB_RUNTIME"
