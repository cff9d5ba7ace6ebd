// Object types defined in JavaScript (`ffi.defineClass`): created, read and written from
// JavaScript; passed to C++ code built against Apache's headers (tests/c/reflect_probe.cc, which
// reaches them only through reflection: it reads every field, calls methods and returns modified
// copies); printed by ffi.ReprPrint, compared and hashed structurally, round-tripped through JSON
// graphs, deep-copied; derived from (a defined type, and the generated C++ class
// testing.TestObjectBase); released under forced GC; and the errors of bad input.
import test from 'node:test';
import assert from 'node:assert/strict';
import util from 'node:util';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ffi, testing, settle, withoutLeaks, packagesDir, require, root } from './helpers.mjs';

ffi.loadLibrary(process.env.FFIHUB_REFLECT_PROBE);
const describe = ffi.requireGlobal('reflect_probe.describe');
const callMethod = ffi.requireGlobal('reflect_probe.call_method');
const withField = ffi.requireGlobal('reflect_probe.with_field');
const reprPrint = ffi.requireGlobal('ffi.ReprPrint');
const structuralEqual = ffi.requireGlobal('ffi.StructuralEqual');
const structuralHash = ffi.requireGlobal('ffi.StructuralHash');
const toJSONGraph = ffi.requireGlobal('ffi.ToJSONGraphString');
const fromJSONGraph = ffi.requireGlobal('ffi.FromJSONGraphString');
const deepCopy = ffi.requireGlobal('ffi.DeepCopy');
const useCount = ffi.requireGlobal('testing.object_use_count');

const Point = ffi.defineClass('define_test_js.Point', {
  fields: { x: 'int', y: { type: 'int', default: 0 } },
  readonly: true,
});

const Shape = ffi.defineClass('define_test_js.Shape', {
  fields: {
    corners: { type: 'int', doc: 'how many corners' },
    scale: { type: 'float', default: 1 },
    name: 'str',
    points: ffi.types.array(Point),
    origin: Point,
    parent: { type: ffi.types.optional('define_test_js.Shape'), default: null },
  },
  methods: {
    area: {
      params: ['float'],
      returns: 'float',
      doc: "The area of the shape's bounding box, times k.",
      fn(k) {
        const xs = this.points.map((p) => p.x);
        const ys = this.points.map((p) => p.y);
        return (Math.max(...xs) - Math.min(...xs)) * (Math.max(...ys) - Math.min(...ys)) * this.scale * k;
      },
    },
    renamed: {
      params: ['str'],
      returns: 'define_test_js.Shape',
      fn(name) {
        return withField(this, 'name', name);
      },
    },
    fails(why) {
      throw new RangeError(`cannot do that: ${why}`);
    },
    unit: {
      static: true,
      params: ['str'],
      returns: 'define_test_js.Shape',
      fn(name) {
        return new this({ corners: 0, name, points: [], origin: new Point({ x: 0 }) });
      },
    },
  },
});

const squarePoints = () => [new Point({ x: 0 }), new Point({ x: 2 }), new Point({ x: 2, y: 2 }), new Point({ x: 0, y: 2 })];
const makeSquare = (name = 'square') =>
  new Shape({ corners: 4, name, points: squarePoints(), origin: new Point({ x: 1, y: 1 }) });
const POINTS =
  'define_test_js.Point(x=0, y=0), define_test_js.Point(x=2, y=0), define_test_js.Point(x=2, y=2), define_test_js.Point(x=0, y=2)';

test('create, read and write from JavaScript', () => {
  const s = makeSquare();
  assert.ok(s instanceof Shape && s instanceof ffi.Object);
  assert.equal(s.typeKey, 'define_test_js.Shape');
  assert.equal(Shape.name, 'Shape');
  assert.equal(s.corners, 4);
  assert.equal(s.scale, 1); // the default
  assert.equal(s.name, 'square');
  assert.ok(s.points instanceof ffi.Array);
  assert.equal(s.points.length, 4);
  assert.ok(s.points.at(2) instanceof Point);
  assert.deepEqual([s.points.at(2).x, s.points.at(2).y], [2, 2]);
  assert.equal(s.origin.x, 1);
  assert.equal(s.parent, null);
  s.scale = 3;
  assert.equal(s.scale, 3);
  s.name = 'renamed';
  assert.equal(s.name, 'renamed');
  s.points = [new Point({ x: 5 })]; // a JavaScript array, built as an ffi.Array
  assert.equal(s.points.at(0).x, 5);
  const child = new Shape({ corners: 3, scale: 2, name: 'tri', points: [], origin: new Point({ x: 0 }), parent: s });
  assert.ok(child.parent.same(s));
  child.parent = null;
  assert.equal(child.parent, null);
  const p = new Point({ x: 1 });
  assert.throws(() => {
    p.x = 2; // readonly: no setter
  }, TypeError);
  assert.throws(() => ffi.setField(p, 'x', 2), /read-only/);
  assert.equal(s.area(1), 0); // one point: an empty box
  assert.equal(makeSquare().area(2), 8);
});

