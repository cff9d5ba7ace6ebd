const {{ m.handle }} = Ref{TVMFFI.FFIFunction}()

"""
{%- for line in m.doc %}
{{ line }}
{%- endfor %}
"""
{%- if m.packed %}
{{ m.def_name }}({{ m.params }}) = TVMFFI.call_packed({{ m.handle }}[]{{ m.args }}, args...)
{%- else %}
function {{ m.def_name }}({{ m.params }})
    return TVMFFI.call_typed({{ m.ret }}, {{ m.handle }}[]{{ m.args }})
end
{%- endif %}
