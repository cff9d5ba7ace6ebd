// Type-checked (never run) use of the generated packages: `tsc --strict --noEmit` must accept
// every line, and reject each line marked @ts-expect-error.
import * as ffi from '@ffihub/tvm-ffi';
import * as demo from 'ffihub-demo';
import * as testing from 'ffihub-testing';

// Functions: typed parameters and results.
const n: number = demo.addOne(41);
const big: number = demo.echoInt(2n ** 60n);
const s: string = demo.concat('a', 'b');
const greeting: string = demo.greet();
const maybe: number | null = demo.safeDivide(1, 0);
const bytes: Uint8Array = demo.echoBytes(new Uint8Array([1, 2]));
const dt: ffi.DataType = demo.echoDtype('float32');
const dev: ffi.Device = demo.echoDevice(ffi.device('cuda:0'));
const packed: unknown = demo.packedSum(1, 2, 3);

// Containers in and out.
const total: number = demo.sumArray([1, 2, 3]);
const range: ffi.Array<number> = demo.makeRange(3);
const first: number = range[0]; // indexed like a JavaScript array
const fromIter: number[] = [...range];
const lengths: ffi.Map<string, number> = demo.wordLengths(['a']);
const one: number | undefined = lengths.get('a');
const viaMap: number = demo.mapGet(new Map([['a', 1]]), 'a');
const viaObject: number = demo.mapGet({ a: 1 }, 'a');
const nested = demo.makeNested(2);
const inner: ffi.Array<number> | undefined = nested.at(0)?.get('range');
const shape: ffi.Shape = demo.makeShape([2, 3]);
const numel: number = demo.shapeNumel([2, 3]);
const list: ffi.List<number> = testing.schemaIdListInt([1, 2]);
list.push(3);

// Callbacks and closures.
const twice: number = demo.applyTwice((x) => x + 1, 1);
const mult: ffi.Function<(arg0: number) => number> = demo.makeMultiplier(2);
const six: number = mult(3);
mult.dispose();
const mapped: ffi.Array<unknown> = demo.mapArray((v) => v, [1, 'a']);

// Tensors.
demo.addOneInplace(new Float32Array(4));
const t: ffi.Tensor = demo.arange(4);
const view: ffi.TypedArray = t.data;
const sum: number = demo.tensorSum(ffi.tensor(new Float32Array(6), { shape: [2, 3] }));

// Classes: constructors, fields, setters, methods, statics, inheritance.
const p = new demo.Point(1, 2);
const x: number = p.x;
const moved: demo.Point = p.translate(1, 1);
const p3 = new demo.Point3D(1, 2, 3);
const asBase: demo.Point = p3;
const dist: number = p.distance(p3);
const c = new demo.Counter('c', 0, 1);
c.count = 5;
c.step = 2n;
const described: string = c.describe();
const text: string = c.toString(); // its `to_string` method
const fields: object = p.toJSON();
const origin: demo.Point = demo.Point.origin();
const square: demo.Shape2D = demo.Shape2D.square(2);
square.tags = { a: 'b' };
const vertices: ffi.Array<demo.Point> = square.vertices;
const spec = new demo.TensorSpec('float32', 'cpu', [2, 3], null);
const label: string | null = spec.label;
const kw = new testing.TestCxxKwOnly({ x: 1, y: 2, z: 3 });
const auto = new testing.TestCxxAutoInit(1, undefined, { c: 3 });
const holder = new testing.TestObjectPtrHolder(new testing.TestObjectBase());
holder.optionalValue = null;
{
  using disposable = new demo.Point(0, 0);
  void disposable.norm();
}
p.dispose();

// Errors.
try {
  demo.checkedSqrt(-1);
} catch (e) {
  if (e instanceof ffi.ValueError) {
    const kind: string = e.kind;
    const trace: string = e.backtrace;
    void kind;
    void trace;
  }
}

