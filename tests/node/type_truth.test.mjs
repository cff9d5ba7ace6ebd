// The checks of type_truth.mjs, which the suites run on every value the packages return when
// FFIHUB_TYPE_TRUTH is set (main.rs sets it): they accept values of the declared types and find
// values of other types, down to the elements of containers.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ffi, demo, testing, packagesDir } from './helpers.mjs';
import { declaredTypes, checkOf, walk, constructedFromDefaults } from './type_truth.mjs';

const declared = declaredTypes(path.join(packagesDir, 'demo'));
const check = (key, value) => checkOf(declared[key].type, demo)(value);

test('declared types come from index.d.ts: functions, fields, methods, static methods', () => {
  assert.equal(declared['fn addOne'].text, 'number');
  assert.equal(declared['fn makeRange'].text, 'FFIArray<number>');
  assert.equal(declared['get Shape2D#vertices'].text, 'FFIArray<Point>');
  assert.equal(declared['method Counter#toString'].text, 'string');
  assert.equal(declared['static Point.origin'].text, 'Point');
  assert.equal(declared['fn echoOptionalInt'].text, 'number | null');
  // Packed functions return `unknown`: nothing to check.
  assert.equal(declared['fn packedSum'], undefined);
});

test('values of the declared types pass', () => {
  assert.equal(check('fn addOne', 5), null);
  assert.equal(check('fn makeRange', demo.makeRange(3)), null);
  assert.equal(check('fn echoOptionalInt', null), null);
  assert.equal(check('static Point.origin', new demo.Point3D(1, 2, 3)), null); // a subclass
  assert.equal(check('fn makeMultiplier', demo.makeMultiplier(2)), null);
  assert.equal(check('fn wordLengths', demo.wordLengths(['a'])), null);
});

test('values of other types are found, with what is wrong', () => {
  assert.equal(check('fn addOne', '5'), 'string 5 is not number');
  assert.equal(check('fn addOne', 5n), 'bigint 5 is not number');
  assert.equal(check('fn echoOptionalInt', undefined), 'undefined undefined is not number | null');
  assert.equal(check('fn makeRange', [0, 1]), 'an instance of Array is not FFIArray<number>');
  assert.equal(check('fn makeRange', ffi.array([0, 'one'])), 'element 1: string one is not number');
  assert.equal(check('static Point.origin', new demo.Counter('c')), 'an instance of Counter is not Point');
  assert.equal(check('fn makeMultiplier', (x) => x), 'an instance of Function is not FunctionMethods');
  assert.equal(check('fn wordLengths', ffi.map({ a: 'x' })), 'entry 0: string x is not number');
});

// With FFIHUB_TYPE_TRUTH set, the values read here are checked too: beyond what the other
// suites read, every field of the objects each class constructs from its defaults, and of the
// objects typed functions return.
test('fields of the objects the classes construct from defaults', () => {
  const seen = [];
  for (const pkg of [demo, testing]) {
    for (const object of constructedFromDefaults(pkg)) walk(object, 3, seen);
  }
  const all = testing.SchemaAllTypes.makeWith(1, 2.5, 'text');
  walk(all, 3, seen);
  all.addInt(1);
  all.appendInt([1], 2);
  all.maybeConcat('a', null);
  all.mergeMap({ a: [1] }, { b: [2] });
  walk(new demo.TensorSpec('float32', 'cpu', [2, 3]), 3, seen);
  walk(demo.Shape2D.square(2), 3, seen);
  assert.ok(seen.length >= 5, `${seen.length} objects read`);
});
