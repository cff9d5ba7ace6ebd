'use strict';
// `npm pack` / `npm publish` hooks of @ffihub/tvm-ffi (package.json `prepack`, `postpack`).
//
//   node scripts/pack.js bundle   builds ffihub's runtime and the addon (release) and copies them
//                                 into the package as `libtvm_ffi.so` and `ffihub_node.node`
//                                 (the addon's RUNPATH $ORIGIN and lib/addon.js find the runtime
//                                 beside it), so that an install from the tarball needs no Rust;
//   node scripts/pack.js clean    removes the copies again, so that a checkout keeps using its
//                                 fresh cargo builds.
//
// The tarball is for this platform (linux-x64 with glibc, or whatever the build machine is).

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const packageDir = path.resolve(__dirname, '..');
const BUNDLED = [
  ['libffihub_node.so', 'ffihub_node.node'],
  ['libtvm_ffi.so', 'libtvm_ffi.so'],
];

function cargo(args, options = {}) {
  return execFileSync(process.env.CARGO || 'cargo', args, { cwd: packageDir, ...options });
}

function bundle() {
  cargo(['build', '--release', '--locked', '-p', 'ffihub-runtime', '-p', 'ffihub-node'], { stdio: 'inherit' });
  const metadata = JSON.parse(cargo(['metadata', '--format-version', '1', '--no-deps'], { encoding: 'utf8' }));
  const release = path.join(metadata.target_directory, 'release');
  for (const [from, to] of BUNDLED) {
    fs.copyFileSync(path.join(release, from), path.join(packageDir, to));
    console.error(`bundled ${path.join(release, from)} as ${to}`);
  }
}

function clean() {
  for (const [, file] of BUNDLED) fs.rmSync(path.join(packageDir, file), { force: true });
}

const command = process.argv[2];
if (command === 'bundle') bundle();
else if (command === 'clean') clean();
else {
  console.error('usage: node scripts/pack.js bundle|clean');
  process.exit(2);
}