// Negative cases: each must be a type error.
// @ts-expect-error wrong argument type
demo.addOne('one');
// Object types defined in JavaScript: the declarations type the class.
const DPoint = ffi.defineClass('usage.Point', { fields: { x: 'int', y: { type: 'int', default: 0 } }, readonly: true });
const DShape = ffi.defineClass('usage.Shape', {
  fields: {
    name: 'str',
    scale: { type: 'float', default: 1 },
    points: ffi.types.array(DPoint),
    tags: { type: ffi.types.list('str'), default: [] },
    parent: { type: ffi.types.optional('usage.Shape'), default: null },
  },
  methods: {
    scaled: {
      params: ['float'],
      returns: 'float',
      fn(k: number): number {
        return this.scale * k;
      },
    },
    describe(): string {
      return this.name;
    },
    make: { static: true, fn: (name: string) => name },
  },
});
const dshape = new DShape({ name: 'n', points: [new DPoint({ x: 1 })] });
const dname: string = dshape.name;
const dscale: number = dshape.scale;
const dpoints: ffi.Array<InstanceType<typeof DPoint>> = dshape.points;
const dfirst: number | undefined = dpoints.at(0)?.x;
const dtags: ffi.List<string> = dshape.tags;
const dparent: ffi.Object | null = dshape.parent;
const dscaled: number = dshape.scaled(2);
const ddescribed: string = dshape.describe();
const dmade: string = DShape.make('m');
dshape.scale = 2;
const dLabeled = ffi.defineClass('usage.Labeled', { extends: DShape, fields: { label: 'str' } });
const dlabeled = new dLabeled({ name: 'l', points: [], label: 'x' });
const dlabel: string = dlabeled.label;
const dinherited: number = dlabeled.scaled(1);
const djson: unknown = dlabeled.toJSON().label;
// @ts-expect-error a required field is missing
new DShape({ name: 'n' });
// @ts-expect-error a field of the wrong type
new DShape({ name: 1, points: [] });
// @ts-expect-error readonly fields
new DPoint({ x: 1 }).x = 2;
// @ts-expect-error a field of the wrong type
dshape.scale = 'big';
// @ts-expect-error the parent's required fields too
new dLabeled({ label: 'x' });
// @ts-expect-error container types come from ffi.types
ffi.defineClass('usage.Bad', { fields: { xs: { kind: 'array', args: ['int'] } } });

// @ts-expect-error missing argument
demo.concat('a');
// @ts-expect-error too many arguments
demo.addOne(1, 2);
// @ts-expect-error wrong field type
c.count = 'many';
// @ts-expect-error read-only field
p.x = 3;
// @ts-expect-error wrong constructor argument type
new demo.Point('1', 2);
// @ts-expect-error missing constructor argument
new demo.Point(1);
// @ts-expect-error the options object of keyword-only parameters is required
new testing.TestCxxKwOnly();
// @ts-expect-error wrong callback parameter use
demo.applyTwice((x: string) => x, 1);
// @ts-expect-error the result is a number, not a string
const wrongResult: string = demo.addOne(1);
// @ts-expect-error no such function
demo.addTwo(1);
// @ts-expect-error no such method
p.scale(2);
// @ts-expect-error not constructible: created by native code only
new testing.TestCxxNoAutoInit();
// @ts-expect-error wrong element type
demo.sumArray(['a']);
// @ts-expect-error tensors need a TypedArray or an ffi.Tensor
demo.tensorSum([1, 2, 3]);

void [n, big, s, greeting, maybe, bytes, dt, dev, packed, total, first, fromIter, one, viaMap, viaObject, inner, shape, numel, twice, six, mapped, view, sum, x, moved, asBase, dist, described, text, fields, origin, vertices, label, kw, auto, wrongResult, dname, dscale, dfirst, dtags, dparent, dscaled, ddescribed, dmade, dlabel, dinherited, djson];
