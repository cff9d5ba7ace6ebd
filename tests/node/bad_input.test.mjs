// The bad-input matrix (the same cases as tests/julia/test_bad_input.jl and
// tests/cpp/test_bad_input.cpp): each case throws a JavaScript exception that names the function
// (and the argument) or is handled as documented, never crashes, and leaks nothing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing, withoutLeaks } from './helpers.mjs';

/** Checks that `f` throws an instance of `Class` whose message matches `message`. */
function throwsWith(f, Class, message) {
  assert.throws(f, (e) => {
    assert.ok(e instanceof Class, `${e?.constructor?.name}: ${e?.message}`);
    assert.match(e.message, message);
    return true;
  });
}

// Errors about arguments are in the caller's words: the wrapper as it is spelled, the parameter
// name, the expected type in JavaScript's terms and the kind of value given; the runtime's own
// error stays available as the `cause`.
test('wrong type: TypeError naming the function, the parameter, the type expected and the value given', async () => {
  await withoutLeaks(assert, () => {
    throwsWith(() => demo.addOne('x'), ffi.TypeError, /^addOne\(x\): expected an integer \(number or bigint\), got a string$/);
    throwsWith(() => demo.addOne(() => 1), ffi.TypeError, /^addOne\(x\): .*got a function$/);
    throwsWith(() => demo.concat('a', 5), ffi.TypeError, /^concat\(b\): expected a string, got a number \(5\)$/);
    throwsWith(() => new demo.Point('a', 4), ffi.TypeError, /^new Point\(x\): expected a number, got a string$/);
    throwsWith(() => new demo.Point(1, 2).translate(1, 'b'), ffi.TypeError, /^Point\.translate\(dy\): expected a number, got a string$/);
    throwsWith(() => new demo.Point(1, 2).distance(5), ffi.TypeError, /^Point\.distance\(other\): expected a Point, got a number \(5\)$/);
    throwsWith(() => demo.sumArray([1, 'x']), ffi.TypeError, /^sumArray\(values\): expected an array of numbers, got an array whose element 1 is a string$/);
    throwsWith(() => demo.echoAny(Symbol('s')), ffi.TypeError, /^echoAny\(value\): cannot convert a symbol to a TVM-FFI value$/);
    const c = new demo.Counter('c', 0, 1);
    throwsWith(() => { c.count = 'x'; }, ffi.TypeError, /^Counter\.count: expected an integer \(number or bigint\), got a string$/);
    // The runtime's own error is the cause.
    assert.throws(() => demo.addOne('x'), (e) => {
      assert.ok(e.cause instanceof ffi.TypeError);
      assert.match(e.cause.message, /argument #0 when calling: `demo\.add_one\(0: int\) -> int`\. Expected `int` but got `ffi\.SmallStr`/);
      return true;
    });
  });
});

test('wrong count: how many arguments were expected, and the missing or extra one', async () => {
  await withoutLeaks(assert, () => {
    throwsWith(() => demo.addOne(), ffi.TypeError, /^addOne\(x\): missing argument x \(an integer \(number or bigint\)\); expected 1 argument, got 0$/);
    throwsWith(() => new demo.Point(1), ffi.TypeError, /^new Point\(x, y\): missing argument y \(a number\); expected 2 arguments, got 1$/);
    throwsWith(() => demo.addOne(1, 'two'), ffi.TypeError, /^addOne\(x\): expected 1 argument, got 2 \(the first extra one is a string\)$/);
    throwsWith(() => new demo.Point(1, 2).norm(3), ffi.TypeError, /^Point\.norm\(\): expected 0 arguments, got 1 \(the first extra one is a number \(3\)\)$/);
    // Trailing Optional parameters may be left out.
    assert.equal(demo.echoOptionalInt(), null);
    throwsWith(() => demo.greet('a', 'b'), ffi.TypeError, /^greet\(name\): expected 0 to 1 arguments, got 2 \(the first extra one is a string\)$/);
    // The untyped function checks the count itself, in the runtime's words.
    const raw = ffi.requireGlobal('demo.add_one');
    throwsWith(() => raw(1, 2), ffi.TypeError, /`demo\.add_one.*Expected 1 but got 2 arguments/);
    raw.dispose();
  });
});

test('defaults and options: counted and named as the wrappers take them', async () => {
  await withoutLeaks(assert, () => {
    // Point3D(x, y, z = 0): a defaulted positional parameter may be left out.
    assert.equal(new demo.Point3D(1, 2).z, 0);
    throwsWith(() => new demo.Point3D(1), ffi.TypeError,
      /^new Point3D\(x, y, z\): missing argument y \(a number\); expected 2 to 3 arguments, got 1$/);
    throwsWith(() => new demo.Point3D(1, 2, 3, 4), ffi.TypeError,
      /^new Point3D\(x, y, z\): expected 2 to 3 arguments, got 4 \(the first extra one is a number \(4\)\)$/);
    throwsWith(() => new demo.Point3D(1, 2, 'z'), ffi.TypeError, /^new Point3D\(z\): expected a number, got a string$/);
    throwsWith(() => new demo.Counter('c', 'x'), ffi.TypeError,
      /^new Counter\(start\): expected an integer \(number or bigint\), got a string$/);
    throwsWith(() => new demo.Counter('c', 0, 1).add('x'), ffi.TypeError,
      /^Counter\.add\(n\): expected an integer \(number or bigint\), got a string$/);
    // Keyword-only parameters: one options object, each key named as the caller writes it.
    throwsWith(() => new testing.TestCxxKwOnly({ x: 'a', y: 2, z: 3 }), ffi.TypeError,
      /^new TestCxxKwOnly\(options\.x\): expected an integer \(number or bigint\), got a string$/);
    throwsWith(() => new testing.TestCxxKwOnly({ x: 1, z: 3 }), ffi.TypeError,
      /^new TestCxxKwOnly\(options\): missing options\.y \(an integer \(number or bigint\)\)$/);
    throwsWith(() => new testing.TestCxxKwOnly({ x: 1, y: 2, z: 3 }, 4), ffi.TypeError,
      /^new TestCxxKwOnly\(options\): expected 0 to 1 arguments, got 2 \(the first extra one is a number \(4\)\)$/);
    throwsWith(() => new testing.TestCxxAutoInit(1, undefined, { c: 3 }, 5), ffi.TypeError,
      /^new TestCxxAutoInit\(a, d, options\): expected 1 to 3 arguments, got 4 \(the first extra one is a number \(5\)\)$/);
    throwsWith(() => new testing.TestCxxAutoInit(), ffi.TypeError,
      /^new TestCxxAutoInit\(a, d, options\): missing argument a \(an integer \(number or bigint\)\); expected 1 to 3 arguments, got 0$/);
    throwsWith(() => new testing.TestCxxAutoInit(1, undefined, { c: 3, e: 4 }), ffi.TypeError,
      /^new TestCxxAutoInit: unknown option\(s\) e \(known: c\)$/);
  });
});

test('null and undefined: TypeError naming the function and parameter', async () => {
  await withoutLeaks(assert, () => {
    throwsWith(() => demo.addOne(null), ffi.TypeError, /^addOne\(x\): .*got null$/);
    throwsWith(() => demo.addOne(undefined), ffi.TypeError, /^addOne\(x\): .*got undefined$/);
    throwsWith(() => demo.concat(null, 'a'), ffi.TypeError, /^concat\(a\): expected a string, got null$/);
    assert.equal(demo.echoOptionalInt(null), null);
  });
});

test('out-of-range and non-integral ints: TypeError, int64 limits exact', async () => {
  await withoutLeaks(assert, () => {
    throwsWith(() => demo.echoInt(2n ** 63n), ffi.TypeError, /^echoInt\(x\): .*got a bigint beyond 64 bits \(9223372036854775808\)$/);
    throwsWith(() => demo.echoInt(-(2n ** 63n) - 1n), ffi.TypeError, /got a bigint beyond 64 bits/);
    throwsWith(() => demo.echoInt(2 ** 64), ffi.TypeError, /^echoInt\(x\): .*got a number beyond ±2\^53/);
    throwsWith(() => demo.echoInt(1.5), ffi.TypeError, /got a number with a fraction \(1\.5\)$/);
    // Typed results are numbers: one beyond ±2^53 is a RangeError; the untyped API returns it.
    throwsWith(() => demo.echoInt(2n ** 63n - 1n), RangeError, /^echoInt: the result 9223372036854775807 is beyond ±2\^53/);
    const raw = ffi.requireGlobal('demo.echo_int');
    assert.equal(raw(2n ** 63n - 1n), 2n ** 63n - 1n);
    assert.equal(raw(-(2n ** 63n)), -(2n ** 63n));
    raw.dispose();
  });
});

test('NaN and Infinity: pass as floats, refused as ints', async () => {
  await withoutLeaks(assert, () => {
    assert.ok(Number.isNaN(demo.echoFloat(NaN)));
    assert.equal(demo.echoFloat(Infinity), Infinity);
    assert.equal(demo.echoFloat(-Infinity), -Infinity);
    throwsWith(() => demo.addOne(NaN), ffi.TypeError, /^addOne\(x\): .*got a number \(NaN\)$/);
    throwsWith(() => demo.addOne(Infinity), ffi.TypeError, /^addOne\(x\): .*got a number \(Infinity\)$/);
  });
});

test('invalid UTF-16 (lone surrogates) becomes U+FFFD; bytes stay bytes', async () => {
  await withoutLeaks(assert, () => {
    assert.equal(demo.stringLength('\uD800'), 3);
    assert.equal(demo.echoString('a\uDC00b'), 'a\uFFFDb');
    assert.deepEqual([...demo.echoBytes(Buffer.from([0xff, 0xfe, 0]))], [0xff, 0xfe, 0]);
  });
});

test('embedded NUL keeps its length', async () => {
  await withoutLeaks(assert, () => {
    assert.equal(demo.stringLength('a\0b'), 3);
    assert.equal(demo.echoString('a\0b-long-enough-for-the-heap'), 'a\0b-long-enough-for-the-heap');
  });
});

test('a 100 MB string round-trips', async () => {
  await withoutLeaks(assert, () => {
    const big = 'x'.repeat(100_000_000);
    assert.equal(demo.stringLength(big), 100_000_000);
    assert.equal(demo.echoString(big).length, 100_000_000);
  });
});

test('100,000-deep and cyclic containers: RangeError', async () => {
  await withoutLeaks(assert, () => {
    let deep = [1];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    throwsWith(() => demo.echoAny(deep), RangeError, /nested too deeply/);
    const cyclic = [1];
    cyclic.push(cyclic);
    throwsWith(() => demo.echoAny(cyclic), RangeError, /cyclic/);
  });
});

test('use after dispose: TypeError; dispose twice is a no-op', async () => {
  await withoutLeaks(assert, () => {
    const p = new demo.Point(3, 4);
    p.dispose();
    p.dispose();
    throwsWith(() => p.norm(), ffi.TypeError, /disposed/);
    throwsWith(() => p.x, ffi.TypeError, /disposed/);
    const f = ffi.toFunction((x) => x);
    f.dispose();
    throwsWith(() => f(1), ffi.TypeError, /disposed/);
  });
});

test('unknown function and unknown type key: errors naming them', async () => {
  await withoutLeaks(assert, () => {
    assert.equal(ffi.getGlobal('no.such.function'), null);
    assert.throws(() => ffi.requireGlobal('no.such.function'), /`no\.such\.function` is not registered/);
    throwsWith(() => ffi.registerType('no.such.Type', class extends ffi.Object {}), ffi.RuntimeError, /`no\.such\.Type` is not registered/);
    throwsWith(() => ffi.getField(new demo.Point(1, 2), 'nope'), ffi.TypeError, /`demo\.Point` has no field `nope`/);
  });
});

test('a library path that is missing or not a library: error naming the path', async () => {
  await withoutLeaks(assert, () => {
    throwsWith(() => ffi.loadModule('/nonexistent/libnothing.so'), ffi.FFIError, /\/nonexistent\/libnothing\.so/);
    throwsWith(() => ffi.loadModule('/etc/passwd'), ffi.FFIError, /\/etc\/passwd/);
    throwsWith(() => ffi.loadLibrary('/nonexistent/libnothing.so'), ffi.FFIError, /\/nonexistent\/libnothing\.so/);
    throwsWith(() => ffi.loadLibrary('/etc/passwd'), ffi.FFIError, /\/etc\/passwd/);
  });
});

test("re-entry 10,000 deep (JS -> native -> JS): JavaScript's own RangeError", async () => {
  await withoutLeaks(assert, () => {
    let depth = 0;
    const f = (x) => (++depth < 10_000 ? demo.applyTwice(f, x) : x);
    assert.throws(() => demo.applyTwice(f, 1), (e) => e.name === 'RangeError' && /call stack/.test(e.message));
    const g = ffi.toFunction((n) => (n === 0 ? 0 : 1 + g(n - 1)));
    assert.throws(() => g(10_000), (e) => e.name === 'RangeError' && /call stack/.test(e.message));
    g.dispose();
    assert.equal(demo.addOne(1), 2); // the thread still works
  });
});

test('callAsync fails through its promise: not a function, a disposed function', async () => {
  await withoutLeaks(assert, async () => {
    const notAFunction = ffi.callAsync(42);
    assert.ok(notAFunction instanceof Promise);
    await assert.rejects(notAFunction, { name: 'TypeError', message: /callAsync needs a function/ });
    await assert.rejects(ffi.callAsync(), /callAsync needs a function/);
    const f = ffi.toFunction((x) => x);
    f.dispose();
    const disposed = ffi.callAsync(f, 1);
    assert.ok(disposed instanceof Promise);
    await assert.rejects(disposed, /disposed/);
    await assert.rejects(ffi.callAsync(demo.addOne, 'x'), ffi.TypeError);
  });
});

test('a Proxy of an array converts as an array; an array-like object is refused', async () => {
  await withoutLeaks(assert, () => {
    assert.equal(demo.sumArray(new Proxy([1, 2, 3], {})), 6);
    const proxied = demo.echoAny(new Proxy([1, 'a'], {}));
    assert.ok(proxied instanceof ffi.Array);
    assert.deepEqual(proxied.toArray(), [1, 'a']);
    throwsWith(() => demo.sumArray({ length: 1e9 }), ffi.TypeError, /array-like object/);
    throwsWith(() => demo.echoAny({ length: 2, 0: 'a', 1: 'b' }), ffi.TypeError, /Array\.from/);
    // A map with a `length` key still passes as a Map.
    assert.equal(demo.echoAny(new Map([['length', 1]])).get('length'), 1);
  });
});

test('DataType fields out of range and unnamed custom codes: RangeError', () => {
  throwsWith(() => new ffi.DataType(255, 255, 70000), RangeError, /lanes must be an integer from 0 to 65535, got 70000/);
  throwsWith(() => new ffi.DataType(256, 8), RangeError, /code must be an integer from 0 to 255/);
  throwsWith(() => new ffi.DataType(2, 1.5), RangeError, /bits/);
  throwsWith(() => String(new ffi.DataType(255, 8, 1)), RangeError, /custom type code/);
  assert.equal(String(new ffi.DataType(2, 32, 4)), 'float32x4');
});

test('options objects: a plain object with known keys and every required one', () => {
  const keys = ['anyWhitespace', 'indent'];
  const given = { anyWhitespace: false };
  assert.equal(ffi.options(given, 'Grammar.fromJsonSchema', keys, []), given);
  assert.deepEqual(ffi.options(undefined, 'f', keys, []), {});
  assert.deepEqual(ffi.options(null, 'f', keys, []), {});
  throwsWith(() => ffi.options({ anyWhitspace: 1, other: 2 }, 'Grammar.fromJsonSchema', keys, []),
    ffi.TypeError, /^Grammar\.fromJsonSchema: unknown option\(s\) anyWhitspace, other \(known: anyWhitespace, indent\)$/);
  throwsWith(() => ffi.options({ indent: 2 }, 'f', keys, ['anyWhitespace']), ffi.TypeError,
    /^f: missing required option\(s\) anyWhitespace$/);
  throwsWith(() => ffi.options(undefined, 'f', keys, ['indent']), ffi.TypeError,
    /^f: missing required option\(s\) indent$/);
  throwsWith(() => ffi.options(new Map(), 'f', keys, []), ffi.TypeError,
    /^f: the options must be a plain object, got a Map$/);
  throwsWith(() => ffi.options(3, 'f', keys, []), ffi.TypeError,
    /^f: the options must be a plain object, got a number \(3\)$/);
  const bare = Object.assign(Object.create(null), { indent: 1 });
  assert.equal(ffi.options(bare, 'f', keys, []), bare);
});
