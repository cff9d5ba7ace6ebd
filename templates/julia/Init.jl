# The metadata this package was generated from, compared with the loaded libraries at load time
# (constants: built once at precompile time, not code to compile at every load).
const _ffi_manifest = String[{% for line in manifest %}
    {{ line }},{% endfor %}{% if !manifest.is_empty() %}
{% endif %}]
{%- if !modules.is_empty() %}
const _ffi_check_exports = Vector{Pair{String,String}}[{% for m in modules %}
    Pair{String,String}[{% for (name, sig) in m.exports %}
        {{ name }} => {{ sig }},{% endfor %}
    ],{% endfor %}
]
{%- endif %}

# The package's folder where it is loaded from (`@__DIR__` is where it was precompiled; a package
# image can be moved with its depot, 1.11+).
_ffi_root() = Base.something(Base.pkgdir(@__MODULE__), Base.dirname(@__DIR__))

function _ffi_check()
    TVMFFI.check_package({{ module_literal }}, _ffi_checksum;
        regenerate = {{ regenerate }} * _ffi_root(),
        manifest = _ffi_manifest)
end

# Object types: key, Julia type, field table and the registered field names (looped over in
# `__init__`, so that its code stays small however many types there are).
const _ffi_object_types = Tuple{String,DataType,Vector{TVMFFI.FieldInfo},Vector{Symbol}}[{% for t in types %}
    ({{ t.key }}, {{ t.def_name }}, {% if t.fields.is_empty() %}TVMFFI.FieldInfo[], Symbol[]{% else %}{{ t.fields_ref }}, {{ t.field_symbols }}{% endif %}),{% endfor %}{% if !types.is_empty() %}
{% endif %}]
const _ffi_constructors = Tuple{String,TVMFFI.FFIFunction}[{% for t in types %}{% if t.constructor.is_some() %}
    ({{ t.key }}, {{ t.init_handle }}),{% endif %}{% endfor %}
]

function __init__()
    {% if !modules.is_empty() %}paths = {% endif %}TVMFFI.load_package_libraries({{ module_literal }}, _ffi_libraries;
        dirs = [Base.joinpath(_ffi_root(), "lib")], artifacts = _ffi_root())
    _ffi_check()
{%- if !modules.is_empty() %}
    TVMFFI.load_package_modules!(_ffi_modules, {{ module_literal }},
        [{% for m in modules %}paths[{{ m.library }}]{% if !loop.last %}, {% endif %}{% endfor %}], _ffi_check_exports;
        regenerate = {{ regenerate }} * _ffi_root())
{%- endif %}
    for (key, T, fields, names) in _ffi_object_types
        TVMFFI.register_object_type(key, T)
        Base.isempty(names) || Base.append!(Base.empty!(fields), TVMFFI.field_info(key, names))
    end
    for (key, slot) in _ffi_constructors
        TVMFFI.bind!(slot, TVMFFI.init_function(key))
    end
{%- for t in types %}
{%- for m in t.methods %}
    TVMFFI.bind!({{ m.handle }}, TVMFFI.get_method({{ t.key }}, {{ m.ffi_symbol }}))
{%- endfor %}
{%- endfor %}
    return nothing
end

# Inferred at precompile time, so that loading the package does not infer them again.
Base.precompile(_ffi_check, ())
Base.precompile(__init__, ())
