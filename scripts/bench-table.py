#!/usr/bin/env python3
"""The table of scripts/bench: each flow against its floor, from package-benchmark's percentile exports.

    bench-table.py EXPORT_DIR SHORT TARGET...

EXPORT_DIR/TARGET/ holds the histogramPercentiles TSV files of one benchmark target
("BASELINE.TARGET.NAME.METRIC.histogram.percentiles.tsv", spaces and slashes in NAME as "_"). Every figure is a p50.
A row measured in interleaved pairs (BenchmarkSupport's InterleavedPairs: flow block, floor block, flow block, …)
reads its ratio as the p50 of the pair ratios, i.e. their median, and the number of pairs as the p100 of "pairs".
Exits 1 when SHORT is 1 and a gating row is past its limit (1.5x looser than its goal), or when a row's data is
missing.
"""
import os
import pathlib
import re
import statistics
import sys
import timeit

export_dir = pathlib.Path(sys.argv[1])
short = sys.argv[2] == "1"
targets = set(sys.argv[3:])
SLACK = 1.5

UNITS = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6, "K": 1e3, "M": 1e6, "G": 1e9}


def p50(target: str, name: str, metric: str) -> float:
    """p50 of `metric` of benchmark `name`; times in microseconds, counts as counted."""
    return percentile(target, name, metric, 50)


def percentile(target: str, name: str, metric: str, which: int) -> float:
    """Percentile `which` of `metric` of benchmark `name`; times in microseconds, counts as counted."""
    def cleaned_name(text):  # as package-benchmark names its export files
        return text.replace("/", "_").replace(" ", "_")
    cleaned = cleaned_name(name)
    metric = cleaned_name(metric)
    infix = f".{target}.{cleaned}."  # after the baseline's name ("Current_run")
    directory = export_dir / target
    files = [f for f in directory.glob("*.tsv") if infix in f.name
             and f.name.split(infix, 1)[1].split(".histogram")[0] == metric]
    if len(files) != 1:
        raise LookupError(f"{target}: no single export of {name!r} {metric} in {directory}"
                          f" (have {sorted(f.name for f in directory.glob('*.tsv'))})")
    lines = files[0].read_text().splitlines()
    # "Percentile\tTime (wall clock) (μs) *", "Percentile\treq/s *", "Percentile\tresponses (K) *"
    unit = re.search(r"\((ns|μs|us|ms|s|K|M|G)\)\s*\*?\s*$", lines[0])
    factor = UNITS[unit.group(1)] if unit else 1.0
    for line in lines[1:]:
        row_percentile, value = line.split("\t")
        if row_percentile.strip() == str(which):
            return float(value) * factor
    raise LookupError(f"no p{which} row in {files[0]}")


def pairs(target: str, name: str, label: str = ""):
    """An interleaved-pairs benchmark: (median pair ratio, median flow block, median floor block, number of pairs),
    the blocks' figures per operation in microseconds (wall or CPU time, as the row says)."""
    prefix = f"{label} " if label else ""
    ratio = p50(target, name, prefix + "pair ratio (x1000)") / 1000
    flow = p50(target, name, prefix + "flow (ns per op)") / 1e3
    floor = p50(target, name, prefix + "floor (ns per op)") / 1e3
    count = int(percentile(target, name, prefix + "pairs", 100))
    return ratio, flow, floor, count


WALL = "wallClock"

# Rows whose goal is still missed by more than SLACK: short mode guards them against a regression of 1.5x from where
# they stood in the runs of 2026-11-27 on this machine, not from the goal they have yet to reach.
STANDING = {
    "mdoc reader (Annex D)": 1.65,
    "verifier service, direct_post.jwt, SQLite (rate per core)": 0.15,
    "verifier service, direct_post.jwt, PostgreSQL (rate per core)": 0.15,
    # Issues 27 and 29, first measured on 2026-11-28 (after the inline SQLite path): far from their goals yet.
    "WIA issuance (IT-Wallet 1.5), iOS (rate per core)": 0.2,
    "WIA issuance (IT-Wallet 1.5), Android (rate per core)": 0.13,
    "ledger auth/execute / its crypto + database-write floor": 4.0,
}
rows = []  # (flow, measured text, floor text, ratio, goal, lower_is_better, gating, pairs)


