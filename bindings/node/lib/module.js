'use strict';
// Modules (`ffi.Module`): libraries loaded with `ffi.ModuleLoadFromFile`, whose exported
// functions (`__tvm_ffi_<name>`) are looked up by name, and the system library.

const fs = require('node:fs');
const nodePath = require('node:path');
const { FFIObject, requireGlobal } = require('./object');
const { AttributeError, FFIError, makeError } = require('./errors');

const lazy = {};
function global(name) {
  return (lazy[name] ??= requireGlobal(name));
}

class Module extends FFIObject {
  /** The module's kind (`library`, `system_lib`...). */
  get kind() {
    return global('ffi.ModuleGetKind')(this);
  }

  /** The function `name` (searching imported modules too unless `queryImports` is false), or `null`. */
  getFunction(name, queryImports = true) {
    return global('ffi.ModuleGetFunction')(this, name, queryImports);
  }

  /** The function `name`; throws an AttributeError when missing. */
  get(name) {
    const f = this.getFunction(name);
    if (f === null) {
      throw new AttributeError(
        `the ${this.kind} module has no function \`${name}\` ` +
          '(a library exports function `f` as the symbol `__tvm_ffi_f`)',
      );
    }
    return f;
  }

  /**
   * The module's functions by name, for kernel libraries: `loadModule(path).functions.main(a, b, c)`.
   * Each access looks the function up (`get`); a missing one throws an AttributeError.
   */
  get functions() {
    return new Proxy(Object.create(null), {
      get: (_, name) => (typeof name === 'string' ? this.get(name) : undefined),
      has: (_, name) => typeof name === 'string' && this.implementsFunction(name),
    });
  }

  /** Whether the module has the function `name`. */
  implementsFunction(name, queryImports = true) {
    return global('ffi.ModuleImplementsFunction')(this, name, queryImports);
  }

  /** The documentation of `name`, or `null`. */
  getFunctionDoc(name, queryImports = true) {
    return global('ffi.ModuleGetFunctionDoc')(this, name, queryImports);
  }

  /** The metadata JSON of `name`, or `null`. */
  getFunctionMetadata(name, queryImports = true) {
    return global('ffi.ModuleGetFunctionMetadata')(this, name, queryImports);
  }

  /** Makes `other`'s functions visible through this module. */
  importModule(other) {
    global('ffi.ModuleImportModule')(this, other);
  }
}

/**
 * Loads a module from a shared library (`ffi.ModuleLoadFromFile`); a relative path is taken from
 * the working folder; errors name the path.
 */
function loadModule(path) {
  // A file named relative to the working folder is that file (`dlopen` would search the
  // loader's path for a bare name instead).
  const file = typeof path === 'string' && fs.existsSync(path) ? nodePath.resolve(path) : path;
  try {
    return global('ffi.ModuleLoadFromFile')(file);
  } catch (error) {
    // The runtime's message may not name the file (e.g. an unknown extension).
    if (!(error instanceof FFIError)) throw error;
    const message = `cannot load ${JSON.stringify(path)} as a module: ${error.message}`;
    throw makeError(error.kind, message, error.backtrace);
  }
}

/** The system library (functions registered with a prefix by statically linked code). */
function systemLib(prefix) {
  return prefix === undefined ? global('ffi.SystemLib')() : global('ffi.SystemLib')(prefix);
}

module.exports = { Module, loadModule, systemLib };
