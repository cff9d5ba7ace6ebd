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

A library may call it on a thread of its own: Julia 1.9 and later run the call there (an adopted
thread); before 1.9 the call fails with a `RuntimeError` raised in the library (no Julia code
runs), which reaches the Julia caller of the library function if it reports it.
"""
mutable struct FFIFunction <: FFIObject
    handle::Ptr{Cvoid}
    FFIFunction(h::Ptr{Cvoid}) = new(h)
end

FFIFunction(f) = _take_object(FFIFunction, _new_callback(f))
FFIFunction(f::FFIFunction) = f

(f::FFIFunction)(args...) = call_packed(f, args...)

# Converts a tuple of arguments; on failure releases what was already made.
#
# Arguments whose conversion never creates a reference (numbers, `nothing`, pointers, data types,
# devices, wrappers of existing objects: see `_never_owned`) take a path without `try`: a Julia
# `try` costs a `sigsetjmp`, several times the cost of a whole TVMFFIFunctionCall. When every
# argument is like that (decided at compile time) a failing conversion has nothing to release.
@inline _convert_args(::Tuple{}) = ()
@inline function _convert_args(args::Tuple)
    _all_never_owned(args) && return map(_arg, args)
    return _convert_args_guarded(args)
end

# `_arg` for an argument of one synchronous call: arrays become tensors for the call
# (`_call_tensor_arg`), released by `_release_arg`.
@inline _call_arg(x) = _arg(x)
_call_arg(x::AbstractArray) = _is_tensor_arg(x) ? _call_tensor_arg(x) : _arg(x)
_call_arg(x::Union{Vector{UInt8},Base.CodeUnits{UInt8,String}}) = _arg(x)   # bytes

@inline _convert_args_guarded(::Tuple{}) = ()
@inline function _convert_args_guarded(args::Tuple)
    first_ = _call_arg(args[1])
    rest = if _all_never_owned(Base.tail(args))
        _convert_args(Base.tail(args))
    elseif _never_owned(typeof(args[1]))
        # Nothing to release if the rest fails (a method's receiver before a tensor): no `try`.
        _convert_args_guarded(Base.tail(args))
    else
        try
            _convert_args_guarded(Base.tail(args))
        catch
            _release_arg(first_...)
            rethrow()
        end
    end
    return (first_, rest...)
end

# Whether converting a value of this type can never create a reference (`_arg` returns
# `owned = false`). Conservative: unknown types say no.
_never_owned(::Type) = false
_never_owned(::Type{<:Union{Nothing,Bool,Ptr,DLDataType,DLDevice}}) = true
_never_owned(::Type{<:Union{Base.BitInteger,AbstractFloat}}) = true
_never_owned(::Type{<:Union{FFIObject,FFIArray,FFIList,FFIMap,FFIDict,FFIShape}}) = true
@inline _all_never_owned(::Tuple{}) = true
@inline _all_never_owned(args::Tuple) = _never_owned(typeof(args[1])) && _all_never_owned(Base.tail(args))

# Unrolled (a `for` over a tuple of mixed element types dispatches at run time and allocates).
@inline _release_args(::Tuple{}) = nothing
@inline function _release_args(conv::Tuple)
    _release_arg(conv[1]...)
    return _release_args(Base.tail(conv))
end

# Releases a converted argument: `(any, owned)` from `_arg`, or a tensor made for the call.
@inline _release_arg(a::TVMFFIAny, owned::Bool) = (owned && _release_any(a); nothing)

# Like `call_packed`, but returns the raw owned Any. Nothing can throw between the conversion of
# the arguments and their release (the handle is checked first, the ccall reports errors by its
# return code), so no `try` is needed.
@inline _call_any(f::FFIFunction, args::Vararg{Any,N}) where {N} = _call_described(nothing, f, args...)

# `_call_any` of a generated callable that `info` describes (a `CallInfo`, arguments.jl): a
# TypeError about one of its arguments is thrown in the caller's words. `nothing` for others.
@inline function _call_described(info, f::FFIFunction, args::Vararg{Any,N}) where {N}
    h = handle(f)
    conv = _convert_args(args)
    anys = Ref(map(first, conv))
    rv = Ref(_ANY_NONE)
    rc = GC.@preserve f args conv anys rv ccall(_fp_TVMFFIFunctionCall[], Cint,
        (Ptr{Cvoid}, Ptr{Cvoid}, Int32, Ptr{TVMFFIAny}), h, anys, N, rv)
    _all_never_owned(args) || _release_args(conv)   # decided at compile time
    if info === nothing   # decided at compile time
        _check(rc)
    else
        rc == 0 || _throw_call_error(info, args)
    end
    return rv[]
end

"""
    call_packed(f::FFIFunction, args...) -> Any

