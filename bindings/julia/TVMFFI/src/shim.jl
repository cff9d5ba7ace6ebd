# The native entry points (`libtvmffi_julia.so`, crate bindings/julia/shim; ADR 0016): what must
# run before or without Julia code. Every Julia callback is entered through the shim's safe-call
# function, which refuses a call on a thread Julia cannot run code on (before 1.9: a thread Julia
# did not start) with a TVM-FFI error, so that no Julia code runs there; the deleters the runtime
# may call on any thread (callback cells, DLPack blocks) are the shim's and never enter Julia.
# Where library threads run Julia callbacks (1.9+), every packed call goes through the shim's
# GC-safe call, so that a callback collecting garbage on a library thread does not wait forever
# for the Julia thread that waits for the library.
#
# The library is looked up like the runtime: the `TVMFFI` artifact, the folder of the runtime
# opened, the checkout's target/release, FFIHUB_LIBRARY_PATH, the system loader.

const _SHIM_NAME = "libtvmffi_julia." * Libdl.dlext

# Julia 1.9 and later adopt a foreign thread when it enters a `@cfunction` (julia#46609), so
# such calls run there.
const _ADOPTS_FOREIGN_THREADS = VERSION >= v"1.9"

# A thread inside a `ccall` is not at a safepoint, so a collection started on another thread
# waits for the call to return. When the call waits for that other thread (a library thread
# running a Julia callback, 1.9+, or a Julia thread the library waits for), neither ever
# finishes. Calls made in GC-safe state (the shim brackets each with libjulia's
# `jl_gc_safe_enter`/`jl_gc_safe_leave`) let that collection run. So they are used wherever
# another thread can run Julia code: from 1.9 always (library threads), before that with more
# than one Julia thread. With one thread before 1.9 no other thread collects, and calls go
# straight to the runtime.
_gc_safe_calls() = _ADOPTS_FOREIGN_THREADS || Threads.nthreads() > 1

const _SHIM_PATH = Ref{String}("")
const _GC_SAFE = Ref(false)
const _shim_safe_call = Ref{Ptr{Cvoid}}(C_NULL)
const _shim_cell_deleter = Ref{Ptr{Cvoid}}(C_NULL)
const _shim_cell_released = Ref{Ptr{Cvoid}}(C_NULL)
const _shim_dlpack_deleter = Ref{Ptr{Cvoid}}(C_NULL)
const _shim_can_enter = Ref{Ptr{Cvoid}}(C_NULL)

# The error a callback called on a library thread raises (on Julia before 1.9).
_foreign_thread_message() =
    "a library thread called a Julia function (a callback passed to or registered with a TVM-FFI " *
    "library): Julia $VERSION runs Julia code only on the threads it started, so the call was " *
    "refused before entering Julia. Julia 1.9 and later run such calls. Call the function from a " *
    "Julia thread instead (have the library call back on the thread that called it, or hand the " *
    "work back to Julia and call the function there)."

function _find_shim()
    tried = String[]
    artifact, why = artifact_library(_package_root(), "TVMFFI", _SHIM_NAME)
    artifact === nothing || return artifact
    why === nothing || push!(tried, why)
    dirs = String[dirname(_LIB_PATH[]), dirname(_workspace_lib())]
    append!(dirs, split(get(ENV, "FFIHUB_LIBRARY_PATH", ""), ':'; keepempty = false))
    for dir in unique(dirs)
        path = joinpath(dir, _SHIM_NAME)
        isfile(path) && return path
        push!(tried, "$path (no such file)")
    end
    handle = _dlopen(_SHIM_NAME, Libdl.RTLD_NOW)
    handle isa String || return something(Libdl.dlpath(handle), _SHIM_NAME)
    push!(tried, "the system loader ($handle)")
    error("TVMFFI: cannot load $_SHIM_NAME, the native entry points of Julia callbacks: tried ",
          join(tried, ", "), ". Build it with `cargo build --release -p ffihub-julia-shim` (in an ffihub ",
          "checkout), or add its folder to ENV[\"FFIHUB_LIBRARY_PATH\"].")
end

function _open_shim()
    path = _find_shim()
    handle = _dlopen(path, Libdl.RTLD_NOW)
    handle isa String && error("TVMFFI: cannot load $path: $handle")
    sym(name) = Libdl.dlsym(handle, name)
    _SHIM_PATH[] = path
    _shim_safe_call[] = sym(:tvmffi_julia_safe_call)
    _shim_cell_deleter[] = sym(:tvmffi_julia_cell_deleter)
    _shim_cell_released[] = sym(:tvmffi_julia_cell_released)
    _shim_dlpack_deleter[] = sym(:tvmffi_julia_dlpack_deleter)
    _shim_can_enter[] = sym(:tvmffi_julia_can_enter)
    entry = @cfunction(_callback_safe_call, Int32, (Ptr{Cvoid}, Ptr{TVMFFIAny}, Int32, Ptr{TVMFFIAny}))
    raise = Libdl.dlsym(_LIB_HANDLE[], :TVMFFIErrorSetRaisedFromCStr)
    rc = ccall(sym(:tvmffi_julia_init), Cint, (Ptr{Cvoid}, Ptr{Cvoid}, Cint, Cstring),
        entry, raise, _ADOPTS_FOREIGN_THREADS, _foreign_thread_message())
    rc == 0 || error("TVMFFI: $path failed to initialize")
    _mark_julia_threads(sym(:tvmffi_julia_mark_thread))
    _GC_SAFE[] = _gc_safe_calls()
    if _GC_SAFE[]
        rc = ccall(sym(:tvmffi_julia_init_gc_safe), Cint,
            (Ptr{Cvoid}, Ptr{Cvoid}, Ptr{Cvoid}, Ptr{Cvoid}, Ptr{Cvoid}),
            _fp_TVMFFIFunctionCall[], cglobal(:jl_gc_safe_enter), cglobal(:jl_gc_safe_leave),
            cglobal(:jl_gc_unsafe_enter), cglobal(:jl_gc_unsafe_leave))
        rc == 0 || error("TVMFFI: $path failed to set up GC-safe calls")
        _fp_TVMFFIFunctionCall[] = sym(:tvmffi_julia_call_gc_safe)
    end
    return nothing
end

# Mark each of Julia's threads (one iteration per thread with the static schedule): before 1.9
# the only threads callbacks may run on; on every version those on which a callback leaves the
# GC-safe state of the call it arrives in (threads started later, on 1.9+, are entered by the
# `@cfunction`, which does the same).
function _mark_julia_threads(mark::Ptr{Cvoid})
    ccall(mark, Cvoid, ())
    Threads.nthreads() == 1 && return nothing
    Threads.@threads :static for _ in 1:Threads.nthreads()
        ccall(mark, Cvoid, ())
    end
    return nothing
end

"""
    TVMFFI.can_call_julia_here() -> Bool

Whether a C library calling a Julia callback on the current thread would run it (always on
Julia 1.9 and later; before 1.9 only on Julia's own threads). For tests and diagnostics.
"""
can_call_julia_here() = ccall(_shim_can_enter[], Cint, ()) != 0

"""
    TVMFFI.shim_library() -> String

The path of `libtvmffi_julia.so`, the native entry points of callbacks this session uses.
"""
shim_library() = _SHIM_PATH[]

"""
    TVMFFI.gc_safe_calls() -> Bool

Whether packed calls run with the calling thread in GC-safe state, so that other threads may
collect garbage meanwhile: from Julia 1.9, and before that with more than one Julia thread. For
tests and diagnostics.
"""
gc_safe_calls() = _GC_SAFE[]
