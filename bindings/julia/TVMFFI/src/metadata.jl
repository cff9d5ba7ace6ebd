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
