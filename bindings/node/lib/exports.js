'use strict';
// Module exports of generated packages: each library whose `__tvm_ffi_<name>` functions a
// package binds is loaded once as a module and checked against what the package was generated
// from.

const { loadPackageLibrary, packageName, callableLine, lineHash } = require('./metadata');
const { loadModule } = require('./module');

/**
 * Loads the libraries of a generated package as modules and checks their exports. `modules`
 * lists `[fileName, {exportName: hashOfLine}]` pairs (the line is `export <name> <signature>`,
 * `packed` for exports without metadata). Returns the modules, in order.
 */
function loadModules(packageDir, modules, checksum) {
  // Found like the package's other libraries (docs/install.md, "Finding libraries").
  const pkg = packageDir ? packageName(packageDir) : null;
  const loaded = modules.map(([file]) => loadModule(loadPackageLibrary(file, packageDir, pkg)));
  const problems = [];
  modules.forEach(([file, exports], i) => {
    const m = loaded[i];
    for (const [name, expected] of Object.entries(exports)) {
      if (!m.implementsFunction(name, false)) {
        problems.push(`  ${file}: does not export ${name} (no symbol __tvm_ffi_${name})`);
        continue;
      }
      if (process.env.FFIHUB_SKIP_METADATA_CHECK === '1') continue;
      const line = `export ${name} ${callableLine(m.getFunctionMetadata(name, false), false)}`;
      if (lineHash(line) !== expected) {
        problems.push(`  ${file}: export ${name} changed (now: ${line.slice(line.indexOf(' ', 7) + 1)})`);
      }
    }
  });
  if (problems.length > 0) {
    const where = packageDir ? ` at ${packageDir}` : '';
    throw new Error(
      `ffihub: the package${where} was generated from other module exports (${checksum}) than ` +
        `its libraries now have:\n${problems.join('\n')}\n` +
        'Regenerate it with `ffihub generate --lang node --lib <library> --name <name> --out <dir>`.',
    );
  }
  return loaded;
}

module.exports = { loadModules };
