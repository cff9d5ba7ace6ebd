//! `Pkg.add` from a package registry into a fresh depot, as a Julia user installs packages
//! (docs/install.md, "Julia"), with the native libraries as Pkg artifacts:
//!
//! - `scripts/release-julia.sh` releases TVMFFI: the package with an `Artifacts.toml` binding
//!   ffihub's runtime (stripped of debug info) for this platform, and the artifact's tarball;
//! - the demo's generated package binds its library the same way
//!   (`TVMFFI.bind_library_artifact`), and both become git repositories;
//! - a registry (a git repository in Pkg's format) lists both; the tarballs are served by a small
//!   HTTP server on 127.0.0.1, the download location their `Artifacts.toml` name, so nothing
//!   leaves the machine (`JULIA_PKG_SERVER` is empty: Julia 1.5 would ask pkg.julialang.org
//!   first);
//! - in a fresh depot, with a fresh `HOME` and no `TVM_FFI_LIB`, `FFIHUB_LIBRARY_PATH` or
//!   `LD_LIBRARY_PATH`,
//!   `Pkg.Registry.add` and `Pkg.add("Demo")` install both packages and download both artifacts;
//!   then, with the server stopped, `using Demo` runs on the runtime and library from the depot's
//!   artifacts.
//!
//! It prints each artifact's tarball and installed size.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ffihub_tests::http::{Response, Server};
use ffihub_tests::{
    build_demo_and_generator, build_julia_shim, ffihub_runtime_checked, julia_lock, run_ok,
    run_ok_within, run_with_timeout, target_dir, tree_size, workspace_root,
};

use super::julia;

/// A bound for each Julia run (`Pkg.add` precompiles both packages).
const JULIA_STEP: Duration = Duration::from_secs(10 * 60);
/// The registry's UUID (any fixed one).
const REGISTRY_UUID: &str = "2f3c9a4e-6a0f-4a53-9a0e-0c1b7d9e5f11";

/// `git <args>` in `dir`, which must succeed; its trimmed stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .args([
            "-c",
            "user.name=ffihub test",
            "-c",
            "user.email=test@ffihub.invalid",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args);
    String::from_utf8_lossy(&run_ok(cmd).stdout)
        .trim()
        .to_string()
}

/// Makes `dir` a git repository with one commit of all its files; returns the commit's tree hash
/// (what a registry records for a version).
fn commit(dir: &Path, message: &str) -> String {
    if !dir.join(".git").exists() {
        git(dir, &["init", "-q"]);
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-qm", message]);
    }
    git(dir, &["rev-parse", "HEAD^{tree}"])
}

/// A field `key = "value"` of a TOML file's top level or first table that has it.
fn toml_value(file: &Path, key: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines()
        .find_map(|l| l.trim().strip_prefix(&format!("{key} = \"")))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("{} has no {key}", file.display()))
        .to_string()
}

/// The `[deps]` of a Project.toml: `name = "uuid"` lines.
fn project_deps(project: &Path) -> String {
    let text = std::fs::read_to_string(project).unwrap();
    let deps = text.split_once("[deps]\n").map_or("", |(_, rest)| rest);
    deps.lines()
        .take_while(|l| !l.trim().is_empty() && !l.starts_with('['))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// One package of the registry: its released repository and the compat bounds of version 0.x.
struct Entry<'a> {
    repo: &'a Path,
    compat: &'a str,
}

