# xgrammar from Julia: the package `ffihub generate` makes for libxgrammar_bindings.so with
# examples/xgrammar/bindings.yaml. A tokenizer over a small vocabulary, a grammar from a JSON
# schema and one from EBNF, compiled; a matcher fills an Int32 bitmask (in place: the vector is
# the tensor) with the tokens allowed next, token by token: accept, reject, rollback, reset.
# Prints what reference.py prints from Python.
using Xgrammar

const VOCAB = [
    "<eos>", "{", "}", "\"", "a", "b", ":", ",", " ", "0",
    "1", "2", "3", "12", "\"a\"", "\"b\"", "true", "false", "null", "[",
    "]", "{\"", "\":", "tr", "ue", "-", ".", "e", "x", "\n",
    "ab", "ba", "aa", "bb", "a1", "b2", "\"c\"", "}}", "]]", "::",
]
const SCHEMA = """{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["a", "b"]}"""
const EBNF = """root ::= ("a" | "b")+ "1\""""

"The token ids whose bit is set in the bitmask."
allowed(mask) = [i for i in 0:length(VOCAB)-1 if (mask[i ÷ 32 + 1] >> (i % 32)) & 1 == 1]

function step(name, matcher, mask)
    fill_next_token_bitmask(matcher, mask)
    println(name, " allowed ", join(allowed(mask), " "))
end

accept(name, matcher, token) = println(name, " accept ", token, " ", accept_token(matcher, token))

info = TokenizerInfo(VOCAB; stop_token_ids = [0])
println("info vocab_size ", info.vocab_size, " vocab_type ", info.vocab_type,
        " stop_token_ids ", join(info.stop_token_ids, " "))
compiler = GrammarCompiler(info; max_threads = 1)
mask = zeros(Int32, cld(length(VOCAB), 32))

# A JSON object {"a": <integer>, "b": <boolean>}, compact.
grammar = from_json_schema(Grammar, SCHEMA; any_whitespace = false, separators = (",", ":"))
matcher = GrammarMatcher(compile_grammar_ebnf(compiler, grammar))
for (i, token) in enumerate([1, 14, 6, 13, 7, 15, 6, 16, 2, 0])
    step("json", matcher, mask)
    if i == 2
        accept("json", matcher, 2)  # `}` right after `{`: rejected
    elseif i == 5
        rollback(matcher, 2)  # back to `{"a"`
        println("json rollback 2")
        step("json", matcher, mask)
        accept("json", matcher, 6)
        accept("json", matcher, 13)
        step("json", matcher, mask)
    end
    accept("json", matcher, token)
end
println("json terminated ", is_terminated(matcher))
reset(matcher)
println("json reset")
step("json", matcher, mask)

# An EBNF grammar: a's and b's, then 1.
matcher = GrammarMatcher(compile_grammar_ebnf(compiler, from_ebnf(Grammar, EBNF; root_rule_name = "root")))
for token in [4, 5, 30, 10, 0]
    step("ebnf", matcher, mask)
    accept("ebnf", matcher, token)
end
println("ebnf terminated ", is_terminated(matcher))
