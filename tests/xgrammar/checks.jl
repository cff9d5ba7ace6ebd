# The xgrammar package from Julia beyond the example (tests/xgrammar/run.sh): results narrowed
# by the overlay are of their declared types, and calls no method takes are errors in the
# caller's words, also when keyword arguments are given: a positional argument of the wrong
# type, or one too many, is named with the keywords the callable takes.
using Xgrammar
using Test

grammar = from_json_schema(Grammar, "{}"; any_whitespace = false)
@test grammar isa Xgrammar.AbstractGrammar  # the library's metadata says ffi.Object
info = TokenizerInfo(["<eos>", "a"], 0; stop_token_ids = [0])
compiler = GrammarCompiler(info; max_threads = 1)
@test compile_grammar_ebnf(compiler, grammar) isa Xgrammar.AbstractCompiledGrammar

message(f) = try
    f()
    "no error"
catch e
    sprint(showerror, e)
end
# Julia's own error for a keyword no method takes names it.
@test occursin("any_whitspace", message(() -> from_json_schema(Grammar, "{}"; any_whitspace = false)))
@test startswith(message(() -> from_json_schema(Grammar, 5; any_whitespace = false)),
                 "ArgumentError: from_json_schema(Grammar, schema; any_whitespace, indent, separators, " *
                 "strict_mode, max_whitespace_cnt, print_converted_ebnf, any_order): expected " *
                 "schema::AbstractString, got a value of type Int64")
@test message(() -> GrammarCompiler(info, 2; max_threads = 1)) ==
      "ArgumentError: GrammarCompiler(tokenizer_info; max_threads, cache_enabled, cache_limit_bytes): " *
      "expected 1 argument, got 2 (the first extra one a value of type Int64)"
println("ok: Julia results as declared and errors in the caller's words, with keywords")