/// Writes a registry in Pkg's format into `dir` (a git repository) listing version 0.1.0 of each
/// package; returns its URL.
fn write_registry(dir: &Path, entries: &[Entry]) -> String {
    let mut packages = String::new();
    for entry in entries {
        let project = entry.repo.join("Project.toml");
        let (name, uuid) = (toml_value(&project, "name"), toml_value(&project, "uuid"));
        let version = toml_value(&project, "version");
        let path = format!("{}/{name}", &name[..1]);
        packages.push_str(&format!(
            "{uuid} = {{ name = \"{name}\", path = \"{path}\" }}\n"
        ));
        let folder = dir.join(&path);
        std::fs::create_dir_all(&folder).unwrap();
        let files = [
            (
                "Package.toml",
                format!(
                    "name = \"{name}\"\nuuid = \"{uuid}\"\nrepo = \"file://{}\"\n",
                    entry.repo.display()
                ),
            ),
            (
                "Versions.toml",
                format!(
                    "[\"{version}\"]\ngit-tree-sha1 = \"{}\"\n",
                    commit(entry.repo, &format!("{name} v{version}"))
                ),
            ),
            ("Deps.toml", format!("[0]\n{}", project_deps(&project))),
            ("Compat.toml", format!("[0]\n{}\n", entry.compat)),
        ];
        for (file, text) in files {
            std::fs::write(folder.join(file), text).unwrap();
        }
    }
    std::fs::write(
        dir.join("Registry.toml"),
        format!(
            "name = \"FFIHubLocal\"\nuuid = \"{REGISTRY_UUID}\"\nrepo = \"file://{}\"\n\n[packages]\n{packages}",
            dir.display()
        ),
    )
    .unwrap();
    commit(dir, "the packages of the rehearsal");
    format!("file://{}", dir.display())
}

/// Serves the `.tar.gz` files of `dir` by name.
fn serve_tarballs(dir: PathBuf) -> Server {
    Server::start(move |request| {
        let name = request.path.trim_start_matches('/');
        if request.method != "GET" || name.contains('/') || !name.ends_with(".tar.gz") {
            return Response::error(404, "not a tarball");
        }
        match std::fs::read(dir.join(name)) {
            Ok(bytes) => Response::ok("application/gzip", bytes),
            Err(e) => Response::error(404, &e.to_string()),
        }
    })
}

