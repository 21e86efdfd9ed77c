#!/usr/bin/env python3
"""OpenID4VP interoperability run: Tessera against the independent Python peers. Started by scripts/oid4vp-interop.

  0. peer self-check: Python wallet → Python verifier (SD-JWT VC, mDL), so that a failure below is Tessera's;
  a. Tessera wallet (`tessera wallet present`) → Python verifier: SD-JWT VC and mDL, direct_post.jwt and
     direct_post; the wallet must refuse tampered Request Objects (untrusted root, bad signature, x509_hash
     mismatch, client_id mismatch, wallet_nonce not echoed, wrong typ);
  b. Python wallet → Tessera verifier service (`tessera verifier serve`): templates pid_basic, mdl, age_over_18,
     direct_post; the result fetched with the response_code (single use); negatives (wrong nonce, wrong aud,
     tampered sd_hash, KB-JWT by another key, mdoc variants, replay) must get HTTP 400 and a failed transaction.

Environment: TESSERA_BIN (default .build/debug/tessera). Options: --peers-only, --keep (keep the temp dir), -v.
Prints one line per check and a summary line; exit status 1 when any check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = sys.executable
WALLET = os.path.join(HERE, "oid4vp_wallet.py")
VERIFIER = os.path.join(HERE, "oid4vp_verifier.py")
sys.path.insert(0, HERE)

from oid4vp_wallet import load_wallet  # noqa: E402

PROCESSES: list[subprocess.Popen] = []
VERBOSE = False


class Failure(Exception):
    pass


def missing(message: str) -> None:
    raise Failure(message)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


# ---- processes --------------------------------------------------------------------------------------------------

def stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def stop_all(*_args) -> None:
    for process in PROCESSES:
        stop(process)


class Server:
    """A child process whose stdout lines are collected by a thread (stderr goes to a log file)."""

    def __init__(self, argv: list[str], env: dict, log_path: str):
        self.log_path = log_path
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self.log, env=env, cwd=ROOT)
        PROCESSES.append(self.process)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def line(self, timeout: float, what: str) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise Failure(f"{what}: nothing on stdout within {timeout}s; log {self.log_path}:\n{tail(self.log_path)}")
        if line is None:
            raise Failure(f"{what}: process exited (status {self.process.wait()}); log {self.log_path}:\n"
                          f"{tail(self.log_path)}")
        return line

    def stop(self):
        stop(self.process)
        self.log.close()


def tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, "rb") as f:
            content = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join("    | " + line for line in content[-lines:])


def run(argv: list[str], env: dict, timeout: float, what: str, log_path: str) -> tuple[int, str]:
    try:
        with open(log_path, "wb") as log:
            completed = subprocess.run(argv, stdout=subprocess.PIPE, stderr=log, env=env, cwd=ROOT,
                                       timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"{what}: timed out after {timeout}s; log {log_path}:\n{tail(log_path)}")
    stdout = completed.stdout.decode("utf-8", "replace")
    with open(log_path, "ab") as log:
        log.write(f"---- {what}: exit {completed.returncode}, stdout:\n{stdout}".encode("utf-8"))
    return completed.returncode, stdout


def last_json(stdout: str, what: str, log_path: str) -> dict:
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    raise Failure(f"{what}: no JSON object on stdout: {stdout.strip()[:600]!r}; log {log_path}:\n{tail(log_path)}")


# ---- HTTP ---------------------------------------------------------------------------------------------------------

def http_json(method: str, url: str, body: dict | None = None) -> tuple[int, object, str]:
    data = json.dumps(body).encode("utf-8") if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            status, content_type, raw = response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        status, content_type, raw = error.code, error.headers.get("Content-Type", ""), error.read()
    try:
        return status, json.loads(raw), content_type
    except ValueError:
        return status, raw.decode("utf-8", "replace"), content_type


# ---- the run ------------------------------------------------------------------------------------------------------

class Run:
    def __init__(self, args):
        self.args = args
        self.binary = os.path.abspath(os.path.join(ROOT, os.environ.get("TESSERA_BIN", ".build/debug/tessera")))
        self.temp = tempfile.mkdtemp(prefix="tessera-oid4vp-")
        self.home = os.path.join(self.temp, "home")
        os.makedirs(self.home)
        self.env = {**os.environ, "TESSERA_HOME": self.home}
        self.results: list[tuple[str, bool, str, float]] = []
        self.counter = 0

    def log_path(self, name: str) -> str:
        self.counter += 1
        return os.path.join(self.temp, f"{self.counter:02d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.log")

    def check(self, name: str, function, *args) -> None:
        start = time.monotonic()
        try:
            detail = function(*args) or ""
            ok = True
        except Failure as failure:
            detail, ok = str(failure), False
        except Exception as error:  # a bug in this driver or an unexpected answer: report, go on
            detail, ok = f"unexpected {type(error).__name__}: {error}", False
        elapsed = time.monotonic() - start
        self.results.append((name, ok, detail, elapsed))
        status = "ok  " if ok else "FAIL"
        print(f"  {status} {name} ({elapsed:.1f} s){': ' + detail if detail and (not ok or VERBOSE) else ''}",
              flush=True)

    # ---- setup --------------------------------------------------------------------------------------------------

    def setup(self) -> None:
        expect(os.access(self.binary, os.X_OK), f"Tessera binary {self.binary} missing (set TESSERA_BIN)")
        for command in (["wallet", "add-pid"], ["wallet", "add-mdl"]):
            log = self.log_path("-".join(command))
            status, out = run([self.binary, *command], self.env, 120, " ".join(command), log)
            expect(status == 0, f"tessera {' '.join(command)} exited {status}: {out}\n{tail(log)}")
        wallet = load_wallet(os.path.join(self.home, "wallet"))
        pid = [c for c in wallet if c.format == "dc+sd-jwt"]
        mdl = [c for c in wallet if c.format == "mso_mdoc"]
        expect(len(pid) == 1 and len(mdl) == 1, f"expected one PID and one mDL, wallet has {[c.id for c in wallet]}")
        self.pid, self.mdl = pid[0], mdl[0]
        self.mdl_values = {ns_el[1]: value for ns_el, (_, value) in self.mdl.items.items()}

    def has_command(self, *command: str) -> bool:
        result = subprocess.run([self.binary, *command, "--help"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=self.env)
        return result.returncode == 0

    # ---- Python verifier (used by sections 0 and a) -------------------------------------------------------------

    def start_py_verifier(self, name: str, mode: str, extra: list[str], timeout: float = 60):
        root_pem = os.path.join(self.temp, f"pyverifier-{self.counter + 1}-root.pem")
        server = Server([PY, VERIFIER, "--mode", mode, "--root-out", root_pem, "--timeout", str(timeout), *extra],
                        self.env, self.log_path(f"py-verifier-{name}"))
        uri = server.line(15, "Python verifier")
        expect(uri.startswith("openid4vp://"), f"Python verifier printed {uri!r} instead of the invocation URI")
        return server, uri, root_pem

    def expected_claims(self, mode: str) -> dict:
        if mode == "sd-jwt":
            return {"given_name": self.pid.claims["given_name"], "family_name": self.pid.claims["family_name"]}
        return {"org.iso.18013.5.1": {"family_name": self.mdl_values["family_name"],
                                      "age_over_18": self.mdl_values["age_over_18"]}}

    def check_verifier_success(self, server: Server, mode: str) -> str:
        outcome = json.loads(server.line(30, "Python verifier result"))
        expect(outcome.get("result") == "success",
               f"Python verifier rejected the response: {json.dumps(outcome)}\n{tail(server.log_path)}")
        verified = outcome["verified"]
        query_id = "pid" if mode == "sd-jwt" else "mdl"
        expect(list(verified) == [query_id], f"verified credential queries {list(verified)} != [{query_id!r}]")
        claims = verified[query_id]["claims"]
        expected = self.expected_claims(mode)
        expect(claims == expected, f"verified claims {json.dumps(claims)} != expected (exactly) {json.dumps(expected)}")
        return json.dumps(claims, ensure_ascii=False)

    # ---- 0. peers self-check ------------------------------------------------------------------------------------

    def peer_self_check(self, mode: str) -> str:
        server, uri, root_pem = self.start_py_verifier(f"self-{mode}", mode, [], timeout=30)
        try:
            log = self.log_path(f"py-wallet-self-{mode}")
            status, out = run([PY, WALLET, uri, "--wallet", os.path.join(self.home, "wallet"),
                               "--trust-root", root_pem, "-v"], self.env, 60, "Python wallet", log)
            answer = last_json(out, "Python wallet", log)
            expect(status == 0 and answer.get("result") == "sent", f"Python wallet failed: {json.dumps(answer)}")
            return self.check_verifier_success(server, mode)
        finally:
            server.stop()

    # ---- a. Tessera wallet → Python verifier ----------------------------------------------------------------------

    def tessera_present(self, uri: str, trust: list[str], name: str) -> tuple[int, dict | None, str, str]:
        argv = [self.binary, "wallet", "present", uri, "--consent", "all", "--json"]
        for pem in trust:
            argv += ["--trust-verifier", pem]
        log = self.log_path(f"tessera-present-{name}")
        status, out = run(argv, self.env, 90, "tessera wallet present", log)
        try:
            answer = last_json(out, "tessera wallet present", log)
        except Failure:
            answer = None
        return status, answer, out, log

    def tessera_wallet_ok(self, mode: str, extra: list[str]) -> str:
        server, uri, root_pem = self.start_py_verifier(f"tessera-{mode}", mode, extra)
        try:
            status, answer, out, log = self.tessera_present(uri, [root_pem], mode)
            expect(answer is not None, f"tessera wallet present printed no JSON (exit {status}): {out[:500]!r}\n"
                                       f"{tail(log)}\nverifier log:\n{tail(server.log_path)}")
            expect(answer.get("result") == "success" and status == 0,
                   f"tessera wallet present exit {status}: {json.dumps(answer)}\n{tail(log)}\nverifier log:\n"
                   f"{tail(server.log_path)}")
            claims = self.check_verifier_success(server, mode)
            verifier = answer.get("verifier") or {}
            query_id = "pid" if mode == "sd-jwt" else "mdl"
            credential = self.pid if mode == "sd-jwt" else self.mdl
            expect(verifier.get("client_valid", verifier.get("client_id_valid")) is True,
                   f"--json verifier.client_id_valid is not true: {json.dumps(answer)}")
            expect(isinstance(verifier.get("client_id"), str) and verifier["client_id"] in urllib.parse.unquote(uri),
                   f"--json verifier.client_id {verifier.get('client_id')!r} is not the request's")
            expect(answer.get("presented") == {query_id: [credential.id]},
                   f"--json presented {answer.get('presented')} != {{{query_id!r}: [{credential.id!r}]}}")
            if "disclosed" in answer:  # an extension of the contract's --json output
                names = ["given_name", "family_name"] if mode == "sd-jwt" else ["family_name", "age_over_18"]
                disclosed = answer["disclosed"].get(query_id) if isinstance(answer["disclosed"], dict) else None
                # element names, possibly qualified ("org.iso.18013.5.1.family_name")
                expect(isinstance(disclosed, list) and sorted(re.split(r"[./]", str(d))[-1] for d in disclosed)
                       == sorted(names), f"--json disclosed {answer['disclosed']} != {names}")
            expect(isinstance(answer.get("redirect_uri"), str) and "response_code=" in answer["redirect_uri"],
                   f"--json redirect_uri {answer.get('redirect_uri')!r} is not the verifier's answer")
            return claims
        finally:
            server.stop()

    def tessera_wallet_refuses(self, tamper: str | None, trust_own_root: bool) -> str:
        extra = ["--tamper", tamper] if tamper else []
        server, uri, root_pem = self.start_py_verifier(f"tessera-refuses-{tamper or 'untrusted'}", "sd-jwt", extra)
        try:
            status, answer, out, log = self.tessera_present(uri, [root_pem] if trust_own_root else [],
                                                            f"refuse-{tamper or 'untrusted'}")
            time.sleep(0.3)
            if server.process.poll() is not None:  # the verifier exits only after a post to its response_uri
                outcome = json.loads(server.line(5, "Python verifier result"))
                expect(outcome.get("result") == "wallet_error",
                       f"the wallet posted a response to a verifier it must not trust: {json.dumps(outcome)}")
            expect(status != 0 or (answer or {}).get("result") in ("error", "declined"),
                   f"tessera wallet present accepted the request (exit {status}): {out[:400]!r}")
            expect(answer is None or answer.get("result") != "success",
                   f"tessera wallet present reported success: {json.dumps(answer)}")
            reason = ""
            if answer is not None:
                reason = json.dumps({k: v for k, v in answer.items() if k in ("result", "error", "verifier")})
            return f"refused (exit {status}) {reason} {tail(log, 2).strip()}"
        finally:
            server.stop()

    def tessera_wallet_reports_refusal(self, extra: list[str], expected_error: str, expected_result: str,
                                       encrypted: bool | None) -> str:
        """A refusal the wallet must tell the (authenticated) verifier about (§5.1, §8.5), and exit non-zero for."""
        server, uri, root_pem = self.start_py_verifier(f"tessera-tells-{expected_error}", "sd-jwt", extra)
        try:
            status, answer, out, log = self.tessera_present(uri, [root_pem], f"tells-{expected_error}")
            expect(status != 0, f"tessera wallet present exited 0 on a refused request: {out[:400]!r}")
            expect(answer is not None and answer.get("result") == expected_result,
                   f"--json result {(answer or {}).get('result')!r} != {expected_result!r}: {out[:400]!r}")
            outcome = json.loads(server.line(15, "Python verifier result"))
            expect(outcome.get("result") == "wallet_error" and outcome.get("error") == expected_error,
                   f"the verifier got {json.dumps(outcome)} (expected error={expected_error})\n{tail(log)}")
            if encrypted is not None:
                expect(outcome.get("encrypted") is encrypted,
                       f"the error response was {'not ' if encrypted else ''}encrypted: {json.dumps(outcome)}")
            return f"the verifier got error={expected_error}; exit {status}"
        finally:
            server.stop()

    def tessera_wallet_rejected(self) -> str:
        """A presentation the verifier refuses (HTTP 400): the command must not exit 0."""
        server, uri, root_pem = self.start_py_verifier("tessera-rejected", "sd-jwt", ["--reject"])
        try:
            status, answer, out, log = self.tessera_present(uri, [root_pem], "rejected")
            expect(status != 0, f"tessera wallet present exited 0 although the verifier rejected it: {out[:400]!r}")
            expect(answer is not None and answer.get("result") == "error" and
                   answer.get("verifier_error") == "invalid_request",
                   f"--json {json.dumps(answer)} should say result=error, verifier_error=invalid_request")
            return f"exit {status}, verifier_error={answer.get('verifier_error')}"
        finally:
            server.stop()

    # ---- b. Python wallet → Tessera verifier service --------------------------------------------------------------

    def start_service(self) -> None:
        database = f"sqlite://{os.path.join(self.temp, 'v.sqlite')}"
        self.service = Server([self.binary, "verifier", "serve", "--port", "0", "--database", database],
                              self.env, self.log_path("tessera-verifier-serve"))
        deadline = time.monotonic() + 60
        while True:
            line = self.service.line(max(1.0, deadline - time.monotonic()), "tessera verifier serve")
            match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
            if match:
                self.base = match.group(1)
                break
        self.verifier_root = os.path.join(self.home, "verifier", "root.pem")
        expect(os.path.exists(self.verifier_root), f"{self.verifier_root} missing after the service started")

    def create_transaction(self, template: str, response_mode: str | None = None) -> dict:
        body = {"template": template}
        if response_mode:
            body["response_mode"] = response_mode
        status, answer, _ = http_json("POST", f"{self.base}/api/transactions", body)
        expect(status == 201, f"POST /api/transactions {body} -> {status} {answer}")
        for name in ("transaction_id", "authorization_request_uri", "request_uri", "response_mode", "expires_at"):
            expect(name in answer, f"POST /api/transactions answer lacks {name}: {answer}")
        expect(answer["response_mode"] == (response_mode or "direct_post.jwt"),
               f"response_mode {answer['response_mode']!r}")
        expect(answer["authorization_request_uri"].startswith("openid4vp://"),
               f"authorization_request_uri {answer['authorization_request_uri']!r}")
        return answer

    def python_wallet(self, uri: str, negative: str | None, name: str) -> dict:
        argv = [PY, WALLET, uri, "--wallet", os.path.join(self.home, "wallet"), "--trust-root", self.verifier_root,
                "-v"]
        if negative:
            argv += ["--negative", negative]
        log = self.log_path(f"py-wallet-{name}")
        status, out = run(argv, self.env, 60, "Python wallet", log)
        answer = last_json(out, "Python wallet", log)
        expect(status == 0 and answer.get("result") == "sent",
               f"the Python wallet refused Tessera's request: {json.dumps(answer)}\n{tail(log)}")
        return answer

    def transaction(self, transaction_id: str, code: str | None = None) -> tuple[int, object]:
        url = f"{self.base}/api/transactions/{urllib.parse.quote(transaction_id)}"
        if code is not None:
            url += "?" + urllib.parse.urlencode({"response_code": code})
        status, answer, _ = http_json("GET", url)
        return status, answer

    def service_ok(self, template: str, response_mode: str | None, expected_format: str) -> str:
        tx = self.create_transaction(template, response_mode)
        answer = self.python_wallet(tx["authorization_request_uri"], None, f"{template}-{response_mode}")
        post = answer["posts"][0]
        expect(post["http_status"] == 200, f"POST response_uri -> {post['http_status']} {post['body']}\n"
                                           f"service log:\n{tail(self.service.log_path)}")
        redirect = (post["body"] or {}).get("redirect_uri") if isinstance(post["body"], dict) else None
        expect(isinstance(redirect, str), f"no redirect_uri in {post['body']}")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(redirect).query)
        expect(query.get("transaction_id") == [tx["transaction_id"]], f"redirect_uri {redirect} lacks transaction_id")
        code = (query.get("response_code") or [None])[0]
        expect(code, f"redirect_uri {redirect} lacks response_code")
        status, result = self.transaction(tx["transaction_id"], code)
        expect(status == 200, f"GET result with response_code -> {status} {result}")
        expect(result.get("status") == "completed", f"status {result.get('status')!r}: {result}")
        verified = result.get("verified_claims")
        expect(isinstance(verified, dict) and len(verified) == 1,
               f"verified_claims should hold exactly one credential query: {verified}")
        (query_id, entries), = verified.items()
        expect(list(answer["presented"]) == [query_id],
               f"verified_claims key {query_id!r} != presented {list(answer['presented'])}")
        expect(isinstance(entries, list) and len(entries) == 1, f"verified_claims[{query_id}] = {entries}")
        entry = entries[0]
        if expected_format is None:  # credential_sets: the wallet chose one of the options
            expected_format = entry.get("format")
        expect(entry.get("format") == expected_format, f"format {entry.get('format')!r} != {expected_format}")
        claims = entry.get("claims")
        if expected_format == "dc+sd-jwt":
            expect(entry.get("vct") == "urn:eudi:pid:1", f"vct {entry.get('vct')!r}")
            names = ["given_name", "family_name"] + (["birthdate"] if template == "pid_basic" else [])
            if template == "age_over_18":
                expected = {"age_equal_or_over": {"18": self.pid.claims["age_equal_or_over"]["18"]}}
            else:
                expected = {n: self.pid.claims[n] for n in names}
            expect(claims == expected, f"claims {json.dumps(claims)} != expected (exactly) {json.dumps(expected)}")
        else:
            expect(entry.get("doctype") == "org.iso.18013.5.1.mDL", f"doctype {entry.get('doctype')!r}")
            names = (["family_name", "given_name", "birth_date", "age_over_18"] if template == "mdl"
                     else ["age_over_18"])
            namespace = (claims or {}).get("org.iso.18013.5.1")
            expect(isinstance(namespace, dict) and sorted(namespace) == sorted(names) and len(claims) == 1,
                   f"claims {json.dumps(claims)} should hold exactly org.iso.18013.5.1 {names}")
            for name in names:
                value = self.mdl_values[name]
                if isinstance(value, (str, bool, int)):
                    expect(namespace[name] == value, f"{name}: {namespace[name]!r} != {value!r}")
                else:  # full-date: its JSON form is not fixed by the contract; the ISO date must appear in it
                    expect(value.isoformat() in json.dumps(namespace[name]), f"{name}: {namespace[name]!r} "
                                                                             f"does not hold {value.isoformat()}")
        status, again = self.transaction(tx["transaction_id"], code)
        expect(status == 404, f"a second GET with the same response_code -> {status} {again} (must be 404)")
        return json.dumps(claims, ensure_ascii=False)

    def tessera_wallet_declines(self) -> str:
        server, uri, root_pem = self.start_py_verifier("tessera-declines", "sd-jwt", [])
        try:
            argv = [self.binary, "wallet", "present", uri, "--consent", "none", "--json", "--trust-verifier", root_pem]
            log = self.log_path("tessera-present-declines")
            status, out = run(argv, self.env, 90, "tessera wallet present --consent none", log)
            answer = last_json(out, "tessera wallet present --consent none", log)
            expect(answer.get("result") == "declined", f"--consent none: result {answer.get('result')!r} (exit {status})")
            time.sleep(0.3)
            if server.process.poll() is None:
                return "declined; nothing posted to the verifier"
            outcome = json.loads(server.line(5, "Python verifier result"))
            expect(outcome.get("result") == "wallet_error" and outcome.get("error") == "access_denied",
                   f"after a decline the verifier got {json.dumps(outcome)} (expected error=access_denied)")
            return "declined; the verifier got error=access_denied"
        finally:
            server.stop()

    def service_wallet_error(self, response_mode: str | None, negative: str) -> str:
        tx = self.create_transaction("pid_basic", response_mode)
        answer = self.python_wallet(tx["authorization_request_uri"], negative, f"{negative}-{response_mode}")
        post = answer["posts"][0]
        expect(post["http_status"] == 200 and post["body"] == {},
               f"error=access_denied -> {post['http_status']} {post['body']} (contract: 200 {{}})")
        status, result = self.transaction(tx["transaction_id"])
        expect(status == 200 and result.get("status") == "failed" and result.get("error") == "access_denied",
               f"after error=access_denied the transaction is {result}")
        return f"transaction failed with {result.get('error')}"

    def service_rejects(self, template: str, negative: str) -> str:
        tx = self.create_transaction(template)
        answer = self.python_wallet(tx["authorization_request_uri"], negative, f"{template}-{negative}")
        posts = answer["posts"]
        if negative == "replay":
            expect(len(posts) == 2, f"replay made {len(posts)} posts")
            expect(posts[0]["http_status"] == 200, f"first post -> {posts[0]['http_status']} {posts[0]['body']}")
            rejected = posts[1]
        else:
            rejected = posts[0]
        expect(rejected["http_status"] == 400,
               f"{negative}: POST response_uri -> {rejected['http_status']} {rejected['body']} (must be 400)")
        body = rejected["body"]
        expect(isinstance(body, dict) and isinstance(body.get("error"), str),
               f"{negative}: 400 body lacks error: {body}")
        status, result = self.transaction(tx["transaction_id"])
        expect(status == 200, f"GET transaction -> {status} {result}")
        if negative == "replay":
            expect(result.get("status") in ("completed", "failed"), f"after replay status {result.get('status')!r}")
            return f"second post: 400 {body.get('error')}: {body.get('error_description')}; " \
                   f"transaction {result.get('status')}"
        if negative in ("wrong-state", "wrong-kid"):
            # A response the verifier cannot bind to the transaction (other state; a JWE it cannot decrypt) must
            # not complete it; leaving it pending (so that a forged post cannot fail it) or failing it are both
            # accepted here: the contract's "the transaction is failed" does not say which for unbound responses.
            expect(result.get("status") in ("pending", "failed") and "verified_claims" not in result,
                   f"{negative}: transaction {result}")
            return f"400 {body.get('error')}: {body.get('error_description')}; transaction {result.get('status')}"
        expect(result.get("status") == "failed", f"{negative}: transaction status {result.get('status')!r} "
                                                 f"(must be failed): {result}")
        expect("verified_claims" not in result, f"{negative}: failed transaction shows verified_claims")
        return f"400 {body.get('error')}: {body.get('error_description')}; transaction failed " \
               f"({result.get('error')}: {result.get('error_description')})"

    def service_qr(self) -> str:
        tx = self.create_transaction("pid_basic")
        request = urllib.request.Request(f"{self.base}/api/transactions/{tx['transaction_id']}/qr.svg")
        with urllib.request.urlopen(request, timeout=15) as response:
            content_type, body = response.headers.get("Content-Type", ""), response.read()
        expect(content_type.startswith("image/svg+xml"), f"qr.svg content type {content_type!r}")
        expect(b"<svg" in body[:500], "qr.svg is not an SVG document")
        return f"{len(body)} bytes"

    # ---- main ---------------------------------------------------------------------------------------------------

    def execute(self) -> int:
        start = time.monotonic()
        print(f"oid4vp-interop: Tessera {self.binary}, TESSERA_HOME {self.home}", flush=True)
        try:
            self.check("setup: tessera wallet add-pid + add-mdl", self.setup)
            if self.results[-1][1]:
                print("0. peer self-check (Python wallet -> Python verifier)", flush=True)
                for mode in ("sd-jwt", "mdoc"):
                    self.check(f"peers {mode}", self.peer_self_check, mode)
                if not self.args.peers_only:
                    self.tessera_sections()
        finally:
            stop_all()
        failed = [r for r in self.results if not r[1]]
        elapsed = time.monotonic() - start
        if failed:
            print("failures:", flush=True)
            for name, _, detail, _ in failed:
                print(f"  - {name}: {detail}", flush=True)
            print(f"logs kept in {self.temp}")
        elif self.args.keep:
            print(f"logs kept in {self.temp}")
        else:
            shutil.rmtree(self.temp, ignore_errors=True)
        print(f"oid4vp-interop: {len(self.results) - len(failed)} passed, {len(failed)} failed, "
              f"{len(self.results)} checks in {elapsed:.1f} s", flush=True)
        return 1 if failed else 0

    def tessera_sections(self) -> None:
        print("a. Tessera wallet -> Python verifier", flush=True)
        if not self.has_command("wallet", "present"):
            self.check("tessera wallet present available", missing, f"{self.binary} has no `wallet present` command")
        else:
            self.check("sd-jwt direct_post.jwt", self.tessera_wallet_ok, "sd-jwt", [])
            self.check("mdoc direct_post.jwt", self.tessera_wallet_ok, "mdoc", [])
            self.check("sd-jwt direct_post.jwt A128GCM only", self.tessera_wallet_ok, "sd-jwt",
                       ["--enc-values", "A128GCM"])
            self.check("sd-jwt direct_post", self.tessera_wallet_ok, "sd-jwt", ["--response-mode", "direct_post"])
            self.check("mdoc direct_post", self.tessera_wallet_ok, "mdoc", ["--response-mode", "direct_post"])
            self.check("declines: --consent none", self.tessera_wallet_declines)
            self.check("tells the verifier: unsupported transaction_data type (encrypted)",
                       self.tessera_wallet_reports_refusal, ["--transaction-data", "urn:example:unsupported"],
                       "invalid_transaction_data", "refused", True)
            self.check("tells the verifier: unsupported transaction_data type (direct_post)",
                       self.tessera_wallet_reports_refusal,
                       ["--transaction-data", "urn:example:unsupported", "--response-mode", "direct_post"],
                       "invalid_transaction_data", "refused", None)
            self.check("tells the verifier: no credential matches", self.tessera_wallet_reports_refusal,
                       ["--vct", "urn:example:not-in-the-wallet"], "access_denied", "no_matching_credential", True)
            self.check("exits non-zero: the verifier rejects the presentation", self.tessera_wallet_rejected)
            self.check("refuses: verifier root not trusted", self.tessera_wallet_refuses, None, False)
            for tamper in ("signature", "client-id", "client-id-mismatch", "wallet-nonce", "typ"):
                self.check(f"refuses: tampered {tamper}", self.tessera_wallet_refuses, tamper, True)
        print("b. Python wallet -> Tessera verifier service", flush=True)
        if not self.has_command("verifier", "serve"):
            self.check("tessera verifier serve available", missing, f"{self.binary} has no `verifier serve` command")
            return
        self.check("service starts", self.start_service)
        if not self.results[-1][1]:
            return
        try:
            self.check("pid_basic direct_post.jwt", self.service_ok, "pid_basic", None, "dc+sd-jwt")
            self.check("pid_basic direct_post", self.service_ok, "pid_basic", "direct_post", "dc+sd-jwt")
            self.check("mdl direct_post.jwt", self.service_ok, "mdl", None, "mso_mdoc")
            self.check("mdl direct_post", self.service_ok, "mdl", "direct_post", "mso_mdoc")
            self.check("age_over_18 (credential_sets) direct_post.jwt", self.service_ok, "age_over_18", None, None)
            for negative in ("wrong-nonce", "wrong-aud", "tampered-sd-hash", "wrong-kb-key", "replay", "wrong-state",
                             "wrong-kid"):
                self.check(f"rejects pid_basic {negative}", self.service_rejects, "pid_basic", negative)
            for negative in ("wrong-nonce", "wrong-aud", "wrong-kb-key", "tampered-element"):
                self.check(f"rejects mdl {negative}", self.service_rejects, "mdl", negative)
            self.check("wallet error access_denied, direct_post", self.service_wallet_error, "direct_post",
                       "access-denied")
            self.check("wallet error access_denied, direct_post.jwt, encrypted", self.service_wallet_error, None,
                       "access-denied-jwe")
            self.check("wallet error access_denied, direct_post.jwt, unencrypted (§8.3.1)",
                       self.service_wallet_error, None, "access-denied")
            self.check("qr.svg", self.service_qr)
        finally:
            self.service.stop()


def main() -> int:
    global VERBOSE
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers-only", action="store_true", help="only the Python-to-Python self-check")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory with the logs")
    parser.add_argument("-v", "--verbose", action="store_true", help="print details of passing checks too")
    args = parser.parse_args()
    VERBOSE = args.verbose
    signal.signal(signal.SIGTERM, lambda *_: (stop_all(), sys.exit(143)))
    try:
        return Run(args).execute()
    except KeyboardInterrupt:
        stop_all()
        return 130


if __name__ == "__main__":
    sys.exit(main())
