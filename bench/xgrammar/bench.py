"""xgrammar's matcher step from Python through Apache's `tvm_ffi` (the reference of
bench/xgrammar/rows.sh): the per-call time of is_terminated(), accept_token(4) + rollback(1) and
fill_next_token_bitmask(tensor) with the tensor made once over a numpy mask. The scenario is the
one bench.jl, bench.mjs and bench.cpp run (the EBNF grammar of examples/xgrammar after one `a`).
Usage: python bench.py path/to/libxgrammar_bindings.so; prints `<operation> <ns>` lines.
"""

import ctypes
import os
import sys
import time

import numpy as np
import tvm_ffi

ctypes.CDLL(sys.argv[1], ctypes.RTLD_GLOBAL)
KEY = "xgrammar.tvm_ffi_binding."
TokenizerInfo, Grammar, GrammarCompiler, GrammarMatcher = (
    tvm_ffi.register_object(KEY + name)(type(name, (tvm_ffi.Object,), {}))
    for name in ("TokenizerInfo", "Grammar", "GrammarCompiler", "GrammarMatcher")
)
N = int(os.environ.get("BENCH_CALLS", "200000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))

VOCAB = [
    "<eos>", "{", "}", '"', "a", "b", ":", ",", " ", "0",
    "1", "2", "3", "12", '"a"', '"b"', "true", "false", "null", "[",
    "]", '{"', '":', "tr", "ue", "-", ".", "e", "x", "\n",
    "ab", "ba", "aa", "bb", "a1", "b2", '"c"', "}}", "]]", "::",
]
EBNF = 'root ::= ("a" | "b")+ "1"'

info = TokenizerInfo(VOCAB, 0, None, [0], False)
compiler = GrammarCompiler(info, 1, True, -1)
grammar = Grammar.from_ebnf(EBNF, "root")
matcher = GrammarMatcher(compiler.compile_grammar_ebnf(grammar), None, False, -1, None)
assert matcher.accept_token(4, False)
mask = np.zeros((len(VOCAB) + 31) // 32, dtype=np.int32)
tensor = tvm_ffi.from_dlpack(mask)


def is_terminated():
    for _ in range(N):
        matcher.is_terminated()


def accept_rollback():
    for _ in range(N):
        matcher.accept_token(4, False)
        matcher.rollback(1)


def fill():
    for _ in range(N):
        matcher.fill_next_token_bitmask(tensor, 0, False)


CASES = {"is_terminated": is_terminated, "accept_rollback": accept_rollback, "fill": fill}
best = {name: float("inf") for name in CASES}
for _ in range(ROUNDS):
    for name, case in CASES.items():
        start = time.perf_counter_ns()
        case()
        best[name] = min(best[name], (time.perf_counter_ns() - start) / N)
assert not matcher.is_terminated() and int(mask[0]) != 0
for name, ns in best.items():
    print(name, f"{ns:.1f}")
