// None, booleans, integers (number when safe, bigint beyond 2^53), floats, optionals.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing } from './helpers.mjs';

test('integers round-trip as numbers', () => {
  assert.equal(demo.addOne(41), 42);
  assert.equal(demo.echoInt(0), 0);
  assert.equal(demo.echoInt(-7), -7);
  assert.equal(demo.echoInt(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  assert.equal(demo.echoInt(Number.MIN_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);
  assert.equal(testing.addOne(1), 2);
  assert.equal(testing.schemaIdInt(123456789), 123456789);
});

test('int64 beyond the safe range: a bigint from untyped calls, a RangeError from typed ones', () => {
  const addOne = ffi.requireGlobal('demo.add_one');
  const echoInt = ffi.requireGlobal('demo.echo_int');
  assert.equal(addOne(Number.MAX_SAFE_INTEGER), 2n ** 53n);
  assert.equal(echoInt(2n ** 62n), 2n ** 62n);
  assert.equal(echoInt(-(2n ** 63n)), -(2n ** 63n));
  assert.equal(echoInt(2n ** 63n - 1n), 2n ** 63n - 1n);
  // wrapping arithmetic in the callee
  assert.equal(addOne(2n ** 63n - 1n), -(2n ** 63n));
  // Typed wrappers return what they declare, a number: beyond ±2^53 none holds the value.
  assert.throws(() => demo.addOne(Number.MAX_SAFE_INTEGER), (e) => e instanceof RangeError && /^addOne: the result 9007199254740992 is beyond ±2\^53/.test(e.message));
  assert.throws(() => demo.echoInt(-(2n ** 63n)), RangeError);
  // bigints that fit in a safe integer come back as numbers
  assert.equal(demo.echoInt(5n), 5);
  assert.equal(typeof demo.echoInt(5n), 'number');
  addOne.dispose();
  echoInt.dispose();
});

test('bigints beyond int64 cross as ffi.BigInt', () => {
  const big = 2n ** 100n + 12345n;
  assert.equal(demo.echoAny(big), big);
  assert.equal(demo.echoAny(-big), -big);
  assert.equal(demo.argTypes(big).toArray()[0], 'ffi.BigInt');
  assert.equal(demo.argTypes(2n ** 63n).toArray()[0], 'ffi.BigInt');
  assert.equal(demo.argTypes(-(2n ** 63n)).toArray()[0], 'int');
});

test('numbers: safe integers cross as int, others as float', () => {
  assert.deepEqual(demo.argTypes(1, 1.5, -0, NaN, Infinity, 2 ** 53, 1e300).toArray(), [
    'int',
    'float',
    'float',
    'float',
    'float',
    'float',
    'float',
  ]);
  assert.equal(demo.echoFloat(2.5), 2.5);
  assert.equal(demo.echoFloat(3), 3);
  assert.ok(Number.isNaN(demo.echoFloat(NaN)));
  assert.equal(demo.echoFloat(-Infinity), -Infinity);
  assert.ok(Object.is(demo.echoFloat(-0), -0));
  assert.equal(testing.schemaIdFloat(0.25), 0.25);
  assert.equal(demo.checkedSqrt(16), 4);
});

test('booleans', () => {
  assert.equal(demo.echoBool(true), true);
  assert.equal(demo.echoBool(false), false);
  assert.equal(testing.schemaIdBool(true), true);
  assert.deepEqual(demo.argTypes(true).toArray(), ['bool']);
});

test('None is null; undefined converts to None', () => {
  assert.equal(demo.echoAny(null), null);
  assert.equal(demo.echoAny(undefined), null);
  assert.equal(demo.isNone(null), true);
  assert.equal(demo.isNone(undefined), true);
  assert.equal(demo.isNone(0), false);
  assert.equal(testing.schemaNoArgsNoReturn(), null);
});

test('optionals', () => {
  assert.equal(demo.echoOptionalInt(null), null);
  assert.equal(demo.echoOptionalInt(3), 3);
  assert.equal(demo.safeDivide(1, 0), null);
  assert.equal(demo.safeDivide(1, 4), 0.25);
  assert.equal(demo.greet(), 'Hello, world!');
  assert.equal(demo.greet(null), 'Hello, world!');
  assert.equal(demo.greet('Ada'), 'Hello, Ada!');
  assert.equal(testing.schemaIdOptInt(null), null);
  assert.equal(testing.schemaIdOptInt(9), 9);
  assert.equal(testing.schemaIdOptStr('s'), 's');
});

test('variants', () => {
  assert.equal(testing.schemaIdVariantIntStr(5), 5);
  assert.equal(testing.schemaIdVariantIntStr('five'), 'five');
  assert.deepEqual(testing.schemaVariantMix([1, 2]).toArray(), [1, 2]);
  assert.equal(testing.schemaVariantMix('x'), 'x');
});

test('wrong scalar types raise TypeError', () => {
  assert.throws(() => demo.addOne('x'), ffi.TypeError);
  assert.throws(() => demo.addOne(1.5), ffi.TypeError);
  assert.throws(() => demo.addOne(Symbol('s')), ffi.TypeError);
});

test('opaque pointers', () => {
  const p = new ffi.OpaquePtr(0x1234n);
  const back = demo.echoAny(p);
  assert.ok(back instanceof ffi.OpaquePtr);
  assert.equal(back.address, 0x1234n);
  assert.equal(demo.argTypes(p).toArray()[0], 'void*');
});
