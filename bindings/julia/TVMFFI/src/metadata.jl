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

# ---- the load-time check manifest (ADR 0020) -------------------------------------------------
# A generated package carries the manifest of what it expects from its libraries, one line per
# function, type, field, method and constructor, written by the generator
# (bindgen/src/ir/manifest.rs) the same in every language:
#   f <function> <signature or "packed">
#   t <type key> <parent type key>
#   d <type key> <field> <rw|ro> <type>     (`?`: untyped where generated; access is compared)
#   m <type key> <method> <static|instance> <signature or "packed">   (without `self`)
#   c <type key> init_method <(parameter types)>
#   c <type key> auto_init

const _MANIFEST_WORDS = Dict('f' => 2, 't' => 2, 'd' => 4, 'm' => 4, 'c' => 3)
const _MANIFEST_WHAT = Dict('f' => "function", 't' => "type", 'd' => "field", 'm' => "method")

# The words of a manifest line after its kind: the first `n - 1`, then the rest of the line.
function _manifest_words(line::AbstractString, n::Integer)
    out = String[]
    rest = String(line)[3:end]
    while length(out) + 1 < n
        i = findfirst(isequal(' '), rest)
        i === nothing && break
        push!(out, rest[1:i-1])
        rest = rest[i+1:end]
    end
    push!(out, rest)
    return out
end

function _type_index_or_nothing(key::AbstractString)
    return try
        type_index(key)
    catch
        nothing
    end
end

_callable(metadata::AbstractString, drop_self::Bool) =
    (s = _metadata_signature(metadata, drop_self); isempty(s) ? "packed" : s)

"""
    TVMFFI.live_line(line) -> Union{String,Nothing}

How the loaded libraries spell a line of a generated package's manifest (ADR 0020): a line of
the same kind about the same item, from live reflection alone, or `nothing` when that item is
not registered. The spelling is the generator's, so a matching library gives `line` back.
"""
function live_line(line::AbstractString)
    kind = line[1]
    key, member = _manifest_words(line, 3)
    if kind == 'f'
        f = get_global_func(key; allow_missing = true)
        f === nothing && return nothing
        close(f)
        return "f $key $(_callable(global_func_metadata(key), false))"
    end
    ti = _type_index_or_nothing(key)
    ti === nothing && return nothing
    info = unsafe_load(_type_info_ptr(ti))
    if kind == 't'
        parent = info.type_depth > 0 ?
                 _string(unsafe_load(unsafe_load(info.type_ancestors, Int(info.type_depth))).type_key) :
                 "ffi.Object"
        return "t $key $parent"
    elseif kind == 'd'
        for f in _read_fields(info)
            String(f.name) == member || continue
            schema = try
                type_schema(f.metadata)
            catch
                nothing
            end
            access = f.flags & kTVMFFIFieldFlagBitMaskWritable != 0 ? "rw" : "ro"
            return "d $key $member $access $(schema === nothing ? "?" : schema_repr(schema))"
        end
        return nothing
    elseif kind == 'm' || kind == 'c'
        name = kind == 'm' ? member : "__ffi_init__"
        for i in 1:Int(info.num_methods)
            m = unsafe_load(info.methods, i)
            _string(m.name) == name || continue
            static = m.flags & kTVMFFIFieldFlagBitMaskIsStaticMethod != 0
            kind == 'm' && return "m $key $member $(static ? "static" : "instance") " *
                                  _callable(_string(m.metadata), !static)
            sig = _callable(_string(m.metadata), false)
            return "c $key init_method $(split(sig, " -> ")[1])"
        end
        kind == 'c' && type_attr(ti, "__ffi_init__") !== nothing && return "c $key auto_init"
        return nothing
    end
    return nothing
end

"""
    TVMFFI.manifest_differences(lines) -> Vector{String}

What differs between a manifest's lines and their live spelling ([`live_line`](@ref)), one
message each (`"function demo.add_one: generated for (float) -> int, the library has (int) -> int"`).
Members a library adds are not differences: the package does not use them.
"""
function manifest_differences(lines)
    problems = String[]
    for line in lines
        kind = line[1]
        n = get(_MANIFEST_WORDS, kind, 2)
        w = _manifest_words(line, n)
        # A member of a type that is not registered is reported by the type's own line.
        kind in ('f', 't') || _type_index_or_nothing(w[1]) !== nothing || continue
        live = live_line(line)
        l = live === nothing ? String[] : _manifest_words(live, n)
        if kind == 'c'
            want = w[2] == "init_method" ? w[3] : "auto_init"
            have = live === nothing ? "none" : l[2] == "init_method" ? l[3] : "auto_init"
            # A type generated with the automatic constructor takes any registered one.
            have == want || (want == "auto_init" && live !== nothing) ||
                push!(problems, "constructor of $(w[1]): generated for $want, the library has $have")
            continue
        end
        item = _MANIFEST_WHAT[kind] * " " * (kind in ('d', 'm') ? "$(w[1]).$(w[2])" : w[1])
        if live === nothing
            push!(problems, "$item is not registered")
            continue
        end
        # `?`: the field had no readable type where the package was generated; compare access only.
        kind == 'd' && w[4] == "?" && (l[4] = "?")
        from = kind in ('d', 'm') ? 3 : 2
        want, have = join(w[from:end], ' '), join(l[from:end], ' ')
        want == have ||
            push!(problems, "$item: generated $(kind == 't' ? "with parent" : "for") $want, the library has $have")
    end
    return problems
end

"""
    check_package(package, checksum; manifest = String[], regenerate = "")

The load-time check of a package generated by `ffihub generate --lang julia`: compare the
package's manifest (ADR 0020: one line per function, type, field, method and constructor it
was generated from) with its live spelling ([`live_line`](@ref)), and throw an
`ErrorException` listing every difference ([`manifest_differences`](@ref)) and the command that
regenerates the package.

- `checksum`: the metadata checksum the package was generated from (quoted in the message);
- `regenerate`: the command that regenerates the package.
"""
function check_package(package::AbstractString, checksum::AbstractString = "";
                       manifest = String[], regenerate::AbstractString = "", older...)
    # `functions`/`types`: the lists of packages generated before the manifest (ADR 0020).
    isempty(older) || error("$package was generated by an older ffihub (it passes " *
                            join(string.(keys(older)), ", ") * " to TVMFFI.check_package): " *
                            "regenerate it" * (isempty(regenerate) ? "." : ": $regenerate"))
    problems = manifest_differences(manifest)
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
