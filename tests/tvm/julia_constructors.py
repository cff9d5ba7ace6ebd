# Every constructor role the harvest writes (a global that TVM's Python calls through
# `__init_handle_by_constructor__`) is a constructor of its class in the generated Julia package
# (ADR 0019), and no function has two methods with one signature (Julia would overwrite one).
# Reads the package's source: a method's signature is its name and the types of its positional
# parameters, as Julia compares them. A role counts as a member when the class has a method with
# every signature of the global's methods (its fallback aside) and one of them calls the
# global, and as covered by the class's own constructor when its own `__ffi_init__` has those
# signatures (the own one wins there, as in C++).
# Usage: python3 julia_constructors.py HARVESTED_YAML PACKAGE_SOURCE
import re
import sys

harvested, source = open(sys.argv[1]).read(), open(sys.argv[2]).read()


def positional_types(params):
    """The types of the positional parameters of a declaration list (`Any` without one)."""
    out, depth, param = [], 0, ""
    for c in params.split(";")[0] + ",":
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "," and depth == 0:
            p = param.split(" = ")[0].strip()
            param = ""
            if p:
                kind = p.split("::", 1)[1] if "::" in p else "Any"
                out.append("Vararg" if p.endswith("...") or kind.startswith("Vararg") else kind)
            continue
        param += c
    return tuple(out)


def definitions(text):
    """(name, positional types, the text of the body's first line) of each method definition;
    the name of one defined in a submodule starts with the submodule's path."""
    lines = text.split("\n")
    head = re.compile(r"^(?:TVMFFI\.@extend_base )?(function )?([A-Za-z_][\w.]*)\((.*)$")
    module = []
    for i, line in enumerate(lines):
        if re.match(r"^module \w+$", line):
            module.append(line.split()[1])
        elif re.match(r"^end  # module \w+$", line):
            module.pop()
        m = head.match(line)
        if not m:
            continue
        depth, rest = 1, m.group(3)
        for j, c in enumerate(rest):
            depth += {"(": 1, "{": 1, ")": -1, "}": -1}.get(c, 0)
            if depth == 0:
                break
        else:
            continue
        after = rest[j + 1:].replace(" where {N}", "", 1)
        if not (m.group(1) and after == "" or after.startswith(" =")):
            continue
        body = after[2:].strip() or (lines[i + 1] if i + 1 < len(lines) else "")
        # Unqualified names are the module's (submodules have types of the same name).
        yield ".".join(module[1:] + [m.group(2)]), positional_types(rest[:j]), body


defs = list(definitions(source))
signatures = [(name, types) for name, types, _ in defs]
repeated = {s for s in signatures if signatures.count(s) > 1}
assert not repeated, f"methods defined twice (Julia overwrites one): {sorted(repeated)[:10]}"

# The Julia function of each global, and the signatures of its methods (its fallback aside).
global_fn, global_sigs = {}, {}
for name, types, body in defs:
    m = re.search(r'global_function!\((\w+), "([^"]+)"\)', body)
    if m:
        global_fn[m.group(2)] = name
        global_sigs.setdefault(m.group(2), set()).add(types)
julia_type = dict(re.findall(r'^    \("([^"]+)", ([\w.]+), ', source, re.M))
methods_of = {}
for name, types, body in defs:
    methods_of.setdefault(name, []).append((types, body))

roles, entry = [], None
for line in harvested.split("\n"):
    m = re.match(r"^    (\S+):$", line)
    if m:
        entry = m.group(1)
    m = re.match(r"^\s+role: \{ kind: constructor, of: ([^ ,}]+)", line)
    if m:
        roles.append((entry, m.group(1)))

as_member = as_own = 0
missing = []
for global_name, key in roles:
    cls, fn = julia_type.get(key), global_fn.get(global_name)
    wanted = {t for t in global_sigs.get(global_name, set()) if t != ("Vararg",)} or {("Vararg",)}
    have = {t: body for t, body in methods_of.get(cls, []) if "throw_argument_error" not in body}
    if not (cls and fn and wanted <= have.keys()):
        missing.append(f"{global_name} -> {key}: {sorted(wanted - have.keys())}")
    elif any(f"{fn}(" in have[t] for t in wanted):
        as_member += 1
    else:
        as_own += 1
print(f"Julia constructors from globals: {len(roles)} harvested, {as_member} call their global, "
      f"{as_own} have the signature of the class's own constructor (it wins, as in C++); "
      f"{len(defs)} methods, none defined twice")
assert not missing and len(roles) >= 200, missing
