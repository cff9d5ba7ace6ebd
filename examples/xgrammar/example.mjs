// @ts-check
// xgrammar from Node.js: the package `ffihub generate` makes for libxgrammar_bindings.so with
// examples/xgrammar/bindings.yaml. A tokenizer over a small vocabulary, a grammar from a JSON
// schema and one from EBNF, compiled; a matcher fills an Int32Array bitmask (in place: the
// array is the tensor) with the tokens allowed next, token by token: accept, reject, rollback,
// reset. Prints what reference.py prints from Python.
import { TokenizerInfo, Grammar, GrammarCompiler, GrammarMatcher } from 'xgrammar';

const VOCAB = [
  '<eos>', '{', '}', '"', 'a', 'b', ':', ',', ' ', '0',
  '1', '2', '3', '12', '"a"', '"b"', 'true', 'false', 'null', '[',
  ']', '{"', '":', 'tr', 'ue', '-', '.', 'e', 'x', '\n',
  'ab', 'ba', 'aa', 'bb', 'a1', 'b2', '"c"', '}}', ']]', '::',
];
const SCHEMA =
  '{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["a", "b"]}';
const EBNF = 'root ::= ("a" | "b")+ "1"';

/** The token ids whose bit is set in the bitmask. */
const allowed = (/** @type {Int32Array} */ mask) =>
  VOCAB.map((_, i) => i).filter((i) => ((mask[i >> 5] >>> (i & 31)) & 1) === 1);

/** @param {string} name @param {GrammarMatcher} matcher @param {Int32Array} mask */
function step(name, matcher, mask) {
  matcher.fillNextTokenBitmask(mask);
  console.log(`${name} allowed ${allowed(mask).join(' ')}`);
}

/** @param {string} name @param {GrammarMatcher} matcher @param {number} token */
function accept(name, matcher, token) {
  console.log(`${name} accept ${token} ${matcher.acceptToken(token)}`);
}

const info = new TokenizerInfo(VOCAB, 0, { stopTokenIds: [0] });
console.log(`info vocab_size ${info.vocabSize} vocab_type ${info.vocabType} stop_token_ids ${[...info.stopTokenIds].join(' ')}`);
const compiler = new GrammarCompiler(info, { maxThreads: 1 });
const mask = new Int32Array(Math.ceil(VOCAB.length / 32));

// A JSON object {"a": <integer>, "b": <boolean>}, compact.
const grammar = Grammar.fromJsonSchema(SCHEMA, { anyWhitespace: false, separators: [',', ':'] });
let matcher = new GrammarMatcher(compiler.compileGrammarEbnf(grammar));
[1, 14, 6, 13, 7, 15, 6, 16, 2, 0].forEach((token, i) => {
  step('json', matcher, mask);
  if (i === 1) {
    accept('json', matcher, 2); // `}` right after `{`: rejected
  } else if (i === 4) {
    matcher.rollback(2); // back to `{"a"`
    console.log('json rollback 2');
    step('json', matcher, mask);
    accept('json', matcher, 6);
    accept('json', matcher, 13);
    step('json', matcher, mask);
  }
  accept('json', matcher, token);
});
console.log(`json terminated ${matcher.isTerminated()}`);
matcher.reset();
console.log('json reset');
step('json', matcher, mask);

// An EBNF grammar: a's and b's, then 1.
matcher = new GrammarMatcher(compiler.compileGrammarEbnf(Grammar.fromEbnf(EBNF, { rootRuleName: 'root' })));
for (const token of [4, 5, 30, 10, 0]) {
  step('ebnf', matcher, mask);
  accept('ebnf', matcher, token);
}
console.log(`ebnf terminated ${matcher.isTerminated()}`);