test('C++ reads every field through reflection, calls methods, returns a modified copy', () => {
  const s = makeSquare();
  assert.equal(
    describe(s),
    `define_test_js.Shape(corners=4, scale=1, name="square", points=[${POINTS}], ` +
      'origin=define_test_js.Point(x=1, y=1), parent=None)',
  );
  assert.equal(callMethod(s, 'area', 2), 8);
  const r = callMethod(s, 'renamed', 'other');
  assert.ok(r instanceof Shape);
  assert.equal(r.name, 'other');
  assert.equal(s.name, 'square');
  const c = withField(s, 'corners', 5);
  assert.ok(c instanceof Shape);
  assert.equal(c.corners, 5);
  assert.equal(s.corners, 4);
  assert.ok(c.origin.same(s.origin));
});

test('printing, inspect, toJSON, structural equality and hashing, JSON graphs, deep copies', () => {
  const s = makeSquare();
  const printed =
    `define_test_js.Shape(corners=4, scale=1, name="square", points=(${POINTS}), ` +
    'origin=define_test_js.Point(x=1, y=1), parent=None)';
  assert.equal(reprPrint(s), printed);
  assert.equal(String(s), printed);
  // util.inspect shows the class and its fields (no `__ffi_repr__` hook is registered).
  assert.equal(
    util.inspect(s, { breakLength: Infinity }),
    "Shape { corners: 4, scale: 1, name: 'square', points: Array(4) [ Point { x: 0, y: 0 }, " +
      'Point { x: 2, y: 0 }, Point { x: 2, y: 2 }, Point { x: 0, y: 2 } ], origin: Point { x: 1, y: 1 }, ' +
      'parent: null }',
  );
  assert.deepEqual(JSON.parse(JSON.stringify(s)), {
    corners: 4,
    scale: 1,
    name: 'square',
    points: [
      { x: 0, y: 0 },
      { x: 2, y: 0 },
      { x: 2, y: 2 },
      { x: 0, y: 2 },
    ],
    origin: { x: 1, y: 1 },
    parent: null,
  });
  const t = makeSquare();
  assert.ok(!s.same(t));
  assert.equal(structuralEqual(s, t, false, false), true);
  assert.equal(structuralHash(s, false, false), structuralHash(t, false, false));
  const other = makeSquare('other');
  assert.equal(structuralEqual(s, other, false, false), false);
  assert.notEqual(structuralHash(s, false, false), structuralHash(other, false, false));
  const nested = new Shape({ corners: 1, name: 'n', points: [], origin: new Point({ x: 0 }), parent: s });
  const back = fromJSONGraph(toJSONGraph(nested, null));
  assert.ok(back instanceof Shape && !back.same(nested));
  assert.equal(structuralEqual(back, nested, false, false), true);
  assert.equal(back.parent.points.at(1).x, 2);
  const d = deepCopy(nested);
  assert.ok(d instanceof Shape && !d.parent.same(nested.parent));
  d.parent.name = 'changed';
  assert.equal(nested.parent.name, 'square');
});

const Labeled = ffi.defineClass('define_test_js.Labeled', {
  extends: Shape,
  fields: {
    label: { type: 'str', default: 'none' },
    counts: { type: ffi.types.list('int'), default: [] },
  },
  methods: {
    // overrides Shape's area; renamed is inherited
    area: { params: ['float'], returns: 'float', fn: (k) => -k },
  },
});

const Tagged = ffi.defineClass('define_test_js.Tagged', {
  extends: testing.TestObjectBase,
  fields: { tag: 'str', weight: { type: 'float', default: 0.5 } },
});

