// Arrays, lists, maps, dicts and shapes: iterable, indexable wrappers out; JS arrays, Maps and
// plain objects in.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing } from './helpers.mjs';

test('JavaScript arrays convert to ffi.Array', () => {
  assert.equal(demo.sumArray([1, 2.5, 3]), 6.5);
  assert.ok(demo.sumArray([]) === 0);
  assert.deepEqual(testing.schemaIdArrInt([1, 2, 3]).toArray(), [1, 2, 3]);
  assert.deepEqual(testing.schemaIdArrStr(['a', 'bcdefghij']).toArray(), ['a', 'bcdefghij']);
  assert.deepEqual(demo.argTypes([1]).toArray(), ['ffi.Array']);
});

test('ffi.Array is iterable and indexable', () => {
  const a = demo.makeRange(5);
  assert.ok(a instanceof ffi.Array);
  assert.ok(a instanceof ffi.Sequence);
  assert.equal(a.length, 5);
  assert.equal(a[0], 0);
  assert.equal(a[4], 4);
  assert.equal(a[5], undefined);
  assert.equal(a.at(-1), 4);
  assert.equal(a.at(10), undefined);
  assert.ok(0 in a || true);
  assert.deepEqual([...a], [0, 1, 2, 3, 4]);
  assert.deepEqual(Array.from(a), [0, 1, 2, 3, 4]);
  assert.deepEqual(a.map((x) => x * 2), [0, 2, 4, 6, 8]);
  assert.deepEqual(JSON.parse(JSON.stringify({ a })), { a: [0, 1, 2, 3, 4] });
  assert.throws(() => {
    a[0] = 9;
  }, TypeError);
  assert.equal(String(a), '(0, 1, 2, 3, 4)');
});

test('ffi.Array passes back without conversion and holds any values', () => {
  const a = demo.makeRange(3);
  const r = demo.reverseArray(a);
  assert.deepEqual(r.toArray(), [2, 1, 0]);
  const mixed = demo.reverseArray([1, 'two', null, [3], new demo.Point(1, 2)]);
  const [p, inner, none, two, one] = mixed;
  assert.ok(p instanceof demo.Point);
  assert.deepEqual(inner.toArray(), [3]);
  assert.equal(none, null);
  assert.equal(two, 'two');
  assert.equal(one, 1);
  assert.equal(demo.arrayGet(['a', 'b'], -1), 'b');
  assert.throws(() => demo.arrayGet([1], 3), ffi.IndexError);
});

test('nested containers', () => {
  const nested = demo.makeNested(3);
  assert.equal(nested.length, 3);
  const last = nested[2];
  assert.ok(last instanceof ffi.Map);
  assert.deepEqual(last.get('range').toArray(), [0, 1]);
  assert.deepEqual(demo.nestedSummary(nested).toObject(), { maps: 3, keys: 6, values: 6, total: 4 });
  // the same data built in JavaScript
  const js = [
    { index: [0], range: [] },
    { index: [1], range: [0] },
    { index: [2], range: [0, 1] },
  ];
  assert.deepEqual(demo.nestedSummary(js).toObject(), { maps: 3, keys: 6, values: 6, total: 4 });
});

test('JavaScript Maps and plain objects convert to ffi.Map', () => {
  assert.equal(demo.mapGet(new Map([['a', 1], ['b', 2]]), 'b'), 2);
  assert.equal(demo.mapGet({ x: 10 }, 'x'), 10);
  assert.throws(() => demo.mapGet({ x: 10 }, 'y'), ffi.KeyError);
  assert.deepEqual(demo.mapKeys({ b: 1, a: 'x' }).toArray(), ['a', 'b']);
  assert.deepEqual(demo.argTypes(new Map(), {}).toArray(), ['ffi.Map', 'ffi.Map']);
  const m = testing.schemaIdMap(new Map([[1, 'one'], ['k', [2]]]));
  assert.equal(m.get(1), 'one');
  assert.deepEqual(m.get('k').toArray(), [2]);
});

test('ffi.Map is Map-like', () => {
  const m = demo.wordLengths(['apple', 'fig', 'banana']);
  assert.ok(m instanceof ffi.Map);
  assert.equal(m.size, 3);
  assert.equal(m.get('fig'), 3);
  assert.equal(m.get('kiwi'), undefined);
  assert.ok(m.has('apple'));
  assert.ok(!m.has('kiwi'));
  assert.deepEqual([...m.keys()].sort(), ['apple', 'banana', 'fig']);
  assert.deepEqual([...m.values()].sort(), [3, 5, 6]);
  assert.deepEqual(new Map(m), new Map([['apple', 5], ['fig', 3], ['banana', 6]]));
  assert.deepEqual(m.toMap(), new Map(m.entries()));
  const seen = [];
  m.forEach((v, k) => seen.push(`${k}=${v}`));
  assert.equal(seen.length, 3);
  assert.deepEqual(JSON.parse(JSON.stringify(m)), { apple: 5, fig: 3, banana: 6 });
  assert.equal(demo.wordLengths([]).size, 0);
  assert.deepEqual([...demo.wordLengths([])], []);
});

