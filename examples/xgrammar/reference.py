"""The allowed-token sets of the xgrammar examples, computed from Python on the same library.

xgrammar's own Python layer imports torch; this script needs only Apache's `tvm_ffi` and numpy:
it loads libxgrammar_bindings.so, registers xgrammar's types with tvm_ffi (which then offers
their methods) and runs the scenario of example.jl, example.mjs and example.cpp, printing the
same transcript. Usage: python reference.py path/to/libxgrammar_bindings.so
"""

import ctypes
import sys

import numpy as np
import tvm_ffi

ctypes.CDLL(sys.argv[1], ctypes.RTLD_GLOBAL)
KEY = "xgrammar.tvm_ffi_binding."
TokenizerInfo, Grammar, GrammarCompiler, GrammarMatcher = (
    tvm_ffi.register_object(KEY + name)(type(name, (tvm_ffi.Object,), {}))
    for name in ("TokenizerInfo", "Grammar", "GrammarCompiler", "GrammarMatcher")
)

VOCAB = [
    "<eos>", "{", "}", '"', "a", "b", ":", ",", " ", "0",
    "1", "2", "3", "12", '"a"', '"b"', "true", "false", "null", "[",
    "]", '{"', '":', "tr", "ue", "-", ".", "e", "x", "\n",
    "ab", "ba", "aa", "bb", "a1", "b2", '"c"', "}}", "]]", "::",
]
SCHEMA = '{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["a", "b"]}'
EBNF = 'root ::= ("a" | "b")+ "1"'


def allowed(mask):
    """The token ids whose bit is set in the int32 bitmask."""
    return [i for i in range(len(VOCAB)) if (int(mask[i // 32]) >> (i % 32)) & 1]


def step(name, matcher, mask, tensor):
    matcher.fill_next_token_bitmask(tensor, 0, False)
    print(name, "allowed", *allowed(mask))


def accept(name, matcher, token):
    print(name, "accept", token, str(matcher.accept_token(token, False)).lower())


# TokenizerInfo(encoded_vocab, vocab_type, vocab_size, stop_token_ids, add_prefix_space)
info = TokenizerInfo(VOCAB, 0, None, [0], False)
# xgrammar's Python reads these as properties (the registered methods, called here).
print("info vocab_size", info.vocab_size(), "vocab_type", info.vocab_type(),
      "stop_token_ids", *info.stop_token_ids())
# GrammarCompiler(tokenizer_info, max_threads, cache_enabled, cache_limit_bytes)
compiler = GrammarCompiler(info, 1, True, -1)
mask = np.zeros((len(VOCAB) + 31) // 32, dtype=np.int32)
tensor = tvm_ffi.from_dlpack(mask)

# A JSON object {"a": <integer>, "b": <boolean>}, compact.
# from_json_schema(schema, any_whitespace, indent, separators, strict_mode, max_whitespace_cnt,
#                  print_converted_ebnf, any_order)
grammar = Grammar.from_json_schema(SCHEMA, False, None, (",", ":"), True, None, False, False)
matcher = GrammarMatcher(compiler.compile_grammar_ebnf(grammar), None, False, -1, None)
for i, token in enumerate([1, 14, 6, 13, 7, 15, 6, 16, 2, 0]):
    step("json", matcher, mask, tensor)
    if i == 1:
        accept("json", matcher, 2)  # `}` right after `{`: rejected
    if i == 4:
        matcher.rollback(2)  # back to `{"a"`
        print("json rollback 2")
        step("json", matcher, mask, tensor)
        accept("json", matcher, 6)
        accept("json", matcher, 13)
        step("json", matcher, mask, tensor)
    accept("json", matcher, token)
print("json terminated", str(matcher.is_terminated()).lower())
matcher.reset()
print("json reset")
step("json", matcher, mask, tensor)

# An EBNF grammar: a's and b's, then 1.
matcher = GrammarMatcher(
    compiler.compile_grammar_ebnf(Grammar.from_ebnf(EBNF, "root")), None, False, -1, None
)
for token in [4, 5, 30, 10, 0]:
    step("ebnf", matcher, mask, tensor)
    accept("ebnf", matcher, token)
print("ebnf terminated", str(matcher.is_terminated()).lower())
