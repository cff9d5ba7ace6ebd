// xgrammar's matcher step from Node.js through the generated package `xgrammar`
// (bench/xgrammar/rows.sh): the per-call time of isTerminated(), acceptToken(4) + rollback(1) and
// fillNextTokenBitmask(mask) with an Int32Array made once. The scenario of bench.py (the EBNF
// grammar of examples/xgrammar after one `a`). Prints `<operation> <ns>` lines.
import assert from 'node:assert/strict';
import { TokenizerInfo, Grammar, GrammarCompiler, GrammarMatcher } from 'xgrammar';

const N = Number(process.env.BENCH_CALLS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const VOCAB = [
  '<eos>', '{', '}', '"', 'a', 'b', ':', ',', ' ', '0',
  '1', '2', '3', '12', '"a"', '"b"', 'true', 'false', 'null', '[',
  ']', '{"', '":', 'tr', 'ue', '-', '.', 'e', 'x', '\n',
  'ab', 'ba', 'aa', 'bb', 'a1', 'b2', '"c"', '}}', ']]', '::',
];
const EBNF = 'root ::= ("a" | "b")+ "1"';

const info = new TokenizerInfo(VOCAB, 0, { stopTokenIds: [0] });
const compiler = new GrammarCompiler(info, { maxThreads: 1 });
const grammar = Grammar.fromEbnf(EBNF, { rootRuleName: 'root' });
const matcher = new GrammarMatcher(compiler.compileGrammarEbnf(grammar));
assert.equal(matcher.acceptToken(4), true);
const mask = new Int32Array(Math.ceil(VOCAB.length / 32));

const cases = {
  is_terminated: () => {
    for (let i = 0; i < N; i++) matcher.isTerminated();
  },
  accept_rollback: () => {
    for (let i = 0; i < N; i++) {
      matcher.acceptToken(4);
      matcher.rollback(1);
    }
  },
  fill: () => {
    for (let i = 0; i < N; i++) matcher.fillNextTokenBitmask(mask);
  },
};
/** @type {Record<string, number>} */
const best = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    run();
    const ns = Number(process.hrtime.bigint() - start) / N;
    best[name] = Math.min(best[name] ?? Infinity, ns);
  }
}
assert.equal(matcher.isTerminated(), false);
assert.notEqual(mask[0], 0);
for (const [name, ns] of Object.entries(best)) console.log(`${name} ${ns.toFixed(1)}`);
