// The generated package of Apache's libtvm_ffi_testing.so (a C++ library built against
// Apache's headers): its types, constructors (typed and generated __ffi_init__, keyword-only
// options), fields and methods.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, testing } from './helpers.mjs';

test('a typed __ffi_init__, read-only fields and a method', () => {
  const p = new testing.TestIntPair(1, 2);
  assert.deepEqual([p.a, p.b, p.sum()], [1, 2, 3]);
  assert.equal(testing.testIntPairSum(p), 3);
  assert.equal(String(p), 'testing.TestIntPair(a=1, b=2)');
  assert.equal(p.typeKey, 'testing.TestIntPair');
  assert.throws(() => ffi.setField(p, 'a', 5), /read-only/);
});

test('generated __ffi_init__ with defaults', () => {
  const o = new testing.TestObjectBase();
  assert.equal(o.vStr, 'hello');
  assert.equal(o.addI64(5), o.vI64 + 5);
  const p = new testing.TestObjectBase(3, 1.5, 'there');
  assert.deepEqual([p.vI64, p.vF64, p.vStr], [3, 1.5, 'there']);
  p.vI64 = 10;
  p.vStr = 'world';
  assert.deepEqual([p.vI64, p.vStr, p.addI64(1)], [10, 'world', 11]);
  const s = new testing.TestCxxInitSubset(7);
  assert.equal(s.requiredField, 7);
  assert.equal(s.note, 'default');
  assert.equal(String(new testing.TestCxxAutoInitAllInitOff()), 'testing.TestCxxAutoInitAllInitOff(x=7, y=9, z=1234)');
  const derived = new testing.TestCxxClassDerived(1, 2, 3.5);
  assert.deepEqual([derived.vI64, derived.vI32, derived.vF64, derived.vF32], [1, 2, 3.5, 8]);
  assert.ok(derived instanceof testing.TestCxxClassBase);
  // five and six positional arguments (more than construct passes one by one)
  const dd = new testing.TestCxxClassDerivedDerived(1, 2, 3.5, true, 4.5, 'six');
  assert.deepEqual([dd.vI64, dd.vI32, dd.vF64, dd.vF32, dd.vStr], [1, 2, 3.5, 4.5, 'six']);
  assert.ok(dd instanceof testing.TestCxxClassDerived);
  const od = new testing.TestObjectDerived({ k: 1 }, [2], 3, 4.5, 'five');
  assert.deepEqual([od.vI64, od.vF64, od.vStr, od.vArray.length], [3, 4.5, 'five', 1]);
});

test('keyword-only parameters go in an options object', () => {
  const k = new testing.TestCxxKwOnly({ x: 1, y: 2, z: 3 });
  assert.deepEqual([k.x, k.y, k.z, k.w], [1, 2, 3, 100]);
  assert.equal(new testing.TestCxxKwOnly({ x: 1, y: 2, z: 3, w: 4 }).w, 4);
  const a = new testing.TestCxxAutoInit(1, undefined, { c: 3 });
  assert.deepEqual([a.a, a.c, a.d], [1, 3, 99]);
  assert.equal(new testing.TestCxxAutoInit(1, 4, { c: 3 }).d, 4);
  const kd = new testing.TestCxxAutoInitKwOnlyDefaults(1, undefined, { kRequired: 5 });
  assert.deepEqual([kd.pRequired, kd.pDefault, kd.kRequired, kd.kDefault], [1, 11, 5, 22]);
  const child = new testing.TestCxxAutoInitChild(1, 2, 3, { childKwOnly: 4 });
  assert.ok(child instanceof testing.TestCxxAutoInitParent);
  assert.equal(child.childKwOnly, 4);
  assert.equal(child.parentRequired, 1);
  assert.throws(() => new testing.TestCxxKwOnly({ x: 1 }), ffi.FFIError);
  // An unknown key is refused, by name, before anything is constructed.
  assert.throws(() => new testing.TestCxxKwOnly({ x: 1, y: 2, z: 3, v: 4 }), {
    name: 'TypeError',
    message: 'new TestCxxKwOnly: unknown option(s) v (known: x, y, z, w)',
  });
  assert.throws(() => new testing.TestCxxKwOnly([1, 2, 3]), /the options must be a plain object, got an array/);
});

test('object fields and optional object fields', () => {
  const base = new testing.TestObjectBase();
  const holder = new testing.TestObjectPtrHolder(base);
  assert.ok(holder.value.same(base));
  assert.ok(holder.value instanceof testing.TestObjectBase);
  assert.equal(holder.optionalValue, null);
  holder.optionalValue = base;
  assert.ok(holder.optionalValue.same(base));
  holder.optionalValue = null;
  assert.equal(holder.optionalValue, null);
  const edges = new testing.TestDeepCopyEdges(1, new testing.TestIntPair(1, 2));
  assert.equal(edges.vAny, 1);
  assert.ok(edges.vObj instanceof testing.TestIntPair);
});

test('inherited methods and unregistered subclasses', () => {
  const o = new testing.TestUnregisteredObject(1, 2);
  assert.deepEqual([o.v1, o.v2, o.getV1PlusOne(), o.getV2PlusTwo()], [1, 2, 2, 4]);
  const u = testing.makeUnregisteredObject();
  assert.ok(u instanceof testing.TestUnregisteredBaseObject);
  assert.equal(u.getV1PlusOne(), u.v1 + 1);
});

test('a class with every field kind', () => {
  const proto = testing.SchemaAllTypes.prototype;
  for (const name of ['vBool', 'vInt', 'vFloat', 'vDevice', 'vDtype', 'vString', 'vBytes', 'vOptInt', 'vArrInt', 'vMapStrInt', 'vVariant', 'addInt', 'appendInt', 'maybeConcat', 'mergeMap']) {
    assert.ok(name in proto, name);
  }
});

test('functions of the testing library', () => {
  assert.equal(testing.schemaNoArgs(), 1);
  assert.equal(testing.schemaNoReturn(1), null);
  assert.equal(testing.echo(1, 2), 1);
  assert.equal(testing.nop(), null);
  assert.equal(typeof testing.getAddOneCSymbol(), 'number');
  const graph = testing.makeVisitRegionGraph(true);
  assert.ok(graph instanceof testing.TestVisitHook);
  assert.ok(graph.child instanceof testing.TestVisitRegions);
  assert.throws(() => testing.enumVariantGet('nope'), ffi.ValueError);
  const pair = new testing.TestIntPair(3, 4);
  assert.equal(testing.objectUseCount(pair), 1, 'the wrapper holds the reference the call borrows');
  assert.ok(testing.schemaIdObject(pair).same(pair));
  assert.equal(testing.schemaIdOptObj(null), null);
});
