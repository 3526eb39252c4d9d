#!/usr/bin/env python3
"""Keeps a JSON Lines copy of your meals in sync with meal-export, standard library only.

The recipe of docs/api.md, section "A sync client in any language": a first pass without
tombstones, then the changes with includeDeleted=true from the pass's first Meals-Last-Modified
plus 1 ms, each follow page with hasMore false checked against Meals-Digest, a rebuild on a
difference or on 410 resync_required (once: never in a loop), 429's Retry-After honoured but
capped, 5xx and network failures retried with backoff, and the per-key interval kept.

    export MEAL_EXPORT_API_KEY=mxk_...
    python3 docs/examples/sync_meals.py --url https://localhost:8443 --ca data/tls/cert.pem \\
      --state data/meals-state.json --copy data/meals.jsonl --wait 120

The key is read from MEAL_EXPORT_API_KEY only: a command line is visible to every user of the
machine. The copy is rewritten whole after each page, which suits a file; a larger copy belongs
in a database, with the same steps.
"""

import argparse
import email.utils
import hashlib
import http.client
import json
import os
import random
import re
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone

BEGINNING = "1970-01-01T00:00:00.000Z"
PAGE_SIZE = 5000
DEFAULT_INTERVAL_S = 3.0  # until an answer's RateLimit-Policy gives the server's own
MAX_BACKOFF_S = 60.0
DIGEST_RE = re.compile(r"\s*count=(\d+),\s*sum=([0-9a-f]{32})\s*")


class Stop(Exception):
    """A failure that retrying cannot mend: the message says what to do."""


# --- the digest (docs/api.md, "Verifying a copy: Meals-Digest") ---------------------------


def term(meal_id, modified_at):
    digest = hashlib.sha256(f"{meal_id}\n{modified_at}".encode("utf-8")).digest()
    return int.from_bytes(digest[:16], "big")


class Copy:
    """The live meals by id, with their count and sum moved as each meal is applied."""

    def __init__(self, meals=()):
        self.meals = {}
        self.sum = 0
        for meal in meals:
            self.upsert(meal)

    def upsert(self, meal):
        self.remove(meal["id"])
        self.meals[meal["id"]] = meal
        self.sum = (self.sum + term(meal["id"], meal["modifiedAt"])) % (1 << 128)

    def remove(self, meal_id):
        old = self.meals.pop(meal_id, None)
        if old is not None:
            self.sum = (self.sum - term(meal_id, old["modifiedAt"])) % (1 << 128)

    def apply(self, page):
        for meal in page["meals"]:
            if meal.get("deleted"):
                self.remove(meal["id"])
            else:
                self.upsert({k: v for k, v in meal.items() if k != "deleted"})

    def digest(self):
        return (len(self.meals), f"{self.sum:032x}")


# --- files: written whole to a temporary name, then renamed, so a crash leaves the old one ----


def write_atomically(path, text):
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)


def read_copy(path):
    if not os.path.exists(path):
        return Copy()
    with open(path, encoding="utf-8") as lines:
        return Copy(json.loads(line) for line in lines if line.strip())


def write_copy(path, copy):
    lines = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in copy.meals.values())
    write_atomically(path, lines)


def new_pass(restarts):
    # followFrom: where the follow starts, set by the pass's first answer.
    return {
        "phase": "pass",
        "lastModifiedSince": BEGINNING,
        "cursor": None,
        "followFrom": None,
        "restarts": restarts,
    }


# --- instants --------------------------------------------------------------------------------


def parse_instant(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def format_instant(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def follow_start(headers, page, since):
    """Where the follow starts (docs/api.md, "The Meals-Last-Modified header")."""
    last_modified = headers.get("Meals-Last-Modified")
    if last_modified is not None:
        return format_instant(parse_instant(last_modified) + timedelta(milliseconds=1))
    if page["count"] == 0:
        return since  # no change yet: from where the pass began, which read nothing
    # A proxy dropped the header: a few minutes early; what comes twice is upserted again.
    date = email.utils.parsedate_to_datetime(headers.get("Date") or email.utils.formatdate(usegmt=True))
    return format_instant(date - timedelta(minutes=5))


# --- one request, with the limits and the retries ------------------------------------------


def retry_after_cap():
    """The longest real wait: the daily quota comes back at the next 00:00Z. A broken proxy
    or clock asking for more must not park the client for longer than that."""
    now = datetime.now(timezone.utc)
    midnight = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight - now).total_seconds() + 60


def retry_after(headers):
    value = (headers.get("Retry-After") or "").strip()
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            seconds = (email.utils.parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), retry_after_cap())


