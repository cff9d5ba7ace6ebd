const {{ f.handle }} = TVMFFI.FFIFunction(C_NULL)  # bound in __init__

"""
{%- for line in f.doc %}
{{ line }}
{%- endfor %}
"""
{%- if f.packed %}
{{ f.ident }}(args::Vararg{Any,N}) where {N} = TVMFFI.call_packed({{ f.handle }}, args...)
{%- else %}
function {{ f.ident }}({{ f.params }})
    return TVMFFI.call_typed({{ f.ret }}, {{ f.handle }}{{ f.args }})
end
{%- endif %}