def row(flow, measured, floor, ratio, goal, lower_is_better=True, gating=True, count=None):
    """`count`: the number of interleaved pairs whose median `ratio` is (None: a ratio of two separate figures)."""
    rows.append((flow, measured, floor, ratio, goal, lower_is_better, gating, count))


def attempt(label, body):
    try:
        body()
    except LookupError as error:
        rows.append((label, "missing", str(error), None, None, True, True, None))


def scale_out(flow, target, name, unit):
    """A scale-out row: two instances' rate over one instance's, a median of interleaved pairs of batches (the blocks'
    figures are wall time per request, shown as rates)."""
    ratio, two, one, count = pairs(target, name, "scale-out")
    row(flow, f"{1e6 / two:,.0f} {unit}/s", f"{1e6 / one:,.0f} {unit}/s", ratio, 1.0, lower_is_better=False,
        gating=False, count=count)


if "MDocBenchmarks" in targets:
    def mdoc():
        for role, goal in (("reader", 1.2), ("holder", 1.2)):
            ratio, measured, floor, count = pairs("MDocBenchmarks", f"pairs: {role} AnnexD / {role} floor")
            row(f"mdoc {role} (Annex D)", f"{measured:,.0f} µs CPU", f"{floor:,.0f} µs", ratio, goal, count=count)
        # The reader row above runs in steady state (its DS chain cache warm, issue 29); cold = every chain validated.
        ratio, cold, floor, count = pairs("MDocBenchmarks", "pairs: reader AnnexD cold / reader floor")
        row("  mdoc reader, cold (DS chain validated every time)", f"{cold:,.0f} µs CPU", f"{floor:,.0f} µs", ratio,
            None, gating=False, count=count)
    attempt("mdoc", mdoc)

if "SDJWTBenchmarks" in targets:
    def sdjwt():
        ratio, measured, floor, count = pairs("SDJWTBenchmarks", "pairs: verify 20 claims + KB / floor")
        row("SD-JWT VC + KB-JWT verify, 20 claims", f"{measured:,.0f} µs CPU", f"{floor:,.0f} µs", ratio, 1.3, count=count)
    attempt("SD-JWT", sdjwt)

if "TokenStatusListBenchmarks" in targets:
    def status_list():
        # A Status List re-issue (list from the revoked indices, zlib level 9, claims, ES256) against zlib on the same
        # bytes plus one ES256 signature. No issue sets a goal yet: the rows are information.
        for name, flow in (
                ("re-issue JWT 10k", "status list re-issue, JWT, 10,000 entries (1 bit)"),
                ("re-issue JWT 1M", "status list re-issue, JWT, 1,000,000 entries (1 bit)"),
                ("re-issue CWT 1M", "status list re-issue, CWT, 1,000,000 entries (1 bit)")):
            ratio, measured, floor, count = pairs("TokenStatusListBenchmarks", f"pairs: {name} / zlib + ES256 sign")
            row(flow, f"{measured / 1e3:,.2f} ms CPU", f"{floor / 1e3:,.2f} ms", ratio, None, gating=False, count=count)
    attempt("status list", status_list)

