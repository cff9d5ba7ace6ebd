// Classes of the generated packages: constructors from __ffi_init__, field getters and
// setters, methods, static methods, inheritance and downcasts, printing, disposal.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ffi, demo, testing } from './helpers.mjs';

test('constructors, fields and methods', () => {
  const p = new demo.Point(3, 4);
  assert.ok(p instanceof demo.Point);
  assert.ok(p instanceof ffi.Object);
  assert.equal(p.typeKey, 'demo.Point');
  assert.equal(p.x, 3);
  assert.equal(p.y, 4);
  assert.equal(p.norm(), 5);
  const q = p.translate(1, -1);
  assert.ok(q instanceof demo.Point);
  assert.deepEqual([q.x, q.y], [4, 3]);
  assert.equal(demo.Point.origin().norm(), 0);
});

test('read-only fields cannot be written', () => {
  const p = new demo.Point(1, 2);
  assert.throws(() => {
    p.x = 5;
  }, TypeError);
  assert.throws(() => ffi.setField(p, 'x', 5), /read-only/);
  assert.equal(p.x, 1);
  assert.throws(() => ffi.getField(p, 'nope'), /no field/);
});

test('writable fields', () => {
  const c = new demo.Counter('clicks', 5, 2);
  assert.equal(c.label, 'clicks');
  assert.equal(c.count, 5);
  assert.equal(c.increment(), 7);
  c.step = 10;
  assert.equal(c.increment(), 17);
  c.count = 0;
  assert.equal(c.add(3), 3);
  assert.equal(c.describe(), 'clicks: 3');
  c.reset();
  assert.equal(c.count, 0);
  assert.throws(() => {
    c.count = 'many';
  }, ffi.TypeError);
  const s = demo.Counter.withStep('s', 4);
  assert.ok(s instanceof demo.Counter);
  assert.equal(s.step, 4);
});

test('constructor defaults: trailing arguments may be left out', () => {
  const c = new demo.Counter('defaults');
  assert.equal(c.count, 0);
  assert.equal(c.step, 1);
  const p = new demo.Point3D(1, 2);
  assert.equal(p.z, 0);
  const s = new demo.Shape2D('tri', [new demo.Point(0, 0), new demo.Point(1, 0), new demo.Point(0, 1)]);
  assert.equal(s.color, null);
  assert.equal(s.area(), 0.5);
});

test('inheritance: fields and methods of the base, overrides, downcasts', () => {
  const p3 = new demo.Point3D(1, 2, 2);
  assert.ok(p3 instanceof demo.Point3D);
  assert.ok(p3 instanceof demo.Point);
  assert.deepEqual([p3.x, p3.y, p3.z], [1, 2, 2]);
  assert.equal(p3.norm(), 3);
  // methods bind to the class that registered them: Point's norm ignores z
  assert.equal(demo.Point.prototype.norm.call(p3), Math.hypot(1, 2));
  const flat = p3.to2d();
  assert.equal(flat.constructor, demo.Point);
  assert.equal(p3.distance(new demo.Point(1, 2)), 0);
  assert.equal(new demo.Point(0, 0).distance(p3), Math.hypot(1, 2));
  // a Point3D returned where a Point (or Any) is declared is still a Point3D
  const back = demo.echoAny(p3);
  assert.ok(back instanceof demo.Point3D);
  assert.ok(back.same(p3));
  const inArray = demo.reverseArray([p3]);
  assert.ok(inArray[0] instanceof demo.Point3D);
});

test('objects with container, optional and value fields', () => {
  const sq = demo.Shape2D.square(2);
  assert.equal(sq.name, 'square');
  assert.equal(sq.numVertices(), 4);
  assert.equal(sq.area(), 4);
  assert.equal(sq.perimeter(), 8);
  assert.ok(sq.vertices instanceof ffi.Array);
  assert.ok(sq.vertices[2] instanceof demo.Point);
  assert.ok(sq.tags instanceof ffi.Map);
  sq.tags = { kind: 'regular', sides: 'four' };
  assert.equal(sq.tags.get('kind'), 'regular');
  sq.tags = new Map([['a', 'b']]);
  assert.deepEqual(sq.tags.toObject(), { a: 'b' });
  assert.throws(() => demo.Shape2D.square(-1), ffi.ValueError);
  const colored = new demo.Shape2D('line', [new demo.Point(0, 0)], 'red');
  assert.equal(colored.color, 'red');

  const spec = new demo.TensorSpec('float32', 'cuda:1', [2, 3], 'weights');
  assert.ok(spec.dtype instanceof ffi.DataType);
  assert.equal(String(spec.dtype), 'float32');
  assert.equal(String(spec.device), 'cuda:1');
  assert.ok(spec.shape instanceof ffi.Shape);
  assert.deepEqual(spec.shape.toArray(), [2, 3]);
  assert.equal(spec.label, 'weights');
  assert.equal(spec.numel(), 6);
  assert.equal(spec.nbytes(), 24);
  assert.equal(new demo.TensorSpec(ffi.dtype('int8'), ffi.device('cpu'), ffi.shape([4])).label, null);
});

test('objects: String() is ReprPrint, util.inspect shows the class and its fields', async () => {
  const p = new demo.Point(1, 2);
  assert.equal(String(p), 'demo.Point(x=1, y=2)');
  const { inspect } = await import('node:util');
  assert.equal(inspect(p), 'Point { x: 1, y: 2 }');
});

