# xgrammar's matcher step from Julia through the generated package `Xgrammar`
# (bench/xgrammar/rows.sh): the per-call time of is_terminated, accept_token(4) + rollback(1) and
# fill_next_token_bitmask(matcher, mask) with a Vector{Int32} made once. The scenario of bench.py
# (the EBNF grammar of examples/xgrammar after one `a`). Prints `<operation> <ns>` lines.
using Xgrammar
using Printf

const N = parse(Int, get(ENV, "BENCH_CALLS", "200000"))
const ROUNDS = parse(Int, get(ENV, "BENCH_ROUNDS", "7"))
const VOCAB = [
    "<eos>", "{", "}", "\"", "a", "b", ":", ",", " ", "0",
    "1", "2", "3", "12", "\"a\"", "\"b\"", "true", "false", "null", "[",
    "]", "{\"", "\":", "tr", "ue", "-", ".", "e", "x", "\n",
    "ab", "ba", "aa", "bb", "a1", "b2", "\"c\"", "}}", "]]", "::",
]
const EBNF = """root ::= ("a" | "b")+ "1\""""

info = TokenizerInfo(VOCAB; stop_token_ids = [0])
compiler = GrammarCompiler(info; max_threads = 1)
const MATCHER = GrammarMatcher(compile_grammar_ebnf(compiler, from_ebnf(Grammar, EBNF; root_rule_name = "root")))
@assert accept_token(MATCHER, 4)
const MASK = zeros(Int32, cld(length(VOCAB), 32))

const CASES = [
    "is_terminated" => () -> (for _ in 1:N; is_terminated(MATCHER); end),
    "accept_rollback" => () -> (for _ in 1:N; accept_token(MATCHER, 4); rollback(MATCHER, 1); end),
    "fill" => () -> (for _ in 1:N; fill_next_token_bitmask(MATCHER, MASK); end),
]
best = Dict(name => Inf for (name, _) in CASES)
for (_, run) in CASES
    run()  # compiled before the rounds
end
for _ in 1:ROUNDS, (name, run) in CASES
    start = time_ns()
    run()
    best[name] = min(best[name], (time_ns() - start) / N)
end
@assert !is_terminated(MATCHER) && MASK[1] != 0
for (name, _) in CASES
    @printf("%s %.1f\n", name, best[name])
end
