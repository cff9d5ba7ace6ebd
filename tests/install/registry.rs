//! A local cargo registry on 127.0.0.1 that stands in for crates.io: the sparse index protocol,
//! `.crate` downloads and the publish API (`cargo publish --registry`), with crates.io's checks
//! that a crate has a description and a license and that a version is published once.
//!
//! Cargo reaches it by source replacement (`[source.crates-io] replace-with`), as a mirror: an
//! extension's `ffihub = "0.1"` resolves against it unchanged. It therefore also serves the
//! crates.io crates that ffihub's crates depend on, from what cargo already has: their index
//! entries are written from `cargo metadata` of the workspace (this platform's packages, which the
//! workspace build downloaded: the `.crate` files come from cargo's cache, checksums from
//! Cargo.lock), and the packages that only other platforms build (`windows-sys`...) are listed
//! with their locked dependencies and the features asked of them, so that resolution, which spans
//! every platform, finds them; they are never downloaded here.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use ffihub_tests::http::{Request, Response, Server};
use ffihub_tests::{run_ok, workspace_root};
use serde_json::{json, Value};

/// The registry's name in cargo's configuration.
pub const NAME: &str = "ffihub-local";
/// The token the publish API accepts.
const TOKEN: &str = "ffihub-local-token";

/// Index entries by crate name, and the `.crate` file of each `(name, version)`.
#[derive(Default)]
struct State {
    index: BTreeMap<String, Vec<Value>>,
    files: HashMap<(String, String), CrateFile>,
}

enum CrateFile {
    Published(Vec<u8>),
    Cached(PathBuf),
}

/// A running registry (stopped when dropped).
pub struct Registry {
    server: Server,
    state: Arc<Mutex<State>>,
}

impl Registry {
    /// Starts a registry that serves the crates.io packages of the workspace's lock file.
    pub fn start() -> Registry {
        let state = Arc::new(Mutex::new(State::default()));
        seed_from_workspace(&mut state.lock().unwrap());
        let url = Arc::new(Mutex::new(String::new()));
        let server = {
            let (state, url) = (state.clone(), url.clone());
            Server::start(move |request| handle(request, &state, &url.lock().unwrap()))
        };
        *url.lock().unwrap() = server.url();
        Registry { server, state }
    }

    /// The cargo configuration that makes crates.io resolve against this registry (for a
    /// project's `.cargo/config.toml`).
    pub fn cargo_config(&self) -> String {
        format!(
            "[source.crates-io]\nreplace-with = \"{NAME}\"\n\n\
             [registries.{NAME}]\nindex = \"sparse+{}/index/\"\n",
            self.server.url()
        )
    }

    /// Points a cargo command at this registry: the same configuration as `--config` arguments,
    /// and the publish token.
    pub fn configure(&self, cargo: &mut Command) {
        cargo
            .arg("--config")
            .arg(format!("source.crates-io.replace-with=\"{NAME}\""))
            .arg("--config")
            .arg(format!(
                "registries.{NAME}.index=\"sparse+{}/index/\"",
                self.server.url()
            ))
            .env(
                format!(
                    "CARGO_REGISTRIES_{}_TOKEN",
                    NAME.to_uppercase().replace('-', "_")
                ),
                TOKEN,
            );
    }

    /// The index entries of `name` (one JSON object per version).
    pub fn index_entries(&self, name: &str) -> Vec<Value> {
        let state = self.state.lock().unwrap();
        state.index.get(name).cloned().unwrap_or_default()
    }

    /// The requests served so far (`METHOD /path STATUS`).
    pub fn log(&self) -> Vec<String> {
        self.server.log()
    }
}

