# Reflection metadata: a small JSON reader (metadata strings are JSON; Julia 1.5's standard library
# has no JSON parser) and the load-time check generated packages run against the live library.

"""
    parse_json(s::AbstractString)

Parse a JSON document into Julia values: objects become `Dict{String,Any}`, arrays
`Vector{Any}`, strings `String`, numbers `Int64` or `Float64`, `true`/`false` `Bool`, `null`
`nothing`. Enough for TVM-FFI metadata (`{"type_schema": "{\\"type\\": ...}"}`).
"""
function parse_json(s::AbstractString)
    str = String(s)
    v, i = _json_value(str, _json_skip(str, 1))
    i = _json_skip(str, i)
    i <= ncodeunits(str) && _json_error(str, i, "trailing characters")
    return v
end

@noinline _json_error(s, i, what) = throw(ArgumentError("invalid JSON at byte $i: $what in $(repr(s))"))

function _json_skip(s::String, i::Int)
    n = ncodeunits(s)
    while i <= n && codeunit(s, i) in (0x20, 0x09, 0x0a, 0x0d)
        i += 1
    end
    return i
end

function _json_value(s::String, i::Int)
    i > ncodeunits(s) && _json_error(s, i, "unexpected end")
    c = codeunit(s, i)
    if c == UInt8('{')
        d = Dict{String,Any}()
        i = _json_skip(s, i + 1)
        if i <= ncodeunits(s) && codeunit(s, i) == UInt8('}')
            return d, i + 1
        end
        while true
            (i <= ncodeunits(s) && codeunit(s, i) == UInt8('"')) || _json_error(s, i, "expected a key")
            k, i = _json_string(s, i)
            i = _json_skip(s, i)
            (i <= ncodeunits(s) && codeunit(s, i) == UInt8(':')) || _json_error(s, i, "expected ':'")
            v, i = _json_value(s, _json_skip(s, i + 1))
            d[k] = v
            i = _json_skip(s, i)
            i <= ncodeunits(s) || _json_error(s, i, "unterminated object")
            c = codeunit(s, i)
            c == UInt8('}') && return d, i + 1
            c == UInt8(',') || _json_error(s, i, "expected ',' or '}'")
            i = _json_skip(s, i + 1)
        end
    elseif c == UInt8('[')
        a = Any[]
        i = _json_skip(s, i + 1)
        if i <= ncodeunits(s) && codeunit(s, i) == UInt8(']')
            return a, i + 1
        end
        while true
            v, i = _json_value(s, i)
            push!(a, v)
            i = _json_skip(s, i)
            i <= ncodeunits(s) || _json_error(s, i, "unterminated array")
            c = codeunit(s, i)
            c == UInt8(']') && return a, i + 1
            c == UInt8(',') || _json_error(s, i, "expected ',' or ']'")
            i = _json_skip(s, i + 1)
        end
    elseif c == UInt8('"')
        return _json_string(s, i)
    elseif startswith(SubString(s, i), "true")
        return true, i + 4
    elseif startswith(SubString(s, i), "false")
        return false, i + 5
    elseif startswith(SubString(s, i), "null")
        return nothing, i + 4
    else
        j = i
        while j <= ncodeunits(s) && codeunit(s, j) in b"+-0123456789.eE"
            j += 1
        end
        j == i && _json_error(s, i, "unexpected character")
        tok = s[i:(j - 1)]
        v = tryparse(Int64, tok)
        v === nothing && (v = tryparse(Float64, tok))
        v === nothing && _json_error(s, i, "bad number")
        return v, j
    end
end

function _json_string(s::String, i::Int)
    io = IOBuffer()
    i += 1
    n = ncodeunits(s)
    while i <= n
        c = codeunit(s, i)
        if c == UInt8('"')
            return String(take!(io)), i + 1
        elseif c == UInt8('\\')
            i + 1 <= n || break
            e = codeunit(s, i + 1)
            if e == UInt8('u')
                i + 5 <= n || _json_error(s, i, "bad \\u escape")
                cp = parse(UInt32, s[(i + 2):(i + 5)]; base = 16)
                i += 6
                if 0xd800 <= cp <= 0xdbff && i + 5 <= n && codeunit(s, i) == UInt8('\\') && codeunit(s, i + 1) == UInt8('u')
                    lo = parse(UInt32, s[(i + 2):(i + 5)]; base = 16)
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
                    i += 6
                end
                print(io, Char(cp))
                continue
            end
            write(io, e == UInt8('n') ? UInt8('\n') : e == UInt8('t') ? UInt8('\t') : e == UInt8('r') ? UInt8('\r') :
                      e == UInt8('b') ? UInt8('\b') : e == UInt8('f') ? UInt8('\f') : e)
            i += 2
        else
            write(io, c)
            i += 1
        end
    end
    _json_error(s, i, "unterminated string")
