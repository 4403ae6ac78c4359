#!/usr/bin/env python3
"""Did each check of a benchmark's report do its work? (docs/benchmarks.md, "Inputs")

    check_work.py REPORT_JSON MANIFEST_JSON [--summary OUT_JSON]

REPORT_JSON is `hvready-aggregator report --format json` on the generated node
reports; MANIFEST_JSON is what `clone_reports --generate --manifest` wrote about
them. Prints one line per check: how many findings, their statuses, and whether
the check ran with its full work. A report over generated reports is only a
benchmark figure when every cross-node check compared what it is meant to:

  cluster.cpu.compat       every generated KVM node compared, one vendor, and the
                           flags the generator left out found (flags_lacking)
  cluster.nodes.reporting  every Ready node's report counted
  cluster.nodes.count      every node of the cluster state counted
  cluster.hostname.unique  every report's hostname compared
  host checks              a decided result (not UNKNOWN) from every node

cluster.clock.skew needs a send/receive pair, which report files do not have:
it is "not applicable offline", never full work, and not held against the run.
Each check that fails its condition is printed as NOT MEASURED with the reason.

Exit status: 0 when every condition holds, 1 when one does not, 2 on bad input.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from checks_registry import host_checks  # noqa: E402

# The host checks of the registry (common/checks.def), in its order.
HOST = tuple(host_checks())
OFFLINE_NA = {"cluster.clock.skew": "not applicable offline (report files have no send/receive pair)"}


def summary_finding(findings, check):
    """The check's finding without a node or object (its summary), or None."""
    for f in findings:
        if f["check"] == check and not f.get("node") and not f.get("object"):
            return f
    return None


def cpu_compat(findings, m):
    f = summary_finding(findings, "cluster.cpu.compat")
    if f is None:
        return "no cluster.cpu.compat finding"
    ev = f.get("evidence", {})
    if ev.get("kvm_nodes", 0) < 2:
        return "%s KVM nodes, no migration target to compare flags with (%s: %s)" % (
            ev.get("kvm_nodes"), f["status"], f["message"])
    if ev.get("kvm_nodes") != m["kvm_nodes"]:
        return "compared %s KVM nodes, the generator made %d (%s: %s)" % (
            ev.get("kvm_nodes"), m["kvm_nodes"], f["status"], f["message"])
    if ev.get("nodes_without_cpu_facts"):
        return "%d KVM nodes without CPU facts" % len(ev["nodes_without_cpu_facts"])
    if len(ev.get("vendors", [])) != 1:
        return "stopped at the vendor comparison (%s): the flags were not compared" % (
            ", ".join(ev.get("vendors", [])) or "no vendor")
    lacking = ev.get("flags_lacking") or {}
    if f["status"] not in ("PASS", "WARN") or not lacking:
        return "no flag difference found among nodes generated with different flags (%s: %s)" % (
            f["status"], f["message"])
    return None


def nodes_reporting(findings, m):
    f = summary_finding(findings, "cluster.nodes.reporting")
    if f is None:
        return "no summary finding"
    ev = f.get("evidence", {})
    if f["status"] != "PASS" or ev.get("reporting") != m["nodes"] or ev.get("ready_nodes") != m["nodes"]:
        return "%s of %s Ready nodes counted as reporting, %d generated (%s)" % (
            ev.get("reporting"), ev.get("ready_nodes"), m["nodes"], f["message"])
    return None


def nodes_count(findings, m):
    f = summary_finding(findings, "cluster.nodes.count")
    if f is None:
        return "no finding"
    if f.get("evidence", {}).get("nodes") != m["nodes"] or f["status"] == "UNKNOWN":
        return "%s nodes counted, %d generated (%s: %s)" % (
            f.get("evidence", {}).get("nodes"), m["nodes"], f["status"], f["message"])
    return None


def hostname_unique(findings, m):
    f = summary_finding(findings, "cluster.hostname.unique")
    if f is None:
        return "no summary finding"
    if f["status"] != "PASS" or f.get("evidence", {}).get("hosts") != m["nodes"]:
        return "%s hostnames compared, %d generated (%s: %s)" % (
            f.get("evidence", {}).get("hosts"), m["nodes"], f["status"], f["message"])
    return None


CROSS = {"cluster.cpu.compat": cpu_compat, "cluster.nodes.reporting": nodes_reporting,
         "cluster.nodes.count": nodes_count, "cluster.hostname.unique": hostname_unique}


def judge(report, m):
    """[(check, findings, statuses, verdict, reason)], verdict one of
    full / partial / skipped / n/a offline / NOT MEASURED."""
    findings = report.get("findings", [])
    by = {}
    for f in findings:
        by.setdefault(f["check"], []).append(f["status"])
    rows = []
    for check in sorted(by, key=lambda c: (not c.startswith("cluster."), not c.startswith("host."), c)):
        st = by[check]
        counts = ", ".join("%d %s" % (st.count(s), s) for s in
                           ("PASS", "WARN", "FAIL", "UNKNOWN", "SKIP") if st.count(s))
        reason = None
        if check in CROSS:
            reason = CROSS[check](findings, m)
            verdict = "NOT MEASURED" if reason else "full"
        elif check in OFFLINE_NA:
            verdict, reason = "n/a offline", OFFLINE_NA[check]
        elif check in HOST:
            decided = len([s for s in st if s != "UNKNOWN"])
            verdict = "full" if decided == m["nodes"] and len(st) == m["nodes"] else "NOT MEASURED"
            if verdict != "full":
                reason = "%d decided results from %d generated nodes" % (decided, m["nodes"])
        elif "UNKNOWN" in st:
            verdict = "partial"
        elif all(s == "SKIP" for s in st):
            verdict = "skipped"
        else:
            verdict = "full"
        rows.append((check, len(st), counts, verdict, reason))
    for check in list(CROSS) + list(HOST):
        if check not in by:
            rows.append((check, 0, "", "NOT MEASURED", "no finding at all"))
    return rows


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--summary"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            report = json.load(f)
        with open(argv[2]) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        print("check_work: %s" % e, file=sys.stderr)
        return 2
    rows = judge(report, m)
    w = max(len(r[0]) for r in rows)
    for check, n, counts, verdict, reason in rows:
        line = "  %-*s %6d  %-34s %s" % (w, check, n, counts, verdict)
        print(line.rstrip())
    bad = [r for r in rows if r[3] == "NOT MEASURED"]
    kinds = ("full", "partial", "skipped", "n/a offline", "NOT MEASURED")
    print("checks: " + ", ".join("%d %s" % (sum(1 for r in rows if r[3] == k), k) for k in kinds))
    for check, _, _, _, reason in bad:
        print("NOT MEASURED %s: %s" % (check, reason))
    if len(argv) == 5:
        with open(argv[4], "w") as f:
            json.dump({"full": [r[0] for r in rows if r[3] == "full"],
                       "not_full": {r[0]: r[3] for r in rows if r[3] not in ("full", "NOT MEASURED")},
                       "not_measured": {r[0]: r[4] for r in bad}}, f, indent=1)
            f.write("\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
