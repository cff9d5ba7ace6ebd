# Errors crossing the ABI in both directions.
#
# C -> Julia: a call that returns -1 leaves an `ffi.Error` in the runtime's thread-local slot; it is
# moved out (`TVMFFIErrorMoveFromRaised`) and thrown as an `FFIError{kind}` that carries the kind,
# the message, the backtrace recorded by the languages it passed through (C++, Rust, Julia) and the
# error object itself.
#
# Julia -> C: an exception thrown by a Julia callback is caught at the boundary (nothing unwinds
# through C frames) and raised as an `ffi.Error` (`TVMFFIErrorSetRaised`) whose kind comes from
# `error_kind`, with the Julia frames as its backtrace.
#
# NOTE: this file defines `TVMFFI.TypeError` and `TVMFFI.KeyError`, which shadow Base's names
# inside this module; the rest of the package writes `Base.KeyError` / `Base.TypeError` for those.

"""
    FFIError{K} <: Exception

An error raised through TVM-FFI, of kind `K` (a `Symbol`, e.g. `:ValueError`). Every kind has its
own type, so `catch e; e isa TVMFFI.ValueError` and `@test_throws TVMFFI.KeyError f()` work, and
`e isa FFIError` matches them all. Common kinds have aliases: [`ValueError`](@ref),
[`TypeError`](@ref), [`IndexError`](@ref), [`KeyError`](@ref), [`AttributeError`](@ref),
[`RuntimeError`](@ref) (these are not exported because `TypeError` and `KeyError` would clash
with Base: write `TVMFFI.KeyError`).

Fields:
- `kind::String`: the error kind, e.g. `"ValueError"`;
- `message::String`;
- `backtrace::String`: the frames recorded by the runtime and by every language the error passed
  through, most recent call first, one `  File "<file>", line <n>, in <function>` line per frame;
- `obj`: the `ffi.Error` object (`nothing` for errors made in Julia), re-raised as is when the
  exception leaves a Julia callback again.

    FFIError(kind, message, backtrace = "")

makes one in Julia (the type is `FFIError{Symbol(kind)}`); throwing it from a callback raises an
error of that kind in the caller.
"""
struct FFIError{K} <: Exception
    kind::String
    message::String
    backtrace::String
    obj::Any
end

FFIError(kind::AbstractString, message::AbstractString, backtrace::AbstractString = "") =
    FFIError{Symbol(kind)}(String(kind), String(message), String(backtrace), nothing)

"""`FFIError{:ValueError}`: an argument has the right type but a wrong value."""
const ValueError = FFIError{:ValueError}
"""`FFIError{:TypeError}`: a value of the wrong type (shadows `Base.TypeError` in `TVMFFI`)."""
const TypeError = FFIError{:TypeError}
"""`FFIError{:IndexError}`: an index out of range."""
const IndexError = FFIError{:IndexError}
"""`FFIError{:KeyError}`: a missing key (shadows `Base.KeyError` in `TVMFFI`)."""
const KeyError = FFIError{:KeyError}
"""`FFIError{:AttributeError}`: a missing field, method or attribute."""
const AttributeError = FFIError{:AttributeError}
"""`FFIError{:RuntimeError}`: any other failure; also the kind of Julia exceptions without a
more specific mapping (see [`error_kind`](@ref))."""
const RuntimeError = FFIError{:RuntimeError}

function Base.showerror(io::IO, e::FFIError)
    print(io, e.kind, ": ", e.message)
    frames = library_frames(e.backtrace)
    if !isempty(frames)
        print(io, "\nTVM-FFI backtrace (most recent call first):\n", frames)
    end
end

# A frame of Julia itself (its runtime, compiled Julia code) in a native backtrace.
const _JULIA_FRAME = r"^\s*File \".*\", line \d+, in (?:j[a-z]*_|ijl_|julia_|jfptr_|jlcapi_|jlplt_)"

"""
    TVMFFI.library_frames(backtrace::String) -> String

The frames of a TVM-FFI backtrace that precede the call from Julia (most recent first): the
library's. A native backtrace goes on through Julia's own runtime and the caller's compiled
code up to the program's start, which Julia's stack trace shows in Julia's terms; `showerror`
of an [`FFIError`](@ref) prints these frames only (its `backtrace` field keeps them all).
"""
function library_frames(backtrace::AbstractString)
    lines = split(rstrip(backtrace, '\n'), '\n')
    host = findfirst(l -> occursin(_JULIA_FRAME, l), lines)
    return join(host === nothing ? lines : lines[1:(host - 1)], '\n')
end

Base.show(io::IO, e::FFIError) = print(io, "TVMFFI.FFIError(", repr(e.kind), ", ", repr(e.message), ")")

# --- C -> Julia ----------------------------------------------------------------------------------

# Builds the Julia exception for an owned `ffi.Error` handle (takes the reference).
function _error_from_handle(h::Ptr{Cvoid})
    cell = unsafe_load(Ptr{TVMFFIErrorCell}(h + _HEADER_SIZE))
    kind = _string(cell.kind)
    msg = _string(cell.message)
    bt = _string(cell.backtrace)
    obj = _take_object(Object, h)
    return FFIError{Symbol(kind)}(kind, msg, bt, obj)
end

