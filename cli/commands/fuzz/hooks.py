# Schemathesis hooks of `dxs fuzz` (loaded through the generated schemathesis.toml). Their settings
# come from the JSON file named by DXS_FUZZ_HOOKS_CONFIG (written by cli/commands/fuzz.ts for one
# run, holding no secret: the run's API key and tokens only as SHA-256 digests). Each relaxation
# here is listed, with the spec sentence that forces it, by cli/commands/fuzz/config.ts.
import hashlib
import json
import os
import time
from datetime import datetime, timezone

import requests
import schemathesis

_path = os.environ.get("DXS_FUZZ_HOOKS_CONFIG")
CONFIG = {}
if _path:
    with open(_path, encoding="utf-8") as handle:
        CONFIG = json.load(handle)


def _digest(value):
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


# A service may refuse a JSON body that tries to set __proto__ anywhere (the sandbox does, before
# reading it: it would change an object's prototype in JavaScript), and the spec says nothing of it.
# JSON Schema can state that only for the properties a schema names, and Schemathesis generates
# extra properties at any depth, so generated bodies with such a key are dropped instead of being
# sent as "valid" or "invalid" data.
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


class _Pace:
    """One pace for every call of this process (Schemathesis's workers are threads), as dxs's own
    callers keep (suites/support/gateway.ts, GatewayGate): nothing is paced before the gateway's
    first answer; each answer holds every call for its Retry-After, and paces the calls from then
    on (ten a second, a quarter slower at each answer to a call sent under the current pace,
    quicker by a fifth each 10 s without one in which calls waited for their slots, never again as
    quick as a pace that met the gateway), so the threads do not each meet the gateway on their own."""

    FIRST_INTERVAL = 0.1
    SLOWER = 1.25
    SHORT_OF_REFUSED = 1.1
    SLOWEST_INTERVAL = 2.0
    QUICKEN_AFTER = 10.0
    QUICKER = 0.8
    UNPACED_BELOW = 0.005

    def __init__(self):
        import threading

        self._lock = threading.Lock()
        self._not_before = 0.0
        self._interval = None
        self._next = 0.0
        self._last_answer = 0.0
        self._generation = 0
        self._refused = 0.0
        # A pace no call waited for was never tried against the gateway: it does not quicken.
        self._pressed = False

    def take(self):
        with self._lock:
            now = time.monotonic()
            start = max(now, self._not_before)
            while self._interval is not None and start - self._last_answer > self.QUICKEN_AFTER:
                self._last_answer += self.QUICKEN_AFTER
                if not self._pressed:
                    continue
                self._pressed = False
                self._interval = max(self._refused * self.SHORT_OF_REFUSED, self._interval * self.QUICKER)
                if self._interval < self.UNPACED_BELOW:
                    self._interval = None
            slot = start
            if self._interval is not None:
                slot = max(start, self._next)
                self._next = slot + self._interval
                if slot > start:
                    self._pressed = True
            ticket = self._generation
        if slot > now:
            time.sleep(slot - now)
        return ticket

    def answered(self, wait, ticket):
        with self._lock:
            now = time.monotonic()
            self._not_before = max(self._not_before, now + wait)
            self._last_answer = now
            # Calls sent before the pace changed met the gateway at the old pace: held, not slowed for again.
            if ticket < self._generation:
                return
            self._generation += 1
            self._pressed = False
            if self._interval is not None:
                self._refused = max(self._refused, self._interval)
            self._interval = self.FIRST_INTERVAL if self._interval is None else min(self.SLOWEST_INTERVAL, self._interval * self.SLOWER)


_PACE = _Pace()


def _waiting_for_gateway(send):
    def send_after_gateway(self, *args, **kwargs):
        ticket = _PACE.take()
        response = send(self, *args, **kwargs)
        for _ in range(1, _GATEWAY_ATTEMPTS):
            if not _is_gateway_answer(response):
                break
            wait = _retry_after_seconds(_header(response.headers, "retry-after"))
            _PACE.answered(wait, ticket)
            ticket = _PACE.take()
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


def _operation_id(case):
    try:
        return case.operation.definition.raw.get("operationId")
    except AttributeError:
        return None


def _field(body, name):
    """A field of a JSON object in either casing of the spec's names."""
    if not isinstance(body, dict):
        return None
    for key in (name, name[:1].lower() + name[1:]):
        if key in body:
            return body[key]
    return None


def _json_body(case):
    body = getattr(case, "body", None)
    return body if isinstance(body, (dict, list)) else None


def _empty_required(case):
    """The required fields (config emptyAsMissing) the request sent as an empty string."""
    found = []
    for path in CONFIG.get("emptyAsMissing", {}).get(_operation_id(case) or "", []):
        value = _json_body(case)
        for name in path:
            value = _field(value, name)
        if isinstance(value, str) and value == "":
            found.append(".".join(path))
    return found


