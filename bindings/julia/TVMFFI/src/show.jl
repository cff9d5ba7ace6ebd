# Printing: objects print as the runtime's `ffi.ReprPrint` renders them.

"""
    repr_ffi(x) -> String

The runtime's representation of a value (`ffi.ReprPrint`), e.g.
`"testing.TestIntPair(a=1, b=2)"`.
"""
repr_ffi(x) = _global_func("ffi.ReprPrint")(x)::String

function _show_object(io::IO, x)
    if !isopen(x)
        print(io, typeof(x), "(<closed>)")
        return
    end
    s = try
        repr_ffi(x)
    catch
        nothing
    end
    if s === nothing
        print(io, typeof(x), "(", type_key(x), " @ ", repr(UInt(handle(x))), ")")
    else
        print(io, s)
    end
end

"""
    show(io::IO, x::FFIObject)

Prints the object through `ffi.ReprPrint` (falls back to its type key and address).
"""
Base.show(io::IO, x::FFIObject) = _show_object(io, x)

function Base.show(io::IO, t::FFITensor)
    if !isopen(t)
        print(io, "FFITensor(<closed>)")
    else
        print(io, "FFITensor(", string(dtype(t)), "[", join(shape(t), ", "), "] on ", string(device(t)), ")")
    end
end

function Base.show(io::IO, f::FFIFunction)
    isopen(f) ? print(io, "FFIFunction(@ ", repr(UInt(handle(f))), ")") : print(io, "FFIFunction(<closed>)")
end

function Base.show(io::IO, m::FFIModule)
    if !isopen(m)
        print(io, "FFIModule(<closed>)")
    else
        kind = try
            module_kind(m)
        catch
            "?"
        end
        print(io, "FFIModule(kind=", repr(kind), ")")
    end
end

# Containers show like other vectors and dicts, with their Julia type in `summary`; a closed one
# says so instead of failing.
for (T, S) in ((:FFIArray, :AbstractVector), (:FFIList, :AbstractVector), (:FFIShape, :AbstractVector),
               (:FFIMap, :AbstractDict), (:FFIDict, :AbstractDict))
    @eval function Base.show(io::IO, x::$T)
        isopen(x) || return print(io, $(string(T)), "(<closed>)")
        return invoke(show, Tuple{IO,$S}, io, x)
    end
    @eval function Base.show(io::IO, mime::MIME"text/plain", x::$T)
        isopen(x) || return print(io, $(string(T)), "(<closed>)")
        return invoke(show, Tuple{IO,MIME"text/plain",$S}, io, mime, x)
    end
end