# Moves the pending error out of the runtime's thread-local slot.
function _take_raised_error()
    err = _raised_error_if_any()
    err === nothing && return FFIError("RuntimeError", "a TVM-FFI call failed without raising an error")
    return err
end

# The pending error of this thread (moved out), or `nothing`.
function _raised_error_if_any()
    out = Ref{Ptr{Cvoid}}(C_NULL)
    ccall(_fp_TVMFFIErrorMoveFromRaised[], Cvoid, (Ptr{Ptr{Cvoid}},), out)
    h = out[]
    return h == C_NULL ? nothing : _error_from_handle(h)
end

# Checks the return code of a safe call: throws the raised error when it is not 0.
@inline function _check(rc::Integer)
    rc == 0 || _throw_raised()
    return nothing
end

# Out of line, so that the hot path of every call needs no GC frame for the error object.
@noinline _throw_raised() = throw(_take_raised_error())

# --- Julia -> C ----------------------------------------------------------------------------------

"""
    error_kind(e::Exception) -> String

The TVM-FFI error kind under which a Julia exception thrown inside a callback is raised to the
caller: `FFIError{K}` keeps `K`; `ArgumentError`, `DomainError`, `InexactError` and
`OverflowError` are `"ValueError"`; `Base.TypeError` and `MethodError` are `"TypeError"`;
`BoundsError` is `"IndexError"`; `Base.KeyError` is `"KeyError"`; `AssertionError` is
`"AssertionError"`; `OutOfMemoryError` is `"MemoryError"`; anything else is `"RuntimeError"`.
Add methods for your own exception types to choose their kind.
"""
error_kind(@nospecialize(e)) = "RuntimeError"
error_kind(e::FFIError) = e.kind
error_kind(::Union{ArgumentError,DomainError,InexactError,OverflowError}) = "ValueError"
error_kind(::Union{Base.TypeError,MethodError}) = "TypeError"
error_kind(::BoundsError) = "IndexError"
error_kind(::Base.KeyError) = "KeyError"
error_kind(::AssertionError) = "AssertionError"
error_kind(::OutOfMemoryError) = "MemoryError"

_error_message(@nospecialize(e)) = sprint(showerror, e)
_error_message(e::FFIError) = e.message

# Julia frames in TVM-FFI's backtrace format (most recent call first), up to the frame of
# `stop_at` (the callback trampoline). Frames are symbolized one by one and the walk stops there:
# symbolizing the whole stack (the caller's frames, C frames) costs tens of milliseconds.
function _format_julia_backtrace(bt, stop_at::Symbol)
    io = IOBuffer()
    for ip in bt
        for frame in Base.StackTraces.lookup(ip)
            frame.func === stop_at && return String(take!(io))
            frame.from_c && continue
            print(io, "  File \"", frame.file, "\", line ", frame.line, ", in ", frame.func, "\n")
        end
    end
    return String(take!(io))
end

# Creates a new `ffi.Error` (owned handle) with the given kind, message and backtrace.
function _new_error_object(kind::String, msg::String, bt::String)
    out = Ref{Ptr{Cvoid}}(C_NULL)
    GC.@preserve kind msg bt begin
        k = Ref(_bytearray(kind))
        m = Ref(_bytearray(msg))
        b = Ref(_bytearray(bt))
        rc = ccall(_fp_TVMFFIErrorCreate[], Cint,
            (Ptr{TVMFFIByteArray}, Ptr{TVMFFIByteArray}, Ptr{TVMFFIByteArray}, Ptr{Ptr{Cvoid}}),
            k, m, b, out)
    end
    rc == 0 || return C_NULL
    return out[]
end

# Raises a Julia exception into the runtime's error slot (called at the callback boundary;
# must not throw).
function _raise_julia_exception(@nospecialize(e), bt, stop_at::Symbol)
    jl_bt = try
        _format_julia_backtrace(bt, stop_at)
    catch
        ""
    end
    if e isa FFIError && e.obj isa Object && isopen(e.obj)
        # An error that came from C (possibly from another language) passes through Julia: re-raise
        # the same object with the Julia frames appended (older frames go last).
        h = handle(e.obj)
        cell = unsafe_load(Ptr{TVMFFIErrorCell}(h + _HEADER_SIZE))
        if cell.update_backtrace != C_NULL
            if !isempty(jl_bt)
                GC.@preserve jl_bt begin
                    ba = Ref(_bytearray(jl_bt))
                    ccall(cell.update_backtrace, Cvoid, (Ptr{Cvoid}, Ptr{TVMFFIByteArray}, Int32), h, ba, 1)
                end
            end
            ccall(_fp_TVMFFIErrorSetRaised[], Cvoid, (Ptr{Cvoid},), h)
            return nothing
        end
        jl_bt = e.backtrace * jl_bt
    end
    kind = try
        String(error_kind(e))
    catch
        "RuntimeError"
    end
    msg = try
        _error_message(e)
    catch
        "(a Julia exception of type $(typeof(e)) whose message could not be printed)"
    end
    h = _new_error_object(kind, msg, jl_bt)
    h == C_NULL && return nothing
    ccall(_fp_TVMFFIErrorSetRaised[], Cvoid, (Ptr{Cvoid},), h)  # borrows: the slot takes its own ref
    _decref(h)
    return nothing
end
