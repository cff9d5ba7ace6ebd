// Per-call cost of a no-op and of a 3-number call through napi-rs 3.x, napi-rs 2.16 and raw
// Node-API (napi-sys), measured side by side in one process (the machine is shared and noisy:
// rounds are interleaved and the best round of each variant is reported).
//
//   CARGO_TARGET_DIR=target/napi-overhead cargo build --release \
//       --manifest-path bench/node/napi-overhead/Cargo.toml
//   node bench/node/napi-overhead.mjs [target/napi-overhead/release]
import { createRequire } from 'node:module';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const dir = resolve(process.argv[2] ?? 'target/napi-overhead/release');
const tmp = mkdtempSync(join(tmpdir(), 'napi-overhead-'));
const load = (name) => {
  const dest = join(tmp, `${name}.node`);
  copyFileSync(join(dir, `lib${name}.so`), dest);
  return require(dest);
};
const variants = {
  'raw napi-sys': load('overhead_raw'),
  'napi-rs 2.16': load('overhead_napi2'),
  'napi-rs 3.x': load('overhead_napi3'),
};

const N = 2_000_000;
function timeNoop(f) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) f();
  return Number(process.hrtime.bigint() - t0) / N;
}
function timeAdd3(f) {
  let acc = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) acc += f(i, 2.5, 3);
  const ns = Number(process.hrtime.bigint() - t0) / N;
  if (!(acc > 0)) throw new Error('unexpected');
  return ns;
}
const best = {};
for (let round = 0; round < 7; round++) {
  for (const [name, m] of Object.entries(variants)) {
    const b = (best[name] ??= { noop: Infinity, add3: Infinity });
    b.noop = Math.min(b.noop, timeNoop(m.noop));
    b.add3 = Math.min(b.add3, timeAdd3(m.add3));
  }
}
const floor = best['raw napi-sys'];
console.log(`node ${process.version}, best of 7 rounds of ${N} calls (ns/call)`);
console.log('variant        noop   ratio   add3(3 numbers)  ratio');
for (const [name, b] of Object.entries(best)) {
  console.log(
    `${name.padEnd(13)} ${b.noop.toFixed(1).padStart(5)}  ${(b.noop / floor.noop).toFixed(2).padStart(5)}x` +
      `   ${b.add3.toFixed(1).padStart(6)}          ${(b.add3 / floor.add3).toFixed(2).padStart(5)}x`,
  );
}
