const {{ t.init_handle }} = TVMFFI.FFIFunction(C_NULL)  # bound in __init__
{%- if c.fast %}
const {{ c.info.name }} = {{ c.info.value }}
{%- endif %}
{%- for o in c.overloads %}

function {{ t.def_name }}({{ o.params }})
{%- if c.fast %}
    return TVMFFI.call_typed({{ t.def_name }}, {{ t.init_handle }}, {{ c.info.name }}{{ o.args }})
{%- else %}
    return TVMFFI.construct({{ t.key }}{{ o.construct_args }})::{{ t.def_name }}
{%- endif %}
end
{%- endfor %}
{%- if let Some(fallback) = c.fallback %}

{{ t.def_name }}(args...; kwargs...) = {{ fallback }}
{%- endif %}