end

"""
    type_schema(metadata::AbstractString)

The parsed `"type_schema"` of a metadata JSON string (a `Dict` such as
`Dict("type" => "ffi.Function", "named_args" => ...)`), or `nothing` if it has none.
"""
function type_schema(metadata::AbstractString)
    isempty(metadata) && return nothing
    md = parse_json(metadata)
    md isa Dict || return nothing
    ts = get(md, "type_schema", nothing)
    ts isa AbstractString || return nothing
    return parse_json(ts)
end

"""
    check_metadata(package; functions = [], types = [], regenerate = "")

The load-time check of a generated package: verify that the live runtime still has what the
package was generated from, and throw an `ErrorException` that lists every difference and says
how to regenerate otherwise.

- `functions`: `name => type_schema` pairs, where `type_schema` is the function's type-schema JSON
  as the generator saw it (`""` for untyped functions: only existence is checked). Schemas are
  compared as parsed JSON, so formatting and key order do not matter.
- `types`: `type_key => [field names...]` pairs: the type must exist and have exactly these
  fields (inherited ones included, any order).
- `regenerate`: the command that regenerates the package, quoted in the message.

Generated packages call it from `__init__`, after loading their libraries.
"""
function check_metadata(package::AbstractString; functions = Pair{String,String}[],
                        types = Pair{String,Vector{String}}[], regenerate::AbstractString = "")
    problems = String[]
    for (name, expected) in functions
        f = get_global_func(name; allow_missing = true)
        if f === nothing
            push!(problems, "global function $name is not registered")
            continue
        end
        close(f)
        isempty(expected) && continue
        live = type_schema(global_func_metadata(name))
        want = parse_json(expected)
        live == want || push!(problems, "global function $name changed signature: generated for $expected, the library has $(live === nothing ? "no type schema" : _json_string_of(live))")
    end
    for (key, expected_fields) in types
        ti = try
            type_index(key)
        catch
            push!(problems, "type $key is not registered")
            continue
        end
        live = Set(String(f.name) for f in fields(ti))
        want = Set(String.(expected_fields))
        if live != want
            missing_ = sort!(collect(setdiff(want, live)))
            extra = sort!(collect(setdiff(live, want)))
            push!(problems, "type $key changed fields" *
                (isempty(missing_) ? "" : "; missing: " * join(missing_, ", ")) *
                (isempty(extra) ? "" : "; new: " * join(extra, ", ")))
        end
    end
    isempty(problems) && return nothing
    msg = "$package does not match the loaded TVM-FFI library ($(length(problems)) difference" *
          (length(problems) == 1 ? "" : "s") * "):\n  - " * join(problems, "\n  - ")
    msg *= isempty(regenerate) ? "\nRegenerate the package from the current library." :
           "\nRegenerate the package: $regenerate"
    error(msg)
end

# Compact JSON of parsed values (for messages).
_json_string_of(x::AbstractString) = repr(String(x))
_json_string_of(x::Nothing) = "null"
_json_string_of(x::Union{Bool,Integer,AbstractFloat}) = string(x)
_json_string_of(x::AbstractVector) = "[" * join((_json_string_of(v) for v in x), ",") * "]"
_json_string_of(x::AbstractDict) =
    "{" * join((_json_string_of(k) * ":" * _json_string_of(x[k]) for k in sort!(collect(keys(x)))), ",") * "}"

# --- the check of generated packages ------------------------------------------------------------

# Type schemas spelled the way ffihub's generator spells its normalized types (`int`, `str`,
# `Array[int]`, `Optional[testing.TestIntPair]`, `Callable[(int) -> int]`): string-like origins
# are `str`, C++ containers are their TVM-FFI counterparts, `Expected`/`ObjectRValueRef`/
# `UnchangedOr` are their argument. Mirrors `Type::from_schema` and its `Display` in
# bindgen/src/ir/types.rs; the generated package carries the same spellings.
const _SCHEMA_NAMES = Dict{String,String}(
    "None" => "None", "Any" => "Any", "ffi.OpaquePyObject" => "Any", "bool" => "bool", "int" => "int",
    "ffi.BigInt" => "bigint", "float" => "float", "void*" => "void*", "DataType" => "dtype",
    "Device" => "Device", "ffi.String" => "str", "ffi.SmallStr" => "str", "const char*" => "str",
    "std::string" => "str", "ffi.Bytes" => "bytes", "ffi.SmallBytes" => "bytes",
    "TVMFFIByteArray*" => "bytes", "ffi.Tensor" => "Tensor", "DLTensor*" => "Tensor",
    "ffi.Shape" => "Shape", "ffi.Object" => "Object", "ffi.Module" => "Module", "ffi.Error" => "Error",
)
const _SCHEMA_CONTAINERS = Dict{String,Tuple{String,Int}}(
    "ffi.Array" => ("Array", 1), "std::vector" => ("Array", 1), "std::array" => ("Array", 1),
    "ffi.List" => ("List", 1), "ffi.Map" => ("Map", 2), "std::map" => ("Map", 2),
    "std::unordered_map" => ("Map", 2), "ffi.Dict" => ("Dict", 2),
)

