'use strict';
// Loading libraries, and the load-time metadata check of generated packages.
//
// A generated package carries the checksum of the metadata it was generated from and, per item
// (global function, object type), a short hash of a one-line description of that item
// (signature, fields, methods, constructor). At load it recomputes the lines from the live
// reflection of the runtime and compares: any difference fails with a message that names the
// items and says how to regenerate. The line format and the type spelling are the ones of
// bindgen/src/lang/node/model.rs (`manifest`), which spells types like the IR's Display.

const fs = require('node:fs');
const path = require('node:path');
const native = require('./addon');
const { requireGlobal } = require('./object');
const { prebuiltPackage, notInstalled, readManifest } = require('./platform');

/** Each library loaded, by the path or name it was loaded with and by its file name. */
const loaded = new Map();

/**
 * Loads a TVM-FFI library (a path, or a file name searched by the dynamic loader). Once per name;
 * returns the path (or name) it was loaded with. A second file of the same name is an error
 * naming both (one extension loaded from two paths would register everything twice), and so is
 * an error the library raises while loading.
 */
function loadLibrary(file) {
  const base = path.basename(file);
  const earlier = loaded.get(file) ?? loaded.get(base);
  if (earlier !== undefined) {
    if (earlier !== file && differentFiles(earlier, file)) {
      throw new Error(
        `ffihub: cannot load ${file}: ${earlier} of the same name is loaded already; load one ` +
          'library from one path only',
      );
    }
    return earlier;
  }
  native.loadLibrary(file);
  loaded.set(file, file);
  loaded.set(base, file);
  return file;
}

/** Whether two paths (not bare names, which the dynamic loader resolves) are different files. */
function differentFiles(a, b) {
  if (!a.includes('/') || !b.includes('/')) return false;
  try {
    return fs.realpathSync(a) !== fs.realpathSync(b);
  } catch {
    return true;
  }
}