def interval_of(policy):
    """The per-key interval in RateLimit-Policy (`"interval";q=1;w=3`), 0 when there is none."""
    for item in policy.split(","):
        name, *params = [p.strip() for p in item.split(";")]
        if name == '"interval"':
            values = dict(p.split("=", 1) for p in params if "=" in p)
            try:
                return float(values.get("w", DEFAULT_INTERVAL_S)) / max(1.0, float(values.get("q", "1")))
            except ValueError:
                return DEFAULT_INTERVAL_S
    return 0.0


def backoff(failures):
    """Full jitter under a ceiling that doubles from 2 s up to a minute."""
    return min(MAX_BACKOFF_S, 2.0**failures) * random.random()


class Api:
    def __init__(self, url, key, context, wait):
        self.url = url.rstrip("/")
        self.key = key
        self.context = context
        self.wait = wait
        self.interval = DEFAULT_INTERVAL_S
        self.accepted_at = None  # when the server last counted a request of this key

    def get(self, query):
        """Returns (status, headers, body) of a counted answer: 200, 410 or a fatal 4xx."""
        held = "wait" in query
        # Longer than any hold, so that only a connection that really died times out.
        timeout = self.wait + 15 if held else 30
        failures = 0
        while True:
            if self.accepted_at is not None:
                time.sleep(max(0.0, self.accepted_at + self.interval - time.monotonic()))
            request = urllib.request.Request(
                f"{self.url}/v1/meals?{urllib.parse.urlencode(query)}",
                headers={"Authorization": f"Bearer {self.key}"},
            )
            sent_at = time.monotonic()
            try:
                with urllib.request.urlopen(request, timeout=timeout, context=self.context) as answer:
                    status, headers, body = answer.status, answer.headers, answer.read()
            except urllib.error.HTTPError as error:
                status, headers, body = error.code, error.headers, error.read()
            except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
                reason = getattr(error, "reason", error)
                if isinstance(reason, ssl.SSLCertVerificationError):
                    raise Stop(f"the server's certificate is not trusted ({reason}): pass its cert.pem with --ca")
                failures += 1
                self.pause(backoff(failures), f"network failure: {reason!r}")
                continue
            if status == 429:
                # Not counted, so the interval does not move.
                self.pause(retry_after(headers) or 1.0, "429 rate_limited")
                continue
            # A long poll is counted when it arrives, so the interval runs from about then.
            answered_at = time.monotonic()
            self.accepted_at = min(answered_at, sent_at + 1.0) if held else answered_at
            if headers.get("RateLimit-Policy") is not None:
                self.interval = interval_of(headers["RateLimit-Policy"])
            try:
                parsed = json.loads(body.decode("utf-8"))
            except ValueError:
                parsed = None  # a proxy's page, or a body cut short
            if status >= 500 or (status == 200 and parsed is None):
                failures += 1
                self.pause(max(backoff(failures), retry_after(headers) or 0.0), f"{status} from the server")
                continue
            return status, headers, parsed if isinstance(parsed, dict) else {}

    @staticmethod
    def pause(seconds, why):
        log(f"{why}: waiting {seconds:.1f} s")
        time.sleep(seconds)


def log(message):
    print(f"sync_meals: {message}", file=sys.stderr, flush=True)


# --- the recipe ------------------------------------------------------------------------------


def start_again(state, why):
    """Back to a full pass without tombstones. Once between two checked copies at most: a
    second restart means something a restart does not mend, and looping spends the quota."""
    if state["restarts"] >= 1:
        raise Stop(
            f"{why}, again after starting from the beginning: stopping rather than loop"
            " (delete the state file to start over)"
        )
    log(f"{why}: starting again from the beginning, without includeDeleted")
    return new_pass(state["restarts"] + 1)


