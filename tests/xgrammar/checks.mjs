// The xgrammar package from Node beyond the example (tests/xgrammar/run.sh): the values it
// returns are of their declared types, those the overlay narrows too (`Grammar` where the
// library's metadata says `ffi.Object`), checked with tests/node/type_truth.mjs while the
// example runs; and errors about arguments in the caller's words, counting the defaulted
// positional parameters and the options object as the wrappers take them.
// Usage: node checks.mjs <package dir> <example.mjs>
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { declaredTypes, instrument, Observations } from '../node/type_truth.mjs';

const require = createRequire(import.meta.url);
const [packageDir, example] = process.argv.slice(2).map((p) => path.resolve(p));
const xgrammar = require(packageDir);

const declared = declaredTypes(packageDir);
const seen = new Observations();
seen.declare('xgrammar', declared);
instrument(xgrammar, declared, seen.observer('xgrammar'));
// The example's own output is compared with Python's elsewhere.
const log = console.log;
console.log = () => {};
try {
  await import(pathToFileURL(example).href);
} finally {
  console.log = log;
}
const items = Object.entries(seen.items.xgrammar);
const observed = items.filter(([, e]) => e.checked > 0);
const problems = items.flatMap(([key, e]) => e.problems.map((p) => `${key} is declared ${e.declared}, but ${p}`));
assert.deepEqual(problems, []);
// Narrowed by the overlay: the library declares these `ffi.Object`.
for (const key of ['static Grammar.fromJsonSchema', 'static Grammar.fromEbnf', 'method GrammarCompiler#compileGrammarEbnf']) {
  assert.ok(seen.items.xgrammar[key]?.checked > 0, `${key} was not observed`);
  assert.notEqual(seen.items.xgrammar[key].declared, 'Object');
}
console.log(`ok: type truth: xgrammar: ${observed.length} of ${items.length} typed results observed, none mismatched`);

const { Grammar, TokenizerInfo, GrammarCompiler, GrammarMatcher } = xgrammar;
/** Checks that `f` throws an `ffi.TypeError` whose message is `message`. */
function throwsExactly(f, message) {
  assert.throws(f, (e) => {
    assert.equal(e.name, 'TypeError');
    assert.equal(e.message, message);
    return true;
  });
}
throwsExactly(() => Grammar.fromJsonSchema('{}', { anyWhitspace: false }),
  'Grammar.fromJsonSchema: unknown option(s) anyWhitspace (known: anyWhitespace, indent, separators, ' +
    'strictMode, maxWhitespaceCnt, printConvertedEbnf, anyOrder)');
throwsExactly(() => Grammar.fromJsonSchema('{}', { anyWhitespace: 'no' }),
  'Grammar.fromJsonSchema(options.anyWhitespace): expected a boolean, got a string');
throwsExactly(() => Grammar.fromJsonSchema(),
  'Grammar.fromJsonSchema(schema, options): missing argument schema (a string); expected 1 to 2 arguments, got 0');
throwsExactly(() => Grammar.fromJsonSchema('{}', {}, 3),
  'Grammar.fromJsonSchema(schema, options): expected 1 to 2 arguments, got 3 (the first extra one is a number (3))');
throwsExactly(() => Grammar.fromJsonSchema(5),
  'Grammar.fromJsonSchema(schema): expected a string, got a number (5)');
const info = new TokenizerInfo(['<eos>', 'a'], 0, { stopTokenIds: [0] });
throwsExactly(() => new TokenizerInfo(['a'], 'raw'),
  'new TokenizerInfo(vocabType): expected an integer (number or bigint), got a string');
throwsExactly(() => new GrammarCompiler(info, { maxThreads: 1 }, 2),
  'new GrammarCompiler(tokenizerInfo, options): expected 1 to 2 arguments, got 3 (the first extra one is a number (2))');
const compiled = new GrammarCompiler(info, { maxThreads: 1 }).compileGrammarEbnf(Grammar.fromEbnf('root ::= "a"'));
const matcher = new GrammarMatcher(compiled);
// fillNextTokenBitmask(bitmask, index = 0, { debugPrint }): two positional, then the options.
throwsExactly(() => matcher.fillNextTokenBitmask(new Int32Array(1), 0, {}, 1),
  'GrammarMatcher.fillNextTokenBitmask(bitmask, index, options): expected 1 to 3 arguments, got 4 ' +
    '(the first extra one is a number (1))');
throwsExactly(() => matcher.fillNextTokenBitmask(new Int32Array(1), 'first'),
  'GrammarMatcher.fillNextTokenBitmask(index): expected an integer (number or bigint), got a string');
console.log('ok: Node errors name the parameters and options, and count the options object');
