// Functions both ways: globals (get, call, register), JavaScript callbacks passed to native
// code, closures returned by native code, packed calls.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing } from './helpers.mjs';

test('global functions are JavaScript functions', () => {
  const f = ffi.getGlobal('demo.add_one');
  assert.equal(typeof f, 'function');
  assert.ok(f instanceof ffi.Function);
  assert.equal(f.typeKey, 'ffi.Function');
  assert.equal(f.name, 'demo.add_one');
  assert.equal(f(1), 2);
  assert.equal(f.call(null, 2), 3);
  assert.equal(f.apply(null, [3]), 4);
  assert.equal(ffi.getGlobal('no.such.function'), null);
  assert.throws(() => ffi.requireGlobal('no.such.function'), /not registered/);
  const names = ffi.listGlobals();
  assert.ok(names.includes('demo.add_one'));
  assert.ok(names.includes('ffi.Array'));
  assert.ok(names.includes('testing.nop'));
});

test('packed functions take any arguments', () => {
  assert.equal(demo.packedSum(1, 2, 3), 6);
  assert.equal(demo.packedSum(1, 2.5), 3.5);
  assert.equal(demo.packedSum(), 0);
  const many = Array.from({ length: 20 }, (_, i) => i);
  assert.equal(demo.packedSum(...many), 190);
  assert.equal(testing.echo('x'), 'x');
  assert.equal(testing.nop(1, 2, 3), null);
  assert.throws(() => demo.packedSum('x'), ffi.TypeError);
});

test('None comes back as null, from generated functions and from functions looked up', () => {
  // Generated functions call theirs through generatedFunction (None as undefined, fast path),
  // then turn it into null; every other function returns null itself.
  assert.strictEqual(testing.nop(), null);
  assert.strictEqual(testing.nop(1, 2.5, 3), null);
  assert.strictEqual(testing.nop('a string'), null);
  assert.strictEqual(testing.schemaNoReturn(1), null);
  const nop = ffi.requireGlobal('testing.nop');
  assert.strictEqual(nop(), null);
  assert.strictEqual(nop(1), null);
  const marked = ffi.generatedFunction(ffi.requireGlobal('testing.nop'));
  assert.strictEqual(marked(), undefined);
  assert.strictEqual(nop(), null, 'other wrappers of the same function are unchanged');
  assert.throws(() => ffi.generatedFunction(() => 1), /needs a TVM-FFI function/);
  assert.throws(() => ffi.generatedFunction({}), /needs a TVM-FFI function/);
});

test('JavaScript callbacks are called by native code', () => {
  assert.equal(demo.applyTwice((x) => x * 3, 2), 18);
  const seen = [];
  const out = demo.mapArray((v) => {
    seen.push(v);
    return typeof v === 'number' ? v * 10 : `${v}!`;
  }, [1, 'a', 2]);
  assert.deepEqual(out.toArray(), [10, 'a!', 20]);
  assert.deepEqual(seen, [1, 'a', 2]);
  // callbacks receive converted values and may return objects
  const points = demo.mapArray((x) => new demo.Point(x, 0), [1, 2]);
  assert.ok(points[1] instanceof demo.Point);
  assert.equal(points[1].x, 2);
  // a callback returning nothing gives None
  assert.deepEqual(demo.mapArray(() => {}, [1]).toArray(), [null]);
  // packed calls through testing.apply
  assert.equal(testing.apply((a, b) => a + b, 2, 3), 5);
});

test('closures returned by native code', () => {
  const triple = demo.makeMultiplier(3);
  assert.ok(triple instanceof ffi.Function);
  assert.equal(triple(2), 6);
  const next = demo.makeCounterFn(10);
  assert.deepEqual([next(), next(), next()], [10, 11, 12]);
  const both = demo.compose(triple, (x) => x + 1);
  assert.equal(both(2), 7);
  // a native closure passed back to native code; its float result does not fit `int`
  assert.equal(demo.applyTwice(demo.compose((x) => x + 1, (x) => x * 2), 1), 10);
  assert.throws(() => demo.applyTwice(demo.makeMultiplier(2), 5), ffi.TypeError);
});

test('functions keep their identity across the boundary', () => {
  const triple = demo.makeMultiplier(3);
  const back = demo.echoAny(triple);
  assert.ok(back.same(triple));
  const f = testing.schemaIdFunc(triple);
  assert.ok(f.same(triple));
  assert.equal(f(4), 12);
});

test('ffi.Function wraps a JavaScript function once', () => {
  let calls = 0;
  const js = (x) => {
    calls++;
    return x + 1;
  };
  const f = ffi.Function(js);
  assert.ok(f instanceof ffi.Function);
  assert.equal(f(1), 2);
  assert.equal(demo.applyTwice(f, 0), 2);
  assert.ok(demo.echoAny(f).same(f));
  assert.equal(ffi.toFunction(f), f);
  assert.equal(calls, 3);
  f.dispose();
  assert.throws(() => f(1), /disposed/);
  f.dispose();
});

test('JavaScript functions registered as globals', () => {
  const name = `nodetest.twice.${process.pid}`;
  ffi.registerGlobal(name, (x) => x * 2);
  assert.equal(ffi.requireGlobal(name)(21), 42);
  assert.ok(ffi.listGlobals().includes(name));
  assert.throws(() => ffi.registerGlobal(name, (x) => x), ffi.FFIError);
  ffi.registerGlobal(name, (x) => x * 3, { override: true });
  assert.equal(ffi.requireGlobal(name)(2), 6);
  // native code can call it by name too
  assert.equal(demo.applyTwice(ffi.requireGlobal(name), 1), 9);
  assert.ok(ffi.requireGlobal('ffi.FunctionRemoveGlobal')(name));
  assert.equal(ffi.getGlobal(name), null);
});

test('typed callbacks of the testing library', () => {
  const got = [];
  const f = testing.schemaIdFuncTyped((a, b, c) => {
    got.push(a, b, typeof c);
  });
  f(1, 2.5, () => 0);
  assert.deepEqual(got, [1, 2.5, 'function']);
});

test('callAsync runs a function off the JavaScript thread', async () => {
  assert.equal(await ffi.callAsync(demo.addOne, 1), 2);
  assert.equal(await ffi.callAsync(demo.applyTwice, (x) => x * 2, 3), 12);
  await assert.rejects(ffi.callAsync(demo.checkedSqrt, -1), ffi.ValueError);
  const results = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => ffi.callAsync(demo.applyTwice, (x) => x + i, 0)));
  assert.deepEqual(results, [2, 4, 6, 8, 10, 12]);
});
