"""DCQL (OpenID4VP 1.0 §6) and claims path pointers (§7) for the independent Python peers.

Parsing checks the structural rules of §6.1-§6.3; selection follows §6.4 (claims, claim_sets, credential_sets);
paths are processed as in §7.1 (JSON-based credentials) and §7.2 (mdoc: [namespace, element]).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from oid4vp_common import PeerError, require

_ID = re.compile(r"^[A-Za-z0-9_-]+$")
FORMATS = ("dc+sd-jwt", "mso_mdoc")


@dataclass
class ClaimsQuery:
    path: list
    id: str | None = None
    values: list | None = None


@dataclass
class CredentialQuery:
    id: str
    format: str
    meta: dict
    claims: list[ClaimsQuery] | None = None
    claim_sets: list[list[str]] | None = None
    multiple: bool = False
    require_cryptographic_holder_binding: bool = True


@dataclass
class DCQLQuery:
    credentials: list[CredentialQuery]
    credential_sets: list[dict] | None = field(default=None)

    def query(self, query_id: str) -> CredentialQuery:
        for credential in self.credentials:
            if credential.id == query_id:
                return credential
        raise PeerError("OpenID4VP §6.1 credential id", f"no Credential Query {query_id!r}")


def parse_dcql(value: Any) -> DCQLQuery:
    rule = "OpenID4VP §6 dcql_query"
    require(isinstance(value, dict), rule, "not an object")
    credentials = value.get("credentials")
    require(isinstance(credentials, list) and len(credentials) > 0, rule, "credentials must be a non-empty array")
    parsed: list[CredentialQuery] = []
    for entry in credentials:
        require(isinstance(entry, dict), "OpenID4VP §6.1 Credential Query", "not an object")
        query_id = entry.get("id")
        require(isinstance(query_id, str) and _ID.match(query_id) is not None, "OpenID4VP §6.1 id",
                f"invalid id {query_id!r}")
        require(all(q.id != query_id for q in parsed), "OpenID4VP §6.1 id", f"duplicate id {query_id!r}")
        fmt = entry.get("format")
        require(isinstance(fmt, str), "OpenID4VP §6.1 format", "missing")
        meta = entry.get("meta")
        require(isinstance(meta, dict), "OpenID4VP §6.1 meta", f"{query_id}: meta is required and must be an object")
        if fmt == "dc+sd-jwt":
            vcts = meta.get("vct_values")
            require(isinstance(vcts, list) and vcts and all(isinstance(v, str) for v in vcts),
                    "OpenID4VP B.3.5 vct_values", f"{query_id}: required non-empty array of strings")
        elif fmt == "mso_mdoc":
            require(isinstance(meta.get("doctype_value"), str), "OpenID4VP B.2.3 doctype_value",
                    f"{query_id}: required string")
        claims = None
        if "claims" in entry:
            raw_claims = entry["claims"]
            require(isinstance(raw_claims, list) and raw_claims, "OpenID4VP §6.3 claims", "non-empty array required")
            claims = []
            for claim in raw_claims:
                require(isinstance(claim, dict), "OpenID4VP §6.3 claims", "claim is not an object")
                path = claim.get("path")
                require(isinstance(path, list) and path, "OpenID4VP §7 claims path pointer", f"bad path {path!r}")
                for component in path:
                    require(component is None or isinstance(component, str)
                            or (isinstance(component, int) and not isinstance(component, bool) and component >= 0),
                            "OpenID4VP §7 claims path pointer", f"bad component {component!r}")
                if fmt == "mso_mdoc":
                    require(len(path) == 2 and all(isinstance(c, str) for c in path),
                            "OpenID4VP §7.2 mdoc path", f"{path!r} is not [namespace, element]")
                claim_id = claim.get("id")
                if claim_id is not None:
                    require(isinstance(claim_id, str) and _ID.match(claim_id) is not None, "OpenID4VP §6.3 id",
                            f"bad claim id {claim_id!r}")
                values = claim.get("values")
                if values is not None:
                    require(isinstance(values, list) and values, "OpenID4VP §6.3 values", "non-empty array required")
                claims.append(ClaimsQuery(path=path, id=claim_id, values=values))
        claim_sets = entry.get("claim_sets")
        if claim_sets is not None:
            require(claims is not None, "OpenID4VP §6.4.1 claim_sets", "claim_sets without claims")
            ids = {c.id for c in claims}
            require(all(c.id is not None for c in claims), "OpenID4VP §6.3 id", "claim ids required with claim_sets")
            require(isinstance(claim_sets, list) and claim_sets and all(
                isinstance(s, list) and s and all(i in ids for i in s) for s in claim_sets),
                "OpenID4VP §6.1 claim_sets", "must be non-empty arrays of known claim ids")
        multiple = entry.get("multiple", False)
        binding = entry.get("require_cryptographic_holder_binding", True)
        require(isinstance(multiple, bool) and isinstance(binding, bool), "OpenID4VP §6.1", "booleans expected")
        parsed.append(CredentialQuery(query_id, fmt, meta, claims, claim_sets, multiple, binding))
    sets = value.get("credential_sets")
    if sets is not None:
        known = {q.id for q in parsed}
        require(isinstance(sets, list) and sets, "OpenID4VP §6.2 credential_sets", "non-empty array required")
        for entry in sets:
            require(isinstance(entry, dict), "OpenID4VP §6.2 credential_sets", "entry is not an object")
            options = entry.get("options")
            require(isinstance(options, list) and options and all(
                isinstance(o, list) and o and all(i in known for i in o) for o in options),
                "OpenID4VP §6.2 options", "must be non-empty arrays of known credential ids")
            require(isinstance(entry.get("required", True), bool), "OpenID4VP §6.2 required", "boolean expected")
    return DCQLQuery(parsed, sets)


def select_json_path(root: Any, path: list) -> list:
    """§7.1.1 processing; returns the selected elements ([] when nothing is selected)."""
    selected = [root]
    for component in path:
        next_selected = []
        for element in selected:
            if isinstance(component, str):
                if not isinstance(element, dict):
                    return []
                if component in element:
                    next_selected.append(element[component])
            elif component is None:
                if not isinstance(element, list):
                    return []
                next_selected.extend(element)
            else:
                if not isinstance(element, list):
                    return []
                if component < len(element):
                    next_selected.append(element[component])
        selected = next_selected
    return selected


def values_match(claim: ClaimsQuery, selected: list) -> bool:
    """§6.3 `values`: type and value must match exactly for at least one of the values."""
    if claim.values is None:
        return True
    for element in selected:
        for expected in claim.values:
            if type(element) is type(expected) and element == expected:
                return True
    return False


def choose_claims(query: CredentialQuery, available) -> list[ClaimsQuery] | None:
    """§6.4.1: the claims to return for `query`, or None when the credential cannot satisfy it.
    `available(claim)` says whether the credential has a matching claim."""
    if query.claims is None:
        return []
    if query.claim_sets is None:
        return query.claims if all(available(c) for c in query.claims) else None
    by_id = {c.id: c for c in query.claims}
    for option in query.claim_sets:
        chosen = [by_id[i] for i in option]
        if all(available(c) for c in chosen):
            return chosen
    return None


def choose_credential_queries(dcql: DCQLQuery, satisfiable: set[str]) -> list[str]:
    """§6.4.2: the Credential Query ids to answer, given the ids the wallet can satisfy."""
    if dcql.credential_sets is None:
        missing = [q.id for q in dcql.credentials if q.id not in satisfiable]
        require(not missing, "OpenID4VP §6.4.2 credentials", f"the wallet cannot satisfy {missing}")
        return [q.id for q in dcql.credentials]
    chosen: list[str] = []
    for entry in dcql.credential_sets:
        option = next((o for o in entry["options"] if all(i in satisfiable for i in o)), None)
        if option is None:
            require(not entry.get("required", True), "OpenID4VP §6.4.2 credential_sets",
                    f"no option of a required set is satisfiable: {entry['options']}")
            continue
        chosen.extend(i for i in option if i not in chosen)
    return chosen
