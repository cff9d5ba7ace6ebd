// JavaScript's protocols mapped onto TVM-FFI values: util.inspect (console.log) shows objects
// with their fields and containers like JavaScript's own, JSON.stringify writes fields and
// elements, a `to_string` method is `toString()`; library errors carry no folders of the
// machine that built the libraries in their stacks.
import test from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
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