"""
    schema_repr(schema) -> String

A parsed type schema (see [`type_schema`](@ref); `nothing` for none) in the normalized spelling
of ffihub's generator: `"int"`, `"str"`, `"Array[int]"`, `"Optional[str]"`,
`"Callable[(int) -> int]"`, `"testing.TestIntPair"`. Two schemas that cross the ABI the same way
have the same spelling (`std::string` and `ffi.String` are both `"str"`).
"""
function schema_repr(s)
    s isa Dict{String,Any} || return "Any"
    origin = get(s, "type", "Any")
    origin isa String || return "Any"
    args = Dict{String,Any}[]
    raw = get(s, "args", nothing)
    if raw isa Vector{Any}
        for a in raw
            a isa Dict{String,Any} && push!(args, a)
        end
    end
    name = get(_SCHEMA_NAMES, origin, nothing)
    name === nothing || return name
    c = get(_SCHEMA_CONTAINERS, origin, nothing)
    c === nothing || return _repr_list(string(c[1], "["), args, c[2], "]")
    if origin == "Optional" || origin == "std::optional"
        inner = isempty(args) ? "Any" : schema_repr(args[1])
        return (startswith(inner, "Optional[") || inner == "Any" || inner == "None") ? inner : "Optional[$inner]"
    elseif origin == "Variant" || origin == "std::variant"
        return length(args) == 1 ? schema_repr(args[1]) : _repr_list("Variant[", args, length(args), "]")
    elseif origin == "Tuple" || origin == "std::tuple"
        return _repr_list("Tuple[", args, length(args), "]")
    elseif origin == "ffi.Function" || origin == "std::function"
        sig = _schema_signature(s, false)
        return sig === nothing ? "Callable[..., Any]" : "Callable[$sig]"
    elseif origin == "Expected" || origin == "ObjectRValueRef" || origin == "UnchangedOr"
        return isempty(args) ? "Any" : schema_repr(args[1])
    end
    return origin                                      # a type key
end

# "<open>a, b<close>" for the first `n` schemas (missing ones are "Any").
function _repr_list(open::String, items::Vector, n::Int, close::String)
    io = IOBuffer()
    print(io, open)
    for i in 1:n
        i > 1 && print(io, ", ")
        print(io, i <= length(items) ? schema_repr(items[i]) : "Any")
    end
    print(io, close)
    return String(take!(io))
end

# "(a, b) -> r" for a function schema with a signature (`named_args`, or the legacy
# `std::function` form `args: [ret, [params...]]`); `nothing` for packed functions.
function _schema_signature(s, drop_self::Bool)
    s isa Dict{String,Any} || return nothing
    origin = get(s, "type", "")
    (origin == "ffi.Function" || origin == "std::function") || return nothing
    named = get(s, "named_args", nothing)
    args = get(s, "args", nothing)
    if named isa Dict{String,Any}
        params = get(named, "params", Any[])
        rets = get(named, "return", nothing)
        (params isa Vector{Any} && rets isa Vector{Any} && length(rets) == 1) || return nothing
        ret = rets[1]
    elseif origin == "std::function" && args isa Vector{Any} && length(args) == 2 && args[2] isa Vector{Any}
        params, ret = args[2]::Vector{Any}, args[1]
    elseif args isa Vector{Any} && !isempty(args)
        # The older function form: "args": [return, params...].
        params, ret = args[2:end], args[1]
    else
        return nothing
    end
    first_ = drop_self && !isempty(params) ? 2 : 1
    return _repr_list("(", params[first_:end], length(params) - first_ + 1, ") -> ") * schema_repr(ret)
end

# The signature of a function or method from its metadata JSON ("" when it has none).
function _metadata_signature(metadata::AbstractString, drop_self::Bool)
    sig = try
        _schema_signature(type_schema(metadata), drop_self)
    catch
        nothing
    end
    return sig === nothing ? "" : sig
end

