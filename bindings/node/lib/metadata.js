'use strict';
// Loading libraries, and the load-time metadata check of generated packages.
//
// A generated package carries the checksum of the metadata it was generated from and the
// manifest of what it expects from its library (ADR 0020): one line per function, type, field,
// method and constructor, written by the generator (bindgen/src/ir/manifest.rs), the same in
// every language. At load `liveLine` spells each line again from the live reflection of the
// runtime; any difference fails with a message that names the items and says how to regenerate.

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

/** The reflection record of a registered type, or null. */
function typeInfoOf(key) {
  try {
    return native.typeInfo(key);
  } catch {
    return null;
  }
}

/** The words of a manifest line after its kind: the first `n - 1`, then the rest. */
function words(line, n) {
  const out = [];
  let rest = line.slice(2);
  while (out.length + 1 < n) {
    const i = rest.indexOf(' ');
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + 1);
  }
  out.push(rest);
  return out;
}

const WORDS = { f: 2, t: 2, d: 4, m: 4, c: 3 };

/**
 * How the loaded library spells a manifest line: a line of the same kind about the same item,
 * from live reflection alone, or null when that item is not registered. The spelling is the
 * generator's, so a matching library gives the line back.
 */
function liveLine(line) {
  const kind = line[0];
  const [key, member] = words(line, 3);
  if (kind === 'f') {
    functionMetadata ??= requireGlobal('ffi.GetGlobalFuncMetadata');
    let text;
    try {
      text = functionMetadata(key);
    } catch {
      return null;
    }
    return `f ${key} ${callableLine(text, false)}`;
  }
  const info = typeInfoOf(key);
  if (info === null) return null;
  switch (kind) {
    case 't': {
      const parent = info.ancestors.length > 0 ? info.ancestors[info.ancestors.length - 1] : 'ffi.Object';
      return `t ${key} ${parent}`;
    }
    case 'd': {
      const f = info.fields.find((x) => x.name === member);
      if (!f) return null;
      const s = schemaOf(f.metadata);
      return `d ${key} ${member} ${f.flags & WRITABLE ? 'rw' : 'ro'} ${s ? spell(s) : '?'}`;
    }
    case 'm': {
      const m = info.methods.find((x) => x.name === member);
      if (!m) return null;
      const isStatic = (m.flags & STATIC) !== 0;
      return `m ${key} ${member} ${isStatic ? 'static' : 'instance'} ${callableLine(m.metadata, !isStatic)}`;
    }
    case 'c': {
      const init = info.methods.find((x) => x.name === '__ffi_init__');
      if (init) {
        const sig = callableLine(init.metadata, false);
        return `c ${key} init_method ${sig.split(' -> ')[0]}`;
      }
      return info.autoInit ? `c ${key} auto_init` : null;
    }
    default:
      return null;
  }
}

const WHAT = { f: 'function', t: 'type', d: 'field', m: 'method' };

/**
 * What differs between the manifest's lines and their live spelling, one message each (worded
 * like the C++ support library's, `ffihub/metadata.hpp`).
 */
function differences(lines) {
  const problems = [];
  for (const line of lines) {
    const kind = line[0];
    const n = WORDS[kind] ?? 2;
    const w = words(line, n);
    if (kind !== 'f' && kind !== 't' && typeInfoOf(w[0]) === null) continue; // reported by its `t` line
    const live = liveLine(line);
    const l = live === null ? [] : words(live, n);
    if (kind === 'c') {
      const want = w[1] === 'init_method' ? w[2] : 'auto_init';
      const have = live === null ? 'none' : l[1] === 'init_method' ? l[2] : 'auto_init';
      // A type generated with the automatic constructor takes any registered one.
      if (have !== want && !(want === 'auto_init' && live !== null)) {
        problems.push(`constructor of ${w[0]}: generated for ${want}, the library has ${have}`);
      }
      continue;
    }
    const item = `${WHAT[kind]} ${kind === 'd' || kind === 'm' ? `${w[0]}.${w[1]}` : w[0]}`;
    if (live === null) {
      problems.push(`${item} is not registered`);
      continue;
    }
    // `?`: the field had no readable type where the package was generated; compare access only.
    if (kind === 'd' && w[3] === '?') l[3] = '?';
    const from = kind === 'd' || kind === 'm' ? 2 : 1;
    const want = w.slice(from).join(' ');
    const have = l.slice(from).join(' ');
    if (have !== want) {
      problems.push(`${item}: generated ${kind === 't' ? 'with parent' : 'for'} ${want}, the library has ${have}`);
    }
  }
  return problems;
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
 * generated from: `manifest` is its lines (see `liveLine`).
 */
function loadLibraries(packageDir, names, checksum, manifest) {
  const pkg = packageDir ? packageName(packageDir) : null;
  for (const name of names) loadPackageLibrary(name, packageDir, pkg);
  if (!manifest || process.env.FFIHUB_SKIP_METADATA_CHECK === '1') return;
  const where = packageDir ? ` at ${packageDir}` : '';
  if (!Array.isArray(manifest)) {
    throw new Error(
      `ffihub: the package${where} was generated by an older ffihub (its manifest is not a list of lines): ` +
        'regenerate it with `ffihub generate --lang node --lib <library> --name <name> --out <dir>`.',
    );
  }
  const problems = differences(manifest);
  if (problems.length > 0) {
    throw new Error(
      `ffihub: the package${where} was generated from other metadata (${checksum}) than ` +
        `${names.join(', ')} now has:\n${problems.map((p) => `  - ${p}`).join('\n')}\n` +
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
  liveLine,
  differences,
  callableLine,
  lineHash,
  spell,
};