/// `scripts/julia <args>` with nothing of the caller's environment but PATH, and `env`.
fn julia_clean(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Command {
    let mut cmd = Command::new(julia());
    cmd.current_dir(dir).env_clear().args(args);
    if let Some(path) = std::env::var_os("PATH") {
        cmd.env("PATH", path);
    }
    for (var, value) in env {
        cmd.env(var, value);
    }
    cmd
}

/// Runs `cmd` within [`JULIA_STEP`]; fails the test with both streams unless it succeeds.
fn julia_ok(what: &str, cmd: Command) -> String {
    let out = run_with_timeout(cmd, JULIA_STEP);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn julia_pkg_add_from_a_registry_installs_the_libraries_as_artifacts() {
    let root = workspace_root();
    let target = target_dir();
    let runtime = ffihub_runtime_checked().lib_dir.join("libtvm_ffi.so");
    build_demo_and_generator();
    build_julia_shim();
    let _serial = julia_lock();
    let tmp = std::env::temp_dir().join(format!("ffihub-julia-release-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (release, stage) = (tmp.join("release"), tmp.join("stage"));
    std::fs::create_dir_all(&stage).unwrap();
    let server = serve_tarballs(release.clone());
    // The maintainers' side makes artifacts in a depot of its own.
    let author_depot = tmp.join("author-depot");

    let mut script = Command::new(root.join("scripts/release-julia.sh"));
    script
        .args(["--url", &server.url(), "--out"])
        .arg(&release)
        .arg("--runtime")
        .arg(&runtime)
        .arg("--shim")
        .arg(target.join("release/libtvmffi_julia.so"))
        .env("JULIA_DEPOT_PATH", &author_depot)
        .env_remove("TVM_FFI_LIB")
        .env_remove("TVM_FFI_LIB_DIR");
    run_ok_within(script, JULIA_STEP);
    let tvmffi = release.join("TVMFFI");
    assert!(
        tvmffi.join("Artifacts.toml").is_file(),
        "release-julia.sh wrote no {}/Artifacts.toml",
        tvmffi.display()
    );

    // The demo's package, its library bound as an artifact.
    let demo = release.join("Demo");
    let mut generate = Command::new(target.join("debug/ffihub"));
    generate
        .args(["generate", "--lang", "julia", "--name", "demo", "--runtime"])
        .arg(&runtime)
        .arg("--lib")
        .arg(target.join("debug/libffihub_demo.so"))
        .arg("--out")
        .arg(&demo);
    run_ok(generate);
    let demo_lib = stage.join("libffihub_demo.so");
    let mut strip = Command::new("objcopy");
    strip
        .arg("--strip-debug")
        .arg(target.join("debug/libffihub_demo.so"))
        .arg(&demo_lib);
    run_ok(strip);
    let mut bind = julia_clean(
        &stage,
        &[
            "--startup-file=no",
            &format!("--project={}", root.join("bindings/julia/TVMFFI").display()),
            "-e",
            "using TVMFFI; TVMFFI.bind_library_artifact(ARGS[1], [ARGS[2]]; url_base = ARGS[3], tarball_dir = ARGS[4])",
        ],
        &[("JULIA_DEPOT_PATH", &author_depot)],
    );
    bind.arg(&demo)
        .arg(&demo_lib)
        .arg(server.url())
        .arg(&release);
    julia_ok("TVMFFI.bind_library_artifact for Demo", bind);

    let registry = write_registry(
        &tmp.join("registry"),
        &[
            Entry {
                repo: &tvmffi,
                compat: "julia = \"1.5.0-1\"",
            },
            Entry {
                repo: &demo,
                compat: "TVMFFI = \"0.1\"\njulia = \"1.5.0-1\"",
            },
        ],
    );

    // The user's side: a fresh depot and HOME, nothing else but PATH.
    let home = tmp.join("home");
    let depot = tmp.join("depot");
    std::fs::create_dir_all(&home).unwrap();
    let empty = Path::new("");
    let user_env = [
        ("HOME", home.as_path()),
        ("JULIA_DEPOT_PATH", depot.as_path()),
        ("JULIA_PKG_SERVER", empty),
    ];
    let mut add = julia_clean(
        &home,
        &[
            "--startup-file=no",
            "-e",
            "using Pkg; Pkg.Registry.add(RegistrySpec(url = ARGS[1])); Pkg.add(\"Demo\")",
        ],
        &user_env,
    );
    add.arg(&registry);
    julia_ok("Pkg.add(\"Demo\") from the registry", add);
    let served = server.log();
    drop(server);
    let tarball_of = |name: &str| -> String {
        let prefix = format!("{name}-0.1.0-");
        std::fs::read_dir(&release)
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .find(|f| f.starts_with(&prefix) && f.ends_with(".tar.gz"))
            .unwrap_or_else(|| panic!("no {prefix}<platform>.tar.gz in {}", release.display()))
    };
    for name in ["TVMFFI", "Demo"] {
        let tarball = tarball_of(name);
        assert!(
            served.contains(&format!("GET /{tarball} 200")),
            "Pkg.add did not download {tarball}: {served:?}"
        );
    }

    // Installed: no server, no download.
    let artifact = |package: &Path| {
        depot
            .join("artifacts")
            .join(toml_value(&package.join("Artifacts.toml"), "git-tree-sha1"))
    };
    let out = julia_ok(
        "using Demo",
        julia_clean(
            &home,
            &[
                "--startup-file=no",
                "-e",
                "using Demo
                 println(Demo.add_one(41), \" \", Demo.Point(3.0, 4.0).x)
                 println(Demo.TVMFFI.loaded_library())
                 println(Demo.TVMFFI.shim_library())
                 println(first(l[findfirst('/', l):end] for l in eachline(\"/proc/self/maps\") if occursin(\"libffihub_demo.so\", l)))",
            ],
            &user_env,
        ),
    );
    let expected = format!(
        "42 3.0\n{}\n{}\n{}\n",
        artifact(&tvmffi).join("lib/libtvm_ffi.so").display(),
        artifact(&tvmffi).join("lib/libtvmffi_julia.so").display(),
        artifact(&demo).join("lib/libffihub_demo.so").display()
    );
    assert_eq!(out, expected, "Demo did not run on the artifacts");

    for (name, package) in [("TVMFFI", &tvmffi), ("Demo", &demo)] {
        let tarball = release.join(tarball_of(name));
        eprintln!(
            "{name}: artifact {} bytes packed, {} bytes installed; package {} bytes",
            std::fs::metadata(&tarball).unwrap().len(),
            tree_size(&artifact(package)),
            tree_size(package) - tree_size(&package.join(".git")),
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
