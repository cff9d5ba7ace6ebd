//! The backends: one folder per target language, each with the same files and roles.
//!
//! - `mod.rs`: `generate(&ir::Library, &Config) -> Result<FileMap, Diagnostics>` and
//!   `CAPABILITIES`; `generate` places types and functions with [`naming::Naming`], then writes
//!   where they live the language's way and builds the models;
//! - `names.rs`: the only place that spells identifiers (case, keywords, reserved prefix), with
//!   the language's [`naming::Spelling`];
//! - `model.rs`: the askama view models (precomputed strings and flags); the Julia backend
//!   splits it by concern (see its `mod.rs`);
//! - the templates live in `templates/<lang>/` at the workspace root.
//!
//! Shared here: the [`Capabilities`] check that removes what a backend cannot express (with a
//! diagnostic naming the item) and the backend table; in [`naming`], where each item lives and
//! what it is called (namespaces, collision-checking scopes, the fallback spelling of
//! functions), which each backend's `names.rs` only spells.

pub mod case;
pub mod cpp;
pub mod julia;
pub mod naming;
pub mod node;
pub mod params;

use crate::diagnostics::Diagnostics;
use crate::filemap::FileMap;
use crate::ir::{self, Type};

/// Options of one generation run.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The package name given with `--name` (each backend derives its own spelling).
    pub name: String,
    /// Item paths whose "unsupported" diagnostics do not fail the run (`*` suffix = prefix).
    pub allow_unsupported: Vec<String>,
    /// The `package:` settings of the `--config` file.
    pub package: PackageInfo,
}

/// What a package manifest says about the generated package itself (`package:` in the
/// `--config` file): Node's `package.json`, Julia's `Project.toml`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageInfo {
    /// The package's version (`MAJOR.MINOR.PATCH`, optionally `-pre`/`+build`); default 0.1.0.
    pub version: Option<String>,
    /// An SPDX license expression (npm); default Apache-2.0, the license of the generated glue.
    pub license: Option<String>,
    /// Node: the platforms with a prebuilt package of the library (`linux-x64-gnu`,
    /// `darwin-arm64`...): the package lists `<name>-<platform>` as optional dependencies and
    /// each gets an `npm/<platform>/` folder (`lang/node/platform.rs`).
    #[serde(default)]
    pub platforms: Vec<String>,
}

impl PackageInfo {
    /// The version to write.
    pub fn version(&self) -> &str {
        self.version.as_deref().unwrap_or("0.1.0")
    }

    /// The license to write.
    pub fn license(&self) -> &str {
        self.license.as_deref().unwrap_or("Apache-2.0")
    }

    /// Why the settings cannot be written into a manifest, if they cannot.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(v) = &self.version {
            let core = v.split(['-', '+']).next().unwrap_or_default();
            let parts: Vec<&str> = core.split('.').collect();
            let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            if parts.len() != 3 || !parts.iter().all(numeric) {
                return Err(format!("package.version `{v}` is not a version like 1.2.3"));
            }
        }
        if let Some(l) = &self.license {
            if l.trim().is_empty() || l.contains('"') || l.contains('\\') {
                return Err(format!(
                    "package.license `{l}` is not an SPDX license expression"
                ));
            }
        }
        for platform in &self.platforms {
            node::platform::Platform::parse(platform)
                .map_err(|e| format!("package.platforms: {e}"))?;
        }
        Ok(())
    }
}

/// What a backend can express. Items that need something missing are left out, with an
/// "unsupported" diagnostic naming them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Packed (untyped, variadic) functions and methods.
    pub packed_functions: bool,
    /// Object types (classes with a handle).
    pub objects: bool,
    /// Methods (instance and static).
    pub methods: bool,
    /// Constructors.
    pub constructors: bool,
    /// Keyword-only constructor parameters.
    pub kw_only_params: bool,
    /// Function-typed parameters and results (callbacks).
    pub callbacks: bool,
    /// Arrays, lists, maps, dicts, tuples.
    pub containers: bool,
    /// `Optional[T]`.
    pub optional: bool,
    /// `Variant[...]`.
    pub variant: bool,
    /// Tensors and shapes.
    pub tensors: bool,
    /// Arbitrary-precision integers.
    pub bigint: bool,
    /// Opaque pointers.
    pub opaque_ptr: bool,
}