# What a type declares itself (not its ancestors), one line per member, in the spelling the
# generator writes into packages: "field x: float", "field count: int (writable)",
# "method norm: () -> float", "static origin: () -> demo.Point".
function _declared_members(ti::Int32)
    info = unsafe_load(_type_info_ptr(ti))
    out = String[]
    for f in _read_fields(info)
        ty = try
            schema_repr(type_schema(f.metadata))
        catch
            "Any"
        end
        push!(out, "field $(f.name): $ty" * (f.writable ? " (writable)" : ""))
    end
    for i in 1:Int(info.num_methods)
        m = unsafe_load(info.methods, i)
        name = _string(m.name)
        name == "__ffi_init__" && continue
        static = m.flags & kTVMFFIFieldFlagBitMaskIsStaticMethod != 0
        push!(out, (static ? "static " : "method ") * name * ": " * _metadata_signature(_string(m.metadata), !static))
    end
    return out
end

_member_name(line::AbstractString) = String(split(line, ':'; limit = 2)[1])

@noinline function _member_differences!(problems::Vector{String}, key, expected, live::Vector{String})
    live_names = Dict(_member_name(l) => l for l in live)
    want_names = Set(_member_name(l) for l in expected)
    for want in expected
        want in live && continue
        now = get(live_names, _member_name(want), nothing)
        push!(problems, now === nothing ? "$key: $(_member_name(want)) is gone" :
                        "$key: $now, not $(strip(split(want, ':'; limit = 2)[2]))")
    end
    for l in live
        _member_name(l) in want_names || push!(problems, "$key: new $l")
    end
    return problems
end

"""
    check_package(package, checksum; functions = [], types = [], regenerate = "")

The load-time check of a package generated by `ffihub generate --lang julia`: compare what the
loaded libraries register now with what the package was generated from, and throw an
`ErrorException` listing every difference and the command that regenerates the package.

- `functions`: `name => signature` pairs, the signature in the normalized spelling of
  [`schema_repr`](@ref) (`"(int, str) -> Array[int]"`), or `""` for packed functions (only their
  existence is checked);
- `types`: `type_key => members` pairs, where `members` lists what the type declares itself, one
  line each: `"field x: float"`, `"field count: int (writable)"`, `"method norm: () -> float"`,
  `"static origin: () -> demo.Point"`. Missing, changed and new members are all differences;
- `checksum`: the metadata checksum the package was generated from (quoted in the message);
- `regenerate`: the command that regenerates the package.
"""
function check_package(package::AbstractString, checksum::AbstractString = "";
                       functions = Pair{String,String}[], types = Pair{String,Vector{String}}[],
                       regenerate::AbstractString = "")
    problems = String[]
    for (name, expected) in functions
        f = get_global_func(name; allow_missing = true)
        if f === nothing
            push!(problems, "global function $name is not registered")
            continue
        end
        close(f)
        isempty(expected) && continue
        live = _metadata_signature(global_func_metadata(name), false)
        live == expected ||
            push!(problems, "global function $name is $(isempty(live) ? "untyped" : live), not $expected")
    end
    for (key, expected) in types
        ti = try
            type_index(key)
        catch
            push!(problems, "type $key is not registered")
            continue
        end
        live = _declared_members(ti)
        # "field x: ?" had no readable type where the package was generated: compare it untyped.
        for want in expected
            endswith(want, ": ?") || endswith(want, ": ? (writable)") || continue
            name = _member_name(want)
            i = findfirst(l -> _member_name(l) == name, live)
            i === nothing || (live[i] = string(name, ": ?", endswith(live[i], " (writable)") ? " (writable)" : ""))
        end
        sort(live) == sort(expected) || _member_differences!(problems, key, expected, live)
    end
    isempty(problems) && return nothing
    msg = "$package does not match the TVM-FFI libraries loaded now" *
          (isempty(checksum) ? "" : " (it was generated from metadata $checksum)") * ", " *
          "$(length(problems)) difference$(length(problems) == 1 ? "" : "s"):\n  - " *
          join(problems, "\n  - ")
    msg *= isempty(regenerate) ? "\nRegenerate the package from the current library." :
           "\nRegenerate the package: $regenerate"
    error(msg)
end

"""
    TVMFFI.global_function!(slot::FFIFunction, name::String) -> FFIFunction

The global function `name`, bound into the empty `slot` on first use and returned from it
afterwards. Generated packages call their functions through it, so loading a package binds
nothing (a library with thousands of functions loads as fast as a small one).
"""
@inline global_function!(slot::FFIFunction, name::String) =
    getfield(slot, :handle) == C_NULL ? _bind_global!(slot, name) : slot

@noinline _bind_global!(slot::FFIFunction, name::String) = bind!(slot, get_global_func(name))
