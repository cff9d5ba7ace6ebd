{{ banner }}
"""
{%- for line in doc %}
{{ line }}
{%- endfor %}
"""
module {{ module }}

import TVMFFI

const _ffi_checksum = {{ checksum }}
const _ffi_libraries = String[{% for lib in libraries %}{{ lib }}{% if !loop.last %}, {% endif %}{% endfor %}]

{%- if !types.is_empty() %}

# Abstract types first: signatures below may name any of them.
{%- endif %}
{%- for t in types %}

{% include "julia/Abstract.jl" %}
{%- endfor %}
{%- for t in types %}

{% include "julia/Object.jl" %}
{%- for m in t.methods %}

{% include "julia/Method.jl" %}
{%- endfor %}
{%- endfor %}
{%- for f in functions %}

{% include "julia/Function.jl" %}
{%- endfor %}

{% include "julia/Init.jl" %}
{%- if !exports.is_empty() %}

export {% for e in exports %}{{ e }}{% if !loop.last %}, {% endif %}{% endfor %}
{%- endif %}

end  # module {{ module }}
