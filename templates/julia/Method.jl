const {{ m.handle }} = TVMFFI.FFIFunction(C_NULL)  # bound in __init__

"""
{%- for line in m.doc %}
{{ line }}
{%- endfor %}
"""
{%- if m.packed %}
{{ m.def_name }}({{ m.params }}) where {N} = TVMFFI.call_packed({{ m.handle }}{{ m.args }}, args...)
{%- else %}
function {{ m.def_name }}({{ m.params }})
    return TVMFFI.call_typed({{ m.ret }}, {{ m.handle }}{{ m.args }})
end
{%- endif %}
{%- if let Some((receiver, fallback)) = m.fallback %}

{{ m.def_name }}({{ receiver }}, args...; kwargs...) = {{ fallback }}
{%- endif %}
{%- if let Some(receiver) = m.prints %}

# `print` (and so `string`) writes the object's text, as `{{ m.def_name }}` gives it.
Base.print(io::IO, self::{{ receiver }}) = print(io, {{ m.def_name }}(self))
{%- endif %}
