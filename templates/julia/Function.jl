const {{ f.handle }} = TVMFFI.FFIFunction(C_NULL)  # bound on first call
{%- if !f.nested %}

"""
{%- for line in f.doc %}
{{ line }}
{%- endfor %}
"""
{%- endif %}
{%- if f.packed %}
{{ f.def_name }}(args::Vararg{Any,N}) where {N} =
    TVMFFI.call_packed(TVMFFI.global_function!({{ f.handle }}, {{ f.ffi_name }}), args...)
{%- else %}
function {{ f.def_name }}({{ f.params }})
    return TVMFFI.call_typed({{ f.ret }}, TVMFFI.global_function!({{ f.handle }}, {{ f.ffi_name }}){{ f.args }})
end
{%- endif %}