Call `f` through the packed calling convention (one `TVMFFIFunctionCall`): every argument is
converted to a `TVMFFIAny` view (see the type mapping in the package docs), borrowed for the
duration of the call, and the owned result is converted back to Julia. An error raised by the
callee is thrown as an [`FFIError`](@ref). `f(args...)` is the same call.
"""
@inline function call_packed(f::FFIFunction, args::Vararg{Any,N}) where {N}
    a = _call_any(f, args...)
    # Common scalar results without the (not inlined) general conversion.
    ti = a.type_index
    ti == kTVMFFINone && return nothing
    ti == kTVMFFIInt && return _v_int64(a)
    ti == kTVMFFIFloat && return _v_float64(a)
    ti == kTVMFFIBool && return a.v != 0
    return _take_any(a)
end

"""
    call_typed(R::Type, f::FFIFunction, args...) -> R

[`call_packed`](@ref) for a function whose result has the Julia type `R` (what generated
wrappers use for typed signatures): `Int64`, `Float64`, `Bool`, `Nothing`, [`DLDataType`](@ref),
[`DLDevice`](@ref), `Ptr{Cvoid}` and `Union{Nothing,T}` of those are read straight from the
result (no boxing, no allocation); other results are converted as by `call_packed` and checked
to be an `R`. An integer result for `R = Float64` is converted; any other mismatch throws
[`TVMFFI.TypeError`](@ref).
"""
@inline call_typed(::Type{R}, f::FFIFunction, args::Vararg{Any,N}) where {R,N} = _take_typed(R, _call_any(f, args...))

# Results of a known Julia type. Scalars are read from the Any without going through `_take_any`
# (whose result type is not inferable and would box them).
@inline _take_typed(::Type{Int64}, a::TVMFFIAny) = a.type_index == kTVMFFIInt ? _v_int64(a) : _take_checked(Int64, a)
@inline _take_typed(::Type{Float64}, a::TVMFFIAny) = a.type_index == kTVMFFIFloat ? _v_float64(a) : _take_checked(Float64, a)
@inline _take_typed(::Type{Bool}, a::TVMFFIAny) = a.type_index == kTVMFFIBool ? a.v != 0 : _take_checked(Bool, a)
@inline _take_typed(::Type{Nothing}, a::TVMFFIAny) = a.type_index == kTVMFFINone ? nothing : _take_checked(Nothing, a)
@inline _take_typed(::Type{DLDataType}, a::TVMFFIAny) =
    a.type_index == kTVMFFIDataType ? _dtype_from_bits(a.v) : _take_checked(DLDataType, a)
@inline _take_typed(::Type{DLDevice}, a::TVMFFIAny) =
    a.type_index == kTVMFFIDevice ? _device_from_bits(a.v) : _take_checked(DLDevice, a)
@inline _take_typed(::Type{Ptr{Cvoid}}, a::TVMFFIAny) =
    a.type_index == kTVMFFIOpaquePtr ? _v_ptr(a) : _take_checked(Ptr{Cvoid}, a)
@inline _take_typed(::Type{Union{Nothing,T}}, a::TVMFFIAny) where {T<:Union{Int64,Float64,Bool,DLDataType,DLDevice}} =
    a.type_index == kTVMFFINone ? nothing : _take_typed(T, a)
@inline _take_typed(::Type{Any}, a::TVMFFIAny) = _take_any(a)
# Containers with declared element types: the wrapper of that type, straight from the handle.
_take_typed(::Type{R}, a::TVMFFIAny) where {R<:Union{FFIArray,FFIList,FFIMap,FFIDict}} =
    a.type_index == _container_index(R) ? _take_object(R, _v_ptr(a)) : _take_checked(R, a)
_take_typed(::Type{R}, a::TVMFFIAny) where {R} = _take_checked(R, a)

_container_index(::Type{<:FFIArray}) = kTVMFFIArray
_container_index(::Type{<:FFIList}) = kTVMFFIList
_container_index(::Type{<:FFIMap}) = kTVMFFIMap
_container_index(::Type{<:FFIDict}) = kTVMFFIDict

# A borrowed view (a container element) converted to `R` (see `_take_typed`).
@inline _copy_typed(::Type{Any}, a::TVMFFIAny) = _copy_any(a)
@inline function _copy_typed(::Type{R}, a::TVMFFIAny) where {R}
    _is_object_index(a.type_index) && _incref(_v_ptr(a))
    return _take_typed(R, a)
end

@noinline function _take_checked(::Type{R}, a::TVMFFIAny) where {R}
    v = _take_any(a)
    v isa R && return v::R
    R === Float64 && v isa Integer && return Float64(v)::R
    typed = _retyped(R, v)
    typed === nothing || return typed::R
    _throw_result_type(R, v)
end

# A container of a union's member type (`Union{Nothing,FFIArray{Int64}}`, a Variant's), for a
# container wrapper `v` of other element types: the same object, wrapped as that member.
function _retyped(::Type{R}, v) where {R}
    v isa Union{FFIArray,FFIList,FFIMap,FFIDict} || return nothing
    for M in Base.uniontypes(R)
        if M isa DataType && M.name === typeof(v).name
            h = handle(v)
            _incref(h)
            close(v)
            return _take_object(M, h)
        end
    end
    return nothing
end

@noinline _throw_result_type(R, v) =
    throw(FFIError("TypeError", "expected a result of Julia type $R, got a $(typeof(v))"))

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

# The Julia safe-call entry of Julia callbacks, which the shim's `tvmffi_julia_safe_call` (the
# function the runtime calls) calls on threads Julia can run it on (shim.jl): `self` is the cell
# of the callback's keep-alive slot. Exceptions never leave this function: they become the raised
# error and -1.
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
        cell, _shim_safe_call[], _shim_cell_deleter[], out)
    if rc != 0
        _slot_discard(cell)
        _check(rc)
    end
    return out[]
end

# --- globals -------------------------------------------------------------------------------------------

"""
    TVMFFI.bind!(slot::FFIFunction, f::FFIFunction) -> slot

Make `slot` refer to the same function as `f`, with a reference of its own that it keeps for
the rest of the session. Generated packages declare each function they call as a constant
placeholder, `const _ffi_fn_add_one = TVMFFI.FFIFunction(C_NULL)` (safe to precompile: it holds
nothing), and bind it in `__init__`; calling a constant is cheaper than reading a `Ref`.
"""
function bind!(slot::FFIFunction, f::FFIFunction)
    h = handle(f)
    _incref(h)
    old = getfield(slot, :handle)
    setfield!(slot, :handle, h)
    old == C_NULL || _decref(old)
    return slot
end

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
function global_func_metadata(name::AbstractString)
    md = _global_func("ffi.GetGlobalFuncMetadata")(String(name))
    return md isa String ? md : ""
end

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

The number of objects the runtime has allocated since the first call and not yet freed, from
ffihub's `ffihub.LiveObjectCount` global; `nothing` on runtimes without it (Apache's). For leak
tests: take a baseline before the work, and run `GC.gc()` before each reading so that finalizers
have released unreachable wrappers.
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
