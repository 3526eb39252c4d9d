#!/usr/bin/env python3
"""The app's back end saving meals to meal-export's host API, with Python's standard library only.

docs/host-api.md#a-client-in-python shows it; test/docs/host-api-examples.test.ts runs it.

    MEAL_EXPORT_HOST_API=https://127.0.0.1:8445 MEAL_EXPORT_SERVICE_TOKEN=mxs_... \
        python3 host_client.py save u_42 m_1001 '{"type":"lunch","date":"2026-11-25T12:30:00Z"}' 7

Commands: save USER MEAL JSON [VERSION], delete USER MEAL [VERSION], get USER MEAL,
import USER FILE.jsonl. Each prints the API's JSON answer. An error is one line on stderr and
exit 1: the API's JSON error body for an HTTP error, `network error: ...` when no answer came.
MEAL_EXPORT_CA names the server's certificate when it is self-signed.
"""
import json
import os
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ["MEAL_EXPORT_HOST_API"].rstrip("/")
TOKEN = os.environ["MEAL_EXPORT_SERVICE_TOKEN"]
CONTEXT = ssl.create_default_context(cafile=os.environ.get("MEAL_EXPORT_CA"))


def call(method, path, body=None, content_type="application/json"):
    """One request; the decoded JSON answer, or HostApiError with the API's error body."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if body is not None:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(BASE + path, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, context=CONTEXT, timeout=30) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise HostApiError(error.code, error_body(error)) from None
    except (urllib.error.URLError, OSError) as error:
        # No answer at all: refused, reset, timed out, a certificate not trusted.
        raise NetworkError(getattr(error, "reason", error)) from None


def error_body(error):
    """The API's JSON error; a body that is not JSON (a proxy's page) as the same shape."""
    text = error.read().decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return {"error": {"code": f"http_{error.code}", "message": text.strip()[:200]}}


class HostApiError(Exception):
    def __init__(self, status, body):
        super().__init__(f"{status}: {json.dumps(body)}")
        self.status = status
        self.body = body


class NetworkError(Exception):
    pass


def meal_path(user_id, meal_id):
    # Ids are percent-encoded whole: a "/" in an id is part of it, not a path step.
    quote = lambda text: urllib.parse.quote(text, safe="")
    return f"/host/v1/users/{quote(user_id)}/meals/{quote(meal_id)}"


def save(user_id, meal_id, record, version=None):
    """PUT a meal; version: the row's version (or its update time in ms), so late saves are stale."""
    if version is not None:
        record = {**record, "sourceVersion": version}
    return call("PUT", meal_path(user_id, meal_id), json.dumps(record).encode())


def delete(user_id, meal_id, version=None):
    query = "" if version is None else f"?sourceVersion={version}"
    return call("DELETE", meal_path(user_id, meal_id) + query)


def get(user_id, meal_id):
    return call("GET", meal_path(user_id, meal_id))


def import_file(user_id, file_name):
    """POST a JSON Lines file: one transaction, all or nothing (a bad line names its number)."""
    with open(file_name, "rb") as lines:
        path = f"/host/v1/users/{urllib.parse.quote(user_id, safe='')}/meals/import"
        return call("POST", path, lines.read(), "application/x-ndjson")


def main(argv):
    command, user_id, rest = argv[1], argv[2], argv[3:]
    try:
        if command == "save":
            version = int(rest[2]) if len(rest) > 2 else None
            answer = save(user_id, rest[0], json.loads(rest[1]), version)
        elif command == "delete":
            answer = delete(user_id, rest[0], int(rest[1]) if len(rest) > 1 else None)
        elif command == "get":
            answer = get(user_id, rest[0])
        elif command == "import":
            answer = import_file(user_id, rest[0])
        else:
            raise SystemExit(f"unknown command {command}")
    except HostApiError as error:
        print(json.dumps(error.body), file=sys.stderr)
        return 1
    except NetworkError as error:
        print(f"network error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
