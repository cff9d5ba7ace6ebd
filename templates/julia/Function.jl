const {{ f.handle }} = TVMFFI.FFIFunction(C_NULL)  # bound on first call
{%- if let Some(info) = f.info %}
const {{ info.name }} = {{ info.value }}
{%- endif %}
{%- if !f.nested %}

"""
{%- for line in f.doc %}
{{ line }}
{%- endfor %}
"""
{%- endif %}
{%- if f.packed %}
{{ f.def_name }}(args::Vararg{Any,N}) where {N} =
    TVMFFI.call_packed({{ f.lookup }}, args...)
{%- else %}
{%- for o in f.overloads %}
{%- if !loop.first %}
{% endif %}
function {{ f.def_name }}({{ o.params }})
    return TVMFFI.call_typed({{ f.ret }}, {{ f.lookup }}{% if let Some(info) = f.info %}, {{ info.name }}{% endif %}{{ o.args }})
end
{%- endfor %}
{%- endif %}
{%- if let Some(fallback) = f.fallback %}

{{ f.def_name }}(args...; kwargs...) = {{ fallback }}
{%- endif %}
