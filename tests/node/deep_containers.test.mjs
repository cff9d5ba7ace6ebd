// Cyclic and very deeply nested JavaScript containers: converting them must throw a RangeError
// (never overflow the native stack), release what was converted so far, and leave the process
// working.
import test from 'node:test';
import assert from 'node:assert/strict';
import { demo, testing, withoutLeaks } from './helpers.mjs';

/** An array nested `depth` levels deep around `inner`. */
function nested(depth, inner = 1) {
  let a = [inner];
  for (let i = 1; i < depth; i++) a = [a];
  return a;
}

/** The same as plain objects and as Maps. */
function nestedObject(depth) {
  let o = { leaf: 1 };
  for (let i = 1; i < depth; i++) o = { o };
  return o;
}
function nestedMap(depth) {
  let m = new Map([['leaf', 1]]);
  for (let i = 1; i < depth; i++) m = new Map([['m', m]]);
  return m;
}

const TOO_DEEP = /nested too deeply/;
const CYCLIC = /cyclic/;

test('a cyclic array is refused with a RangeError wherever it is passed', async () => {
  await withoutLeaks(assert, () => {
    const a = [1, 'text', { k: 2 }];
    a.push(a);
    assert.throws(() => demo.echoAny(a), { name: 'RangeError', message: CYCLIC });
    assert.throws(() => demo.sumArray(a), { name: 'RangeError', message: CYCLIC });
    assert.throws(() => demo.argTypes([a]), { name: 'RangeError', message: CYCLIC });
    // through a plain object, a Map and a typed container
    assert.throws(() => demo.echoAny({ a }), { name: 'RangeError', message: CYCLIC });
    assert.throws(() => demo.echoAny(new Map([['a', a]])), { name: 'RangeError', message: CYCLIC });
    const ints = [1, 2];
    ints.push(ints);
    assert.throws(() => testing.schemaIdArrInt(ints), { name: 'RangeError', message: CYCLIC });
    // a cycle through two arrays, a Map that holds itself and a cyclic plain object
    const b = [];
    const c = [b];
    b.push(c);
    assert.throws(() => demo.echoAny(b), { name: 'RangeError', message: CYCLIC });
    const m = new Map();
    m.set('self', m);
    assert.throws(() => demo.echoAny(m), { name: 'RangeError', message: CYCLIC });
    const o = { x: 1 };
    o.self = o;
    assert.throws(() => demo.echoAny(o), { name: 'RangeError', message: CYCLIC });
  });
  assert.equal(demo.sumArray([1, 2, 3]), 6, 'still working');
});

test('an array nested 100,000 deep is refused with a RangeError', async () => {
  await withoutLeaks(assert, () => {
    const deep = nested(100_000);
    assert.throws(() => demo.echoAny(deep), { name: 'RangeError', message: TOO_DEEP });
    assert.throws(() => demo.sumArray(deep), { name: 'RangeError', message: TOO_DEEP });
    assert.throws(() => testing.schemaIdArrInt([1, deep]), { name: 'RangeError', message: TOO_DEEP });
    assert.throws(() => demo.echoAny(nestedObject(100_000)), { name: 'RangeError', message: TOO_DEEP });
    assert.throws(() => demo.echoAny(nestedMap(100_000)), { name: 'RangeError', message: TOO_DEEP });
    // long homogeneous number arrays inside stay on their fast path and still convert
    assert.throws(() => demo.echoAny(nested(100_000, [1, 2, 3, 4, 5, 6, 7, 8, 9])), {
      name: 'RangeError',
      message: TOO_DEEP,
    });
  });
  assert.deepEqual(demo.echoAny([[1, 2], [3]]).toArray().map((x) => x.toArray()), [[1, 2], [3]]);
});

test('nesting up to the limit converts', async () => {
  await withoutLeaks(assert, () => {
    let back = demo.echoAny(nested(500, 7));
    let levels = 0;
    while (typeof back !== 'number') {
      back = back[0];
      levels++;
    }
    assert.equal(levels, 500);
    assert.equal(back, 7);
    // the same value twice (a DAG, not a cycle) is fine
    const shared = [1, 2];
    const twice = demo.echoAny([shared, shared, { shared }]);
    assert.deepEqual(twice[0].toArray(), [1, 2]);
    assert.deepEqual(twice[1].toArray(), [1, 2]);
  });
});
