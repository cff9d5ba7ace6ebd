'use strict';
// `npm pack` / `npm publish` hooks of the prebuilt packages in npm/<platform>/ (their package.json
// `prepack` and `postpack`; npm runs them in that folder).
//
//   node ../../scripts/pack.js bundle   builds ffihub's runtime and the addon (cargo, release) and
//                                       copies them into the folder as `libtvm_ffi.so` and
//                                       `ffihub_node.node` (the addon's RUNPATH $ORIGIN and
//                                       lib/addon.js find the runtime beside it), without their
//                                       debug info: that goes to <target>/release/debuginfo/
//                                       (`<file>.debug`, named by a .gnu_debuglink in the copy;
//                                       put it beside the library for file:line in backtraces);
//   node ../../scripts/pack.js clean    removes the copies again.
//
// A folder is packed on the platform it is for (npm/linux-x64-gnu on Linux x64 with glibc), and
// at the version of @ffihub/tvm-ffi, which lists it in its optionalDependencies.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { PLATFORM, platformPackage, readManifest } = require('../lib/platform');

const supportDir = path.resolve(__dirname, '..');
const folder = process.cwd();
const BUNDLED = [
  ['libffihub_node.so', 'ffihub_node.node'],
  ['libtvm_ffi.so', 'libtvm_ffi.so'],
];

function fail(message) {
  console.error(`pack.js: ${message}`);
  process.exit(1);
}

function run(program, args, options = {}) {
  return execFileSync(program, args, { cwd: supportDir, ...options });
}

/** Checks that `folder` is the prebuilt package of this platform, at the support package's version. */
function checkFolder() {
  const support = readManifest(supportDir);
  const prebuilt = readManifest(folder);
  const expected = platformPackage(support.name);
  if (!prebuilt || !prebuilt.name || !prebuilt.name.startsWith(`${support.name}-`)) {
    fail(`${folder} is not a prebuilt package of ${support.name}`);
  }
  if (prebuilt.name !== expected) {
    fail(`${prebuilt.name} is packed on its own platform; this machine is ${PLATFORM} (${expected})`);
  }
  const listed = (support.optionalDependencies || {})[prebuilt.name];
  if (prebuilt.version !== support.version || listed !== support.version) {
    fail(
      `${prebuilt.name} ${prebuilt.version} must have the version of ${support.name} (${support.version}), ` +
        `which must list it at that version in its optionalDependencies (it lists ${listed})`,
    );
  }
}

function bundle() {
  checkFolder();
  const cargo = process.env.CARGO || 'cargo';
  run(cargo, ['build', '--release', '--locked', '-p', 'ffihub-runtime', '-p', 'ffihub-node'], { stdio: 'inherit' });
  const metadata = JSON.parse(run(cargo, ['metadata', '--format-version', '1', '--no-deps'], { encoding: 'utf8' }));
  const release = path.join(metadata.target_directory, 'release');
  const debugDir = path.join(release, 'debuginfo');
  fs.mkdirSync(debugDir, { recursive: true });
  for (const [from, to] of BUNDLED) {
    const built = path.join(release, from);
    const debug = path.join(debugDir, `${to}.debug`);
    const copy = path.join(folder, to);
    run('objcopy', ['--only-keep-debug', built, debug]);
    run('objcopy', ['--strip-debug', `--add-gnu-debuglink=${debug}`, built, copy]);
    console.error(`bundled ${built} as ${to} (${fs.statSync(copy).size} bytes; debug info in ${debug})`);
  }
}

function clean() {
  for (const [, file] of BUNDLED) fs.rmSync(path.join(folder, file), { force: true });
}

const command = process.argv[2];
if (command === 'bundle') bundle();
else if (command === 'clean') clean();
else fail('usage: node ../../scripts/pack.js bundle|clean (in npm/<platform>/)');
