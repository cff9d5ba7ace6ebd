// JavaScript's protocols mapped onto TVM-FFI values: util.inspect (console.log) shows objects
// with their fields and containers like JavaScript's own, JSON.stringify writes fields and
// elements, a `to_string` method is `toString()`; library errors carry no folders of the
// machine that built the libraries in their stacks; `Object.keys` lists the fields of the
// classes `ffi.setOwnFields` names.
import test from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ffi, demo, testing, withoutLeaks } from './helpers.mjs';

test('util.inspect: objects like class instances, with their fields', async () => {
  await withoutLeaks(assert, () => {
    assert.equal(inspect(new demo.Point(1, 2)), 'Point { x: 1, y: 2 }');
    assert.equal(inspect(new demo.Point3D(1, 2, 3)), 'Point3D { x: 1, y: 2, z: 3 }');
    assert.equal(inspect(new testing.TestIntPair(1, 2)), 'TestIntPair { a: 1, b: 2 }');
    const square = demo.Shape2D.square(2);
    assert.equal(
      inspect(square, { breakLength: Infinity }),
      "Shape2D { name: 'square', vertices: Array(4) [ Point { x: 0, y: 0 }, Point { x: 2, y: 0 }, " +
        "Point { x: 2, y: 2 }, Point { x: 0, y: 2 } ], tags: Map(0) {}, color: null }",
    );
    // Nested values below the depth are abbreviated, as JavaScript's are.
    assert.equal(
      inspect(square, { depth: 0 }),
      "Shape2D { name: 'square', vertices: [Array(4)], tags: [Map(0)], color: null }",
    );
    const disposed = new demo.Point(0, 0);
    disposed.dispose();
    assert.equal(inspect(disposed), '<disposed Point>');
  });
});

test('util.inspect: arrays, maps and shapes like JavaScript arrays and Maps', async () => {
  await withoutLeaks(assert, () => {
    assert.equal(inspect(demo.makeRange(3)), 'Array(3) [ 0, 1, 2 ]');
    assert.equal(inspect(demo.makeRange(0)), 'Array(0) []');
    assert.equal(inspect(testing.schemaIdListInt([1, 2])), 'List(2) [ 1, 2 ]');
    assert.equal(inspect(demo.wordLengths(['ab', 'c'])), "Map(2) { 'ab' => 2, 'c' => 1 }");
    assert.equal(inspect(ffi.dict({ a: 'x' })), "Dict(1) { 'a' => 'x' }");
    assert.equal(inspect(demo.makeShape([2, 3])), 'Shape(2) [ 2, 3 ]');
    assert.equal(
      inspect(demo.makeNested(1), { breakLength: Infinity }),
      "Array(1) [ Map(2) { 'index' => Array(1) [ 0 ], 'range' => Array(0) [] } ]",
    );
    // Long containers: the first maxArrayLength elements (only those are read), then a count.
    assert.equal(inspect(demo.makeRange(5), { maxArrayLength: 2 }), 'Array(5) [ 0, 1, ... 3 more items ]');
    assert.equal(inspect(demo.makeRange(2), { maxArrayLength: 0 }), 'Array(2) [ ... 2 more items ]');
    assert.match(inspect(demo.makeRange(150)), /\n {2}96, 97, 98, 99,\n {2}\.\.\. 50 more items\n\]$/);
    assert.equal(
      inspect(demo.wordLengths(['a', 'bb', 'ccc']), { maxArrayLength: 1 }),
      "Map(3) { 'a' => 1, ... 2 more items }",
    );
  });
});

test('JSON.stringify: objects write their fields, containers their elements', async () => {
  await withoutLeaks(assert, () => {
    assert.equal(JSON.stringify(new demo.Point(1, 2)), '{"x":1,"y":2}');
    assert.deepEqual(new demo.Point3D(1, 2, 3).toJSON(), { x: 1, y: 2, z: 3 });
    assert.equal(
      JSON.stringify(demo.Shape2D.square(1)),
      '{"name":"square","vertices":[{"x":0,"y":0},{"x":1,"y":0},{"x":1,"y":1},{"x":0,"y":1}],"tags":{},"color":null}',
    );
    assert.equal(JSON.stringify(demo.makeRange(3)), '[0,1,2]');
    assert.equal(JSON.stringify(demo.wordLengths(['ab', 'c'])), '{"ab":2,"c":1}');
    assert.equal(JSON.stringify({ nested: demo.makeNested(1) }), '{"nested":[{"index":[0],"range":[]}]}');
  });
});

