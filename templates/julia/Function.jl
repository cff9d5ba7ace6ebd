const {{ f.handle }} = Ref{TVMFFI.FFIFunction}()

"""
{%- for line in f.doc %}
{{ line }}
{%- endfor %}
"""
{%- if f.packed %}
{{ f.ident }}(args...) = TVMFFI.call_packed({{ f.handle }}[], args...)
{%- else %}
function {{ f.ident }}({{ f.params }})
    return TVMFFI.call_typed({{ f.ret }}, {{ f.handle }}[]{{ f.args }})
end
{%- endif %}
