// Object types defined in JavaScript (examples/define_types/README.md): a polygon type with a
// method, handed to the runtime's own functions as any C++ type would be. Run it with
//
//     TVM_FFI_LIB=target/release/libtvm_ffi.so node examples/define_types/shapes.mjs [reflection.json]
//
// With an argument (and FFIHUB_DUMP_LIBRARY, the path of libffihub_dump.so), it also writes the
// reflection of its types to that file, for `ffihub generate --metadata`.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ffi = require('../../bindings/node'); // or '@ffihub/tvm-ffi' once installed

const Point = ffi.defineClass('shapes_js.Point', {
  fields: { x: 'float', y: { type: 'float', default: 0 } },
  readonly: true,
});

const Polygon = ffi.defineClass('shapes_js.Polygon', {
  fields: {
    name: { type: 'str', doc: "the polygon's name" },
    vertices: ffi.types.array(Point),
    parent: { type: ffi.types.optional('shapes_js.Polygon'), default: null },
  },
  methods: {
    area: {
      returns: 'float',
      doc: "The polygon's area (shoelace formula).",
      fn() {
        const v = this.vertices.toArray();
        let twice = 0;
        v.forEach((p, i) => {
          const q = v[(i + 1) % v.length];
          twice += p.x * q.y - q.x * p.y;
        });
        return Math.abs(twice) / 2;
      },
    },
  },
});

const square = new Polygon({
  name: 'square',
  vertices: [new Point({ x: 0 }), new Point({ x: 2 }), new Point({ x: 2, y: 2 }), new Point({ x: 0, y: 2 })],
});
console.log(String(square)); // printed by ffi.ReprPrint
assert.equal(square.area(), 4);
square.name = 'renamed'; // checked: square.name = 1 throws an ffi.TypeError
assert.equal(square.name, 'renamed');
console.log(JSON.stringify(square));

const graph = ffi.requireGlobal('ffi.ToJSONGraphString')(square, null);
const back = ffi.requireGlobal('ffi.FromJSONGraphString')(graph);
const equal = ffi.requireGlobal('ffi.StructuralEqual');
assert.ok(back instanceof Polygon && !back.same(square) && equal(back, square, false, false));
assert.ok(equal(ffi.requireGlobal('ffi.DeepCopy')(square), square, false, false));
console.log(`area ${back.area()}, JSON graph of ${graph.length} bytes`);

const output = process.argv[2];
if (output) {
  ffi.loadLibrary(process.env.FFIHUB_DUMP_LIBRARY);
  writeFileSync(output, ffi.requireGlobal('ffihub.DumpReflection')('shapes_js.'));
  console.log(`wrote the reflection of shapes_js.* to ${output}`);
}
