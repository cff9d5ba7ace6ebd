"""The table of bench/core/instructions.sh, from its callgrind profiles.

    python3 bench/core/instructions.py <profiles dir> <benchmark program> <verbose 0|1>
        <operations.tsv> <operation> <n>...

Each operation has four profiles, `<side>.<operation>.<n>` and `<side>.<operation>.<3n>` for the
sides `ours` and `ref`, written with `--dump-instr=yes`. What one operation costs is the
difference of the two over 2n: instructions executed outside the benchmark program, and, in the
runtime library (libtvm_ffi.so), executed jumps that cross or end at a 32-byte boundary.

Such jumps are the code layout that Intel cores from Skylake to Cascade Lake handle slowly (the
"JCC erratum": their microcode keeps the 32-byte block out of the decoded-instruction cache, so
it is decoded again every time); a compare or test fused with the conditional jump after it
counts as one jump. Other cores do not care, but the count is a property of the binary, so it
can be compared on any machine.
"""
import collections
import functools
import os
import re
import subprocess
import sys

RUNTIME = "libtvm_ffi.so"
# Instructions that macro-fuse with a following conditional jump.
FUSING = ("cmp", "test", "add", "sub", "and", "inc", "dec")


def profile(path):
    """Instructions per (object, function) and per (object, address), where each ran."""
    names, by_function, by_address = {}, collections.Counter(), collections.Counter()
    obj = fn = None
    address = 0
    after_call = False  # the line after `calls=` is the callee's inclusive cost

    def name(kind, text):
        m = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if m is None:
            return text
        if m.group(2) is not None:
            names[(kind, m.group(1))] = m.group(2)
        return names[(kind, m.group(1))]

    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line[:1].isdigit() or line[:1] in ("+", "-", "*"):
            # `<address> <line> <instructions>`, addresses absolute (0x...), relative or `*`.
            fields = line.split()
            first = fields[0]
            if first.startswith("0x"):
                address = int(first, 16)
            elif first[0] in "+-":
                address += int(first)
            if after_call:
                after_call = False
            elif len(fields) >= 3:
                by_function[(obj, fn)] += int(fields[2])
                by_address[(obj, address)] += int(fields[2])
        elif line.startswith("ob="):
            obj = name("ob", line[3:])
        elif line.startswith("fn="):
            fn = name("fn", line[3:])
        elif line.startswith("cob="):
            name("ob", line[4:])
        elif line.startswith("cfn="):
            name("fn", line[4:])
        elif line.startswith("calls="):
            after_call = True
    return by_function, by_address


# Prefixes objdump prints before a mnemonic.
PREFIXES = ("notrack", "bnd", "rep", "repz", "repnz", "lock", "data16", "cs", "ds")


@functools.lru_cache(maxsize=None)
def instructions(library):
    """{address: (length, mnemonic, previous address)} of the code of `library`."""
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", library],
                             capture_output=True, text=True, check=True).stdout
    decoded = []
    for line in listing.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if m:
            words = [w for w in m.group(2).split() if w not in PREFIXES]
            decoded.append((int(m.group(1), 16), words[0] if words else ""))
    table = {}
    for (before, _), (address, op), (after, _) in zip(decoded, decoded[1:], decoded[2:]):
        table[address] = (after - address, op, before)
    return table


def boundary_jumps(by_address, ops):
    """Executed jumps per operation that cross or end at a 32-byte boundary in the runtime."""
    executed = {}
    for (obj, address), count in by_address.items():
        if obj and os.path.basename(obj) == RUNTIME and count:
            executed.setdefault(obj, {})[address] = count / ops
    total = 0.0
    for library, counts in executed.items():
        code = instructions(library)
        for address, count in counts.items():
            length, op, before = code[address]
            if not (op.startswith("j") or op.startswith(("call", "ret"))):
                continue
            start = address
            if op.startswith("j") and op != "jmp" and before in counts \
                    and code[before][1].startswith(FUSING):
                start = before
            end = address + length
            if start // 32 != (end - 1) // 32 or end % 32 == 0:
                total += count
    return total


def per_op(out, side, name, n, per):
    few_fn, few_at = profile(os.path.join(out, f"{side}.{name}.{n}"))
    many_fn, many_at = profile(os.path.join(out, f"{side}.{name}.{3 * n}"))
    ops = 2 * n * per
    split = {k: (many_fn[k] - few_fn[k]) / ops for k in set(few_fn) | set(many_fn)}
    executed = {k: many_at[k] - few_at[k] for k in set(few_at) | set(many_at)}
    return split, boundary_jumps(executed, ops)


def main(out, program, verbose, labels_path, *specs):
    labels = dict(line.rstrip("\n").split("\t") for line in open(labels_path, encoding="utf-8"))
    labels["map_1000"] = "runtime: `ffi.Map` str→int, 1e3 entries (`key-<i>`), per entry"
    labels["map_1000_padded"] = ("runtime: `ffi.Map` str→int, 1e3 entries (`key-<10 digits>`: "
                                 "colliding hashes), per entry")
    per = {"map_1000": 1000, "map_1000_padded": 1000}  # operations per run of the op
    print("| operation | ours | Apache's | ratio | jumps on a 32-byte boundary: ours | Apache's |")
    print("|---|---|---|---|---|---|")
    details = []
    for name, n in zip(specs[::2], specs[1::2]):
        sides = {side: per_op(out, side, name, int(n), per.get(name, 1)) for side in ("ours", "ref")}
        cost = {side: sum(v for (obj, _), v in split.items() if obj != program)
                for side, (split, _) in sides.items()}
        print(f"| {labels.get(name, name)} | {cost['ours']:.0f} | {cost['ref']:.0f} "
              f"| {cost['ours'] / cost['ref']:.2f}x | {sides['ours'][1]:.1f} | {sides['ref'][1]:.1f} |")
        for side, title in (("ours", "ours"), ("ref", "Apache's")):
            split = sides[side][0]
            top = sorted(((v, k) for k, v in split.items() if abs(v) >= 0.5), reverse=True)
            details.append(f"{name}, {title}:\n" + "".join(
                f"  {v:10.1f}  {fn}  [{os.path.basename(obj or '?')}]\n" for v, (obj, fn) in top))
    if verbose == "1":
        print("\nInstructions per operation by function (the benchmark program's own included):\n")
        print("```\n" + "".join(details) + "```")


if __name__ == "__main__":
    main(*sys.argv[1:])
