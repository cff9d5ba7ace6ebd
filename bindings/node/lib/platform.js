'use strict';
// Prebuilt native packages, the napi-rs way: a package `<name>` lists one package per platform,
// `<name>-<platform>`, in its `optionalDependencies`; each of those declares `os`, `cpu` and
// `libc`, so npm installs only the one for the machine. `@ffihub/tvm-ffi` finds its addon and
// runtime that way (lib/addon.js), and generated packages their libraries (lib/metadata.js).
//
// Platforms are spelled `linux-x64-gnu`, `linux-arm64-musl`, `darwin-arm64`, `win32-x64-msvc`
// (`process.platform`, `process.arch`, then the C library or ABI); bindgen/src/lang/node/names.rs
// spells them the same way for the packages it writes.

const fs = require('node:fs');
const path = require('node:path');

/** `gnu` or `musl`: the C library of this Linux process. */
function linuxLibc() {
  try {
    // glibc's ldd is a script naming glibc; musl's is a link to the musl loader.
    return fs.readFileSync('/usr/bin/ldd', 'latin1').includes('musl') ? 'musl' : 'gnu';
  } catch {
    const report = process.report && process.report.getReport();
    return report && report.header && report.header.glibcVersionRuntime ? 'gnu' : 'musl';
  }
}

/** This process's platform, e.g. `linux-x64-gnu`. */
function currentPlatform() {
  const base = `${process.platform}-${process.arch}`;
  if (process.platform === 'linux') return `${base}-${linuxLibc()}`;
  if (process.platform === 'win32') return `${base}-msvc`;
  return base;
}

const PLATFORM = currentPlatform();

/** The prebuilt package of `name` for this platform. */
function platformPackage(name) {
  return `${name}-${PLATFORM}`;
}

/** The platforms for which the package whose package.json is `manifest` lists a prebuilt package. */
function listedPlatforms(manifest) {
  const prefix = `${manifest.name}-`;
  return Object.keys(manifest.optionalDependencies || {})
    .filter((dep) => dep.startsWith(prefix))
    .map((dep) => dep.slice(prefix.length));
}

/** The parsed package.json in `dir`, or null. */
function readManifest(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The prebuilt package of the package in `packageDir` for this platform: `{ name, dir }`, `dir`
 * being null when it is not installed; null when the package lists no prebuilt packages.
 * `platforms` lists the platforms it has packages for.
 */
function prebuiltPackage(packageDir) {
  const manifest = readManifest(packageDir);
  if (!manifest || !manifest.name) return null;
  const platforms = listedPlatforms(manifest);
  if (platforms.length === 0) return null;
  const name = platformPackage(manifest.name);
  let dir = null;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`, { paths: [packageDir] }));
  } catch {
    // not installed (another platform, or optional dependencies omitted)
  }
  return { name, dir, platforms };
}

/** Why a prebuilt package is missing, for the "tried" lists of errors. */
function notInstalled(prebuilt) {
  const listed = prebuilt.platforms.includes(PLATFORM)
    ? 'not installed: were optional dependencies omitted?'
    : `none for ${PLATFORM}; prebuilt for ${prebuilt.platforms.join(', ')}`;
  return `${prebuilt.name} (${listed})`;
}

module.exports = { PLATFORM, platformPackage, prebuiltPackage, notInstalled, readManifest };