def _still_missing(response):
    """Sends the request again until it is answered other than 404, within resourceWait: a few
    times the background work the setup saw this target do, never more than the async timeout.
    A resource that has not appeared by then is not coming (issue 36: no wait without a reason)."""
    deadline = time.monotonic() + float(CONFIG.get("resourceWait", CONFIG.get("asyncTimeout", 30)))
    interval = 0.25
    # Through the run's proxy and with its TLS files, as Schemathesis sent the call (fuzz.ts writes them).
    proxy = CONFIG.get("proxy")
    verify = CONFIG.get("tlsVerify", True)
    cert = (CONFIG["clientCert"], CONFIG["clientKey"]) if CONFIG.get("clientCert") and CONFIG.get("clientKey") else None
    with requests.Session() as session:
        if proxy:
            session.proxies = {"http": proxy, "https": proxy}
        session.verify = True if verify is None else verify
        session.cert = cert
        while time.monotonic() < deadline:
            time.sleep(interval)
            interval = min(interval * 2, 2.0)
            # In the process's one pace, as every call Schemathesis sends (its own session bypasses the transport).
            ticket = _PACE.take()
            try:
                again = session.send(response.request.copy(), timeout=min(10.0, max(0.5, deadline - time.monotonic())), allow_redirects=False, proxies=session.proxies, verify=session.verify, cert=session.cert)
            except requests.RequestException:
                continue
            # The gateway's answer says nothing of the resource: waited for, never taken for "found".
            if _is_gateway_answer(again):
                _PACE.answered(_retry_after_seconds(_header(again.headers, "retry-after")), ticket)
                continue
            if again.status_code != 404:
                return False
    return True


@schemathesis.hook
def filter_failure(context, failure, case, response):
    code = getattr(failure, "code", None)
    method = (response.request.method or "").lower() if response is not None else ""
    # RFC 9110 15.6.2: 501 "is the appropriate response when the server does not recognize the
    # request method"; for a method the spec does not list at a path it is no server fault.
    if code == "ST101" and getattr(response, "status_code", None) == 501:
        listed = CONFIG.get("listedMethods", {}).get(case.operation.path, [])
        if method not in listed:
            return False
    # "The work is done in the background": a resource created by background work may appear
    # later. The call that missed it is repeated within the async timeout before it is a finding.
    if code == "ST302" and response is not None and response.status_code == 404:
        return _still_missing(response)
    # The spec calls a field required without saying whether an empty string counts as given:
    # an implementation may refuse "" as a missing required value.
    if code == "ST202" and response is not None and 400 <= response.status_code < 500 and _empty_required(case):
        return False
    return True


# ---- the journal: what Schemathesis' own calls created, in dxs's journal format ----

_token_owners = {digest: erp_id for digest, erp_id in CONFIG.get("tokenOwners", {}).items()}


def _journal(line):
    path = CONFIG.get("journal")
    if not path:
        return
    line = {"at": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"), "runPrefix": CONFIG.get("runPrefix", ""), "by": "schemathesis", **line}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({key: value for key, value in line.items() if value not in (None, "")}) + "\n")


def _header(headers, name):
    for key, value in (headers or {}).items():
        if key.lower() == name.lower():
            return value[0] if isinstance(value, list) else value
    return None


def _key_label(request):
    api_key = _header(request.headers, "APIkey")
    if api_key is None:
        return None
    return "apiKey" if _digest(api_key) == CONFIG.get("apiKeyDigest") else "other"


def _owner(request):
    token = _header(request.headers, "ClientToken")
    return None if token is None else _token_owners.get(_digest(token))


def _answer(response):
    try:
        return json.loads(response.content or b"null")
    except ValueError:
        return None


@schemathesis.hook
def after_call(context, case, response):
    try:
        if response is None or not 200 <= response.status_code < 300:
            return
        operation = _operation_id(case)
        body = _json_body(case)
        request = response.request
        location = _header(response.headers, "location")
        owner = _owner(request)
        of = {"key": "apiKey", "ErpId": owner} if owner else {}
        if operation == "registerCompany":
            key = _key_label(request)
            erp_id = _field(body, "ErpId")
            if key and isinstance(erp_id, str) and erp_id:
                _journal({"kind": "company", "key": key, "ErpId": erp_id, "OrgNo": _field(body, "OrgNo"), "CountryCode": _field(body, "CountryCode"), "Name": _field(body, "Name")})
        elif operation == "deleteCompany":
            key = _key_label(request)
            erp_id = _field(body, "Id")
            if key and isinstance(erp_id, str) and erp_id:
                _journal({"kind": "delete", "key": key, "ErpId": erp_id})
        elif operation in ("createClientToken", "createSearchToken"):
            token = _field(_answer(response), "Token")
            erp_id = _field(body, "ErpId")
            if isinstance(token, str) and isinstance(erp_id, str):
                _token_owners[_digest(token)] = erp_id
            # The token itself never reaches the journal: it ends with its company, or with its validity.
            _journal({"kind": "token", "tokenKind": "client" if operation == "createClientToken" else "search", "ErpId": erp_id if isinstance(erp_id, str) else None})
        elif operation == "uploadDocument":
            _journal({"kind": "upload", **of, "Location": location})
        elif operation == "sendDocument":
            _journal({"kind": "document", **of, "Location": location, "ErpDocumentId": _field(_field(body, "Document"), "ErpDocumentId")})
        elif operation == "addUser":
            _journal({"kind": "user", **of, "UserName": _field(body, "UserName")})
        elif operation == "addIdentifier":
            _journal({"kind": "identifier", **of, "Type": _field(body, "Type"), "Value": _field(body, "Value")})
        elif operation == "requestNetworkSetup":
            _journal({"kind": "network-setup", **of, "RequestId": _field(_answer(response), "RequestId")})
        elif operation == "registerProviderA":
            _journal({"kind": "provider-a", **of, "OrgNo": _field(body, "OrgNo"), "Location": location})
    except Exception as error:  # a journal problem must not fail the run
        print(f"dxs fuzz: cannot journal a call: {error}")
