// Strings (small and heap) and bytes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing } from './helpers.mjs';

test('small and long strings round-trip', () => {
  for (const s of ['', 'a', 'seven77', 'eight888', 'x'.repeat(1000)]) {
    assert.equal(demo.echoString(s), s);
    assert.equal(testing.schemaIdString(s), s);
  }
  assert.equal(demo.concat('foo', 'bar'), 'foobar');
  assert.equal(demo.repeat('ab', 5000).length, 10000);
  // A Rust extension's failed allocation (2 TiB) is an error, not an abort of the host.
  assert.throws(() => demo.repeat('ab', 2 ** 40), (e) => e instanceof ffi.MemoryError && /demo\.repeat|cannot allocate/.test(e.message));
  assert.equal(demo.stringLength('abc'), 3);
});

test('strings are UTF-8 on the native side', () => {
  const s = 'héllo, 世界 🌍';
  assert.equal(demo.echoString(s), s);
  assert.equal(demo.stringLength(s), Buffer.byteLength(s, 'utf8'));
  assert.equal(demo.stringLength('é'), 2);
});

test('embedded NUL characters survive', () => {
  const s = 'a\0b\0c';
  assert.equal(demo.echoString(s), s);
  assert.equal(demo.echoString(`${'y'.repeat(20)}\0z`), `${'y'.repeat(20)}\0z`);
  assert.equal(demo.stringLength(s), 5);
});

test('Buffer and Uint8Array convert to bytes; bytes come back as Buffer', () => {
  const out = demo.echoBytes(Buffer.from('hello world'));
  assert.ok(Buffer.isBuffer(out));
  assert.equal(out.toString(), 'hello world');
  assert.deepEqual([...demo.reverseBytes(new Uint8Array([1, 2, 3]))], [3, 2, 1]);
  assert.deepEqual([...demo.echoBytes(new Uint8Array(0))], []);
  assert.deepEqual([...testing.schemaIdBytes(new Uint8Array([0, 255, 7]))], [0, 255, 7]);
  const long = new Uint8Array(4096).map((_, i) => i & 0xff);
  assert.deepEqual(demo.echoBytes(long), Buffer.from(long));
});

test('ArrayBuffer and DataView convert to bytes (copied)', () => {
  const ab = new Uint8Array([9, 8, 7]).buffer;
  assert.deepEqual([...demo.reverseBytes(ab)], [7, 8, 9]);
  const dv = new DataView(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2);
  assert.deepEqual([...demo.echoBytes(dv)], [2, 3]);
  assert.equal(demo.argTypes(new Uint8Array(3)).toArray()[0], 'ffi.SmallBytes');
  assert.equal(demo.argTypes(new Uint8Array(30)).toArray()[0], 'ffi.Bytes');
  assert.equal(demo.argTypes('abc').toArray()[0], 'ffi.SmallStr');
  assert.equal(demo.argTypes('abcdefghij').toArray()[0], 'ffi.String');
});

test('a string where bytes are expected is a TypeError', () => {
  assert.throws(() => demo.echoBytes(42), ffi.TypeError);
  assert.throws(() => demo.concat(1, 'a'), ffi.TypeError);
});
