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
//
// Target: the generated no-op wrapper costs at most 2x the bare Node-API no-op.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const packages = path.resolve(process.env.FFIHUB_NODE_PACKAGES ?? 'target/generated/node');
const ffi = require('@ffihub/tvm-ffi');
const testing = require(path.join(packages, 'testing'));
const demo = require(path.join(packages, 'demo'));
const { benchNoop, benchAdd3, benchCallLoop } = ffi._native;

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
};

const best = Object.fromEntries(Object.keys(cases).map((k) => [k, Infinity]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const t0 = process.hrtime.bigint();
    run();
    best[name] = Math.min(best[name], Number(process.hrtime.bigint() - t0) / N);
  }
}
const nopFn = ffi.requireGlobal('testing.nop');
let floor = Infinity;
for (let round = 0; round < ROUNDS; round++) floor = Math.min(floor, benchCallLoop(nopFn, N));

const row = (name, ns, base) =>
  `  ${name.padEnd(36)} ${ns.toFixed(1).padStart(7)} ns${base ? `   ${(ns / base).toFixed(2)}x ${base === best['bare N-API no-op'] ? 'bare no-op' : 'bare 3-number call'}` : ''}`;
console.log(`node ${process.version}, runtime ${process.env.FFIHUB_RUNTIME ?? ffi.runtimeVersion()}: best of ${ROUNDS} rounds of ${N} calls`);
console.log(row('bare N-API no-op', best['bare N-API no-op']));
console.log(row('generated no-op (testing.nop)', best['generated no-op (testing.nop)'], best['bare N-API no-op']));
console.log(row('bare N-API, 3 numbers', best['bare N-API, 3 numbers']));
console.log(row('generated, 3 numbers (testing.nop)', best['generated, 3 numbers (testing.nop)'], best['bare N-API, 3 numbers']));
console.log(row('generated typed (demo.addOne)', best['generated typed (demo.addOne)'], best['bare N-API no-op']));
console.log(row('TVM-FFI call alone (from Rust)', floor));
const ratio = best['generated no-op (testing.nop)'] / best['bare N-API no-op'];
console.log(`  no-op ratio ${ratio.toFixed(2)}x (target <= 2x): ${ratio <= 2 ? 'met' : 'NOT met'}`);