test('derived types', () => {
  const l = new Labeled({ corners: 4, name: 'l', points: squarePoints(), origin: new Point({ x: 0 }), label: 'L' });
  assert.ok(l instanceof Labeled && l instanceof Shape);
  assert.equal(l.corners, 4);
  assert.equal(l.label, 'L');
  l.counts.push(1); // a List default is made per object
  assert.deepEqual(l.counts.toArray(), [1]);
  assert.equal(new Labeled({ corners: 0, name: '', points: [], origin: new Point({ x: 0 }) }).counts.length, 0);
  assert.equal(callMethod(l, 'area', 2), -2); // the override, found by C++
  assert.equal(callMethod(l, 'renamed', 'r').name, 'r'); // the inherited method
  assert.equal(l.area(2), -2);
  assert.equal(
    describe(l),
    `define_test_js.Labeled(corners=4, scale=1, name="l", points=[${POINTS}], origin=define_test_js.Point(x=0, y=0), ` +
      'parent=None, label="L", counts=List[1])',
  );
  const s = makeSquare();
  s.parent = l; // a Labeled where a Shape is declared
  assert.ok(s.parent instanceof Labeled);

  const t = new Tagged({ v_i64: 40, v_f64: 1.5, v_str: 'cxx', tag: 'js' });
  assert.ok(t instanceof testing.TestObjectBase);
  assert.equal(t.addI64(2), 42); // the C++ method of the C++ parent
  assert.equal(callMethod(t, 'add_i64', 2), 42);
  assert.deepEqual([t.vI64, t.vF64, t.vStr, t.tag, t.weight], [40, 1.5, 'cxx', 'js', 0.5]);
  t.vI64 = 1;
  t.tag = 'changed';
  assert.equal(describe(t), 'define_test_js.Tagged(v_i64=1, v_f64=1.5, v_str="cxx", tag="changed", weight=0.5)');
  assert.equal(structuralEqual(deepCopy(t), t, false, false), true);
  assert.ok(fromJSONGraph(toJSONGraph(t, null)) instanceof Tagged);
});

test('method and field types in the reflection metadata', () => {
  const info = ffi._native.typeInfo('define_test_js.Shape');
  const schema = (metadata) => JSON.parse(JSON.parse(metadata).type_schema);
  assert.deepEqual(
    info.fields.map((f) => schema(f.metadata).type),
    ['int', 'float', 'ffi.String', 'ffi.Array', 'define_test_js.Point', 'Optional'],
  );
  assert.deepEqual(schema(info.fields[3].metadata).args, [{ type: 'define_test_js.Point' }]);
  assert.equal(info.fields[0].doc, 'how many corners');
  const area = info.methods.find((m) => m.name === 'area');
  assert.deepEqual(schema(area.metadata), {
    type: 'ffi.Function',
    named_args: { return: [{ type: 'float' }], params: [{ type: 'define_test_js.Shape' }, { type: 'float' }] },
  });
  assert.equal(area.doc, "The area of the shape's bounding box, times k.");
  const unit = info.methods.find((m) => m.name === 'unit');
  assert.equal(unit.flags & 4, 4); // static
  assert.deepEqual(schema(unit.metadata).named_args.params, [{ type: 'ffi.String' }]);
  const viaReflection = ffi.registerType('define_test_js.Shape', Shape).unit; // the registered function
  assert.ok(viaReflection('u') instanceof Shape && Shape.unit('v').name === 'v');
  const fails = info.methods.find((m) => m.name === 'fails');
  assert.deepEqual(schema(fails.metadata).named_args.params, [{ type: 'define_test_js.Shape' }, { type: 'Any' }]);
  const writable = (key) => ffi._native.typeInfo(key).fields.map((f) => (f.flags & 1) !== 0);
  assert.deepEqual(writable('define_test_js.Shape'), [true, true, true, true, true, true]);
  assert.deepEqual(writable('define_test_js.Point'), [false, false]);
});

