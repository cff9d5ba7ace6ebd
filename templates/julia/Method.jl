const {{ m.handle }} = TVMFFI.FFIFunction(C_NULL)  # bound in __init__
{%- if let Some(info) = m.info %}
const {{ info.name }} = {{ info.value }}
{%- endif %}

"""
{%- for line in m.doc %}
{{ line }}
{%- endfor %}
"""
{%- for o in m.overloads %}
{%- if !loop.first %}
{% endif %}
{%- if m.packed %}
{% if m.extend_base %}TVMFFI.@extend_base {% endif %}{{ m.def_name }}({{ o.params }}) where {N} = TVMFFI.call_packed({{ m.handle }}{{ o.args }}, args...)
{%- else %}
{% if m.extend_base %}TVMFFI.@extend_base {% endif %}function {{ m.def_name }}({{ o.params }})
    return TVMFFI.call_typed({{ m.ret }}, {{ m.handle }}{% if let Some(info) = m.info %}, {{ info.name }}{% endif %}{{ o.args }})
end
{%- endif %}
{%- endfor %}
{%- if let Some((receiver, fallback)) = m.fallback %}

{{ m.def_name }}({{ receiver }}, args...; kwargs...) = {{ fallback }}
{%- endif %}
{%- if let Some(receiver) = m.prints %}

# `print` (and so `string`) writes the object's text, as `{{ m.def_name }}` gives it.
Base.print(io::IO, self::{{ receiver }}) = print(io, {{ m.def_name }}(self))
{%- endif %}
