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


# A 429, or a 503 with Retry-After, is the answer of a gateway in front of the target (issue 31:
# "Rate limits: not shown", so any deployment may send them), not the target's verdict on the
# request: no check judges it. `dxs fuzz` runs Schemathesis with --rate-limit auto (or the rate of
# --max-rps), which waits as Retry-After asks and sends again; what still comes back from the
# gateway is set aside here, so a 429 is never a finding (nor does it pass for a refusal).
def _header(headers, name):
    for key, value in (headers or {}).items():
        if key.lower() == name:
            return value[0] if isinstance(value, list) and value else value
    return None


def _is_gateway_answer(response):
    status = getattr(response, "status_code", None)
    if status == 429:
        return True
    return status == 503 and _header(getattr(response, "headers", None), "retry-after") is not None


def _skipping_gateway_answers(run_checks):
    def run_checks_unless_gateway(*args, **kwargs):
        if _is_gateway_answer(kwargs.get("response")):
            return set()
        return run_checks(*args, **kwargs)

    return run_checks_unless_gateway


# Calls of its own (the probes of ignored_auth, the stateful phase) reach neither --rate-limit auto
# nor the checks' filter: every call Schemathesis sends waits for the gateway here, as dxs's own client does.
_GATEWAY_ATTEMPTS = 4
_DEFAULT_RETRY_AFTER = 1.0
_MAX_RETRY_AFTER = 60.0


def _retry_after_seconds(value):
    import email.utils
    import time

    text = (value or "").strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(text).timestamp() - time.time()
        except (TypeError, ValueError, IndexError):
            seconds = _DEFAULT_RETRY_AFTER
    return min(max(seconds, 0.0), _MAX_RETRY_AFTER)


def _waiting_for_gateway(send):
    def send_after_gateway(self, *args, **kwargs):
        import time

        response = send(self, *args, **kwargs)
        for _ in range(1, _GATEWAY_ATTEMPTS):
            if not _is_gateway_answer(response):
                break
            time.sleep(_retry_after_seconds(_header(response.headers, "retry-after")))
            response = send(self, *args, **kwargs)
        return response

    return send_after_gateway


def _install_gateway_filter():
    import schemathesis.checks as checks_module
    from schemathesis.transport.requests import RequestsTransport

    RequestsTransport.send = _waiting_for_gateway(RequestsTransport.send)

    checks_module.run_checks = _skipping_gateway_answers(checks_module.run_checks)
    try:
        import schemathesis.engine._validate as validate_module
    except ImportError:
        return
    validate_module.run_checks = _skipping_gateway_answers(validate_module.run_checks)


_install_gateway_filter()
