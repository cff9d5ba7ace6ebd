// GC stress (run with node --expose-gc): 1,000,000 calls that create and drop objects,
// strings, containers, tensors and callbacks, with gc() every 10,000 calls; nothing may crash
// and the live-object counts must return to their starting values.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing, settle, counts } from './helpers.mjs';

const CALLS = 1_000_000;
const GC_EVERY = 10_000;

test('one million calls with garbage collection', { timeout: 600_000 }, async () => {
  assert.equal(typeof globalThis.gc, 'function', 'run with --expose-gc');
  await settle();
  const before = counts();
  const kinds = [
    (i) => new demo.Point(i, 1).norm(), // objects
    (i) => demo.concat('a string of more than seven bytes ', String(i)), // heap strings
    (i) => demo.reverseArray([i, 'x', [i]]).length, // containers in and out
    (i) => demo.wordLengths(['one', 'three']).get('one') + i, // maps out
    (i) => demo.tensorSum(new Float32Array(4).fill(i)), // tensors in
    () => demo.arange(4).data[3], // tensors out, external buffers
    (i) => demo.applyTwice((x) => x + 1, i), // callbacks in
    (i) => demo.makeMultiplier(2)(i), // closures out
    (i) => testing.schemaIdMapStrObj({ p: new testing.TestIntPair(i, 1) }).size, // C++ objects
    (i) => demo.echoBytes(Buffer.from([i & 0xff, 1, 2, 3, 4, 5, 6, 7, 8])).length, // bytes
  ];
  let checksum = 0;
  for (let i = 0; i < CALLS; i++) {
    checksum += Number(kinds[i % kinds.length](i)) || 0;
    if ((i + 1) % GC_EVERY === 0) await settle(1);
  }
  assert.ok(checksum > 0);
  await settle(6);
  assert.deepEqual(counts(), before, 'live objects before and after');
  const p = new demo.Point(3, 4);
  assert.equal(p.norm(), 5, 'still working');
  assert.equal(typeof ffi.refCount(p), 'number');
});
