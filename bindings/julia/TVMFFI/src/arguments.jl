# Errors in the caller's words for generated functions, methods and constructors called with
# arguments that none of their methods takes. Each typed callable of a generated package has a
# last method that takes anything, `f(args...; kwargs...)`, which only throws the error this
# file words:
#
#     add_one("x")  ->  ArgumentError: add_one(x): expected x::Integer, got a value of type String
#     add_one()     ->  ArgumentError: add_one(x): expected 1 argument, got 0 (missing x::Integer)
#
# (Julia would say `MethodError: no method matching add_one(::String)`, which names neither the
# parameter nor what it takes.)

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
