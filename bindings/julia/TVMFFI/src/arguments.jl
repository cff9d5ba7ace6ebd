# Errors in the caller's words for generated functions, methods and constructors.
#
# Called with arguments that none of their methods takes: each typed callable of a generated
# package has a last method that takes anything, `f(args...; kwargs...)`, which only throws the
# error `throw_argument_error` words:
#
#     add_one("x")  ->  ArgumentError: add_one(x): expected x::Integer, got a value of type String
#     add_one()     ->  ArgumentError: add_one(x): expected 1 argument, got 0 (missing x::Integer)
#
# (Julia would say `MethodError: no method matching add_one(::String)`, which names neither the
# parameter nor what it takes.)
#
# Called with a value that the parameter's Julia type takes but the library refuses (a vector
# with a string element for `Array[int]`, an integer beyond 64 bits): the callable passes a
# `CallInfo` to `call_typed`, which words the library's TypeError the same way
#
#     make_shape(Any[1, "x"])  ->  ArgumentError: make_shape(dims): expected
#         dims::AbstractVector{<:Integer}, got a vector of Int64 and String values
#
# thrown while the library's error is handled, so that it stays on the exception stack (Julia
# prints it as the cause; `current_exceptions()`, `Base.catch_stack()` before 1.7, lists it).

"""
    TVMFFI.throw_argument_error(signature, params, types, annotations, required, keywords, args, kwargs)

Throws the `ArgumentError` of a call of a generated callable with arguments `args` (after the
receiver, for methods) and keyword arguments `kwargs` that none of its methods takes.
`signature` is how the caller spells it with its parameters (`"add_one(x)"`,
`"from_json_schema(schema; strict)"`), `params` the names of its positional parameters,
`types` the types they accept (`Any` when any), `annotations` those as written in the
signature (`"Integer"`), `required` how many must be given, and `keywords` the names of its
keyword parameters (`Symbol`s). The message names the keywords it does not take, says how many
arguments were expected, or names the first argument of a type its parameter does not accept.
"""
@noinline function throw_argument_error(signature::String, params::Tuple, types::Tuple, annotations::Tuple,
                                        required::Int, keywords::Tuple, args::Tuple, kwargs)
    n = length(args)
    np = length(params)
    declared(i) = annotations[i] == "" ? params[i] : "$(params[i])::$(annotations[i])"
    expected = required == np ? "$np argument$(np == 1 ? "" : "s")" : "$required to $np arguments"
    unknown = [k for k in keys(kwargs) if !(k in keywords)]
    if !isempty(unknown)
        names = join((string(k) for k in unknown), ", ")
        takes = isempty(keywords) ? "takes no keyword arguments" :
                "takes the keyword arguments $(join((string(k) for k in keywords), ", "))"
        throw(ArgumentError("$signature: $takes, got $names"))
    elseif n < required
        absent = join((declared(i) for i in (n + 1):required), ", ")
        throw(ArgumentError("$signature: expected $expected, got $n (missing $absent)"))
    elseif n > np
        throw(ArgumentError("$signature: expected $expected, got $n (the first extra one a value of type " *
                            "$(typeof(args[np + 1])))"))
    end
    for i in 1:n
        args[i] isa types[i] ||
            throw(ArgumentError("$signature: expected $(declared(i)), got a value of type $(typeof(args[i]))"))
    end
    types_given = join((string(typeof(a)) for a in args), ", ")
    throw(ArgumentError("$signature: no method takes arguments of types ($types_given)"))
end

"""
    TVMFFI.CallInfo(signature, callee, params)

What a generated typed callable tells [`call_typed`](@ref) about itself, so that a `TypeError`
the library raises about one of its arguments is thrown as an `ArgumentError` in the caller's
words. `signature` is how the caller spells it with its parameters (`"make_shape(dims)"`, as in
[`throw_argument_error`](@ref)), `callee` the registered name the runtime's messages use
(`"demo.make_shape"`; a type key and `.` for a constructor), and `params` its parameters as
`(name, registered name, expected, argument)`: the name in Julia, the library's, the type it
takes in Julia's terms (`"AbstractVector{<:Integer}"`) and the index of its argument in the
call (the receiver of a method is argument 0; -1 for a keyword passed by name).
"""
struct CallInfo
    signature::String
    callee::String
    params::Vector{Tuple{String,String,String,Int}}