test('ffi.Map passes back to native code', () => {
  const m = demo.wordLengths(['ab']);
  assert.equal(demo.mapGet(m, 'ab'), 2);
  assert.deepEqual(testing.schemaIdMapStrInt(m).toObject(), { ab: 2 });
});

test('lists are mutable', () => {
  const l = ffi.list([1, 2]);
  assert.ok(l instanceof ffi.List);
  assert.equal(l.push(3, 4), 4);
  l.set(0, 10);
  l[1] = 20;
  l.insert(0, 0);
  assert.deepEqual(l.toArray(), [0, 10, 20, 3, 4]);
  assert.equal(l.pop(), 4);
  l.removeAt(0);
  assert.deepEqual([...l], [10, 20, 3]);
  l.reverse();
  assert.deepEqual(l.toArray(), [3, 20, 10]);
  l.clear();
  assert.equal(l.length, 0);
  // typed List parameters accept arrays (the generated wrapper makes a list)
  assert.deepEqual(testing.schemaIdListInt([5, 6]).toArray(), [5, 6]);
  assert.ok(testing.schemaIdListStr(['x']) instanceof ffi.List);
  const withTensor = testing.makeListWithTensor(new Float32Array(2), 3);
  assert.ok(withTensor instanceof ffi.List);
  assert.ok(withTensor[0] instanceof ffi.Tensor);
  assert.equal(withTensor[1], 3);
});

test('dicts are mutable maps', () => {
  const d = ffi.dict({ a: 1 });
  assert.ok(d instanceof ffi.Dict);
  d.set('b', 2).set('a', 3);
  assert.deepEqual(d.toObject(), { a: 3, b: 2 });
  assert.ok(d.delete('a'));
  assert.ok(!d.delete('zz'));
  assert.deepEqual([...d], [['b', 2]]);
  d.clear();
  assert.equal(d.size, 0);
  // typed Dict parameters accept maps and objects
  const back = testing.schemaIdDictStrInt({ k: 7 });
  assert.ok(back instanceof ffi.Dict);
  assert.equal(back.get('k'), 7);
  assert.deepEqual(testing.schemaIdDictStrStr(new Map([['x', 'y']])).toObject(), { x: 'y' });
});

test('shapes', () => {
  const s = demo.makeShape([2, 3, 4]);
  assert.ok(s instanceof ffi.Shape);
  assert.equal(s.length, 3);
  assert.equal(s[1], 3);
  assert.deepEqual([...s], [2, 3, 4]);
  assert.deepEqual(s.toArray(), [2, 3, 4]);
  assert.equal(demo.shapeNumel(s), 24);
  // typed Shape parameters accept arrays
  assert.equal(demo.shapeNumel([5, 5]), 25);
  assert.deepEqual(demo.echoShape([7]).toArray(), [7]);
  assert.deepEqual(ffi.shape([1, 2]).toArray(), [1, 2]);
  assert.deepEqual(demo.echoShape([]).toArray(), []);
});

test('schema round-trips of the testing library', () => {
  const out = testing.schemaArrMapOpt([1, null, 3], { a: [1, 2] }, 'tag');
  assert.ok(out instanceof ffi.Map);
  assert.deepEqual(testing.schemaIdArr([1, 'a']).toArray(), [1, 'a']);
  const objs = testing.schemaIdArrObj([new testing.TestIntPair(1, 2)]);
  assert.ok(objs[0] instanceof testing.TestIntPair);
  const mo = testing.schemaIdMapStrObj({ p: new testing.TestIntPair(3, 4) });
  assert.equal(mo.get('p').b, 4);
  assert.deepEqual(testing.schemaIdMapStrStr({ k: 'v' }).toObject(), { k: 'v' });
});

test('values that cannot convert are TypeErrors', () => {
  assert.throws(() => demo.echoAny(new Date()), ffi.TypeError);
  assert.throws(() => demo.echoAny(new (class Foo {})()), /cannot convert/);
  assert.throws(() => demo.sumArray([1, 'x']), ffi.TypeError);
});