/** The dynamic loader's reason from an error of `native.loadLibrary(file)`. */
function loaderReason(error, file) {
  const message = String((error && error.message) || error);
  const prefix = `cannot load ${file}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/**
 * Loads a library of the package at `packageDir` (docs/install.md "Finding libraries"): the
 * package's own `lib/`, the `lib/` of its prebuilt package for this platform (when its
 * package.json lists prebuilt packages, lib/platform.js), each folder of $FFIHUB_LIBRARY_PATH,
 * then the system loader by bare name. A file that exists but fails to load is an error at once;
 * when nothing is found, the error names every place tried.
 */
function loadPackageLibrary(name, packageDir, packageName) {
  const earlier = loaded.get(name);
  if (earlier !== undefined) return earlier;
  const tried = [];
  const present = (file) => {
    if (fs.existsSync(file)) return true;
    tried.push(`${file} (no such file)`);
    return false;
  };
  if (packageDir && present(path.join(packageDir, 'lib', name))) {
    return loadLibrary(path.join(packageDir, 'lib', name));
  }
  const prebuilt = packageDir ? prebuiltPackage(packageDir) : null;
  if (prebuilt && !prebuilt.dir) tried.push(notInstalled(prebuilt));
  if (prebuilt && prebuilt.dir && present(path.join(prebuilt.dir, 'lib', name))) {
    return loadLibrary(path.join(prebuilt.dir, 'lib', name));
  }
  const searchPath = (process.env.FFIHUB_LIBRARY_PATH || '').split(path.delimiter).filter(Boolean);
  if (searchPath.length === 0) tried.push('FFIHUB_LIBRARY_PATH (unset)');
  const found = searchPath.map((dir) => path.resolve(dir, name)).find(present);
  if (found !== undefined) return loadLibrary(found);
  try {
    return loadLibrary(name);
  } catch (e) {
    tried.push(`the system loader (${loaderReason(e, name)})`);
  }
  const where = packageName ? ` (package ${packageName})` : '';
  const home = packageDir ? ` (${path.join(packageDir, 'lib')})` : '';
  const install = prebuilt ? `install ${prebuilt.name}, ` : '';
  throw new Error(
    `ffihub: cannot load ${name}${where}: tried ${tried.join(', ')}; ${install}put the library next to the ` +
      `package${home}, add its folder to FFIHUB_LIBRARY_PATH, or pass its path to loadLibrary.`,
  );
}

/** The `name` of the package.json in `packageDir`, or null. */
function packageName(packageDir) {
  const manifest = readManifest(packageDir);
  return (manifest && manifest.name) || null;
}

// --- the type spelling of the IR (bindgen/src/ir/types.rs, Type::from_schema + Display) -----

const STRINGS = new Set(['ffi.String', 'ffi.SmallStr', 'const char*', 'std::string']);
const SIMPLE = {
  None: 'None',
  Any: 'Any',
  'ffi.OpaquePyObject': 'Any',
  bool: 'bool',
  int: 'int',
  'ffi.BigInt': 'bigint',
  float: 'float',
  'void*': 'void*',
  DataType: 'dtype',
  Device: 'Device',
  'ffi.Bytes': 'bytes',
  'ffi.SmallBytes': 'bytes',
  'TVMFFIByteArray*': 'bytes',
  'ffi.Tensor': 'Tensor',
  'DLTensor*': 'Tensor',
  'ffi.Shape': 'Shape',
  'ffi.Object': 'Object',
  'ffi.Module': 'Module',
  'ffi.Error': 'Error',
};

function list(name, items) {
  return `${name}[${items.join(', ')}]`;
}

/** A function schema's signature, or null when packed. */
function signatureOf(s) {
  if (s.named_args) {
    const ret = s.named_args.return;
    if (!Array.isArray(ret) || ret.length !== 1) return null;
    return { params: s.named_args.params || [], ret: ret[0] };
  }
  if (s.type === 'std::function' && Array.isArray(s.args) && s.args.length === 2 && Array.isArray(s.args[1])) {
    return { params: s.args[1], ret: s.args[0] };
  }
  // The older function form: "args": [return, params...].
  if ((s.type === 'ffi.Function' || s.type === 'std::function') && Array.isArray(s.args) && s.args.length > 0) {
    return { params: s.args.slice(1), ret: s.args[0] };
  }
  return null;
}

function spellSignature(sig, skipSelf) {
  const params = sig.params.slice(skipSelf && sig.params.length > 0 ? 1 : 0);
  return `(${params.map(spell).join(', ')}) -> ${spell(sig.ret)}`;
}

/** The IR spelling of a parsed type schema. */
function spell(s) {
  const args = (s.args || []).filter((a) => typeof a === 'object');
  const arg = (i) => (args[i] ? spell(args[i]) : 'Any');
  if (STRINGS.has(s.type)) return 'str';
  if (s.type in SIMPLE) return SIMPLE[s.type];
  switch (s.type) {
    case 'ffi.Array':
    case 'std::vector':
    case 'std::array':
      return list('Array', [arg(0)]);
    case 'ffi.List':
      return list('List', [arg(0)]);
    case 'ffi.Map':
    case 'std::map':
    case 'std::unordered_map':
      return list('Map', [arg(0), arg(1)]);
    case 'ffi.Dict':
      return list('Dict', [arg(0), arg(1)]);
    case 'Optional':
    case 'std::optional': {
      const inner = arg(0);
      return inner.startsWith('Optional[') || inner === 'Any' || inner === 'None' ? inner : list('Optional', [inner]);
    }
    case 'Variant':
    case 'std::variant': {
      const members = args.map(spell);
      return members.length === 1 ? members[0] : list('Variant', members);
    }
    case 'Tuple':
    case 'std::tuple':
      return list('Tuple', args.map(spell));
    case 'ffi.Function':
    case 'std::function': {
      const sig = signatureOf(s);
      return sig ? `Callable[${spellSignature(sig, false)}]` : 'Callable[..., Any]';
    }
    case 'Expected':
    case 'ObjectRValueRef':
    case 'UnchangedOr':
      return arg(0);
    default:
      return s.type;
  }
}

/** The parsed `type_schema` of a metadata JSON text, or null. */
function schemaOf(metadata) {
  if (!metadata) return null;
  try {
    const meta = JSON.parse(metadata);
    return typeof meta.type_schema === 'string' ? JSON.parse(meta.type_schema) : null;
  } catch {
    return null;
  }
}

/** `(params) -> ret` of a function's metadata, or `packed`. */
function callableLine(metadata, skipSelf) {
  const s = schemaOf(metadata);
  const sig = s && (s.type === 'ffi.Function' || s.type === 'std::function') ? signatureOf(s) : null;
  return sig ? spellSignature(sig, skipSelf) : 'packed';
}

const WRITABLE = 1;
const STATIC = 4;

let functionMetadata = null;

/** The manifest line of a global function, or null if it is not registered. */
function functionLine(name) {
  functionMetadata ??= requireGlobal('ffi.GetGlobalFuncMetadata');
  let text;
  try {
    text = functionMetadata(name);
  } catch {
    return null;
  }
  return `fn ${name} ${callableLine(text, false)}`;
}

/**
 * The manifest line of an object type, or null if it is not registered. Fields in `untyped` had
 * no readable type in the metadata the package was generated from: they are spelled `?` (only
 * their name and access are compared).
 */
function typeLine(key, untyped = []) {
  let info;
  try {
    info = native.typeInfo(key);
  } catch {
    return null;
  }
  const parent = info.ancestors.length > 0 ? info.ancestors[info.ancestors.length - 1] : 'ffi.Object';
  const fields = info.fields.map((f) => {
    const s = schemaOf(f.metadata);
    const ty = untyped.includes(f.name) ? '?' : s ? spell(s) : 'Any';
    return `${f.name}: ${ty}${f.flags & WRITABLE ? ' (writable)' : ''}`;
  });
  const methods = info.methods
    .filter((m) => m.name !== '__ffi_init__')
    .map((m) => ({ m, static: (m.flags & STATIC) !== 0 }))
    .sort((a, b) => (a.m.name < b.m.name ? -1 : a.m.name > b.m.name ? 1 : 0))
    .map(({ m, static: isStatic }) => `${isStatic ? 'static ' : ''}${m.name} ${callableLine(m.metadata, !isStatic)}`);
  const init = info.methods.find((m) => m.name === '__ffi_init__' && (m.flags & STATIC) !== 0);
  let ctor = '';
  if (init) {
    const s = schemaOf(init.metadata);
    const sig = s ? signatureOf(s) : null;
    ctor = `init(${sig ? sig.params.map(spell).join(', ') : ''})`;
  } else if (info.autoInit) {
    ctor = 'init(auto)';
  }
  return `type ${key}: ${parent} {${fields.join('; ')}} [${methods.join('; ')}] ${ctor}`.trimEnd();
}

/** 32-bit FNV-1a of a string's UTF-8 bytes, as 8 hex digits (model.rs `line_hash`). */
function lineHash(text) {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * Loads the libraries of a generated package and checks that they still have what it was
 * generated from. `manifest` maps `fn <name>` / `type <key>` to the hash of the item's line, or
 * to `[hash, untyped fields...]`.
 */
function loadLibraries(packageDir, names, checksum, manifest) {
  const pkg = packageDir ? packageName(packageDir) : null;
  for (const name of names) loadPackageLibrary(name, packageDir, pkg);
  if (!manifest || process.env.FFIHUB_SKIP_METADATA_CHECK === '1') return;
  const problems = [];
  for (const [item, entry] of Object.entries(manifest)) {
    const [kind, name] = item.split(' ', 2);
    const [expected, ...untyped] = Array.isArray(entry) ? entry : [entry];
    const line = kind === 'fn' ? functionLine(name) : typeLine(name, untyped);
    if (line === null) {
      problems.push(`  ${name}: not registered`);
    } else if (lineHash(line) !== expected) {
      problems.push(`  ${name}: changed (now: ${line.slice(line.indexOf(' ', 3) + 1)})`);
    }
  }
  if (problems.length > 0) {
    const where = packageDir ? ` at ${packageDir}` : '';
    throw new Error(
      `ffihub: the package${where} was generated from other metadata (${checksum}) than ` +
        `${names.join(', ')} now has:\n${problems.join('\n')}\n` +
        'Regenerate it with `ffihub generate --lang node --lib <library> --name <name> --out <dir>` ' +
        '(or set FFIHUB_SKIP_METADATA_CHECK=1 to skip this check).',
    );
  }
}

module.exports = {
  loadLibrary,
  loadLibraries,
  loadPackageLibrary,
  packageName,
  functionLine,
  callableLine,
  typeLine,
  lineHash,
  spell,
};
