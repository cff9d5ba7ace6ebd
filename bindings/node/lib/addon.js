'use strict';
// Finds the TVM-FFI runtime and loads the native addon (a Rust cdylib that links
// `libtvm_ffi.so` by name), following docs/install.md "Finding libraries".
//
// The addon, in order: $FFIHUB_NODE_ADDON; in a checkout (bindings/node of a cargo workspace),
// the newest cargo build (`$CARGO_TARGET_DIR` or `target/`, release, debug); else
// `ffihub_node.node` in this platform's prebuilt package, `@ffihub/tvm-ffi-<platform>`
// (lib/platform.js), which npm installs from the optional dependencies.
//
// The runtime, loaded before the addon so that the addon's `DT_NEEDED libtvm_ffi.so` binds to it:
//   1. $TVM_FFI_LIB (a file, or a folder holding libtvm_ffi.so), or $TVM_FFI_LIB_DIR (a folder);
//   2. a runtime already loaded in the process (a host that linked it), used as is;
//   3. the `libtvm_ffi.so` next to the prebuilt `ffihub_node.node`;
//   4. the system loader (LD_LIBRARY_PATH, ld.so.cache; a cargo build's RUNPATH $ORIGIN finds
//      the runtime beside it in target/).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { PLATFORM, prebuiltPackage, notInstalled } = require('./platform');

const packageDir = path.resolve(__dirname, '..');
const RUNTIME = 'libtvm_ffi.so';
const ADDON = 'ffihub_node.node';
const { RTLD_NOW, RTLD_GLOBAL } = os.constants.dlopen;
// glibc's value; Node passes dlopen flags through but names only the POSIX ones.
const RTLD_NODELETE = 0x1000;

/**
 * The cargo builds of the addon in the checkout this package lives in (newest first) and the
 * places looked at, or null outside a checkout.
 */
function checkoutBuilds() {
  const workspace = path.resolve(packageDir, '..', '..');
  if (!fs.existsSync(path.join(workspace, 'Cargo.toml'))) return null;
  const targets = [];
  if (process.env.CARGO_TARGET_DIR) targets.push(path.resolve(workspace, process.env.CARGO_TARGET_DIR));
  targets.push(path.join(workspace, 'target'));
  const places = [];
  const builds = [];
  for (const target of targets) {
    for (const profile of ['release', 'debug']) {
      const file = path.join(target, profile, 'libffihub_node.so');
      places.push(file);
      try {
        builds.push({ file, mtime: fs.statSync(file).mtimeMs });
      } catch {
        // not built
      }
    }
  }
  builds.sort((a, b) => b.mtime - a.mtime);
  return { files: builds.map((b) => b.file), places };
}

/** The addon to load; throws an error naming every place tried. */
function findAddon() {
  if (process.env.FFIHUB_NODE_ADDON) return path.resolve(process.env.FFIHUB_NODE_ADDON);
  const tried = ['FFIHUB_NODE_ADDON (unset)'];
  const builds = checkoutBuilds();
  if (builds) {
    if (builds.files.length > 0) return builds.files[0];
    tried.push(...builds.places.map((file) => `${file} (not built)`));
  }
  const prebuilt = prebuiltPackage(packageDir);
  if (prebuilt && prebuilt.dir) {
    const file = path.join(prebuilt.dir, ADDON);
    if (fs.existsSync(file)) return file;
    tried.push(`${file} (no such file)`);
  } else {
    tried.push(prebuilt ? notInstalled(prebuilt) : `@ffihub/tvm-ffi-${PLATFORM} (not listed in ${packageDir}/package.json)`);
  }
  throw new Error(
    `ffihub: no Node addon of @ffihub/tvm-ffi for ${PLATFORM}: tried ${tried.join(', ')}. ` +
      'Install @ffihub/tvm-ffi with its optional dependencies (no --omit=optional, --no-optional or ' +
      '--ignore-optional), or build the addon in an ffihub checkout (`cargo build --release -p ffihub-runtime ' +
      '-p ffihub-node`) and set FFIHUB_NODE_ADDON to target/release/libffihub_node.so.',
  );
}

