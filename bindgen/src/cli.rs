//! The command line: `ffihub dump | generate | check | harvest | ir`.

use crate::dump::{dump, DumpOptions};
use crate::filemap;
use crate::lang::{self, Backend, Config};
use crate::{generate, harvest, ir};
use clap::{Args, Parser, Subcommand, ValueEnum};
use ffihub_schema::Reflection;
use std::path::PathBuf;
use std::process::ExitCode;

/// Generate Julia, Node and C++ bindings for TVM-FFI libraries from their reflection.
#[derive(Parser, Debug)]
#[command(name = "ffihub", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Load libraries into a TVM-FFI runtime and write what they registered (functions, types).
    Dump(DumpArgs),
    /// Generate bindings (from libraries, or from a dump without any runtime).
    Generate(GenerateArgs),
    /// Exit 1 with a summary if the bindings in --out are not what `generate` would write.
    Check(GenerateArgs),
    /// Print the normalized IR that the backends render (YAML), for generator authors.
    Ir(SourceArgs),
    /// Read the library's Python package and write the signature overlay it implies (a
    /// `--config` file: parameter names, defaults, keyword-only parameters, docs, types).
    Harvest(HarvestArgs),
}

/// Where the reflection comes from: libraries (loaded into a runtime) or a dump.
#[derive(Args, Debug)]
struct SourceArgs {
    #[command(flatten)]
    load: LoadArgs,
    /// A reflection document written by `ffihub dump` (YAML or JSON); needs no runtime.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["libs", "runtime"])]
    metadata: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct GenerateArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Target language: julia, node, cpp, or all (one subfolder each).
    #[arg(long, value_name = "LANG")]
    lang: String,
    /// The package name (each language derives its own spelling: module, package, namespace;
    /// `@scope/name` gives a scoped npm package).
    #[arg(long, value_name = "NAME")]
    name: String,
    /// The output folder.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Do not fail on "unsupported" diagnostics of this item (repeatable; `prefix*` matches
    /// every item starting with prefix).
    #[arg(long = "allow-unsupported", value_name = "ITEM")]
    allow_unsupported: Vec<String>,
    /// A YAML file of generation settings: `rename:` maps registered names (functions or type
    /// keys) to the dotted names to bind them under (the way out of a name collision);
    /// `package:` sets the generated package's `version` and `license`; `signatures:` is the
    /// signature overlay (parameter names, defaults, keyword-only parameters, narrower types
    /// and parameter docs; schema/signatures.schema.json).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Harvest signatures from the library's Python package first (as `ffihub harvest` does);
    /// the entries of --config win, entry by entry.
    #[arg(long)]
    harvest: bool,
    #[command(flatten)]
    python: PythonArgs,
}

/// The Python package folders of a harvest.
#[derive(Args, Debug)]
struct PythonArgs {
    /// A Python package folder to read (repeatable; default: the package folder around each
    /// --lib, walking up while `__init__.py` exists).
    #[arg(long = "python", value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct HarvestArgs {
    #[command(flatten)]
    source: SourceArgs,
    #[command(flatten)]
    python: PythonArgs,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The `--config` file.
#[derive(serde::Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// Registered name -> dotted name to bind it under.
    #[serde(default)]
    rename: std::collections::BTreeMap<String, String>,
    /// The generated package's own version and license.
    #[serde(default)]
    package: lang::PackageInfo,
    /// The signature overlay: parameter names, defaults, keyword-only parameters, narrower
    /// types (docs/adr/0012-signatures.md).
    #[serde(default)]
    signatures: Option<ffihub_schema::Signatures>,
}