fn handle(request: &Request, state: &Mutex<State>, url: &str) -> Response {
    let path = request.path.as_str();
    match (request.method.as_str(), path) {
        ("GET", "/index/config.json") => Response::ok(
            "application/json",
            json!({ "dl": format!("{url}/dl"), "api": url }).to_string(),
        ),
        ("GET", _) if path.starts_with("/index/") => {
            let name = path.rsplit('/').next().unwrap_or_default();
            let state = state.lock().unwrap();
            match state.index.get(name) {
                Some(entries) if index_path(name) == path["/index/".len()..] => {
                    let lines: Vec<String> = entries.iter().map(Value::to_string).collect();
                    Response::ok("text/plain", lines.join("\n") + "\n")
                }
                _ => Response::error(404, &format!("no crate {name}")),
            }
        }
        ("GET", _) if path.starts_with("/dl/") => {
            // /dl/<name>/<version>/download
            let parts: Vec<&str> = path.split('/').collect();
            let [_, _, name, version, "download"] = parts[..] else {
                return Response::error(404, "not a download path");
            };
            let state = state.lock().unwrap();
            match state.files.get(&(name.to_string(), version.to_string())) {
                Some(CrateFile::Published(bytes)) => {
                    Response::ok("application/octet-stream", bytes.clone())
                }
                Some(CrateFile::Cached(file)) => match std::fs::read(file) {
                    Ok(bytes) => Response::ok("application/octet-stream", bytes),
                    Err(e) => Response::error(404, &format!("{}: {e}", file.display())),
                },
                None => Response::error(404, &format!("no file for {name} {version}")),
            }
        }
        ("PUT", "/api/v1/crates/new") => {
            if request.header("authorization") != Some(TOKEN) {
                return Response::error(403, "a valid token is required to publish");
            }
            match publish(&request.body, state) {
                Ok(()) => Response::ok(
                    "application/json",
                    json!({ "warnings": { "invalid_categories": [], "invalid_badges": [], "other": [] } })
                        .to_string(),
                ),
                Err((status, why)) => Response {
                    status,
                    content_type: "application/json",
                    body: json!({ "errors": [{ "detail": why }] })
                        .to_string()
                        .into_bytes(),
                },
            }
        }
        _ => Response::error(404, "unknown path"),
    }
}

/// The index path of a crate name, as crates.io lays it out.
fn index_path(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match lower.len() {
        1 => format!("1/{lower}"),
        2 => format!("2/{lower}"),
        3 => format!("3/{}/{lower}", &lower[..1]),
        _ => format!("{}/{}/{lower}", &lower[..2], &lower[2..4]),
    }
}

/// `cargo publish`'s request body: the metadata JSON and the `.crate` file, each after its
/// little-endian u32 length. Adds the index entry.
fn publish(body: &[u8], state: &Mutex<State>) -> Result<(), (u16, String)> {
    let bad = |why: &str| (400, why.to_string());
    let (meta, rest) = length_prefixed(body).ok_or_else(|| bad("truncated metadata"))?;
    let (file, _) = length_prefixed(rest).ok_or_else(|| bad("truncated .crate file"))?;
    let meta: Value = serde_json::from_slice(meta).map_err(|e| bad(&e.to_string()))?;
    let text = |key: &str| meta[key].as_str().unwrap_or_default().to_string();
    let (name, version) = (text("name"), text("vers"));
    // crates.io's rules for the metadata.
    if text("description").trim().is_empty() {
        return Err(bad(&format!("{name}: a description is required")));
    }
    if text("license").is_empty() && text("license_file").is_empty() {
        return Err(bad(&format!(
            "{name}: a license or license file is required"
        )));
    }
    let deps: Vec<Value> = meta["deps"]
        .as_array()
        .ok_or_else(|| bad("no deps list"))?
        .iter()
        .map(|d| index_dependency(d, PUBLISH_KEYS))
        .collect();
    let entry = json!({
        "name": name,
        "vers": version,
        "deps": deps,
        "cksum": sha256(file),
        "features": meta["features"],
        "yanked": false,
        "links": meta["links"],
        "rust_version": meta["rust_version"],
    });
    let mut state = state.lock().unwrap();
    let key = (name.clone(), version.clone());
    if state.files.contains_key(&key) {
        return Err((
            409,
            format!("crate version `{name}@{version}` is already uploaded"),
        ));
    }
    state.files.insert(key, CrateFile::Published(file.to_vec()));
    state.index.entry(name).or_default().push(entry);
    Ok(())
}

/// Where `cargo publish` and `cargo metadata` keep a dependency's renamed name, version
/// requirement and default-features flag.
const PUBLISH_KEYS: [&str; 3] = ["explicit_name_in_toml", "version_req", "default_features"];
/// See [`PUBLISH_KEYS`].
const METADATA_KEYS: [&str; 3] = ["rename", "req", "uses_default_features"];

/// A dependency of an index entry (crates.io's index format) from cargo's description of it.
fn index_dependency(d: &Value, [rename, req, default_features]: [&str; 3]) -> Value {
    let renamed = d[rename].as_str();
    json!({
        "name": renamed.map_or(d["name"].clone(), |n| json!(n)),
        "req": d[req],
        "features": d["features"],
        "optional": d["optional"],
        "default_features": d[default_features],
        "target": d["target"],
        "kind": d["kind"].as_str().unwrap_or("normal"),
        "registry": d["registry"],
        "package": renamed.map(|_| d["name"].clone()),
    })
}