/**
 * dlopen through Node (it has no plain dlopen): a file that is not an addon loads, then fails
 * with "did not self-register" and is closed again, which RTLD_NODELETE turns into a no-op.
 * Returns null when the library is loaded, else the loader's message.
 */
function dlopen(file, flags) {
  try {
    process.dlopen({ exports: {} }, file, flags);
    return null;
  } catch (e) {
    const message = String((e && e.message) || e);
    return /did not self-register/.test(message) ? null : message;
  }
}

/**
 * The file of a runtime already mapped into the process, or null. (Asking dlopen with
 * RTLD_NOLOAD instead crashes Node when the runtime is on the search path but not loaded:
 * glibc then fails without a dlerror message.)
 */
function loadedRuntime() {
  let maps;
  try {
    maps = fs.readFileSync('/proc/self/maps', 'utf8');
  } catch {
    return null;
  }
  for (const line of maps.split('\n')) {
    const file = line.slice(line.indexOf('/'));
    if (line.includes('/') && path.basename(file).startsWith(RUNTIME)) return file;
  }
  return null;
}

/** The runtime named by TVM_FFI_LIB or TVM_FFI_LIB_DIR: [variable, file], or null. */
function runtimeFromEnvironment() {
  for (const name of ['TVM_FFI_LIB', 'TVM_FFI_LIB_DIR']) {
    const value = process.env[name];
    if (!value) continue;
    const given = path.resolve(value);
    let file = given;
    try {
      if (name === 'TVM_FFI_LIB_DIR' || fs.statSync(given).isDirectory()) file = path.join(given, RUNTIME);
    } catch {
      // a missing file: dlopen says so
    }
    return [name, file];
  }
  return null;
}

/** Loads the runtime per steps 1-3; returns what was tried, for the error of step 4. */
function loadRuntime(addon) {
  const fromEnvironment = runtimeFromEnvironment();
  if (fromEnvironment) {
    const [name, file] = fromEnvironment;
    const error = dlopen(file, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    if (error !== null) {
      throw new Error(
        `ffihub: cannot load the TVM-FFI runtime ${file} given by ${name}: ${error}. ` +
          `Point ${name} at a libtvm_ffi.so (or a folder holding one), or unset it to use the bundled runtime.`,
      );
    }
    return [];
  }
  const tried = ['TVM_FFI_LIB (unset)'];
  if (loadedRuntime() !== null) return [];
  tried.push('a runtime loaded in the process (none)');
  if (path.basename(addon) === ADDON) {
    const bundled = path.join(path.dirname(addon), RUNTIME);
    if (!fs.existsSync(bundled)) {
      tried.push(`${bundled} (no such file)`);
    } else {
      const error = dlopen(bundled, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
      if (error === null) return [];
      tried.push(`${bundled} (${error})`);
    }
  }
  return tried;
}

function load() {
  const addon = findAddon();
  const tried = loadRuntime(addon);
  const module = { exports: {} };
  try {
    process.dlopen(module, addon);
  } catch (e) {
    const message = String((e && e.message) || e);
    if (message.includes(RUNTIME)) {
      tried.push(`the system loader (${message})`);
      throw new Error(
        `ffihub: cannot load the TVM-FFI runtime (${RUNTIME}) for ${addon}: tried ${tried.join(', ')}; ` +
          'set TVM_FFI_LIB to a libtvm_ffi.so or its folder (ffihub\'s: target/release after ' +
          "`cargo build --release -p ffihub-runtime`; Apache's: tvm_ffi/lib of its wheel), or add its folder to LD_LIBRARY_PATH.",
      );
    }
    throw e;
  }
  return module.exports;
}

module.exports = load();