impl Capabilities {
    /// Everything: what every backend expresses today.
    pub const ALL: Capabilities = Capabilities {
        packed_functions: true,
        objects: true,
        methods: true,
        constructors: true,
        kw_only_params: true,
        callbacks: true,
        containers: true,
        optional: true,
        variant: true,
        tensors: true,
        bigint: true,
        opaque_ptr: true,
    };

    /// Why `ty` cannot be expressed, if it cannot.
    pub fn check_type(&self, ty: &Type) -> Result<(), String> {
        let need = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(format!("{what} is not supported (in {ty})"))
            }
        };
        match ty {
            Type::Array(t) | Type::List(t) => {
                need(self.containers, "containers")?;
                self.check_type(t)
            }
            Type::Map(k, v) | Type::Dict(k, v) => {
                need(self.containers, "containers")?;
                self.check_type(k)?;
                self.check_type(v)
            }
            Type::Tuple(ts) => {
                need(self.containers, "tuples")?;
                ts.iter().try_for_each(|t| self.check_type(t))
            }
            Type::Optional(t) => {
                need(self.optional, "Optional")?;
                self.check_type(t)
            }
            Type::Variant(ts) => {
                need(self.variant, "Variant")?;
                ts.iter().try_for_each(|t| self.check_type(t))
            }
            Type::Function(sig) => {
                need(self.callbacks, "function values (callbacks)")?;
                match sig {
                    Some(sig) => self.check_signature(sig),
                    None => Ok(()),
                }
            }
            Type::Tensor | Type::Shape => need(self.tensors, "tensors"),
            Type::BigInt => need(self.bigint, "bigint"),
            Type::OpaquePtr => need(self.opaque_ptr, "opaque pointers"),
            Type::Class(_) | Type::Object | Type::Module | Type::Error => {
                need(self.objects, "objects")
            }
            _ => Ok(()),
        }
    }

    fn check_signature(&self, sig: &ir::Signature) -> Result<(), String> {
        sig.params.iter().try_for_each(|p| self.check_type(&p.ty))?;
        self.check_type(&sig.ret)
    }

    fn check_callable(&self, sig: Option<&ir::Signature>) -> Result<(), String> {
        match sig {
            Some(sig) => self.check_signature(sig),
            None if self.packed_functions => Ok(()),
            None => Err("packed functions are not supported".into()),
        }
    }

    /// The part of `lib` this backend can express; every item left out gets a diagnostic.
    pub fn filter(
        &self,
        lib: &ir::Library,
        lang: &'static str,
        diags: &mut Diagnostics,
    ) -> ir::Library {
        let mut out = lib.clone();
        out.functions
            .retain(|f| match self.check_callable(f.signature.as_ref()) {
                Ok(()) => true,
                Err(why) => {
                    diags.unsupported(lang, &f.name, why);
                    false
                }
            });
        if !self.objects {
            for t in &out.types {
                diags.unsupported(lang, &t.key, "object types are not supported");
            }
            out.types.clear();
        }
        for t in &mut out.types {
            let key = t.key.clone();
            let mut drop_field = |f: &ir::Field| match self.check_type(&f.ty) {
                Ok(()) => true,
                Err(why) => {
                    diags.unsupported(lang, &format!("{key}.{}", f.name), why);
                    false
                }
            };
            t.fields.retain(&mut drop_field);
            // Inherited fields were reported with their owner already.
            t.inherited_fields
                .retain(|f| self.check_type(&f.ty).is_ok());
            t.methods.retain(|m| {
                let ok = if self.methods {
                    self.check_callable(m.signature.as_ref())
                } else {
                    Err("methods are not supported".into())
                };
                ok.map_err(|why| diags.unsupported(lang, &format!("{key}.{}", m.name), why))
                    .is_ok()
            });
            if let Some(ctor) = &t.constructor {
                let ok = if !self.constructors {
                    Err("constructors are not supported".to_string())
                } else if !self.kw_only_params && ctor.params.iter().any(|p| p.kw_only) {
                    Err("keyword-only parameters are not supported".to_string())
                } else {
                    ctor.params.iter().try_for_each(|p| self.check_type(&p.ty))
                };
                if let Err(why) = ok {
                    diags.unsupported(lang, &format!("{key}.__ffi_init__"), why);
                    t.constructor = None;
                }
            }
        }
        out
    }
}