fn length_prefixed(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let rest = &bytes[4..];
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// The SHA-256 of `bytes`, in hex (coreutils' `sha256sum`).
fn sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run sha256sum");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(bytes)
        .expect("write to sha256sum");
    let out = child.wait_with_output().expect("wait for sha256sum");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Index entries and files for the crates.io packages of the workspace's lock file.
fn seed_from_workspace(state: &mut State) {
    let root = workspace_root();
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("read Cargo.lock");
    let locked = locked_packages(&lock);
    let cache = cargo_cache();
    let mut metadata = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    metadata
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host_triple()])
        .current_dir(&root);
    let metadata: Value =
        serde_json::from_slice(&run_ok(metadata).stdout).expect("cargo metadata's JSON");
    // The features this platform's packages ask of each crate (the others' entries need them).
    let mut requested: HashMap<String, Vec<Value>> = HashMap::new();
    for package in metadata["packages"].as_array().expect("packages") {
        let source = package["source"].as_str().unwrap_or_default();
        let deps = package["dependencies"].as_array().expect("dependencies");
        for d in deps {
            let features = d["features"].as_array().expect("features").iter().cloned();
            requested
                .entry(d["name"].as_str().unwrap().to_string())
                .or_default()
                .extend(features);
        }
        if !source.starts_with("registry+") {
            continue;
        }
        let name = package["name"].as_str().unwrap().to_string();
        let version = package["version"].as_str().unwrap().to_string();
        let deps: Vec<Value> = deps
            .iter()
            .map(|d| index_dependency(d, METADATA_KEYS))
            .collect();
        let locked = locked
            .iter()
            .find(|p| p.name == name && p.version == version)
            .expect("a crates.io package of cargo metadata is in Cargo.lock");
        let entry = json!({
            "name": name,
            "vers": version,
            "deps": deps,
            "cksum": locked.checksum,
            "features": package["features"],
            "yanked": false,
            "links": package["links"],
            "rust_version": package["rust_version"],
        });
        state.index.entry(name.clone()).or_default().push(entry);
        state.files.insert(
            (name.clone(), version.clone()),
            CrateFile::Cached(cache.join(format!("{name}-{version}.crate"))),
        );
    }
    // The packages of other platforms, for resolution only: their locked dependencies (exact
    // versions, as resolved) and the features asked of them.
    for package in &locked {
        let key = (package.name.clone(), package.version.clone());
        if state.files.contains_key(&key) {
            continue;
        }
        let deps: Vec<Value> = package
            .dependencies
            .iter()
            .map(|dep| {
                let mut words = dep.split_whitespace();
                let name = words.next().unwrap_or_default();
                let version = words.next().map(str::to_string).unwrap_or_else(|| {
                    let found = locked.iter().find(|p| p.name == name);
                    found.expect("a locked dependency").version.clone()
                });
                json!({
                    "name": name, "req": format!("={version}"), "features": [],
                    "optional": false, "default_features": true, "target": null,
                    "kind": "normal", "registry": null, "package": null,
                })
            })
            .collect();
        let features: serde_json::Map<String, Value> = requested
            .get(&package.name)
            .into_iter()
            .flatten()
            .map(|f| (f.as_str().unwrap().to_string(), json!([])))
            .collect();
        state
            .index
            .entry(package.name.clone())
            .or_default()
            .push(json!({
                "name": package.name, "vers": package.version, "deps": deps,
                "cksum": package.checksum, "features": features, "yanked": false, "links": null,
            }));
    }
}

/// A crates.io package of a Cargo.lock.
struct LockedPackage {
    name: String,
    version: String,
    checksum: String,
    /// `name` or `name version`, as the lock file lists them.
    dependencies: Vec<String>,
}

/// The crates.io packages of a Cargo.lock (a file cargo writes in one fixed layout).
fn locked_packages(lock: &str) -> Vec<LockedPackage> {
    let mut out = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|l| {
                l.strip_prefix(key)
                    .and_then(|v| v.trim().strip_prefix('='))
                    .map(|v| v.trim().trim_matches('"').to_string())
            })
        };
        let (Some(name), Some(version), Some(checksum)) =
            (field("name "), field("version "), field("checksum "))
        else {
            continue;
        };
        let dependencies = block
            .split_once("dependencies = [")
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(list, _)| {
                list.split(',')
                    .map(|d| d.trim().trim_matches('"').to_string())
                    .filter(|d| !d.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        out.push(LockedPackage {
            name,
            version,
            checksum,
            dependencies,
        });
    }
    out
}

/// Cargo's folder of downloaded crates.io `.crate` files.
fn cargo_cache() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(&std::env::var_os("HOME").expect("HOME")).join(".cargo"));
    let cache = home.join("registry/cache");
    std::fs::read_dir(&cache)
        .unwrap_or_else(|e| panic!("{}: {e}", cache.display()))
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("index.crates.io-"))
        })
        .unwrap_or_else(|| panic!("no crates.io cache in {}", cache.display()))
}

/// The host's target triple (`rustc -vV`).
fn host_triple() -> String {
    let mut rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()));
    rustc.arg("-vV");
    let out = run_ok(rustc);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}
