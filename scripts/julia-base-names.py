#!/usr/bin/env python3
"""Writes the names Julia's Base and Core export at one release, for the Julia backend's escaping
(bindgen/src/lang/julia/base_names/<minor>.txt):

    scripts/julia-base-names.py JULIA_CHECKOUT v1.10.0 > bindgen/src/lang/julia/base_names/1.10.txt
    scripts/julia-base-names.py /usr/share/julia/base 1.5.3 > bindgen/src/lang/julia/base_names/1.5.txt

The first reads the sources at a tag of a JuliaLang/julia clone (`git show v1.10.0:base/...`),
the second the `base/` folder that an installed Julia of that version ships (its release's
sources). The names are those
of the `export` statements of base/exports.jl and base/deprecated.jl (Base's) and of base/boot.jl
outside its `module IR` (Core's), plus `Base` and `Core`: what `names(Base)` and `names(Core)`
list. Only ASCII identifiers are kept (generated names are ASCII); macros and operators are not.
"""
import os
import re
import subprocess
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_!]*")
FILES = ["base/exports.jl", "base/deprecated.jl", "base/boot.jl"]


def strip_comments(text):
    text = re.sub(r"#=.*?=#", "", text, flags=re.S)
    return "\n".join(re.sub(r"#.*", "", line) for line in text.split("\n"))


def exports(text):
    """The items of the `export a, b, ...` statements (items may span lines)."""
    text = strip_comments(text)
    out = []
    for m in re.finditer(r"(?m)^[ \t]*export\b", text):
        i = m.end()
        while True:
            while i < len(text) and text[i] in " \t\n":
                i += 1
            j = i
            while j < len(text) and text[j] not in ",\n":
                j += 1
            out.append(text[i:j].strip())
            if j < len(text) and text[j] == ",":
                i = j + 1
                continue
            break
    return [item for item in out if IDENT.fullmatch(item)]


def read(source, tag, path):
    if not os.path.isdir(os.path.join(source, ".git")):
        return open(os.path.join(source, os.path.relpath(path, "base"))).read()
    return subprocess.run(["git", "-C", source, "show", f"{tag}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, tag = sys.argv[1], sys.argv[2]
    names = {"Base", "Core"}
    for path in FILES:
        text = read(source, tag, path)
        if path == "base/boot.jl":
            text = text.split("\nmodule IR\n")[0]       # Core.IR's exports are not Core's
        names.update(exports(text))
    where = (f"at {tag} of JuliaLang/julia" if os.path.isdir(os.path.join(source, ".git"))
             else f"as Julia {tag} ships them")
    print("# Names Julia's Base and Core export (base/exports.jl, base/deprecated.jl, base/boot.jl)")
    print(f"# {where}; written by scripts/julia-base-names.py.")
    for name in sorted(names):
        print(name)


main()
