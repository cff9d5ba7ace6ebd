{{ m.banner }}
'use strict';

const ffi = require({{ m.support }});

ffi.loadLibraries(__dirname, [{% for lib in m.libraries %}{{ lib }}{% if !loop.last %}, {% endif %}{% endfor %}], {{ m.checksum }}, {
{%- for e in m.manifest %}
  {{ e.key }}: {{ e.hash }},
{%- endfor %}
});
{%- for c in m.classes %}

{% include "node/Class.js" %}
{%- endfor %}
{%- for f in m.functions %}

{% include "node/Function.js" %}
{%- endfor %}

module.exports = {
{%- for c in m.classes %}
  {{ c.ident }},
{%- endfor %}
{%- for f in m.functions %}
  {{ f.ident }},
{%- endfor %}
};
