const {{ f.handle }} = TVMFFI.LazyGlobal({{ f.ffi_name }})

"""
    {{ f.doc_signature }}
{%- if !f.doc.is_empty() %}

{%- for line in f.doc %}
{{ line }}
{%- endfor %}
{%- endif %}
"""
{%- if f.packed %}
{{ f.ident }}(args...) = {{ f.handle }}(args...)
{%- else %}
function {{ f.ident }}({% for p in f.params %}{{ p.ident }}{{ p.annot }}{% if !loop.last %}, {% endif %}{% endfor %}){{ f.ret }}
    return {{ f.handle }}({% for p in f.params %}{{ p.ident }}{% if !loop.last %}, {% endif %}{% endfor %}){{ f.ret }}
end
{%- endif %}
