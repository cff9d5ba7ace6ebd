# Functions: calling (one ccall of TVMFFIFunctionCall), globals, Julia callbacks.

"""
    FFIFunction <: FFIObject

A TVM-FFI function (`ffi.Function`): a global function, a module function, a function returned
by a call, or a Julia callback. Call it like a Julia function, `f(args...)`, which is
[`call_packed`](@ref)`(f, args...)`.

    FFIFunction(f)

wraps a Julia callable `f` as a TVM-FFI function that C code can call and keep (see
[`register_global_func`](@ref)). Any Julia `Function` passed as an argument is converted the same
way automatically.

A callback must only be called on Julia threads: calling it from a thread that Julia did not
create is not supported (it is never done by TVM-FFI itself, only by C code that starts its own
threads).
"""
mutable struct FFIFunction <: FFIObject
    handle::Ptr{Cvoid}
    FFIFunction(h::Ptr{Cvoid}) = new(h)
end

FFIFunction(f) = _take_object(FFIFunction, _new_callback(f))
FFIFunction(f::FFIFunction) = f

(f::FFIFunction)(args...) = call_packed(f, args...)

# Converts a tuple of arguments; on failure releases what was already made.
@inline _convert_args(::Tuple{}) = ()
@inline function _convert_args(args::Tuple)
    first_ = _arg(args[1])
    rest = try
        _convert_args(Base.tail(args))
    catch
        first_[2] && _release_any(first_[1])
        rethrow()
    end
    return (first_, rest...)
end

@inline function _release_args(conv::Tuple)
    for c in conv
        c[2] && _release_any(c[1])
    end
    return nothing
end

# Calls the function object `h` with already converted argument views; returns the owned result.
@inline function _call_raw(h::Ptr{Cvoid}, anys::Ref, n::Integer)
    rv = Ref(_ANY_NONE)
    rc = GC.@preserve anys rv ccall(_fp_TVMFFIFunctionCall[], Cint,
        (Ptr{Cvoid}, Ptr{Cvoid}, Int32, Ptr{TVMFFIAny}), h, anys, n, rv)
    _check(rc)
    return rv[]
end

# Like `call_packed`, but returns the raw owned Any.
function _call_any(f::FFIFunction, args::Vararg{Any,N}) where {N}
    conv = _convert_args(args)
    try
        anys = Ref(map(first, conv))
        return GC.@preserve f args _call_raw(handle(f), anys, N)
    finally
        _release_args(conv)
    end
end

"""
    call_packed(f::FFIFunction, args...) -> Any

Call `f` through the packed calling convention (one `TVMFFIFunctionCall`): every argument is
converted to a `TVMFFIAny` view (see the type mapping in the package docs), borrowed for the
duration of the call, and the owned result is converted back to Julia. An error raised by the
callee is thrown as an [`FFIError`](@ref). `f(args...)` is the same call.
"""
call_packed(f::FFIFunction, args::Vararg{Any,N}) where {N} = _take_any(_call_any(f, args...))

"""
    call_packed_vector(f::FFIFunction, args::AbstractVector) -> Any

[`call_packed`](@ref) with the arguments in a vector (for long or variable argument lists,
without compiling a method per length).
"""
call_packed_vector(f::FFIFunction, args::AbstractVector) = _take_any(_call_any_vector(f, args))

function _call_any_vector(f::FFIFunction, args::AbstractVector)
    n = length(args)
    anys = Vector{TVMFFIAny}(undef, n)
    owned = zeros(Bool, n)
    try
        for (i, x) in enumerate(args)
            anys[i], owned[i] = _arg(x)
        end
        rv = Ref(_ANY_NONE)
        rc = GC.@preserve f args anys rv ccall(_fp_TVMFFIFunctionCall[], Cint,
            (Ptr{Cvoid}, Ptr{TVMFFIAny}, Int32, Ptr{TVMFFIAny}), handle(f), anys, n, rv)
        _check(rc)
        return rv[]
    finally
        for i in 1:n
            owned[i] && _release_any(anys[i])
        end
    end
end

# --- Julia callbacks -------------------------------------------------------------------------------

# TVMFFISafeCallType of every Julia callback (set in __init__).
const _SAFE_CALL_PTR = Ref{Ptr{Cvoid}}(C_NULL)

# The safe-call entry of Julia callbacks: `self` is the cell of the callback's keep-alive slot.
# Exceptions never leave this function: they become the raised error and -1.
function _callback_safe_call(self::Ptr{Cvoid}, args::Ptr{TVMFFIAny}, nargs::Int32, rv::Ptr{TVMFFIAny})::Int32
    try
        f = _slot_value(self)
        jargs = Vector{Any}(undef, Int(nargs))
        for i in 1:Int(nargs)
            jargs[i] = _copy_any(unsafe_load(args, i))
        end
        result = f(jargs...)
        unsafe_store!(rv, _to_owned_any(result))
        return Int32(0)
    catch e
        try
            _raise_julia_exception(e, catch_backtrace(), :_callback_safe_call)
        catch
        end
        return Int32(-1)
    end
