// Errors: TVM-FFI errors are FFIError subclasses with kind, message and native backtrace;
// JavaScript exceptions in callbacks become raised errors and come back.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing } from './helpers.mjs';

test('errors of common kinds get their class', () => {
  const cases = {
    ValueError: ffi.ValueError,
    TypeError: ffi.TypeError,
    IndexError: ffi.IndexError,
    KeyError: ffi.KeyError,
    AttributeError: ffi.AttributeError,
    RuntimeError: ffi.RuntimeError,
    NotImplementedError: ffi.NotImplementedError,
    InternalError: ffi.InternalError,
  };
  for (const [kind, Class] of Object.entries(cases)) {
    assert.throws(
      () => demo.raiseError(kind, `boom ${kind}`),
      (e) => {
        assert.ok(e instanceof Class);
        assert.ok(e instanceof ffi.FFIError);
        assert.ok(e instanceof Error);
        assert.equal(e.kind, kind);
        assert.equal(e.name, kind);
        assert.equal(e.message, `boom ${kind}`);
        assert.ok(e.stack.startsWith(`${kind}: boom ${kind}`));
        return true;
      },
    );
  }
});

test('unknown kinds are FFIErrors with that kind', () => {
  assert.throws(
    () => demo.raiseError('QuotaError', 'too much'),
    (e) => e.constructor === ffi.FFIError && e.kind === 'QuotaError' && e.message === 'too much',
  );
  class QuotaError extends ffi.FFIError {}
  ffi.registerError('QuotaError', QuotaError);
  assert.throws(() => demo.raiseError('QuotaError', 'again'), QuotaError);
});

test('the native backtrace is kept and spliced into the stack', () => {
  try {
    demo.checkedSqrt(-4);
    assert.fail('no error');
  } catch (e) {
    assert.ok(e instanceof ffi.ValueError);
    assert.match(e.message, /square root of -4/);
    assert.equal(typeof e.backtrace, 'string');
    // the JavaScript caller's frame is in the stack
    assert.match(e.stack, /errors\.test\.mjs/);
    if (e.backtrace) assert.match(e.stack, /^ {4}at .*\(.*:\d+\)$/m);
  }
  assert.throws(() => testing.testRaiseError('ValueError', 'from C++'), (e) => {
    assert.ok(e instanceof ffi.ValueError);
    assert.equal(e.message, 'from C++');
    return true;
  });
});

test('Rust panics in the extension become InternalError', () => {
  assert.throws(() => demo.panic('kaboom'), (e) => e instanceof ffi.InternalError && /kaboom/.test(e.message));
});

test('wrong argument counts and types are TypeErrors', () => {
  assert.throws(() => demo.concat('a'), ffi.TypeError);
  assert.throws(() => ffi.requireGlobal('demo.concat')('a', 'b', 'c'), ffi.TypeError);
  assert.throws(() => demo.parseInt('x1'), ffi.ValueError);
  assert.equal(demo.parseInt(' 42 '), 42);
});

test('a JavaScript exception in a callback becomes a raised error', () => {
  const thrower = function failingCallback() {
    throw new RangeError('out of range in JS');
  };
  assert.throws(
    () => demo.applyTwice(thrower, 1),
    (e) => {
      assert.ok(e instanceof ffi.FFIError);
      assert.equal(e.kind, 'RangeError');
      assert.equal(e.message, 'out of range in JS');
      // the callback's JavaScript frames travel in the backtrace
      assert.match(e.backtrace, /failingCallback/);
      assert.match(e.stack, /failingCallback/);
      return true;
    },
  );
  // FFIError subclasses keep their kind; plain Errors become RuntimeError
  assert.throws(() => demo.applyTwice(() => {
    throw new ffi.KeyError('nope');
  }, 1), ffi.KeyError);
  assert.throws(() => demo.applyTwice(() => {
    throw new Error('plain');
  }, 1), ffi.RuntimeError);
  assert.throws(() => demo.applyTwice(() => {
    throw 'a string';
  }, 1), (e) => e instanceof ffi.RuntimeError && /a string/.test(e.message));
});

test('an error raised by native code inside a callback passes through unchanged', () => {
  assert.throws(
    () => demo.applyTwice((x) => demo.checkedSqrt(-x), 1),
    (e) => e instanceof ffi.ValueError && /square root of -1/.test(e.message),
  );
});

test('a callback returning an unconvertible value raises TypeError', () => {
  assert.throws(() => demo.applyTwice(() => Symbol('s'), 1), ffi.TypeError);
  assert.throws(() => demo.applyTwice(() => 'not an int', 1), ffi.TypeError);
});

test('errors are values too', () => {
  const err = new ffi.ValueError('as a value');
  const back = demo.echoAny(err);
  assert.ok(back instanceof ffi.ValueError);
  assert.equal(back.message, 'as a value');
  assert.equal(demo.argTypes(err).toArray()[0], 'ffi.Error');
  // a TVM-FFI error object passes back as itself
  let caught;
  try {
    demo.checkedSqrt(-1);
  } catch (e) {
    caught = e;
  }
  assert.ok(ffi.same(demo.echoAny(caught), caught));
});
