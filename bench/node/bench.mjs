// Per-call cost of generated Node wrappers, side by side with bare Node-API functions, in one
// process (rounds are interleaved and the best round of each case is kept: the machine is
// shared and noisy). Run it with bench/node/run.sh, which builds what it needs and runs it on
// ffihub's runtime and on Apache's.
//
//   no-op:     testing.nop()            generated wrapper -> addon -> TVMFFIFunctionCall
//              benchNoop()              a bare Node-API function that does nothing
//   3 numbers: testing.nop(i, 2.5, 3)   the same with three number arguments
//              benchAdd3(i, 2.5, 3)     a bare Node-API function reading three numbers
//   typed:     demo.addOne(i)           a typed Rust function (int) -> int
//   floor:     the TVM-FFI call alone (a Rust loop calling testing.nop), for reference
//   field:     p.x on a demo.Point              vs the bare Node-API no-op
//   creation:  new demo.Point(i, 2)             (target: at most 300 ns)
//   own fields: new demo.Point3D(i, 2, 3) with ffi.setOwnFields(demo.Point3D) vs without (the
//              price of the opt-in: Object.defineProperty per field)
//   array:     demo.sumArray(1e6 numbers)       vs the same call with the ffi.Array built in
//                                               Rust (benchArrayFloor), per element
//   objects:   demo.isNone(p) (an object argument) and p.norm() (a method: the receiver is one)
//              vs demo.isNone(i); demo.echoAny(p) (an object result JavaScript holds) vs
//              demo.echoAny(i)
//   tensors:   demo.tensorSum(a), a Float32Array(16) made into a tensor for the call, vs
//              demo.tensorSum(t) with t = ffi.tensor(a) made once
//
// Targets: the generated no-op wrapper and a field read cost at most 2x the bare Node-API
// no-op; creating an object at most 300 ns; an array at most 5x the floor per element; an object
// argument or a method call at most 1.5x the integer call, an object result at most 3x; a
// TypedArray at most 300 ns over the tensor made once.
// BENCH_ROWS=1 prints bench/run.sh table rows instead.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const packages = path.resolve(process.env.FFIHUB_NODE_PACKAGES ?? 'target/generated/node');
const ffi = require('@ffihub/tvm-ffi');
const testing = require(path.join(packages, 'testing'));
const demo = require(path.join(packages, 'demo'));
const { benchNoop, benchAdd3, benchCallLoop, benchArrayFloor } = ffi._native;

const N = Number(process.env.BENCH_CALLS ?? 2_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);

const cases = {
  'bare N-API no-op': () => {
    for (let i = 0; i < N; i++) benchNoop();
  },
  'generated no-op (testing.nop)': () => {
    for (let i = 0; i < N; i++) testing.nop();
  },
  'bare N-API, 3 numbers': () => {
    let acc = 0;
    for (let i = 0; i < N; i++) acc += benchAdd3(i, 2.5, 3);
    return acc;
  },
  'generated, 3 numbers (testing.nop)': () => {
    for (let i = 0; i < N; i++) testing.nop(i, 2.5, 3);
  },
  'generated typed (demo.addOne)': () => {
    let acc = 0;
    for (let i = 0; i < N; i++) acc += demo.addOne(i);
    return acc;
  },
  'integer argument (demo.isNone(i))': () => {
    let n = 0;
    for (let i = 0; i < N; i++) if (demo.isNone(i)) n++;
    return n;
  },
  'object argument (demo.isNone(p))': () => {
    let n = 0;
    for (let i = 0; i < N; i++) if (demo.isNone(point)) n++;
    return n;
  },
  'method call (p.norm())': () => {
    let acc = 0;
    for (let i = 0; i < N; i++) acc += point.norm();
    return acc;
  },
  'integer result (demo.echoAny(i))': () => {
    let acc = 0;
    for (let i = 0; i < N; i++) acc += demo.echoAny(i);
    return acc;
  },
  'object result (demo.echoAny(p))': () => {
    let last = null;
    for (let i = 0; i < N; i++) last = demo.echoAny(point);
    return last;
  },
  'typed array as a tensor (demo.tensorSum(f32))': () => {
    let acc = 0;
    for (let i = 0; i < N / 10; i++) acc += demo.tensorSum(floats);
    return acc;
  },
  'tensor argument made once (demo.tensorSum(t))': () => {
    let acc = 0;
    for (let i = 0; i < N / 10; i++) acc += demo.tensorSum(floatTensor);
    return acc;
  },
  'field read (p.x)': () => {
    let acc = 0;
    for (let i = 0; i < N; i++) acc += point.x;
    return acc;
  },
  'object creation (new demo.Point)': () => {
    let last = null;
    for (let i = 0; i < N; i++) last = new demo.Point(i, 2);
    return last;
  },
  'object creation (new demo.Point3D)': () => {
    let last = null;
    for (let i = 0; i < N; i++) last = new demo.Point3D(i, 2, 3);
    return last;
  },
  'object creation, own fields (new demo.Point3D)': () => {
    ffi.setOwnFields(demo.Point3D);
    let last = null;
    for (let i = 0; i < N; i++) last = new demo.Point3D(i, 2, 3);
    ffi.setOwnFields(demo.Point3D, false);
    return last;
  },
};
const point = new demo.Point(3, 4);
const floats = new Float32Array(16);
const floatTensor = ffi.tensor(floats);

