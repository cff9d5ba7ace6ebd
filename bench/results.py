"""Writes one section of bench/RESULTS.md, keeping the others.

    python3 bench/results.py <key> <heading> <produced> <table>

A section starts with the line `<!-- <key> -->`: `cpu-family: <vendor> <family>` for the
timings of bench/run.sh (one section per CPU family), `instruction-counts` for
bench/core/instructions.sh. A run replaces the section with its key (or appends it) and leaves
the others as they are.
"""
import os
import re
import sys

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md")
INTRO = """# Benchmark results

`bench/run.sh` keeps the latest table per CPU family it ran on (vendor and family number from
/proc/cpuinfo): a run replaces its own family's section and leaves the others. Ratios compare two
sides measured in the same run; absolute times vary with machine load.
`bench/core/instructions.sh` keeps the instructions per operation of the runtime's C ABI, which
do not depend on the CPU.
"""
MARK = re.compile(r"^<!-- (.+?) -->$", re.MULTILINE)


def main(key, heading, produced, table):
    sections = []  # (key, text)
    if os.path.exists(PATH):
        text = open(PATH, encoding="utf-8").read()
        marks = list(MARK.finditer(text))
        for mark, following in zip(marks, marks[1:] + [None]):
            end = following.start() if following else len(text)
            sections.append((mark.group(1), text[mark.start():end].rstrip("\n") + "\n"))
    ours = f"<!-- {key} -->\n## {heading}\n\n{produced}\n\n{table}\n"
    if any(k == key for k, _ in sections):
        sections = [(k, ours if k == key else t) for k, t in sections]
    else:
        sections.append((key, ours))
    with open(PATH, "w", encoding="utf-8") as out:
        out.write(INTRO + "".join("\n" + t for _, t in sections))


if __name__ == "__main__":
    main(*sys.argv[1:])
