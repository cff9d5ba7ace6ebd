// The parameter names the libraries gave, as JavaScript shows them (each generated function's
// own parameter list), and calls (tests/signatures/run.sh).
'use strict';
const assert = require('node:assert');
const [signames, testing, demo] = process.argv.slice(2).map((p) => require(p));

/** The parameter names of a function or method, from its source. */
function params(f) {
  const text = Function.prototype.toString.call(f);
  const list = text.slice(text.indexOf('(') + 1, text.indexOf(')'));
  return list.split(',').map((p) => p.trim()).filter(Boolean);
}

assert.deepStrictEqual(params(signames.affine), ['value', 'scale', 'shift']);
assert.deepStrictEqual(params(signames.Vec.prototype.dot), ['otherX', 'otherY']);
assert.deepStrictEqual(params(signames.Vec.scaled), ['vec', 'factor']);
assert.deepStrictEqual(params(signames.clamp), ['value', 'low', 'high']);
assert.deepStrictEqual(params(signames.power), ['base', 'exponent']);
assert.deepStrictEqual(params(signames.lerp), ['start', 'end', 't']);
assert.deepStrictEqual(params(testing.testingDllTestAddWithDocstring), ['a', 'b']);
assert.deepStrictEqual(params(demo.applyTwice), ['f', 'x']);

assert.strictEqual(signames.affine(2, 3, 1), 7);
const v = new signames.Vec(3, 4);
assert.strictEqual(v.dot(1, 2), 11);
assert.strictEqual(signames.Vec.scaled(v, 2).x, 6);
assert.strictEqual(signames.clamp(15, 0, 10), 10);
assert.strictEqual(signames.power(2, 10), 1024);
assert.strictEqual(signames.lerp(0, 10, 0.5), 5);
assert.strictEqual(testing.testingDllTestAddWithDocstring(2, 3), 5);
console.log('ok: Node parameter names and calls');