if "VerifierServiceBenchmarks" in targets:
    def verifier():
        target = "VerifierServiceBenchmarks"
        cpu_metric = "service CPU per response (ns)"
        # Rate per core: the crypto floor's CPU per response over the service's, a median of pairs (a batch of
        # responses on one instance, then a block of the floor).
        ratio, sqlite, floor, count = pairs(target, "pairs: service, SQLite (1 core) / crypto floor")
        row("verifier service, direct_post.jwt, SQLite (rate per core)", f"{sqlite:,.0f} µs CPU/response",
            f"{floor:,.0f} µs", ratio, 0.6, lower_is_better=False, count=count)
        postgres = "pairs: service, PostgreSQL (1 core) / crypto floor; 2 instances / 1"
        try:
            ratio, cpu, postgres_floor, count = pairs(target, postgres)
        except LookupError:
            postgres = None  # TESSERA_BENCH_POSTGRES_URL unset: no PostgreSQL rows
        if postgres:
            row("verifier service, direct_post.jwt, PostgreSQL (rate per core)", f"{cpu:,.0f} µs CPU/response",
                f"{postgres_floor:,.0f} µs", ratio, 0.6, lower_is_better=False, count=count)
        # Diagnostics: the same load on ServiceFloor (the HTTP stack, SQLite and the crypto floor, nothing else), in
        # batches of its own: ratios of separate figures.
        try:
            service_floor = p50(target, "service floor: HTTP + SQLite + crypto floor (1 core)", cpu_metric) / 1e3
            row("  service floor: HTTP + SQLite + crypto only (rate per core)", f"{service_floor:,.0f} µs CPU/response",
                f"{floor:,.0f} µs", floor / service_floor, 0.6, lower_is_better=False, gating=False)
            row("  verifier (SQLite) / service floor: Tessera's own code", f"{sqlite:,.0f} µs CPU/response",
                f"{service_floor:,.0f} µs", sqlite / service_floor, None, gating=False)
        except LookupError:
            pass
        try:  # full runs only: the same floor through Fluent's SQLite driver (a thread-pool hop per statement)
            fluent_floor = p50(target, "service floor on Fluent's SQLite driver (1 core)", cpu_metric) / 1e3
            row("  service floor on Fluent's SQLite driver (before issue 29)", f"{fluent_floor:,.0f} µs CPU/response",
                f"{floor:,.0f} µs", floor / fluent_floor, None, lower_is_better=False, gating=False)
        except LookupError:
            pass
        if postgres:
            scale_out("verifier service scale-out: 2 instances / 1 (PostgreSQL)", target, postgres, "responses")
    attempt("verifier service", verifier)

if "ProximityBenchmarks" in targets:
    def proximity():
        for mtu in (185, 517):
            ratio, measured, floor, count = pairs("ProximityBenchmarks", f"pairs: presentation MTU {mtu} / air time + crypto")
            row(f"proximity over simulated BLE, ATT MTU {mtu}", f"{measured / 1e3:,.2f} ms", f"{floor / 1e3:,.2f} ms",
                ratio, 1.05, count=count)
    attempt("proximity", proximity)

if "CBORBenchmarks" in targets:
    def cbor():
        import cbor2
        import cbor2._cbor2 as c_ext
        if cbor2.loads is not c_ext.loads:
            raise LookupError("cbor2.loads is not the C extension's")
        for name, path in (("AnnexD", "Sources/tessera/Resources/annex-d-device-response.cbor"),
                           ("Synthetic200k", "Benchmarks/Fixtures/synthetic-200k.cbor")):
            data = pathlib.Path(path).read_bytes()
            loads = cbor2.loads
            timer = timeit.Timer(lambda: loads(data))
            n, elapsed = timer.autorange()
            n = max(1, int(n * 0.2 / max(elapsed, 1e-9)))
            theirs = statistics.median(t / n * 1e6 for t in timer.repeat(repeat=5 if short else 25, number=n))
            ours = p50("CBORBenchmarks", f"decode {name}", WALL)
            row(f"CBOR decode {name} ({len(data):,} B) vs cbor2 (C)", f"{ours:,.1f} µs", f"{theirs:,.1f} µs (cbor2)",
                ours / theirs, None, gating=False)
    attempt("CBOR", cbor)

if "VaultBenchmarks" in targets:
    def vault():
        # Side by side since issue 13: per iteration, 50 vault and 50 floor requests alternated one by one (the p50
        # ratio) and a burst of each (the throughput ratio); the figures are medians over the iterations.
        name = "ratios: vault / floor, side by side (goal p50 <= 130 %, throughput >= 75 %)"
        latency = p50("VaultBenchmarks", name, "p50 ratio (%)") / 100
        throughput = p50("VaultBenchmarks", name, "throughput ratio (%)") / 100
        vault_p50 = p50("VaultBenchmarks", name, "vault p50 (μs)")
        floor_p50 = p50("VaultBenchmarks", name, "floor p50 (μs)")
        vault_rate = p50("VaultBenchmarks", name, "vault req/s")
        floor_rate = p50("VaultBenchmarks", name, "floor req/s")
        count = int(percentile("VaultBenchmarks", name, "pairs", 100))
        row("vault E2E retrieve 1 KB vs raw NATS: p50 latency", f"{vault_p50:,.0f} µs", f"{floor_p50:,.0f} µs",
            latency, 1.3, gating=False, count=count)
        row("vault E2E retrieve 1 KB vs raw NATS: throughput", f"{vault_rate:,.0f} req/s", f"{floor_rate:,.0f} req/s",
            throughput, 0.75, lower_is_better=False, gating=False, count=count)
    attempt("vault", vault)

