# Debian's Julia 1.5 (bullseye's `julia` package) dies (SIGSEGV, exit code 139, no message) at the
# first exception thrown from compiled code when it runs with libunwind 1.6 or newer, the system
# libunwind of Debian bookworm; bullseye's libunwind 1.3.2 works (docs/install.md, "Julia"). TVMFFI
# reports every error with an exception, so the combination is reported when TVMFFI loads. Nothing
# here may throw: that would be the crash.

const _SYSTEM_LIBUNWIND = "/usr/lib/x86_64-linux-gnu/libunwind.so.8"

# The version of Debian's libunwind8 package when this is Debian's Julia 1.5 running with the
# system libunwind, else `nothing`.
function _debian_system_libunwind()
    (VERSION < v"1.6" && Sys.BINDIR == "/usr/bin") || return nothing
    any(p -> normpath(p) == _SYSTEM_LIBUNWIND, Libdl.dllist()) || return nothing
    dpkg = Sys.which("dpkg-query")
    dpkg === nothing && return nothing
    return strip(read(ignorestatus(`$dpkg -W -f='${Version}' libunwind8`), String))
end

# Whether a Debian package version is 1.6 or newer.
function _libunwind_too_new(version::AbstractString)
    m = match(r"^(?:\d+:)?(\d+)\.(\d+)", version)  # an epoch may come first
    m === nothing && return false
    major, minor = tryparse(Int, m[1]), tryparse(Int, m[2])
    (major === nothing || minor === nothing) && return false
    return major > 1 || (major == 1 && minor >= 6)
end

function _warn_if_exceptions_crash()
    version = _debian_system_libunwind()
    (version === nothing || !_libunwind_too_new(version)) && return nothing
    println(stderr, "TVMFFI: warning: this Julia (Debian's julia $VERSION) runs with the system ",
        "libunwind $version, with which Julia 1.5 dies (SIGSEGV, exit code 139, no message) at the ",
        "first caught exception, and TVMFFI reports every error with one. Copy bullseye's libunwind ",
        "1.3.2 (libunwind.so.8) into /usr/lib/x86_64-linux-gnu/julia, where Julia finds it first, ",
        "or use an official Julia ",
        "build from julialang.org; see docs/install.md, \"Julia\".")
    return nothing
end