def sync(api, state_path, copy_path, until_caught_up, limit):
    pass_path = f"{copy_path}.pass"  # a pass builds its copy here, the old one stays readable
    if os.path.exists(state_path):
        with open(state_path, encoding="utf-8") as saved:
            state = json.load(saved)
    else:
        state = new_pass(0)
    if state["phase"] == "follow" and os.path.exists(pass_path):
        os.replace(pass_path, copy_path)  # the end of a pass the state already recorded
    # Read whole, and its digest computed from what it holds: a copy edited behind our back
    # is then caught by the next check.
    if state["phase"] == "pass" and state["cursor"] is None:
        copy = Copy()  # a pass not begun: whatever an earlier one left is stale
    else:
        copy = read_copy(pass_path if state["phase"] == "pass" else copy_path)

    while True:
        following = state["phase"] == "follow"
        query = {"lastModifiedSince": state["lastModifiedSince"], "limit": limit}
        if state["cursor"] is not None:
            query["cursor"] = state["cursor"]
        if following:
            query["includeDeleted"] = "true"
            # Held only when following on: a run that stops once caught up stops at the first
            # page that says so, rather than holding it for up to --wait seconds first.
            if api.wait > 0 and not until_caught_up:
                query["wait"] = api.wait
        status, headers, body = api.get(query)

        if status == 410:
            state = start_again(state, "410 resync_required")
            copy = Copy()
            continue
        if status != 200:
            error = body.get("error", {})
            raise Stop(f"{status} {error.get('code')}: {error.get('message')}")

        if not following and state["followFrom"] is None:
            state["followFrom"] = follow_start(headers, body, state["lastModifiedSince"])
        copy.apply(body)
        if body["nextCursor"] is not None:  # null on an empty page: keep the one sent
            state["cursor"] = body["nextCursor"]

        if not following and not body["hasMore"]:
            # The pass is over. No digest check here: a meal changed or deleted behind the
            # pass's position while it ran is set right only by the follow.
            write_copy(pass_path, copy)
            state.update(phase="follow", lastModifiedSince=state["followFrom"], cursor=None)
            write_atomically(state_path, json.dumps(state))
            os.replace(pass_path, copy_path)
            log(f"full pass done: {len(copy.meals)} meals; following from {state['followFrom']}")
            continue

        caught_up = following and not body["hasMore"]
        if caught_up:
            sent = DIGEST_RE.fullmatch(headers.get("Meals-Digest") or "")
            if sent is not None and (int(sent[1]), sent[2]) != copy.digest():
                mine = "count={}, sum={}".format(*copy.digest())
                log(f"Meals-Digest differs: the server has {sent[0].strip()}, the copy {mine}")
                state = start_again(state, "the copy does not match the server")
                copy = Copy()
                continue
            state["restarts"] = 0  # caught up and checked: a later 410 is a new one, not a loop
        if body["count"] > 0:  # the copy first: a crash between the two replays one page
            write_copy(copy_path if following else pass_path, copy)
        write_atomically(state_path, json.dumps(state))
        if caught_up and until_caught_up:
            log(f"caught up: {len(copy.meals)} meals, checked against the server")
            return


def main():
    parser = argparse.ArgumentParser(
        description="Keep a JSON Lines copy of your meals in sync (the key in MEAL_EXPORT_API_KEY)."
    )
    parser.add_argument("--url", required=True, help="the service, e.g. https://localhost:8443")
    parser.add_argument("--ca", help="a CA file to trust, e.g. the server's data/tls/cert.pem")
    parser.add_argument("--state", required=True, help="the state file (JSON)")
    parser.add_argument("--copy", required=True, help="the copy (JSON Lines, one meal a line)")
    parser.add_argument("--wait", type=int, default=120, help="the follow's long poll, 1 to 120 s; 0 for none")
    parser.add_argument("--until-caught-up", action="store_true", help="stop at the first page that finds the copy up to date (no long poll)")
    parser.add_argument("--limit", type=int, default=PAGE_SIZE, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 0 <= args.wait <= 120:
        parser.error("--wait is 0 to 120 seconds")
    key = os.environ.get("MEAL_EXPORT_API_KEY", "")
    if key == "":
        parser.error("set MEAL_EXPORT_API_KEY to your key (never on the command line)")
    context = ssl.create_default_context(cafile=args.ca)
    api = Api(args.url, key, context, args.wait)
    try:
        sync(api, args.state, args.copy, args.until_caught_up, args.limit)
    except Stop as stop:
        log(str(stop))
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