if "WalletProviderBenchmarks" in targets:
    def wallet_provider():
        # Issue 27: WIA (IT-Wallet 1.5) issuances per core against their signature floor, as CPU per issuance.
        target = "WalletProviderBenchmarks"
        for platform in ("iOS", "Android"):
            ratio, measured, floor, count = pairs(target, f"pairs: WIA issuance {platform} (service) / signature floor")
            row(f"WIA issuance (IT-Wallet 1.5), {platform} (rate per core)", f"{measured:,.0f} µs CPU", f"{floor:,.0f} µs",
                ratio, 0.7, lower_is_better=False, count=count)
        try:  # needs TESSERA_BENCH_POSTGRES_URL
            scale_out("Wallet Provider scale-out: 2 instances / 1 (PostgreSQL; nonce + WIA)", target,
                      "scale-out: nonce + WIA issuance, PostgreSQL, 2 instances / 1", "requests")
        except LookupError:
            pass
    attempt("wallet provider", wallet_provider)

if "LedgerBenchmarks" in targets:
    def ledger():
        # Issue 29: auth/execute's CPU against the crypto and database writes it cannot avoid, in pairs.
        ratio, execute, floor, count = pairs("LedgerBenchmarks", "pairs: auth/execute (HTTP) / crypto + database writes")
        row("ledger auth/execute / its crypto + database-write floor", f"{execute:,.0f} µs CPU", f"{floor:,.0f} µs",
            ratio, 1.3, count=count)
        try:  # needs TESSERA_BENCH_POSTGRES_URL
            scale_out("ledger scale-out: 2 instances / 1 (PostgreSQL; logins)", "LedgerBenchmarks",
                      "scale-out: action request + auth execute, PostgreSQL, 2 instances / 1", "logins")
        except LookupError:
            pass
    attempt("ledger", ledger)

failed = []
header = f"{'flow':<62} {'measured':>24} {'floor':>22} {'ratio':>7} {'pairs':>5} {'goal':>8} {'':>10}"
print()
print(header)
print("-" * len(header))
for flow, measured, floor, ratio, goal, lower, gating, count in rows:
    if ratio is None:
        print(f"{flow:<62} MISSING: {floor}")
        failed.append(flow)
        continue
    goal_text = "" if goal is None else (f"≤ {goal:.2f}" if lower else f"≥ {goal:.2f}")
    if goal is None:
        verdict = ""
    else:
        met = ratio <= goal if lower else ratio >= goal
        limit = goal * SLACK if lower else goal / SLACK
        if flow in STANDING:
            limit = max(limit, STANDING[flow] * SLACK) if lower else min(limit, STANDING[flow] / SLACK)
        within = ratio <= limit if lower else ratio >= limit
        verdict = "met" if met else ("missed" if within or not gating else "REGRESSED")
        if short and gating and not within:
            failed.append(flow)
        if not gating and not met:
            verdict += " (info)"
    count_text = "-" if count is None else str(count)
    print(f"{flow:<62} {measured:>24} {floor:>22} {ratio:>7.2f} {count_text:>5} {goal_text:>8} {verdict:>10}")
print()
print("ratio: measured / floor (lower is better), or floor / measured for a rate (higher is better); scale-out: two")
print("instances' rate over one's. Where 'pairs' gives N, the ratio is the MEDIAN OF N INTERLEAVED PAIRS: flow and floor")
print("ran in turns (a block of the flow, a block of the floor, ...) in one benchmark, and each pair's ratio was taken;")
print("'measured' and 'floor' are the medians of the blocks' figures, so their quotient need not equal the ratio. A")
print("computation's blocks are timed in process CPU time (its wall time on an idle machine), proximity's in wall time.")
print("The vault's pairs are its side-by-side iterations. Where 'pairs' is '-', the ratio is of two p50s taken apart.")
if short:
    print(f"short mode: a gating row fails when its ratio is past {SLACK}x its goal (or, for a row that misses its goal by"
          f" more than that today, {SLACK}x past where it stands: {', '.join(STANDING)}).")
if failed:
    print(f"scripts/bench: {len(failed)} row(s) failed: {', '.join(failed)}", file=sys.stderr)
    sys.exit(1)