test('Object.keys: own fields for the classes ffi.setOwnFields names (off by default)', async () => {
  // Defining a type registers what lives as long as the process: outside the leak count.
  const Pair = ffi.defineClass('nodetest.OwnFieldsPair', { fields: { first: 'int', second: 'str' } });
  await withoutLeaks(assert, () => {
    // Off by default: fields are getters on the class's prototype, as for any JavaScript class.
    assert.deepEqual(Object.keys(new demo.Point(1, 2)), []);
    ffi.setOwnFields(demo.Point);
    try {
      const p = new demo.Point(1, 2);
      assert.deepEqual(Object.keys(p), ['x', 'y']);
      assert.deepEqual(Object.entries(p), [['x', 1], ['y', 2]]);
      assert.deepEqual({ ...p }, { x: 1, y: 2 });
      // Nothing else changes: printing, JSON, methods, what passes to native functions.
      assert.equal(inspect(p), 'Point { x: 1, y: 2 }');
      assert.equal(JSON.stringify(p), '{"x":1,"y":2}');
      assert.equal(p.translate(1, 1).x, 2);
      assert.equal(p.distance(new demo.Point(4, 6)), 5);
      // Subclasses inherit the setting (their fields after their bases'), and objects that
      // functions return get their fields too.
      assert.deepEqual(Object.keys(new demo.Point3D(1, 2, 3)), ['x', 'y', 'z']);
      const square = demo.Shape2D.square(1);
      assert.deepEqual({ ...square.vertices[2] }, { x: 1, y: 1 });
      assert.deepEqual(Object.keys(square), []);
      // Each own field is the prototype's accessor, so every point keeps one shape.
      const q = demo.Point.origin();
      assert.deepEqual(Object.getOwnPropertyDescriptor(q, 'x').get, Object.getOwnPropertyDescriptor(demo.Point.prototype, 'x').get);
    } finally {
      ffi.setOwnFields(demo.Point, false);
    }
    assert.deepEqual(Object.keys(new demo.Point(1, 2)), []);

    // Writable fields stay writable (and checked); read-only ones stay read-only.
    ffi.setOwnFields(demo.Counter);
    try {
      const c = new demo.Counter('clicks', 2, 1);
      assert.deepEqual(Object.keys(c), ['label', 'count', 'step']);
      c.count = 7;
      assert.equal(c.count, 7);
      assert.deepEqual({ ...c }, { label: 'clicks', count: 7, step: 1 });
      assert.throws(() => {
        c.count = 'seven';
      }, /count: expected an integer/);
      assert.throws(() => {
        c.label = 'other';
      }, TypeError);
      assert.equal(c.label, 'clicks');
    } finally {
      ffi.setOwnFields(demo.Counter, false);
    }

    // `ffi.Object`: every type, including types defined in JavaScript, but for classes with a
    // setting of their own (the nearest class with one decides).
    ffi.setOwnFields(ffi.Object);
    try {
      assert.deepEqual({ ...new testing.TestIntPair(3, 4) }, { a: 3, b: 4 });
      assert.deepEqual(Object.keys(new demo.Counter('c', 1, 1)), []);
      assert.deepEqual({ ...new Pair({ first: 1, second: 'b' }) }, { first: 1, second: 'b' });
    } finally {
      ffi.setOwnFields(ffi.Object, false);
    }
    assert.deepEqual(Object.keys(new testing.TestIntPair(3, 4)), []);

    assert.throws(() => ffi.setOwnFields({}), /setOwnFields\(Class, enabled\): Class must be ffi.Object or a registered class/);
    assert.throws(() => ffi.setOwnFields(class Plain {}), TypeError);
  });
});

test('Object.keys: objects of types without a class list the fields the runtime reflects', () => {
  // A process with the support package but no generated package: the objects are `ffi.Object`s.
  const code = `
    const fs = require('node:fs');
    const path = require('node:path');
    const ffi = require('@ffihub/tvm-ffi');
    const dirs = (process.env.FFIHUB_LIBRARY_PATH ?? '').split(path.delimiter).filter(Boolean);
    const dir = dirs.find((d) => fs.existsSync(path.join(d, 'libtvm_ffi_testing.so')));
    ffi.loadLibrary(path.join(dir, 'libtvm_ffi_testing.so'));
    const make = ffi.requireGlobal('testing.make_unregistered_object');
    const before = make();
    ffi.setOwnFields(ffi.Object);
    const o = make();
    console.log(JSON.stringify({
      base: Object.getPrototypeOf(o) === ffi.Object.prototype,
      before: Object.keys(before),
      keys: Object.keys(o),
      spread: { ...o },
      json: o.toJSON(),
    }));
  `;
  const run = spawnSync(process.execPath, ['-e', code], {
    encoding: 'utf8',
    timeout: 60_000,
    env: process.env,
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  assert.equal(run.status, 0, run.stderr);
  const seen = JSON.parse(run.stdout);
  assert.equal(seen.base, true);
  assert.deepEqual(seen.before, []);
  assert.ok(seen.keys.includes('v1'), run.stdout);
  assert.deepEqual(seen.spread, seen.json);
  assert.deepEqual(Object.keys(seen.spread), seen.keys);
});

test("toString(): a type's `to_string` method, else ffi.ReprPrint", async () => {
  await withoutLeaks(assert, () => {
    const c = new demo.Counter('clicks', 2, 1);
    assert.equal(c.toString(), 'Counter(clicks: 2)');
    assert.equal(String(c), 'Counter(clicks: 2)');
    assert.equal(`${c}`, 'Counter(clicks: 2)');
    c.increment();
    assert.equal(String(c), 'Counter(clicks: 3)');
    // No `to_string`: the runtime's text.
    assert.equal(String(new demo.Point(1, 2)), 'demo.Point(x=1, y=2)');
    // util.inspect still shows the fields.
    assert.equal(inspect(c), "Counter { label: 'clicks', count: 3, step: 1 }");
  });
});

test('library errors: the stack has the library frames by file name, then the JavaScript frames', async () => {
  await withoutLeaks(assert, () => {
    assert.throws(
      () => demo.checkedSqrt(-1),
      (e) => {
        assert.ok(e instanceof ffi.ValueError);
        assert.equal(e.message, 'cannot take the square root of -1');
        const lines = e.stack.split('\n').slice(1);
        const firstJs = lines.findIndex((l) => /\.m?js:\d+/.test(l));
        assert.ok(firstJs >= 0, e.stack);
        const native = lines.slice(0, firstJs);
        // The native frames name their files without the folders of the machine that built
        // them, and stop where the call from JavaScript begins (no addon or V8 frames).
        for (const line of native) {
          assert.doesNotMatch(line, /[(/]\//, e.stack);
          assert.doesNotMatch(line, /ffihub_node::|v8::|Builtins_/, e.stack);
        }
        assert.match(lines[firstJs], /checkedSqrt/);
        // The whole native backtrace stays available.
        assert.match(e.backtrace, /errors\.rs/);
        return true;
      },
    );
  });
});
