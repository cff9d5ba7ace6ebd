# Libraries as Pkg artifacts (src/artifacts.jl): binding files to a package's Artifacts.toml,
# finding them (installed again from the download URL when missing from the depot), and what a
# failure says. Artifacts are made in a temporary store, never in the user's depot.
isdefined(Main, :FFITest) || include(joinpath(@__DIR__, "common.jl"))
module TestArtifacts
using Test, TVMFFI, ..FFITest
using Pkg, SHA
const T = TVMFFI

"""A package folder `dir` named `name`, version 1.2.3, without libraries."""
function package_folder(dir, name)
    mkpath(dir)
    write(joinpath(dir, "Project.toml"),
          "name = \"$name\"\nuuid = \"0e3b9f7c-6a45-4a8a-9d0b-5d2c3b1f7e11\"\nversion = \"1.2.3\"\n")
    return dir
end

@testset "a library bound as an artifact is found, and downloaded again when missing" begin
    mktempdir() do tmp
        Pkg.Artifacts.with_artifacts_directory(joinpath(tmp, "store")) do
            pkg = package_folder(joinpath(tmp, "Pkg1"), "Pkg1")
            lib = joinpath(tmp, "libx.so")
            write(lib, "not really a library")
            @test T.artifact_library(pkg, "Pkg1", "libx.so") == (nothing, nothing)   # no Artifacts.toml

            releases = joinpath(tmp, "releases")
            tarball = T.bind_library_artifact(pkg, [lib]; url_base = "file://$releases/", tarball_dir = releases)
            @test dirname(tarball) == releases
            @test startswith(basename(tarball), "Pkg1-1.2.3-x86_64-linux-") && endswith(tarball, ".tar.gz")
            entry = only(Pkg.TOML.parsefile(joinpath(pkg, "Artifacts.toml"))["Pkg1"])
            @test entry["os"] == "linux"
            @test only(entry["download"])["url"] == "file://$releases/$(basename(tarball))"
            @test only(entry["download"])["sha256"] == bytes2hex(open(sha256, tarball))

            path, why = T.artifact_library(pkg, "Pkg1", "libx.so")
            @test why === nothing
            @test path == joinpath(Pkg.Artifacts.artifact_path(Base.SHA1(entry["git-tree-sha1"])), "lib", "libx.so")
            @test read(path, String) == "not really a library"

            # Gone from the depot: installed again from the tarball's URL, checked against the hashes.
            rm(dirname(dirname(path)); recursive = true)
            @test T.artifact_library(pkg, "Pkg1", "libx.so") == (path, nothing)

            @test T.artifact_library(pkg, "Pkg1", "liby.so") ==
                  (nothing, joinpath(dirname(path), "liby.so") * " (no such file)")
            msg = try
                T.load_package_libraries("Pkg1", ["liby.so"]; artifacts = pkg)
                ""
            catch e
                sprint(showerror, e)
            end
            @test occursin("Pkg1: cannot load liby.so: tried $(joinpath(dirname(path), "liby.so")) (no such file), ", msg)

            toml = joinpath(pkg, "Artifacts.toml")
            p, why = T.artifact_library(pkg, "Other", "libx.so")
            @test p === nothing
            @test startswith(why, "the artifact Other of $toml (none for ")

            # Neither in the depot nor at its URL.
            rm(dirname(dirname(path)); recursive = true)
            rm(tarball)
            p, why = T.artifact_library(pkg, "Pkg1", "libx.so")
            @test p === nothing
            @test startswith(why, "the artifact Pkg1 of $toml (cannot install it: ")
        end
    end
end

@testset "bind_library_artifact refuses what it cannot package" begin
    mktempdir() do tmp
        pkg = package_folder(joinpath(tmp, "Pkg2"), "Pkg2")
        missing_lib = joinpath(tmp, "libnone.so")
        e = try
            T.bind_library_artifact(pkg, [missing_lib]; url_base = "file://$tmp")
            nothing
        catch err
            err
        end
        @test e isa ErrorException && e.msg == "bind_library_artifact: $missing_lib: no such file"
        @test !isfile(joinpath(pkg, "Artifacts.toml"))
    end
end

end # module