end
CallInfo(signature::String, callee::String, params::Tuple) =
    CallInfo(signature, callee, collect(Tuple{String,String,String,Int}, params))

"""
    call_typed(R::Type, f::FFIFunction, info::CallInfo, args...) -> R

[`call_typed`](@ref) of a generated callable that `info` describes: a `TypeError` the library
raises about one of the arguments is thrown as an `ArgumentError` in the caller's words (the
parameter, the type it takes, the kind of value given), the library's error on the exception
stack below it.
"""
@inline call_typed(::Type{R}, f::FFIFunction, info::CallInfo, args::Vararg{Any,N}) where {R,N} =
    _take_typed(R, _call_described(info, f, args...))

@noinline function _throw_call_error(info::CallInfo, args::Tuple)
    error = _take_raised_error()
    message = _argument_message(info, args, error)
    message === nothing && throw(error)
    try
        throw(error)
    catch
        # Thrown while the library's error is handled: it stays on the exception stack.
        throw(ArgumentError(message))
    end
end

const _MISMATCH = r"^Mismatched type on argument #(\d+) when calling: `([^`(]*)\("
const _FIELD = r"^\S*\.__ffi_init__\(\) field '([^']*)'"

# The message for the library's `error` about one of `args`, or nothing when it is about none.
function _argument_message(info::CallInfo, args::Tuple, error)
    error isa FFIError{:TypeError} || return nothing
    found = _argument_about(info, args, error.message)
    found === nothing && return nothing
    (name, _, expected), value = found
    return "$(info.signature): expected $name::$expected, got $(_given(value))"
end

# The parameter a runtime TypeError is about and the value given for it, or nothing.
function _argument_about(info::CallInfo, args::Tuple, message::String)
    m = match(_MISMATCH, message)
    if m !== nothing
        callee = m.captures[2]
        about = endswith(info.callee, ".") ? startswith(callee, info.callee) : callee == info.callee
        argument = parse(Int, m.captures[1])
        i = findfirst(p -> p[4] == argument, info.params)
        (about && i !== nothing && argument < length(args)) || return nothing
        return info.params[i], args[argument + 1]
    end
    m = match(_FIELD, message)
    (m === nothing || !startswith(message, info.callee)) && return nothing
    i = findfirst(p -> p[2] == m.captures[1], info.params)
    i === nothing && return nothing
    p = info.params[i]
    0 <= p[4] < length(args) && return p, args[p[4] + 1]
    # A keyword: after the marker, by its registered name.
    marker = findfirst(a -> a === kwargs_marker(), args)
    marker === nothing && return nothing
    for j in (marker + 1):2:(length(args) - 1)
        args[j] == p[2] && return p, args[j + 1]
    end
    return nothing
end

# The kind of a value given, as the messages say it (containers by their elements' types).
_given(x) = "a value of type $(typeof(x))"
_given(x::Integer) = typemin(Int64) <= x <= typemax(Int64) ? "a value of type $(typeof(x))" :
    "a $(typeof(x)) beyond Int64 ($x)"
_given(x::_SeqArg) = isempty(x.items) ? "an empty vector" : "a vector of $(_types(x.items)) values"
_given(x::_MapArg) = isempty(x.kv) ? "an empty dict" :
    "a dict of $(_types(x.kv[1:2:end])) keys and $(_types(x.kv[2:2:end])) values"

# The types of `items`, listed once each: `Int64 and String`.
function _types(items)
    names = unique(map(_type_name, items))
    return length(names) == 1 ? names[1] : "$(join(names[1:end-1], ", ")) and $(names[end])"
end

# Containers inside a container were converted for the call: named as the Julia values they were.
_type_name(x) = string(typeof(x))
_type_name(::_SeqArg) = "Vector"
_type_name(::_MapArg) = "Dict"
