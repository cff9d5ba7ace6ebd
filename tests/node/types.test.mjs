// The generated declarations type-check under `tsc --strict --noEmit` with a usage file that
// also holds negative cases (@ts-expect-error: wrong argument type, wrong field type, missing
// argument...).
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagesDir, root } from './helpers.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = path.join(here, 'node_modules/typescript/bin/tsc');

test('tsc --strict --noEmit accepts the usage file and its negative cases', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ffihub-tsc-'));
  const config = path.join(dir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(here, 'types/tsconfig.json'),
      compilerOptions: {
        baseUrl: dir,
        paths: {
          '@ffihub/tvm-ffi': [path.join(root, 'bindings/node/index.d.ts')],
          'ffihub-demo': [path.join(packagesDir, 'demo/index.d.ts')],
          'ffihub-testing': [path.join(packagesDir, 'testing/index.d.ts')],
        },
      },
      files: [path.join(here, 'types/usage.ts')],
    }),
  );
  const run = spawnSync(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { encoding: 'utf8' });
  assert.equal(run.status, 0, `tsc failed:\n${run.stdout}${run.stderr}`);
});