test('bad input', () => {
  assert.throws(() => ffi.defineClass('define_test_js.Point', { fields: { x: 'int' } }), {
    message: /the type key define_test_js\.Point is already registered/,
  });
  assert.throws(() => ffi.defineClass('define_test_js.Bad', { fields: { z: 'complex' } }), {
    name: 'TypeError',
    message: /field z of define_test_js\.Bad: "complex" is not a TVM-FFI type/,
  });
  assert.throws(() => ffi.defineClass('define_test_js.Bad', { fields: { dispose: 'int' } }), {
    name: 'TypeError',
    message: /field dispose of define_test_js\.Bad: the name is already a member of Object/,
  });
  assert.throws(() => ffi.defineClass('define_test_js.Bad', { fields: { a: { type: 'int', default: 'one' } } }), {
    message: 'the default of field `a` of define_test_js.Bad expects int, got str',
  });
  assert.throws(() => ffi._native.typeIndex('define_test_js.Bad'), /not registered/); // nothing registered
  const s = makeSquare();
  assert.throws(
    () => {
      s.corners = 'four';
    },
    { name: 'TypeError', message: 'field `corners` of define_test_js.Shape expects int, got str' },
  );
  assert.ok(
    captured(() => {
      s.corners = 'four';
    }) instanceof ffi.TypeError,
  );
  assert.throws(
    () => {
      s.origin = makeSquare();
    },
    { message: 'field `origin` of define_test_js.Shape expects define_test_js.Point, got define_test_js.Shape' },
  );
  assert.throws(
    () => {
      s.points = [new Point({ x: 1 }), 'p'];
    },
    { message: /expects Array\[define_test_js\.Point\], got ffi\.Array \(element 1 is str\)/ },
  );
  assert.throws(() => withField(s, 'name', 3), {
    message: /field `name` of define_test_js\.Shape expects str, got int/,
  }); // a write from C++
  assert.deepEqual([s.corners, s.name], [4, 'square']);
  const thrown = captured(() => callMethod(s, 'fails', 'now')); // a throwing method, called from C++
  assert.ok(thrown instanceof ffi.FFIError);
  assert.match(thrown.message, /cannot do that: now/);
  assert.throws(() => callMethod(s, 'area', 'wide'), {
    message: 'argument 1 of define_test_js.Shape.area expects float, got str',
  });
  assert.throws(() => callMethod(s, 'area'), {
    message: 'define_test_js.Shape.area takes 2 arguments (the object first), got 1',
  });
  assert.throws(() => new Shape({ corners: 4, name: 'no points' }), /points/);
  assert.throws(() => new Shape({ corners: 4, nme: 'typo' }), { name: 'TypeError', message: /has no field nme/ });
  assert.throws(
    () => ffi.defineClass('define_test_js.FromHidden', { extends: testing.TestCxxClassHiddenField, fields: { a: 'int' } }),
    /cannot derive from testing\.TestCxxClassHiddenField/,
  );
});

test('ffihub dump of this process lists the defined types; a package generated from the dump binds them', () => {
  const Item = ffi.defineClass('define_dump_js.Item', {
    fields: { count: 'int', tags: { type: ffi.types.array('str'), default: [] } },
    methods: { twice: { params: [], returns: 'int', fn() { return 2 * this.count; } } },
  });
  ffi.loadLibrary(process.env.FFIHUB_DUMP_LIBRARY);
  const text = ffi.requireGlobal('ffihub.DumpReflection')('define_dump_js.');
  const doc = JSON.parse(text);
  assert.deepEqual(doc.types.map((t) => t.key), ['define_dump_js.Item']);
  const [item] = doc.types;
  assert.deepEqual(item.fields.map((f) => [f.name, f.type.type]), [['count', 'int'], ['tags', 'ffi.Array']]);
  assert.deepEqual(item.methods.map((m) => m.name), ['twice']);
  assert.equal(item.constructor, 'auto_init');
  const file = path.join(packagesDir, 'define-dump-reflection.json');
  writeFileSync(file, text);
  const out = path.join(packagesDir, 'define-dump');
  execFileSync(process.env.FFIHUB_BIN, ['generate', '--lang', 'node', '--name', 'define-dump', '--metadata', file, '--out', out], {
    stdio: 'pipe',
  });
  const generated = require(out);
  const made = new generated.Item(3, ['a']); // the generated constructor, positional
  assert.ok(made instanceof generated.Item);
  assert.deepEqual([made.count, made.tags.toArray(), made.twice()], [3, ['a'], 6]);
  assert.equal(describe(made), 'define_dump_js.Item(count=3, tags=["a"])');
  assert.equal(new Item({ count: 1 }).twice(), 2);
});

test('examples/define_types/shapes.mjs runs and dumps its types', () => {
  const out = path.join(packagesDir, 'shapes-js-reflection.json');
  const example = path.join(root, 'examples/define_types/shapes.mjs');
  const text = execFileSync(process.execPath, [example, out], { encoding: 'utf8' });
  assert.match(text, /area 4,/);
  assert.deepEqual(
    JSON.parse(readFileSync(out, 'utf8')).types.map((t) => t.key),
    ['shapes_js.Point', 'shapes_js.Polygon'],
  );
});

/** The exception `f` throws. */
function captured(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected an exception');
}

test('lifetimes: released under forced GC', async () => {
  const shared = new Point({ x: 7, y: 7 });
  const base = useCount(shared);
  const workload = () => {
    for (let i = 0; i < 200; i++) {
      const s = new Shape({ corners: i, name: `s${i}`, points: [shared, new Point({ x: i })], origin: shared });
      const c = withField(s, 'corners', i + 1);
      const d = fromJSONGraph(toJSONGraph(c, null));
      const l = new Labeled({ corners: i, name: 'l', points: [shared], origin: shared, parent: s });
      l.counts.push(i);
      callMethod(l, 'renamed', 'x');
      deepCopy(l);
      structuralHash(d, false, false);
    }
  };
  workload(); // caches warm
  await withoutLeaks(assert, workload);
  await settle();
  assert.equal(useCount(shared), base); // every object that held it was freed
});
