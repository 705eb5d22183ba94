# Schemathesis hooks of `dxs fuzz` (loaded through the generated schemathesis.toml).
#
# A service may refuse a JSON body that tries to set __proto__ anywhere (the sandbox does, before
# reading it: it would change an object's prototype in JavaScript), and the spec says nothing of it. JSON Schema can state that only
# for the properties a schema names, and Schemathesis generates extra properties at any depth, so
# generated bodies with such a key are dropped instead of being sent as "valid" or "invalid" data.
import json

import schemathesis


@schemathesis.hook
def filter_body(context, body):
    try:
        return '"__proto__"' not in json.dumps(body)
    except (TypeError, ValueError):
        return True