end

# Makes an `ffi.Function` (owned handle) that calls the Julia callable `f`.
function _new_callback(@nospecialize(f))
    cell = _slot_new(f)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    rc = ccall(_fp_TVMFFIFunctionCreate[], Cint, (Ptr{Cvoid}, Ptr{Cvoid}, Ptr{Cvoid}, Ptr{Ptr{Cvoid}}),
        cell, _SAFE_CALL_PTR[], _CELL_DELETER[], out)
    if rc != 0
        _slot_discard(cell)
        _check(rc)
    end
    return out[]
end

# --- globals -------------------------------------------------------------------------------------------

"""
    get_global_func(name; allow_missing = false) -> Union{FFIFunction,Nothing}

The global function registered under `name` (by the runtime, a loaded library, or
[`register_global_func`](@ref)). Throws `Base.KeyError(name)` if there is none, or returns
`nothing` with `allow_missing = true`.
"""
function get_global_func(name::AbstractString; allow_missing::Bool = false)
    s = String(name)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    rc = GC.@preserve s ccall(_fp_TVMFFIFunctionGetGlobal[], Cint, (Ptr{TVMFFIByteArray}, Ptr{Ptr{Cvoid}}),
        Ref(_bytearray(s)), out)
    _check(rc)
    if out[] == C_NULL
        allow_missing && return nothing
        throw(Base.KeyError(s))
    end
    return _take_object(FFIFunction, out[])
end

"""
    register_global_func(name, f; override = false) -> FFIFunction

Register `f` (a Julia callable, or an `FFIFunction`) as the global function `name`, callable from
every language in the process. The runtime keeps the function (and so the Julia callable) alive
for as long as it is registered. Registering an existing name throws unless `override = true`.

```julia
TVMFFI.register_global_func("demo.add", (a, b) -> a + b)
TVMFFI.get_global_func("demo.add")(1, 2) == 3
```
"""
function register_global_func(name::AbstractString, f; override::Bool = false)
    fn = FFIFunction(f)
    s = String(name)
    rc = GC.@preserve s fn ccall(_fp_TVMFFIFunctionSetGlobal[], Cint, (Ptr{TVMFFIByteArray}, Ptr{Cvoid}, Cint),
        Ref(_bytearray(s)), handle(fn), override)
    _check(rc)
    _forget_global(s)
    return fn
end

"""
    remove_global_func(name) -> Bool

Remove a global function (through `ffi.FunctionRemoveGlobal`); returns whether it existed.
"""
function remove_global_func(name::AbstractString)
    removed = _global_func("ffi.FunctionRemoveGlobal")(String(name))
    _forget_global(String(name))
    return removed
end

"""
    list_global_func_names() -> Vector{String}

The names of all registered global functions (through `ffi.FunctionListGlobalNamesFunctor`).
"""
function list_global_func_names()
    functor = _global_func("ffi.FunctionListGlobalNamesFunctor")()
    n = functor(-1)
    return String[functor(i) for i in 0:(n - 1)]
end

"""
    global_func_metadata(name) -> String

The metadata JSON of a global function (`ffi.GetGlobalFuncMetadata`); `""` for functions
registered without metadata. Its `"type_schema"` key holds the signature (see
[`parse_json`](@ref)).
"""
global_func_metadata(name::AbstractString) = _global_func("ffi.GetGlobalFuncMetadata")(String(name))::String

# Cache of the global functions the binding itself uses (ffi.Array, ffi.MapSize, ...).
const _GLOBAL_CACHE = Dict{String,FFIFunction}()
const _GLOBAL_CACHE_LOCK = ReentrantLock()

function _global_func(name::String)
    lock(_GLOBAL_CACHE_LOCK)
    try
        f = get(_GLOBAL_CACHE, name, nothing)
        f === nothing || return f
        f = get_global_func(name; allow_missing = true)
        f === nothing && throw(FFIError("RuntimeError",
            "the TVM-FFI runtime $(loaded_library()) has no global function $name, which TVMFFI needs here"))
        _GLOBAL_CACHE[name] = f
        return f
    finally
        unlock(_GLOBAL_CACHE_LOCK)
    end
end

_forget_global(name::String) = lock(() -> (delete!(_GLOBAL_CACHE, name); nothing), _GLOBAL_CACHE_LOCK)

"""
    live_object_count() -> Union{Int,Nothing}

The number of objects the runtime has allocated and not yet freed, from ffihub's
`ffihub.LiveObjectCount` global; `nothing` on runtimes without it (Apache's). For leak tests:
run `GC.gc()` first so that finalizers have released unreachable wrappers.
"""
function live_object_count()
    f = get_global_func("ffihub.LiveObjectCount"; allow_missing = true)
    f === nothing && return nothing
    try
        return f()::Int
    finally
        close(f)
    end
end
