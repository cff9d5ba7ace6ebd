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
{%- if !modules.is_empty() %}
# The libraries whose `__tvm_ffi_<name>` exports this package binds, loaded once as modules.
const _ffi_modules = TVMFFI.FFIModule[]
{%- endif %}

{%- if !types.is_empty() %}

# Abstract types first: signatures below may name any of them.
{%- endif %}
{%- for t in types %}
{%- if !t.nested %}

{% include "julia/Abstract.jl" %}
{%- endif %}
{%- endfor %}
{%- for t in types %}
{%- if !t.nested %}

{% include "julia/Object.jl" %}
{%- if let Some(c) = t.constructor %}

{% include "julia/Constructor.jl" %}
{%- endif %}
{%- for m in t.methods %}

{% include "julia/Method.jl" %}
{%- endfor %}
{%- for mb in t.member_constructors %}

{% include "julia/Member.jl" %}
{%- endfor %}
{%- for mb in t.member_methods %}

{% include "julia/Member.jl" %}
{%- endfor %}
{%- endif %}
{%- endfor %}
{%- for b in blocks %}
{%- if let Some(o) = b.open %}

# --- namespace {{ o.name }} ---
module {{ o.name }}

import TVMFFI
import {{ o.root_import }}
{%- endif %}
{%- for i in b.types %}
{%- let t = types[*i] %}

{% include "julia/Abstract.jl" %}
{%- endfor %}
{%- for i in b.types %}
{%- let t = types[*i] %}

{% include "julia/Object.jl" %}
{%- endfor %}
{%- for s in b.stubs %}
{%- if !s.doc.is_empty() %}

"""
{%- for line in s.doc %}
{{ line }}
{%- endfor %}
"""
{%- else %}
{% endif %}
function {{ s.ident }} end
{%- endfor %}
{%- if !b.exports.is_empty() %}

export {% for e in b.exports %}{{ e }}{% if !loop.last %}, {% endif %}{% endfor %}
{%- endif %}
{%- if let Some(name) = b.close %}

end  # module {{ name }}
{%- endif %}
{%- endfor %}
{%- for t in types %}
{%- if t.nested %}
{%- if let Some(c) = t.constructor %}

{% include "julia/Constructor.jl" %}
{%- endif %}
{%- for m in t.methods %}

{% include "julia/Method.jl" %}
{%- endfor %}
{%- for mb in t.member_constructors %}

{% include "julia/Member.jl" %}
{%- endfor %}
{%- for mb in t.member_methods %}

{% include "julia/Member.jl" %}
{%- endfor %}
{%- endif %}
{%- endfor %}
{%- for f in functions %}

{% include "julia/Function.jl" %}
{%- endfor %}

{% include "julia/Init.jl" %}
{%- if !exports.is_empty() %}

export {% for e in exports %}{{ e }}{% if !loop.last %}, {% endif %}{% endfor %}
{%- endif %}

end  # module {{ module }}