test('dispose() during a synchronous call that borrows the object releases it when the call ends', () => {
  const p = new demo.Point(1, 2);
  const keep = demo.reverseArray([p]);
  assert.equal(ffi.refCount(p), 2);
  // testing.apply(f, p) borrows p for the call and calls f(p), whose argument is p's own
  // wrapper (handed out a second time); f disposes both hand-outs.
  const during = testing.apply((q) => {
    assert.equal(q, p);
    q.dispose();
    assert.equal(p.x, 1, 'one hand-out is left');
    p.dispose();
    assert.throws(() => p.x, /disposed/);
    const element = keep.at(0);
    assert.notEqual(element, p, 'a disposed wrapper is not handed out again');
    const count = ffi.refCount(element);
    element.dispose();
    return count;
  }, p);
  assert.equal(during, 3, "p's reference is held while the call runs");
  const element = keep.at(0);
  assert.equal(ffi.refCount(element), 2, 'released when the call ended');
  element.dispose();
  keep.dispose();
});

test('dispose releases the object now; the wrapper is unusable after', () => {
  const p = new demo.Point(1, 1);
  assert.equal(ffi.refCount(p), 1);
  const again = demo.echoAny(p);
  assert.equal(again, p, 'the same wrapper, handed out twice');
  assert.equal(ffi.refCount(p), 1);
  again.dispose();
  assert.equal(p.x, 1, 'one hand-out left');
  p.dispose();
  p.dispose();
  assert.throws(() => p.norm(), /disposed/);
  assert.throws(() => p.x, /disposed/);
  assert.equal(String(p), '<disposed Point>');
  {
    const q = new demo.Point(2, 2);
    q[Symbol.dispose]();
    assert.throws(() => q.norm(), /disposed/);
  }
  {
    // each hand-out disposed once (`using`): balanced
    const r = new demo.Point(3, 3);
    const s = demo.echoAny(r);
    assert.equal(s.x, 3);
    s[Symbol.dispose]();
    assert.equal(r.x, 3);
    r.dispose();
    assert.throws(() => r.x, /disposed/);
  }
});

test('field getters check their receiver', () => {
  const getX = Object.getOwnPropertyDescriptor(demo.Point.prototype, 'x').get;
  // a subclass's instance, made by a constructor or returned by a function, reads the field
  const p3 = new demo.Point3D(7, 8, 9);
  assert.equal(getX.call(p3), 7);
  assert.equal(getX.call(demo.echoAny(p3)), 7);
  // anything else is refused, never read
  assert.throws(() => getX.call(new demo.Counter('c', 1, 1)), /not an object of the field's class/);
  assert.throws(() => getX.call({}), /not a TVM-FFI object/);
  assert.throws(() => getX.call(Object.create(demo.Point.prototype)), /not a TVM-FFI object/);
  assert.throws(() => getX.call(undefined), /not a TVM-FFI object/);
  // the memory readers take handles from cannot be redirected
  assert.throws(() => ffi._native.setFieldScratch(new Float64Array(2)), /already set/);
  // nor can native readers be made for other code (they would read whatever cell is there)
  const pointIndex = ffi._native.typeIndex('demo.Point');
  assert.throws(() => ffi._native.fieldGetters(pointIndex, ['x']), /needs the field scratch/);
  assert.throws(() => ffi._native.fieldGetters(pointIndex, ['x'], new Float64Array(2)), /needs the field scratch/);
  // nor can the hook that hands the addon cell addresses be replaced by a forging one
  assert.throws(() => ffi._native.init({ cellOf: () => 4096 }), /already initialized/);
  assert.equal(getX.call(demo.echoAny(new demo.Point(5, 6))), 5);
  // reads of one object in a row, then of others, each read its own receiver
  const [a, b] = [new demo.Point(1, 2), new demo.Point(3, 4)];
  assert.deepEqual([a.x, a.x, a.y, b.x, a.x, b.y, b.y], [1, 1, 2, 3, 1, 4, 4]);
  b.dispose();
  assert.throws(() => b.x, /disposed/);
  assert.equal(a.x, 1);
  // numbers come back exactly, also when only their sign or NaN-ness changes between reads
  const z = new demo.Point(0, -0);
  assert.ok(Object.is(z.x, 0) && Object.is(z.y, -0) && Object.is(z.x, 0));
  assert.ok(Number.isNaN(new demo.Point(NaN, 0).x) && Object.is(z.x, 0));
  // ffi.dispose releases through the same path as dispose()
  const p = new demo.Point(1, 2);
  ffi.dispose(p);
  assert.throws(() => p.x, /disposed/);
  // fields of every kind come back through the readers
  const c = new demo.Counter('clicks', 5, 2);
  assert.deepEqual([c.label, c.count, c.step], ['clicks', 5, 2]);
});

test('objects of unregistered types get the nearest registered class', () => {
  const o = testing.makeUnregisteredObject();
  assert.ok(o instanceof ffi.Object);
  assert.ok(o instanceof testing.TestUnregisteredBaseObject, o.typeKey);
  // the callee sees the wrapper's reference: arguments of synchronous calls are borrowed
  assert.equal(testing.objectUseCount(o), ffi.refCount(o));
});

test('classes without __ffi_init__ cannot be constructed from JavaScript', () => {
  assert.throws(() => new ffi.Object(), /no constructor/);
});
