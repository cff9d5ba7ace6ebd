{{ banner }}
module {{ module }}

import TVMFFI

const _ffi_checksum = {{ checksum }}
const _ffi_libraries = String[{% for lib in libraries %}{{ lib }}{% if !loop.last %}, {% endif %}{% endfor %}]

function __init__()
    TVMFFI.load_libraries(@__MODULE__, _ffi_libraries, _ffi_checksum)
{%- for t in types %}
    TVMFFI.register_type({{ t.key }}, {{ t.ident }})
{%- endfor %}
    return nothing
end
{%- for t in types %}

{% include "julia/Object.jl" %}
{%- endfor %}
{%- for f in functions %}

{% include "julia/Function.jl" %}
{%- endfor %}
{%- if !exports.is_empty() %}

export {% for e in exports %}{{ e }}{% if !loop.last %}, {% endif %}{% endfor %}
{%- endif %}

end  # module {{ module }}
