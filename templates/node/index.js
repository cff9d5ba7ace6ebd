{{ m.banner }}
'use strict';

const __ffi = require({{ m.support }});

__ffi.loadLibraries(__dirname, [{% for lib in m.libraries %}{{ lib }}{% if !loop.last %}, {% endif %}{% endfor %}], {{ m.checksum }}, [
{%- for line in m.manifest %}
  {{ line }},
{%- endfor %}
]);
{%- if !m.modules.is_empty() %}
// The libraries whose `__tvm_ffi_<name>` exports this package binds, loaded once as modules.
const __ffiModules = __ffi.loadModules(__dirname, [
{%- for mo in m.modules %}
  [{{ mo.library }}, {
{%- for e in mo.exports %}
    {{ e.key }}: {{ e.hash }},
{%- endfor %}
  }],
{%- endfor %}
], {{ m.checksum }});
{%- endif %}
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
