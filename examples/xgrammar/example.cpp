// xgrammar from C++: the header `ffihub generate` makes for libxgrammar_bindings.so with
// examples/xgrammar/bindings.yaml. A tokenizer over a small vocabulary, a grammar from a JSON
// schema and one from EBNF, compiled; a matcher fills an int32 bitmask (in place: the buffer is
// the tensor) with the tokens allowed next, token by token: accept, reject, rollback, reset.
// Prints what reference.py prints from Python.
#include <xgrammar.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

namespace {

const std::vector<std::string> kVocab = {
    "<eos>", "{",  "}",  "\"", "a",  "b",  ":",     ",",  " ",     "0",
    "1",     "2",  "3",  "12", "\"a\"", "\"b\"", "true", "false", "null", "[",
    "]",     "{\"", "\":", "tr", "ue", "-",  ".",     "e",  "x",     "\n",
    "ab",    "ba", "aa", "bb", "a1", "b2", "\"c\"", "}}", "]]",    "::",
};
const char* kSchema =
    R"({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["a", "b"]})";
const char* kEbnf = R"(root ::= ("a" | "b")+ "1")";

void step(const char* name, const xgrammar::GrammarMatcher& matcher, std::vector<int32_t>& mask) {
  matcher.fill_next_token_bitmask(
      ffihub::Tensor::from_buffer(mask.data(), {static_cast<int64_t>(mask.size())}));
  std::cout << name << " allowed";
  for (size_t i = 0; i < kVocab.size(); ++i) {
    if ((static_cast<uint32_t>(mask[i / 32]) >> (i % 32)) & 1u) std::cout << " " << i;
  }
  std::cout << "\n";
}

void accept(const char* name, const xgrammar::GrammarMatcher& matcher, int64_t token) {
  std::cout << name << " accept " << token << " " << std::boolalpha << matcher.accept_token(token)
            << "\n";
}

}  // namespace

int main() {
  ffihub::load_library("libxgrammar_bindings.so");
  xgrammar::TokenizerInfo::InitOptions info_options;
  info_options.stop_token_ids = ffihub::Array<int64_t>{0};
  xgrammar::TokenizerInfo info(ffihub::Array<ffihub::Any>(kVocab.begin(), kVocab.end()),
                               /*vocab_type=*/0, info_options);
  std::cout << "info vocab_size " << info.vocab_size() << " vocab_type " << info.vocab_type()
            << " stop_token_ids";
  for (int64_t id : info.stop_token_ids()) std::cout << " " << id;
  std::cout << "\n";
  xgrammar::GrammarCompiler::InitOptions compiler_options;
  compiler_options.max_threads = 1;
  xgrammar::GrammarCompiler compiler(info, compiler_options);
  std::vector<int32_t> mask((kVocab.size() + 31) / 32);

  // A JSON object {"a": <integer>, "b": <boolean>}, compact.
  xgrammar::Grammar::FromJsonSchemaOptions json_options;
  json_options.any_whitespace = false;
  json_options.separators = std::tuple<std::string, std::string>(",", ":");
  xgrammar::Grammar grammar = xgrammar::Grammar::from_json_schema(kSchema, json_options);
  xgrammar::GrammarMatcher matcher(compiler.compile_grammar_ebnf(grammar));
  const std::vector<int64_t> tokens = {1, 14, 6, 13, 7, 15, 6, 16, 2, 0};
  for (size_t i = 0; i < tokens.size(); ++i) {
    step("json", matcher, mask);
    if (i == 1) {
      accept("json", matcher, 2);  // `}` right after `{`: rejected
    } else if (i == 4) {
      matcher.rollback(2);  // back to `{"a"`
      std::cout << "json rollback 2\n";
      step("json", matcher, mask);
      accept("json", matcher, 6);
      accept("json", matcher, 13);
      step("json", matcher, mask);
    }
    accept("json", matcher, tokens[i]);
  }
  std::cout << "json terminated " << std::boolalpha << matcher.is_terminated() << "\n";
  matcher.reset();
  std::cout << "json reset\n";
  step("json", matcher, mask);

  // An EBNF grammar: a's and b's, then 1.
  xgrammar::Grammar::FromEbnfOptions ebnf_options;
  ebnf_options.root_rule_name = "root";
  xgrammar::GrammarMatcher ebnf_matcher(
      compiler.compile_grammar_ebnf(xgrammar::Grammar::from_ebnf(kEbnf, ebnf_options)));
  for (int64_t token : {4, 5, 30, 10, 0}) {
    step("ebnf", ebnf_matcher, mask);
    accept("ebnf", ebnf_matcher, token);
  }
  std::cout << "ebnf terminated " << std::boolalpha << ebnf_matcher.is_terminated() << "\n";
  return 0;
}
