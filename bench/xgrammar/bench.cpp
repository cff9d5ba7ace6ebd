// xgrammar's matcher step from C++ through the generated header xgrammar.hpp
// (bench/xgrammar/rows.sh): the per-call time of is_terminated(), accept_token(4) + rollback(1)
// and fill_next_token_bitmask(tensor) with the tensor made once over a std::vector<int32_t>. The
// scenario of bench.py (the EBNF grammar of examples/xgrammar after one `a`). Prints
// `<operation> <ns>` lines.
#include <xgrammar.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

const std::vector<std::string> kVocab = {
    "<eos>", "{",  "}",  "\"", "a",  "b",  ":",     ",",  " ",     "0",
    "1",     "2",  "3",  "12", "\"a\"", "\"b\"", "true", "false", "null", "[",
    "]",     "{\"", "\":", "tr", "ue", "-",  ".",     "e",  "x",     "\n",
    "ab",    "ba", "aa", "bb", "a1", "b2", "\"c\"", "}}", "]]",    "::",
};
const char* kEbnf = R"(root ::= ("a" | "b")+ "1")";

long env_or(const char* name, long fallback) {
  const char* value = std::getenv(name);
  return value ? std::atol(value) : fallback;
}

}  // namespace

int main() {
  const long n = env_or("BENCH_CALLS", 200000);
  const long rounds = env_or("BENCH_ROUNDS", 7);
  ffihub::load_library("libxgrammar_bindings.so");
  xgrammar::TokenizerInfo::InitOptions info_options;
  info_options.stop_token_ids = ffihub::Array<int64_t>{0};
  xgrammar::TokenizerInfo info(ffihub::Array<ffihub::Any>(kVocab.begin(), kVocab.end()),
                               /*vocab_type=*/0, info_options);
  xgrammar::GrammarCompiler::InitOptions compiler_options;
  compiler_options.max_threads = 1;
  xgrammar::GrammarCompiler compiler(info, compiler_options);
  xgrammar::Grammar::FromEbnfOptions ebnf_options;
  ebnf_options.root_rule_name = "root";
  xgrammar::GrammarMatcher matcher(
      compiler.compile_grammar_ebnf(xgrammar::Grammar::from_ebnf(kEbnf, ebnf_options)));
  if (!matcher.accept_token(4)) return 1;
  std::vector<int32_t> mask((kVocab.size() + 31) / 32);
  const auto tensor =
      ffihub::Tensor::from_buffer(mask.data(), {static_cast<int64_t>(mask.size())});

  struct Case {
    const char* name;
    void (*run)(const xgrammar::GrammarMatcher&, const ffihub::Tensor&, long);
    double best;
  };
  Case cases[] = {
      {"is_terminated",
       [](const xgrammar::GrammarMatcher& m, const ffihub::Tensor&, long calls) {
         for (long i = 0; i < calls; ++i) m.is_terminated();
       },
       std::numeric_limits<double>::infinity()},
      {"accept_rollback",
       [](const xgrammar::GrammarMatcher& m, const ffihub::Tensor&, long calls) {
         for (long i = 0; i < calls; ++i) {
           m.accept_token(4);
           m.rollback(1);
         }
       },
       std::numeric_limits<double>::infinity()},
      {"fill",
       [](const xgrammar::GrammarMatcher& m, const ffihub::Tensor& t, long calls) {
         for (long i = 0; i < calls; ++i) m.fill_next_token_bitmask(t);
       },
       std::numeric_limits<double>::infinity()},
  };
  for (long round = 0; round < rounds; ++round) {
    for (Case& c : cases) {
      const auto start = std::chrono::steady_clock::now();
      c.run(matcher, tensor, n);
      const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
      c.best = std::min(c.best, took.count() / static_cast<double>(n));
    }
  }
  if (matcher.is_terminated() || mask[0] == 0) return 1;
  for (const Case& c : cases) std::printf("%s %.1f\n", c.name, c.best);
  return 0;
}
