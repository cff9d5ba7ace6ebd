# Native libraries as Pkg artifacts, the way JLL packages ship theirs: a package's
# `Artifacts.toml` (next to its Project.toml) binds an artifact named after the package, for each
# platform, to a tarball (its git-tree-sha1, and a download URL with the sha256); the artifact
# holds the libraries in `lib/`. `Pkg.add` installs it with the package, for this platform.
# TVMFFI finds its runtime that way (`_open_library`), and generated packages their libraries
# (`load_package_libraries` with `artifacts`). Release builds write the Artifacts.toml with
# `bind_library_artifact` (scripts/release-julia.sh for TVMFFI itself, docs/install.md).
#
# Julia 1.5 has artifacts in Pkg (`Pkg.Artifacts`, `Pkg.BinaryPlatforms`); later versions keep
# those names. Pkg is loaded only when a package has an Artifacts.toml (a release) or one is made:
# since 1.11 it is not in the system image, and loading it costs every `using`. Code that uses it
# runs through `invokelatest`, as it is loaded after TVMFFI's methods were compiled.

const _PKG = Base.PkgId(Base.UUID("44cfe95a-1eb2-52ea-b672-e2afdf69b78f"), "Pkg")
const _SHA = Base.PkgId(Base.UUID("ea8e919c-243c-51af-8825-aaa63cd721ce"), "SHA")

_with_pkg(f) = Base.invokelatest(f, Base.require(_PKG))

"""
    artifact_library(root, name, file) -> (path, nothing) or (nothing, why)

The file `lib/<file>` of the artifact `name` that the `Artifacts.toml` in the package folder
`root` binds for this platform, installing the artifact first if it is not (Pkg installs the
artifacts of a package when it adds it). When the package has no `Artifacts.toml`, returns
`(nothing, nothing)`; otherwise, when the file cannot be had, `why` says so, for an error's list
of the places tried.
"""
function artifact_library(root::AbstractString, name::AbstractString, file::AbstractString)
    toml = joinpath(root, "Artifacts.toml")
    isfile(toml) || return nothing, nothing
    return _with_pkg(Pkg -> _artifact_library(Pkg, toml, String(name), String(file)))
end

function _artifact_library(Pkg::Module, toml::String, name::String, file::String)
    what = "the artifact $name of $toml"
    meta = Pkg.Artifacts.artifact_meta(name, toml)
    if meta === nothing
        return nothing, "$what (none for $(Pkg.BinaryPlatforms.triplet(Pkg.BinaryPlatforms.platform_key_abi())))"
    end
    dir = try
        Pkg.Artifacts.ensure_artifact_installed(name, meta, toml; quiet_download = true)
    catch e
        e isa InterruptException && rethrow()
        return nothing, "$what (cannot install it: $(sprint(showerror, e)))"
    end
    path = joinpath(dir, "lib", file)
    return isfile(path) ? (path, nothing) : (nothing, "$path (no such file)")
end

"""
    bind_library_artifact(package_dir, files; url_base, tarball_dir = pwd()) -> String

Makes the shared libraries `files` an artifact of the package in `package_dir` for this
platform, the way [`load_package_libraries`](@ref) (and TVMFFI, for its runtime) find them:

1. creates the artifact (named after the package, the libraries in its `lib/`) in the depot;
2. writes it as the tarball `<Name>-<version>-<platform>.tar.gz` into `tarball_dir`;
3. binds it for this platform in `package_dir/Artifacts.toml`: its git-tree-sha1, and the
   download `<url_base>/<tarball>` with the tarball's sha256 (replacing an earlier binding).

Upload the tarball to `url_base` and release the package with its `Artifacts.toml`: `Pkg.add`
then downloads and checks the tarball. Returns the tarball's path. Libraries are bound for Linux
on this machine's architecture, with its C library; strip their debug info first (for example
`objcopy --strip-debug`), as they are what users download.
"""
function bind_library_artifact(package_dir::AbstractString, files; url_base::AbstractString,
                               tarball_dir::AbstractString = pwd())
    Sys.islinux() || error("bind_library_artifact: only Linux libraries are packaged (this is $(Sys.KERNEL))")
    sha256 = Base.require(_SHA).sha256
    return _with_pkg(Pkg -> _bind_library_artifact(Pkg, sha256, package_dir, files, url_base, tarball_dir))
end

function _bind_library_artifact(Pkg::Module, sha256, package_dir, files, url_base, tarball_dir)
    project = Pkg.TOML.parsefile(joinpath(package_dir, "Project.toml"))
    name, version = project["name"], project["version"]
    for file in files
        isfile(file) || error("bind_library_artifact: $file: no such file")
    end
    host = Pkg.BinaryPlatforms.platform_key_abi()
    # `arch`/`libc` are Symbols on 1.5 and Strings on 1.6+ (Base's HostPlatform); the
    # compatibility constructor takes Symbols on every version.
    platform = Pkg.BinaryPlatforms.Linux(Symbol(Pkg.BinaryPlatforms.arch(host));
                                         libc = Symbol(Pkg.BinaryPlatforms.libc(host)))
    hash = Pkg.Artifacts.create_artifact() do dir
        mkpath(joinpath(dir, "lib"))
        for file in files
            cp(file, joinpath(dir, "lib", basename(file)))
        end
    end
    mkpath(tarball_dir)
    tarball = joinpath(abspath(tarball_dir), "$name-$version-$(Pkg.BinaryPlatforms.triplet(platform)).tar.gz")
    rm(tarball; force = true)
    Pkg.Artifacts.archive_artifact(hash, tarball)
    digest = bytes2hex(open(sha256, tarball))
    url = rstrip(url_base, '/') * "/" * basename(tarball)
    Pkg.Artifacts.bind_artifact!(joinpath(package_dir, "Artifacts.toml"), name, hash;
                                 platform = platform, download_info = [(url, digest)], force = true)
    return tarball
end
