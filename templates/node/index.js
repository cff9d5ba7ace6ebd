{{ m.banner }}
'use strict';

const __ffi = require({{ m.support }});

__ffi.loadLibraries(__dirname, [{% for lib in m.libraries %}{{ lib }}{% if !loop.last %}, {% endif %}{% endfor %}], {{ m.checksum }}, {
{%- for e in m.manifest %}
  {{ e.key }}: {{ e.hash }},
{%- endfor %}
});
{%- if !m.namespaces.is_empty() %}
{% for ns in m.namespaces %}
{{ ns }} = {};
{%- endfor %}
{%- endif %}
{%- for c in m.classes %}

{% include "node/Class.js" %}
{%- endfor %}
{%- for f in m.functions %}

{% include "node/Function.js" %}
{%- endfor %}