/// A backend in the table.
pub struct Backend {
    /// Its name on the command line and the subfolder for `--lang all`.
    pub name: &'static str,
    /// What it can express.
    pub capabilities: Capabilities,
    /// Renders a library.
    pub generate: fn(&ir::Library, &Config) -> Result<FileMap, Diagnostics>,
}

/// Every backend, in `--lang all` order.
pub const BACKENDS: &[Backend] = &[
    Backend {
        name: julia::LANG,
        capabilities: julia::CAPABILITIES,
        generate: julia::generate,
    },
    Backend {
        name: node::LANG,
        capabilities: node::CAPABILITIES,
        generate: node::generate,
    },
    Backend {
        name: cpp::LANG,
        capabilities: cpp::CAPABILITIES,
        generate: cpp::generate,
    },
];

/// Registered method names that give an object's text (`() -> str`), preferred first.
const STRING_METHODS: &[&str] = &["__str__", "to_string"];

/// The method that gives the text of `t`'s objects, which each language maps to its own
/// protocol (JavaScript's `toString()`, Julia's `print`): the first of `__str__` and `to_string`
/// that `t` declares as an instance method `() -> str`.
pub fn string_method(t: &ir::ObjectType) -> Option<&ir::Method> {
    STRING_METHODS.iter().find_map(|name| {
        t.methods.iter().find(|m| {
            m.name == *name
                && !m.is_static
                && m.signature
                    .as_ref()
                    .is_some_and(|s| s.params.is_empty() && s.ret == Type::String)
        })
    })
}

/// Looks a backend up by its command-line name.
pub fn backend(name: &str) -> Option<&'static Backend> {
    BACKENDS.iter().find(|b| b.name == name)
}

/// Renders an askama template, turning a render failure into a diagnostic.
pub fn render<T: askama::Template>(
    template: &T,
    lang: &'static str,
    item: &str,
    diags: &mut Diagnostics,
) -> String {
    match template.render() {
        Ok(mut text) => {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        Err(e) => {
            diags.error(lang, item, format!("template failed: {e}"));
            String::new()
        }
    }
}

/// A stable UUID-shaped string derived from `seed` (for package manifests that need one).
pub fn stable_uuid(seed: &str) -> String {
    let mut a: u64 = 0xcbf2_9ce4_8422_2325;
    let mut b: u64 = 0x8422_2325_cbf2_9ce4;
    for byte in seed.bytes() {
        a = (a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        b = (b ^ u64::from(byte))
            .wrapping_mul(0x0000_0100_0000_01b3)
            .rotate_left(5);
    }
    let hex = format!("{a:016x}{b:016x}");
    // Version 4 / variant 1 nibbles keep it a valid UUID.
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// Text for one line of a comment: control characters (tabs aside) become spaces.
pub fn comment_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
        .collect()
}

/// Documentation lines, trimmed of trailing blank lines.
///
/// Every line break the target languages know (`\r`, U+2028 and U+2029 end a JavaScript
/// comment line; `\r` a C++ one) splits lines, and other control characters become spaces, so
/// no doc text can leave the comment or docstring it is written into.
pub fn doc_lines(doc: &str) -> Vec<String> {
    let normalized = doc.replace("\r\n", "\n");
    let mut lines: Vec<String> = normalized
        .split(['\n', '\r', '\u{2028}', '\u{2029}', '\u{85}'])
        .map(|l| comment_line(l).trim_end().to_string())
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}
