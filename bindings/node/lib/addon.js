'use strict';
// Finds and loads the native addon (a Rust cdylib, `libffihub_node.so`).
//
// Search order: $FFIHUB_NODE_ADDON; `ffihub_node.node` next to package.json (a packaged or
// copied build); the workspace's cargo builds (`$CARGO_TARGET_DIR` or `target/`, release and
// debug, the newest first). The addon needs `libtvm_ffi.so` on the library path: the folder of
// ffihub's runtime (`target/release`) or of Apache's (`tvm_ffi/lib` in the wheel).

const fs = require('node:fs');
const path = require('node:path');

const packageDir = path.resolve(__dirname, '..');

function candidates() {
  if (process.env.FFIHUB_NODE_ADDON) return [path.resolve(process.env.FFIHUB_NODE_ADDON)];
  const packaged = path.join(packageDir, 'ffihub_node.node');
  if (fs.existsSync(packaged)) return [packaged];
  const workspace = path.resolve(packageDir, '..', '..');
  const targets = [];
  if (process.env.CARGO_TARGET_DIR) targets.push(path.resolve(workspace, process.env.CARGO_TARGET_DIR));
  targets.push(path.join(workspace, 'target'));
  const builds = [];
  for (const target of targets) {
    for (const profile of ['release', 'debug']) {
      const file = path.join(target, profile, 'libffihub_node.so');
      try {
        builds.push({ file, mtime: fs.statSync(file).mtimeMs });
      } catch {
        // not built
      }
    }
  }
  builds.sort((a, b) => b.mtime - a.mtime);
  return builds.map((b) => b.file);
}

function load() {
  const [file] = candidates();
  if (!file) {
    throw new Error(
      'ffihub: the Node addon is not built. Build it with `cargo build --release -p ffihub-node` ' +
        '(after `cargo build --release -p ffihub-runtime`), or set FFIHUB_NODE_ADDON to its path.',
    );
  }
  const module = { exports: {} };
  try {
    process.dlopen(module, file);
  } catch (e) {
    if (/libtvm_ffi\.so/.test(String(e && e.message))) {
      throw new Error(
        `ffihub: cannot load ${file}: libtvm_ffi.so was not found. Put the folder of a TVM-FFI ` +
          "runtime on LD_LIBRARY_PATH: target/release for ffihub's runtime " +
          "(`cargo build --release -p ffihub-runtime`), or tvm_ffi/lib of Apache's wheel.\n" +
          String(e.message),
      );
    }
    throw e;
  }
  return module.exports;
}

module.exports = load();