fn read_config(path: Option<&std::path::Path>) -> Result<ConfigFile, String> {
    let Some(path) = path else {
        return Ok(ConfigFile::default());
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let cfg: ConfigFile = serde_yaml::from_str(&text)
        .map_err(|e| format!("{}: {}", path.display(), one_line(&e.to_string())))?;
    if let Some((from, to)) = cfg
        .rename
        .iter()
        .find(|(_, to)| to.is_empty() || to.split('.').any(str::is_empty))
    {
        return Err(format!(
            "{}: rename of `{from}`: `{to}` is not a dotted name",
            path.display()
        ));
    }
    cfg.package
        .validate()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(cfg)
}

/// Where the runtime comes from and which libraries to load.
#[derive(Args, Debug, Clone)]
struct LoadArgs {
    /// A library to load (repeatable). Its new global functions and types are dumped; the
    /// runtime's own file dumps the runtime's built-ins.
    #[arg(long = "lib", value_name = "PATH")]
    libs: Vec<PathBuf>,
    /// The libtvm_ffi.so to load. Default: $TVM_FFI_LIB (a file or folder) or $TVM_FFI_LIB_DIR,
    /// else the one next to the ffihub executable or in its ../lib, else the system loader.
    #[arg(long, value_name = "PATH")]
    runtime: Option<PathBuf>,
    /// Keep only functions and types whose name starts with this prefix (e.g. `demo.`).
    #[arg(long, value_name = "P")]
    prefix: Option<String>,
    /// Fail (instead of warning) when a library registers no global function or type and
    /// exports no `__tvm_ffi_<name>` function.
    #[arg(long)]
    strict: bool,
}

impl LoadArgs {
    fn options(&self) -> DumpOptions {
        DumpOptions {
            runtime: self.runtime.clone(),
            libs: self.libs.clone(),
            prefix: self.prefix.clone(),
        }
    }
}

#[derive(Args, Debug)]
struct DumpArgs {
    #[command(flatten)]
    load: LoadArgs,
    /// Output format (default: from the -o extension, else yaml).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
}

/// Runs the command line and returns the process exit code: 0 success, 1 stale output
/// (`check`) or unsupported items, 2 any other error.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("ffihub: error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Dump(args) => {
            if args.load.libs.is_empty() {
                return Err("dump needs at least one --lib PATH".into());
            }
            let doc = load_libs(&args.load)?;
            eprintln!("ffihub: {}", doc.typing_report());
            let format = args.format.unwrap_or(match &args.output {
                Some(p) if p.extension().is_some_and(|e| e == "json") => Format::Json,
                _ => Format::Yaml,
            });
            let text = match format {
                Format::Yaml => doc.to_yaml_string(),
                Format::Json => doc.to_json_string(),
            }
            .map_err(|e| e.to_string())?;
            write_output(args.output.as_deref(), &text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Ir(source) => {
            let lib = ir::build(&load(&source)?)?;
            let text = serde_yaml_text(&lib)?;
            write_output(None, &text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Harvest(args) => {
            let doc = load(&args.source)?;
            let lib = ir::build(&doc)?;
            let roots = harvest::roots(&args.source.load.libs, &args.python.dirs)?;
            let h = harvest::harvest(&lib, &roots)?;
            for w in &h.warnings {
                eprintln!("ffihub: warning: {w}");
            }
            for line in &h.report {
                eprintln!("ffihub: {line}");
            }
            for (name, e) in &h.entries {
                for n in &e.notes {
                    eprintln!("ffihub: harvest: {name}: {n}");
                }
            }
            let command = "ffihub harvest";
            write_output(args.output.as_deref(), &harvest::to_yaml(&h, command))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Generate(args) => run_generate(&args, false),
        Command::Check(args) => run_generate(&args, true),
    }
}

fn serde_yaml_text(lib: &ir::Library) -> Result<String, String> {
    serde_yaml::to_string(lib).map_err(|e| format!("cannot serialize the IR: {e}"))
}

fn backends(lang: &str) -> Result<Vec<&'static Backend>, String> {
    if lang == "all" {
        return Ok(lang::BACKENDS.iter().collect());
    }
    lang::backend(lang).map(|b| vec![b]).ok_or_else(|| {
        let names: Vec<&str> = lang::BACKENDS.iter().map(|b| b.name).collect();
        format!(
            "unknown language `{lang}` (expected one of: {}, all)",
            names.join(", ")
        )
    })
}

fn run_generate(args: &GenerateArgs, check: bool) -> Result<ExitCode, String> {
    let backends = backends(&args.lang)?;
    if args.name.trim().is_empty() {
        return Err("--name must not be empty".into());
    }
    let file = read_config(args.config.as_deref())?;
    let doc = load(&args.source)?;
    let report = doc.typing_report();
    let harvested = if args.harvest {
        let roots = harvest::roots(&args.source.load.libs, &args.python.dirs)?;
        let h = harvest::harvest(&ir::build(&doc)?, &roots)?;
        if !check {
            for w in &h.warnings {
                eprintln!("ffihub: warning: {w}");
            }
            for line in &h.report {
                eprintln!("ffihub: {line}");
            }
        }
        Some(harvest::without(h.signatures(), file.signatures.as_ref()))
    } else {
        None
    };
    let opts = ir::Options {
        rename: file.rename,
        signatures: file.signatures,
        harvested,
    };
    let package = file.package;
    let lib = match ir::build_with(&doc, &opts) {
        Ok(lib) => lib,
        Err(ir::BuildError::Overlay(problems)) => {
            let path = args
                .config
                .as_deref()
                .unwrap_or(std::path::Path::new("--config"));
            let list: String = problems.iter().map(|p| format!("\n  {p}")).collect();
            if check {
                // The library changed under the overlay: its entries are stale.
                eprintln!(
                    "{}: the signature overlay no longer matches the library ({} stale \
                     entr{}):{list}",
                    path.display(),
                    problems.len(),
                    if problems.len() == 1 { "y" } else { "ies" }
                );
                return Ok(ExitCode::from(1));
            }
            return Err(format!(
                "{}: the signature overlay does not match the library:{list}",
                path.display()
            ));
        }
        Err(e) => return Err(e.into()),
    };
    if !check {
        eprintln!("ffihub: {report}");
        eprintln!("ffihub: {}", lib.naming_report());
        for note in &lib.harvest_notes {
            eprintln!("ffihub: harvest: left out: {note}");
        }
        for note in &lib.shadowed_exports {
            eprintln!("ffihub: note: {note}");
        }
    }
    let cfg = Config {
        name: args.name.clone(),
        allow_unsupported: args.allow_unsupported.clone(),
        package,
    };
    let files = match generate(&lib, &backends, &cfg) {
        Ok(files) => files,
        Err(diags) => {
            for d in diags.sorted() {
                eprintln!("{d}");
            }
            eprintln!(
                "ffihub: error: {} problem(s), nothing written (unsupported items can be accepted with --allow-unsupported ITEM)",
                diags.sorted().len()
            );
            return Ok(ExitCode::from(1));
        }
    };
    if check {
        let drift = filemap::compare(&files, &args.out);
        if drift.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{} is stale; regenerate it with `ffihub generate` and the same arguments:\n{drift}",
            args.out.display()
        );
        return Ok(ExitCode::from(1));
    }
    filemap::write(&files, &args.out)?;
    for backend in &backends {
        eprintln!("{}", summary(&lib, backend, &files, backends.len() > 1));
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per language: `julia: 2 files, 1830 functions, 472 types, 192 untyped items`.
fn summary(lib: &ir::Library, backend: &Backend, files: &filemap::FileMap, nested: bool) -> String {
    let mut ignored = crate::diagnostics::Diagnostics::default();
    let out = backend.capabilities.filter(lib, backend.name, &mut ignored);
    let n_files = files
        .keys()
        .filter(|p| !nested || p.starts_with(backend.name))
        .count();
    let untyped = out
        .functions
        .iter()
        .filter(|f| f.signature.is_none())
        .count()
        + out
            .types
            .iter()
            .flat_map(|t| &t.fields)
            .filter(|f| f.untyped)
            .count()
        + out
            .types
            .iter()
            .flat_map(|t| &t.methods)
            .filter(|m| m.signature.is_none())
            .count();
    format!(
        "{}: {n_files} files, {} functions, {} types, {untyped} untyped items",
        backend.name,
        out.functions.len(),
        out.types.len()
    )
}

/// The reflection named by the source arguments.
fn load(source: &SourceArgs) -> Result<Reflection, String> {
    match &source.metadata {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let mut doc = Reflection::from_str_auto(&text)
                .map_err(|e| format!("{}: {}", path.display(), one_line(&e.to_string())))?;
            if let Some(prefix) = &source.load.prefix {
                doc.retain_prefix(prefix);
            }
            Ok(doc)
        }
        None if source.load.libs.is_empty() => {
            Err("give the libraries (--lib PATH) or a dump (--metadata FILE)".into())
        }
        None => load_libs(&source.load),
    }
}

/// Loads the libraries into a runtime and dumps them; a library that gives nothing is a warning
/// (an error with `--strict`).
fn load_libs(load: &LoadArgs) -> Result<Reflection, String> {
    let dumped = dump(&load.options()).map_err(|e| one_line(&e.to_string()))?;
    for lib in &dumped.empty_libraries {
        let message = format!(
            "{} registers no global function or type and exports no `__tvm_ffi_` function: \
             is it a TVM-FFI library?",
            lib.display()
        );
        if load.strict {
            return Err(message);
        }
        eprintln!("ffihub: warning: {message} (--strict makes this an error)");
    }
    Ok(dumped.reflection)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn write_output(path: Option<&std::path::Path>, text: &str) -> Result<(), String> {
    use std::io::Write;
    match path {
        Some(p) => {
            std::fs::write(p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
        }
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to standard output: {e}")),
    }
}