const best = Object.fromEntries(Object.keys(cases).map((k) => [k, Infinity]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const t0 = process.hrtime.bigint();
    run();
    const calls = name.includes('tensor') ? N / 10 : N;
    best[name] = Math.min(best[name], Number(process.hrtime.bigint() - t0) / calls);
  }
}
const nopFn = ffi.requireGlobal('testing.nop');
let floor = Infinity;
for (let round = 0; round < ROUNDS; round++) floor = Math.min(floor, benchCallLoop(nopFn, N));

// Arrays: per element, against the floor of the same call with the array built in Rust.
const ARRAY_N = 1_000_000;
const numbers = Array.from({ length: ARRAY_N }, (_, i) => i + 0.5);
const sumArray = ffi.requireGlobal('demo.sum_array');
let arrayOurs = Infinity;
let arrayFloor = Infinity;
for (let round = 0; round < 5; round++) {
  const t0 = process.hrtime.bigint();
  demo.sumArray(numbers);
  arrayOurs = Math.min(arrayOurs, Number(process.hrtime.bigint() - t0) / ARRAY_N);
  arrayFloor = Math.min(arrayFloor, benchArrayFloor(sumArray, ARRAY_N));
}

if (process.env.BENCH_ROWS === '1') {
  const ns = (x) => `${x.toFixed(1)} ns`;
  const out = (op, ours, ref, target, refText = ns(ref)) =>
    console.log(`| ${op} | ${ns(ours)} | ${refText} | ${(ours / ref).toFixed(2)}x | ≤ ${target.toFixed(1)}x |`);
  const bare = best['bare N-API no-op'];
  out('node: generated no-op call vs bare N-API call', best['generated no-op (testing.nop)'], bare, 2);
  out('node: field read `p.x` vs bare N-API call', best['field read (p.x)'], bare, 2);
  out('node: `new demo.Point(x, y)` vs 300 ns', best['object creation (new demo.Point)'], 300, 1, '300 ns (target)');
  out('node: `demo.sumArray` of 1e6 numbers, per element, vs C floor', arrayOurs, arrayFloor, 5);
  const int = best['integer argument (demo.isNone(i))'];
  const intCall = '`demo.isNone(i)`';
  out(`node: object argument \`demo.isNone(p)\` vs ${intCall}`, best['object argument (demo.isNone(p))'], int, 1.5);
  out(`node: method call \`p.norm()\` vs ${intCall}`, best['method call (p.norm())'], int, 1.5);
  out('node: object result `demo.echoAny(p)` vs `demo.echoAny(i)`', best['object result (demo.echoAny(p))'], best['integer result (demo.echoAny(i))'], 3);
  const typed = best['typed array as a tensor (demo.tensorSum(f32))'];
  const made = best['tensor argument made once (demo.tensorSum(t))'];
  console.log(`| node: Float32Array(16) as a tensor \`demo.tensorSum(a)\` vs the tensor made once \`demo.tensorSum(t)\` | ${ns(typed)} | ${ns(made)} | ${typed - made >= 0 ? '+' : ''}${(typed - made).toFixed(1)} ns | ≤ +300 ns |`);
  const plain = best['object creation (new demo.Point3D)'];
  const own = best['object creation, own fields (new demo.Point3D)'];
  console.log(`| node: \`new demo.Point3D\` with own fields (\`ffi.setOwnFields\`, 3 fields) vs without | ${ns(own)} | ${ns(plain)} | ${(own / plain).toFixed(2)}x | — |`);
  process.exit(0);
}

const row = (name, ns, base) =>
  `  ${name.padEnd(36)} ${ns.toFixed(1).padStart(7)} ns${base ? `   ${(ns / base).toFixed(2)}x ${base === best['bare N-API no-op'] ? 'bare no-op' : 'bare 3-number call'}` : ''}`;
console.log(`node ${process.version}, runtime ${process.env.FFIHUB_RUNTIME ?? ffi.runtimeVersion()}: best of ${ROUNDS} rounds of ${N} calls`);
console.log(row('bare N-API no-op', best['bare N-API no-op']));
console.log(row('generated no-op (testing.nop)', best['generated no-op (testing.nop)'], best['bare N-API no-op']));
console.log(row('bare N-API, 3 numbers', best['bare N-API, 3 numbers']));
console.log(row('generated, 3 numbers (testing.nop)', best['generated, 3 numbers (testing.nop)'], best['bare N-API, 3 numbers']));
console.log(row('generated typed (demo.addOne)', best['generated typed (demo.addOne)'], best['bare N-API no-op']));
console.log(row('TVM-FFI call alone (from Rust)', floor));
console.log(row('field read (p.x)', best['field read (p.x)'], best['bare N-API no-op']));
for (const name of ['integer argument (demo.isNone(i))', 'object argument (demo.isNone(p))', 'method call (p.norm())', 'integer result (demo.echoAny(i))', 'object result (demo.echoAny(p))', 'typed array as a tensor (demo.tensorSum(f32))', 'tensor argument made once (demo.tensorSum(t))']) {
  console.log(row(name, best[name]));
}
console.log(row('object creation (new demo.Point)', best['object creation (new demo.Point)']));
console.log(row('object creation (new demo.Point3D)', best['object creation (new demo.Point3D)']));
console.log(row('  with own fields (ffi.setOwnFields)', best['object creation, own fields (new demo.Point3D)']));
console.log(`  demo.sumArray(1e6 numbers)           ${arrayOurs.toFixed(1).padStart(7)} ns/element, floor ${arrayFloor.toFixed(1)} ns/element (${(arrayOurs / arrayFloor).toFixed(2)}x)`);
const ratio = best['generated no-op (testing.nop)'] / best['bare N-API no-op'];
console.log(`  no-op ratio ${ratio.toFixed(2)}x (target <= 2x): ${ratio <= 2 ? 'met' : 'NOT met'}`);
