#!/usr/bin/env python3
"""A third party's server asking a person for a meal-export key by their consent, with Authlib.

docs/connect.md#in-python shows it; test/docs/connect-examples.test.ts runs it.
Authlib and requests: pip install authlib requests (or apt install python3-authlib python3-requests).

    MEAL_EXPORT_ISSUER=https://api.diet.example CLIENT_ID=app_... CLIENT_SECRET=mxa_... \\
    REDIRECT_URI=https://coach.example/callback python3 connect_client.py start

start: prints the address to send the person to, and keeps the verifier and state (data/);
finish CALLBACK_URL: the address the person came back to, exchanged for the key (printed as
JSON, kept in data/connect-key.json); revoke: gives the key back. MEAL_EXPORT_CA names the
server's certificate when it is self-signed (a local serve's data/tls/cert.pem).
"""
import json
import os
import secrets
import sys

import requests
from authlib.integrations.requests_client import OAuth2Session

ISSUER = os.environ["MEAL_EXPORT_ISSUER"].rstrip("/")
VERIFY = os.environ.get("MEAL_EXPORT_CA") or True
PENDING = "data/connect-pending.json"
KEY = "data/connect-key.json"

# The server describes itself (RFC 8414): its endpoints, PKCE S256, the scope meals:read.
metadata = requests.get(f"{ISSUER}/.well-known/oauth-authorization-server", verify=VERIFY, timeout=10).json()
session = OAuth2Session(
    os.environ["CLIENT_ID"],
    os.environ["CLIENT_SECRET"],
    scope="meals:read",
    redirect_uri=os.environ["REDIRECT_URI"],
    code_challenge_method="S256",
)
os.makedirs("data", exist_ok=True)
command = sys.argv[1] if len(sys.argv) > 1 else ""

if command == "start":
    verifier = secrets.token_urlsafe(48)
    url, state = session.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier)
    with open(PENDING, "w") as f:
        json.dump({"verifier": verifier, "state": state}, f)
    print(url)
elif command == "finish":
    with open(PENDING) as f:
        pending = json.load(f)
    # Checks state; error=access_denied (the person pressed Cancel) raises.
    token = session.fetch_token(
        metadata["token_endpoint"],
        authorization_response=sys.argv[2],
        state=pending["state"],
        code_verifier=pending["verifier"],
        verify=VERIFY,
    )
    # An ordinary meal-export key of the person's: keep it as a secret, use it as Bearer on /v1/meals.
    with open(KEY, "w") as f:
        json.dump(dict(token), f)
    print(json.dumps({k: token[k] for k in ("key_id", "user_id", "scope", "access_token")}))
elif command == "revoke":
    with open(KEY) as f:
        key = json.load(f)["access_token"]
    session.revoke_token(metadata["revocation_endpoint"], token=key, verify=VERIFY).raise_for_status()
    print("revoked")
else:
    print("usage: connect_client.py start | finish CALLBACK_URL | revoke", file=sys.stderr)
    sys.exit(2)
