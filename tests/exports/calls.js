// Module exports through the generated Node packages (tests/exports/run.sh): named exports of
// libexports.so (typed, documented), libexports_plain.so (packed) and add_one_c.so.
'use strict';
const assert = require('node:assert');
const exp = require(process.argv[2]);
const plain = require(process.argv[3]);

assert.strictEqual(exp.addOne(41), 42);
assert.strictEqual(exp.greet('ffi', 2), 'hello ffi, hello ffi');
assert.strictEqual(exp.sum([1.5, 2.5, 3]), 7);
const x = new Float32Array([1, 2, 3]);
const y = new Float32Array([10, 20, 30]);
exp.axpy(2, x, y);
assert.deepStrictEqual([...y], [12, 24, 36]);
assert.throws(() => exp.axpy(1, x, new Float32Array(2)), /same length/);
// add_one_c: packed, zero-copy on typed arrays.
const out = new Float32Array(4);
exp.addOneC(new Float32Array([1, 2, 3, 4]), out);
assert.deepStrictEqual([...out], [2, 3, 4, 5]);
// Without metadata: packed functions, same results.
assert.strictEqual(Number(plain.addOne(41)), 42);
assert.strictEqual(plain.greet('x', 1), 'hello x');
console.log('ok: Node module exports (typed, packed, add_one_c)');
