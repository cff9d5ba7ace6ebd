// GC stress (run with node --expose-gc): 1,000,000 calls that create and drop objects,
// strings, containers, tensors and callbacks (and, every 100th call, objects of a type defined in
// JavaScript: checked field writes, methods called through TVM-FFI, deep copies), with gc()
// every 10,000 calls; nothing may crash
// and the live-object counts must return to their starting values.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing, settle, counts } from './helpers.mjs';

const CALLS = 1_000_000;
const GC_EVERY = 10_000;

const Item = ffi.defineClass('gc_stress_js.Item', {
  fields: {
    n: 'int',
    tags: { type: ffi.types.list('str'), default: [] },
    next: { type: ffi.types.optional('gc_stress_js.Item'), default: null },
  },
  methods: {
    twice: {
      returns: 'int',
      fn() {
        return 2 * this.n;
      },
    },
  },
});
const twiceNative = ffi.registerType('gc_stress_js.Item', Item).twice; // the method as C++ calls it
const deepCopy = ffi.requireGlobal('ffi.DeepCopy');

test('one million calls with garbage collection', { timeout: 600_000 }, async () => {
  assert.equal(typeof globalThis.gc, 'function', 'run with --expose-gc');
  // A TypedArray argument leaves one tensor as the environment's spare (the next such call
  // takes it: bindings/node/src/tensor.rs, `SpareTensor`): there from the start, so that the
  // counts compare like with like (a leak of tensors would still show). ffihub's runtime counts
  // the objects made after the first read of its count, so the count is read before the spare
  // is made: a spare made uncounted and replaced by a counted one would show as one more.
  counts();
  demo.tensorSum(new Float32Array(4));
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
  // Every 100th call also makes objects of the type defined in JavaScript.
  const defined = (i) => {
    const item = new Item({ n: i, next: new Item({ n: 1 }) });
    item.tags = [`a heap string, number ${i}`];
    return twiceNative(item) + deepCopy(item).next.n;
  };
  let checksum = 0;
  for (let i = 0; i < CALLS; i++) {
    checksum += Number(kinds[i % kinds.length](i)) || 0;
    if (i % 100 === 0) assert.equal(defined(i), 2 * i + 1);
    if ((i + 1) % GC_EVERY === 0) await settle(1);
  }
  assert.ok(checksum > 0);
  await settle(6);
  assert.deepEqual(counts(), before, 'live objects before and after');
  const p = new demo.Point(3, 4);
  assert.equal(p.norm(), 5, 'still working');
  assert.equal(typeof ffi.refCount(p), 'number');
});
