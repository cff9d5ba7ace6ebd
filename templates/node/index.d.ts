{{ m.banner }}
import * as ffi from {{ m.support }};
{%- for c in m.classes %}

{% include "node/Class.d.ts" %}
{%- endfor %}
{%- for f in m.functions %}

{% include "node/Function.d.ts" %}
{%- endfor %}
