#!/usr/bin/env python3
"""Turn bench/run.sh's raw measurements into bench/results.json and a table.

    summarize.py RAW_DIR OUT_JSON        results.json from RAW_DIR, the table on stdout
    summarize.py --markdown RESULTS_JSON the table as Markdown (README, docs/benchmarks.md)
    summarize.py --count-objects DIR     objects and bytes of a cluster-state directory

Exit status: 0 when every figure was measured, also when a target is missed (that is a
result); 1 when a figure could not be measured; 2 on bad usage.
"""
import json
import math
import os
import statistics
import sys

MIB = 1024.0


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_tsv(path):
    """Rows of wall_s, peak_rss_kib, exit status[, cpu_s (user + system; -1 unknown)]."""
    rows = []
    for line in (read(path, "") or "").splitlines():
        p = line.split("\t")
        if len(p) in (3, 4):
            rows.append((float(p[0]), int(p[1]), int(p[2]), float(p[3]) if len(p) == 4 else -1.0))
    return rows


def median(xs):
    return statistics.median(xs) if xs else None


def percentile(xs, p):
    """Nearest rank, as loadgen computes it."""
    if not xs:
        return None
    xs = sorted(xs)
    k = max(1, min(len(xs), math.ceil(p / 100.0 * len(xs))))
    return xs[k - 1]


def machine():
    model = "unknown"
    for line in (read("/proc/cpuinfo", "") or "").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem_kib = 0
    for line in (read("/proc/meminfo", "") or "").splitlines():
        if line.startswith("MemTotal:"):
            mem_kib = int(line.split()[1])
    os_name = "unknown"
    for line in (read("/etc/os-release", "") or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            os_name = line.split("=", 1)[1].strip('"')
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "memory_bytes": mem_kib * 1024,
        "memory": "%.1f GiB" % (mem_kib / MIB / MIB),
        "kernel": os.uname().release,
        "os": os_name,
    }


class Figures:
    def __init__(self, not_measured):
        self.items = []
        self.not_measured = not_measured

    def add(self, fid, group, title, unit, target, op, limit, value=None, peer=None,
            detail=None, reason=None, lower_bound=False):
        """op: "le" value <= limit, "lt" value < limit, "ge" value >= limit, "le_peer_ratio"
        value <= limit x peer, "lt_peer"
        value < peer."""
        reason = self.not_measured.get(group, reason)
        f = {"id": fid, "title": title, "unit": unit, "target": target}
        if value is None or reason:
            f.update(value=None, result="not measured",
                     reason=reason or "no measurement was recorded")
        else:
            f["value"] = round(value, 3)
            if lower_bound:
                f["lower_bound"] = True
            if op == "le":
                ok = value <= limit and not lower_bound
            elif op == "ge":
                ok = value >= limit
            elif op == "lt":
                ok = value < limit and not lower_bound
            elif op == "le_peer_ratio":
                ok = peer is not None and peer["value"] is not None and value <= limit * peer["value"]
            else:
                ok = peer is not None and peer["value"] is not None and value < peer["value"]
            f["result"] = "pass" if ok else "fail"
        if peer is not None:
            if peer.get("value") is not None:
                peer["value"] = round(peer["value"], 3)
            f["peer"] = peer
        if detail:
            f["detail"] = detail
        self.items.append(f)


def agent_timings(raw):
    """Per check, the medians of HVREADY_TIMINGS' wall and CPU ms, in table order."""
    by = {}
    for line in (read(os.path.join(raw, "agent_timings.tsv"), "") or "").splitlines():
        p = line.split("\t")
        if len(p) == 4 and p[0] == "timing":
            by.setdefault(p[1], []).append((float(p[2]), float(p[3])))
    return [{"check": k, "wall_ms": round(median([x[0] for x in r]), 3),
             "cpu_ms": round(median([x[1] for x in r]), 3), "runs": len(r)} for k, r in by.items()]


def read_float(path):
    try:
        return float(read(path, "").strip())
    except ValueError:
        return None


def fig_agent_check(raw, figs):
    a, v = read_tsv(os.path.join(raw, "agent_check.tsv")), read_tsv(os.path.join(raw, "vhv.tsv"))
    vhv = "virt-host-validate qemu (libvirt-clients)"
    det = {"runs": len(a), "command": "hvready-agent check --skip host.nfs.probe,host.image.share-manager",
           "exit_status": sorted({r[2] for r in a})}
    cpu, peer_cpu = read_float(os.path.join(raw, "agent_check_cpu_ms")), read_float(os.path.join(raw, "vhv_cpu_ms"))
    if cpu is not None and peer_cpu:
        det.update(cpu_ms=cpu, peer_cpu_ms=peer_cpu, cpu_ratio=round(cpu / peer_cpu, 3))
    wall, peer_wall = median([r[0] * 1000 for r in a]), median([r[0] * 1000 for r in v])
    if wall is not None and peer_wall:
        det["wall_ratio"] = round(wall / peer_wall, 3)
    checks = agent_timings(raw)
    if checks:
        det["per_check"] = checks
    figs.add("agent.check.wall", "agent.check", "agent check, wall time", "ms",
             "<= 0.3 x virt-host-validate", "le_peer_ratio", 0.3,
             value=median([r[0] * 1000 for r in a]),
             peer={"name": vhv, "value": median([r[0] * 1000 for r in v]), "runs": len(v)},
             detail=det)
    figs.add("agent.check.rss", "agent.check", "agent check, peak RSS", "MiB", "<= 8 MiB", "le", 8,
             value=median([r[1] / MIB for r in a if r[1] >= 0]),
             peer={"name": vhv, "value": median([r[1] / MIB for r in v if r[1] >= 0])},
             detail={"runs": len(a)})


def fig_report(raw, figs):
    rows = read_tsv(os.path.join(raw, "report.tsv"))
    counts = read_json(os.path.join(raw, "cluster_counts.json")) or {}
    timed_out = [r for r in rows if r[2] == 124]
    done = [r for r in rows if r[2] in (0, 1, 3)]
    det = {"runs": len(done), "nodes": 500, "node_reports": 500,
           "node_reports_from": generated_from(raw, "report500"),
           "checks": work(raw, "report500"),
           "objects": counts.get("objects"), "json_bytes": counts.get("bytes"),
           "by_resource": counts.get("by_resource"),
           "command": "hvready-aggregator report --cluster-state DIR --node-reports DIR --format json"}
    lower = False
    if done:
        wall, rss = median([r[0] for r in done]), median([r[1] / MIB for r in done])
    elif timed_out:
        wall, rss, lower = timed_out[0][0], timed_out[0][1] / MIB, True
        det["timed_out_after_s"] = round(timed_out[0][0], 1)
    else:
        wall = rss = None
    figs.add("report.offline.wall", "report.offline", "offline report, 500 nodes / 5,000 VMs, wall time",
             "s", "<= 1 s", "le", 1.0, value=wall, detail=det, lower_bound=lower)
    figs.add("report.offline.rss", "report.offline", "offline report, 500 nodes / 5,000 VMs, peak RSS",
             "MiB", "<= 200 MiB", "le", 200, value=rss, lower_bound=lower)


def generated_from(raw, name):
    m = read_json(os.path.join(raw, name + "_manifest.json"))
    if not m:
        return None
    return {k: m.get(k) for k in ("generator", "cpus", "seed", "kvm_nodes", "lacking_feature_nodes",
                                  "host_only_varied_nodes", "profiles")}


def work(raw, name):
    """Which checks did their full work (bench/check_work.py's summary)."""
    w = read_json(os.path.join(raw, name + "_work.json"))
    if not w:
        return None
    return {"full_work": len(w.get("full", [])), "not_full": w.get("not_full"),
            "not_measured": w.get("not_measured") or None}


def timings(raw, name):
    """{check: ms} of a run with HVREADY_TIMINGS (aggregator/engine.c)."""
    t = {}
    for line in (read(os.path.join(raw, name + "_timings.tsv"), "") or "").splitlines():
        p = line.split("\t")
        if len(p) == 2:
            try:
                t[p[0]] = t.get(p[0], 0.0) + float(p[1])
            except ValueError:
                pass
    return t


def loglog_slope(xs, ys):
    """Least-squares slope of log(y) on log(x)."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / den if den else None


def fig_scale(raw, figs):
    """The offline report at 50, 500 and 5,000 nodes (10 VMs per node)."""
    sizes = sorted(int(f[6:-4]) for f in os.listdir(raw)
                   if f.startswith("scale_") and f.endswith(".tsv") and f[6:-4].isdigit())
    per = []
    for n in sizes:
        rows = [r for r in read_tsv(os.path.join(raw, "scale_%d.tsv" % n)) if r[2] in (0, 1, 3)]
        counts = read_json(os.path.join(raw, "scale_%d_counts.json" % n)) or {}
        t = timings(raw, "scale_%d" % n)
        slow = max(((ms, c) for c, ms in t.items() if not c.startswith("(")), default=None)
        per.append({"nodes": n, "vms": 10 * n, "objects": counts.get("objects"),
                    "json_bytes": counts.get("bytes"), "runs": len(rows),
                    "wall_s": round(median([r[0] for r in rows]), 3) if rows else None,
                    "rss_mib": round(median([r[1] / MIB for r in rows if r[1] >= 0]), 1) if rows else None,
                    "cpu_s": round(median([r[3] for r in rows if r[3] >= 0]), 2)
                    if [r for r in rows if r[3] >= 0] else None,
                    "checks_ms": round(sum(v for c, v in t.items() if not c.startswith("(render")), 1)
                    if t else None,
                    "slowest_check": {"check": slow[1], "ms": round(slow[0], 1)} if slow else None,
                    "checks": work(raw, "scale_%d" % n)})
    done = [p for p in per if p["wall_s"]]
    exp = loglog_slope([p["nodes"] for p in done], [p["wall_s"] for p in done]) if len(done) >= 2 else None
    exp_rss = (loglog_slope([p["nodes"] for p in done], [p["rss_mib"] for p in done])
               if len(done) >= 2 else None)
    cpu = [p for p in done if p["cpu_s"]]
    exp_cpu = loglog_slope([p["nodes"] for p in cpu], [p["cpu_s"] for p in cpu]) if len(cpu) >= 2 else None
    det = {"sizes": per, "rss_exponent": round(exp_rss, 3) if exp_rss is not None else None,
           "cpu_exponent": round(exp_cpu, 3) if exp_cpu is not None else None,
           "node_reports_from": generated_from(raw, "scale_%d" % sizes[-1]) if sizes else None,
           "fit": "least squares of log(wall time) on log(nodes)",
           "command": "hvready-aggregator report --cluster-state DIR --node-reports DIR --format json"}
    figs.add("report.scale.exponent", "report.scale",
             "offline report, fitted exponent of wall time in nodes (%s nodes)" %
             "/".join("{:,}".format(n) for n in sizes) if sizes else "offline report, scaling exponent",
             "exponent", "<= 1.1", "le", 1.1, value=exp, detail=det,
             reason=None if len(done) >= 2 else "fewer than two sizes measured")
    big = next((p for p in per if p["nodes"] == 5000), None)
    figs.add("report.scale.5000.wall", "report.scale", "offline report, 5,000 nodes / 50,000 VMs, wall time",
             "s", "< 10 s", "lt", 10, value=big and big["wall_s"],
             detail={"slowest_check": big and big["slowest_check"]})
    figs.add("report.scale.5000.rss", "report.scale", "offline report, 5,000 nodes / 50,000 VMs, peak RSS",
             "MiB", "< 2 GiB", "lt", 2048, value=big and big["rss_mib"])
    return per, exp


def fig_report_variant(raw, figs, tsv, counts_file, group, what, wall_limit, rss_limit, command):
    """A report variant (sections 2b, 2c): median wall time and peak RSS."""
    rows = read_tsv(os.path.join(raw, tsv))
    done = [r for r in rows if r[2] in (0, 1, 3)]
    counts = read_json(os.path.join(raw, counts_file)) or {}
    det = {"runs": len(done), "node_reports": 500, "objects": counts.get("objects"),
           "json_bytes": counts.get("bytes"), "by_resource": counts.get("by_resource"),
           "command": command}
    wall = median([r[0] for r in done]) if done else None
    rss = median([r[1] / MIB for r in done]) if done else None
    figs.add(group + ".wall", group, what + ", wall time", "s", "<= %g s" % wall_limit, "le",
             wall_limit, value=wall, detail=det)
    if rss_limit:
        figs.add(group + ".rss", group, what + ", peak RSS", "MiB", "<= %d MiB" % rss_limit, "le",
                 rss_limit, value=rss)


def fig_grouping(raw, figs):
    """Section 2g: the text and HTML verdict of 500 nodes with one host failure on
    every node, grouped (one card) beside ungrouped (HVREADY_BENCH_NO_GROUPING)."""
    rows = []
    for line in (read(os.path.join(raw, "grouping.tsv"), "") or "").splitlines():
        p = line.split("\t")
        if len(p) == 5:
            rows.append((p[0], p[1], int(p[2]), int(p[3]), float(p[4])))

    def med(mode, fmt, k):
        xs = [r[k] for r in rows if r[0] == mode and r[1] == fmt and r[k] >= 0]
        return median(xs)

    cmd = ("hvready-aggregator report --cluster-state DIR --node-reports DIR --format FORMAT; "
           "ungrouped: HVREADY_BENCH_NO_GROUPING=1")
    for fmt, name in (("text", "text"), ("html", "HTML")):
        runs = len([r for r in rows if r[0] == "grouped" and r[1] == fmt])
        g_b, u_b = med("grouped", fmt, 2), med("ungrouped", fmt, 2)
        g_l, u_l = med("grouped", fmt, 3), med("ungrouped", fmt, 3)
        det = {"runs": runs, "nodes": 500, "failure": "host.kvm FAIL on every node (--no-kvm)",
               "bytes": g_b, "lines": g_l, "ungrouped_bytes": u_b, "ungrouped_lines": u_l,
               "command": cmd}
        figs.add("report.grouping.%s.size" % fmt, "report.grouping",
                 "%s verdict, 500 nodes, a host failure on each, size" % name, "KiB",
                 "smaller than ungrouped", "lt_peer", None,
                 value=g_b / 1024.0 if g_b is not None else None,
                 peer={"name": "ungrouped", "value": u_b / 1024.0 if u_b is not None else None},
                 detail=det)
        figs.add("report.grouping.%s.lines" % fmt, "report.grouping",
                 "%s verdict, 500 nodes, a host failure on each, lines" % name, "lines",
                 "fewer than ungrouped", "lt_peer", None, value=g_l,
                 peer={"name": "ungrouped", "value": u_l})
        figs.add("report.grouping.%s.render" % fmt, "report.grouping",
                 "%s verdict, 500 nodes, a host failure on each, render time" % name, "ms",
                 "<= 1 s", "le", 1000, value=med("grouped", fmt, 4),
                 peer={"name": "ungrouped", "value": med("ungrouped", fmt, 4)})


def sched_delta(path):
    """(seconds on a CPU, seconds runnable but waiting) between two schedstat lines."""
    lines = [l.split("\t") for l in (read(path, "") or "").splitlines()]
    if len(lines) != 2 or any(len(l) != 2 for l in lines):
        return None
    return {"cpu_s": round((int(lines[1][0]) - int(lines[0][0])) / 1e9, 3),
            "runqueue_wait_s": round((int(lines[1][1]) - int(lines[0][1])) / 1e9, 3)}


def ingest_round_problem(j):
    """Why a load generator's run does not count, or None. A 4xx means the
    harness and the server disagree (format, auth): nothing was measured. A 5xx
    or a connection the server dropped is the server's answer to the load: it is
    counted (not as a report) and shown in the detail."""
    if j is None:
        return "the load generator printed no result"
    if not j.get("completed"):
        return "the load generator did not complete: %s" % (j.get("fail_reason") or "?")
    if j.get("status", {}).get("4xx") or j.get("status", {}).get("other"):
        fe = j.get("first_error", {})
        return "the server rejected the reports: HTTP %s %s" % (fe.get("status"), fe.get("body", "")[:160])
    return None


def verdict_problem(j):
    if j.get("verdict_non200"):
        return "%d GET /v1/verdict answers were not 200" % j["verdict_non200"]
    if not j.get("verdict_samples_ms") and not j.get("verdict_unanswered_at_end_ms"):
        return "no GET /v1/verdict was sent in the window"
    return None


def fig_ingest(raw, figs):
    agg, bare, problems, contention, errors = [], [], [], [], []
    rss, rss_idle, hwm, held, pooled, censored, vdet = [], [], [], [], [], [], []
    rss_short, verdict_problems, rss_part = [], [], []
    r = 1
    while os.path.exists(os.path.join(raw, "ingest_agg_%d.json" % r)):
        j = read_json(os.path.join(raw, "ingest_agg_%d.json" % r))
        b = read_json(os.path.join(raw, "ingest_bare_%d.json" % r))
        nh = read(os.path.join(raw, "agg_nodes_%d" % r))
        nh = int(nh) if nh and nh.isdigit() else None
        # GET /v1/nodes may not be answered in time by a blocked server; every
        # prefill report was a new node, so its 2xx count is the nodes held.
        if nh is None and j and j.get("prefill", {}).get("answered") == j.get("prefill", {}).get("ok"):
            nh = j["prefill"]["ok"]
        pa, pb = ingest_round_problem(j), ingest_round_problem(b)
        if pa:
            problems.append("round %d, aggregator: %s" % (r, pa))
        if pb:
            problems.append("round %d, bare server: %s" % (r, pb))
        if not pa:
            agg.append(j["reports_per_s"])
            errors.append({"5xx": j["status"]["5xx"], "dropped_connections": j.get("conn_errors"),
                           "reconnects": j.get("reconnects"), "first_error": j.get("fail_reason") or None,
                           "prefill_s": j.get("prefill", {}).get("seconds"),
                           "prefill_timed_out": j.get("prefill", {}).get("timed_out")})
            pv = verdict_problem(j)
            if pv:
                verdict_problems.append("round %d: %s" % (r, pv))
            pooled.extend(j.get("verdict_samples_ms", []))
            if j.get("verdict_unanswered_at_end_ms"):
                censored.append(j["verdict_unanswered_at_end_ms"])
            vdet.append({k: j["verdict_latency"][k] for k in ("samples", "p50_ms", "p99_ms", "max_ms")})
            vdet[-1]["bytes"] = j.get("verdict_bytes")
            vdet[-1]["skipped_ticks"] = j.get("verdict_skipped_ticks")
            full = nh == j.get("nodes")
            if not full:
                rss_short.append("round %d: the aggregator holds %s nodes, not %s (prefill: %s)" % (
                    r, "an unknown number of" if nh is None else nh, j.get("nodes"),
                    "timed out after %.0f s" % j["prefill"]["seconds"]
                    if j.get("prefill", {}).get("timed_out") else "complete"))
            for name, lst in (("agg_rss_%d", rss if full else rss_part), ("agg_rss_idle_%d", rss_idle),
                              ("agg_hwm_%d", hwm)):
                v = read(os.path.join(raw, name % r))
                if v and v.isdigit():
                    lst.append(int(v) / MIB)
            held.append(nh)
        if not pb:
            bare.append(b["reports_per_s"])
        contention.append({
            "aggregator_loop_thread": sched_delta(os.path.join(raw, "agg_sched_%d" % r)),
            "bare_server": sched_delta(os.path.join(raw, "bare_sched_%d" % r)),
            "loadgen_vs_aggregator": {k: (j or {}).get(k) for k in (
                "loadgen_window_cpu_s", "loadgen_window_runqueue_wait_s")},
            "loadgen_vs_bare": {k: (b or {}).get(k) for k in (
                "loadgen_window_cpu_s", "loadgen_window_runqueue_wait_s")},
        })
        r += 1
    reason = "; ".join(problems) if problems else None
    ma, mb = median(agg), median(bare)
    first = read_json(os.path.join(raw, "ingest_agg_1.json")) or {}
    det = {"rounds": r - 1, "window_s": first.get("window_s"), "connections": first.get("connections"),
           "nodes": first.get("nodes"), "report_bytes": int(read(os.path.join(raw, "report_bytes"), "0")),
           "per_round": agg, "transport": "plain HTTP/1.1 keep-alive on loopback, bearer token",
           "cluster_state": "examples/cluster (3 nodes): the figure is the cost of the reports",
           "node_reports": "generated: bench/clone_reports --generate (bench/gen_node.c), seed 1"}
    det["post_latency_ms_per_round"] = [
        (read_json(os.path.join(raw, "ingest_agg_%d.json" % i)) or {}).get("post_latency") for i in range(1, r)]
    det["errors_per_round"] = errors
    det["cpu_contention"] = contention
    det["cpu_contention_note"] = ("servers: whole loadgen run incl. prefill; loadgen: the window. "
                                  "runqueue_wait_s = runnable but waiting for a CPU (other load)")
    bare_det = {"per_round": bare}
    figs.add("ingest.rate", "ingest", "aggregator ingest, reports/s", "reports/s", ">= 20,000/s",
             "ge", 20000, value=ma, reason=reason,
             peer={"name": "bare libevent evhttp server answering 204 (bench/bare_server.c)",
                   "value": mb, **bare_det}, detail=det)
    figs.add("ingest.ratio", "ingest", "aggregator ingest / bare evhttp", "ratio", ">= 0.5", "ge", 0.5,
             value=(ma / mb) if ma is not None and mb else None, reason=reason)
    # Fewer nodes than asked for: above the limit already, the figure is a
    # lower bound and a FAIL; below it, nothing can be said.
    mrss, lower, rss_reason = median(rss), False, None
    if mrss is None and rss_part:
        mrss, lower = median(rss_part), True
        if mrss <= 64:
            rss_reason = "; ".join(rss_short)
    figs.add("ingest.rss", "ingest", "aggregator RSS holding 5,000 nodes", "MiB", "<= 64 MiB", "le", 64,
             value=mrss, reason=reason or rss_reason, lower_bound=lower,
             detail={"rss_before_load_mib": median(rss_idle), "peak_rss_mib": median(hwm),
                     "nodes_held": held, "short": rss_short or None})
    interval = read(os.path.join(raw, "verdict_interval_ms"), "")
    # A GET unanswered at a window's end counts with the age it had then: the
    # true latency is at least that, so the p99 is a lower bound if it lands there.
    allv = pooled + censored
    p99 = percentile(allv, 99)
    figs.add("verdict.p99", "ingest", "GET /v1/verdict p99 under ingest load, 5,000 nodes", "ms",
             "<= 50 ms", "le", 50, value=p99,
             reason=reason or ("; ".join(verdict_problems) if verdict_problems else None),
             lower_bound=bool(censored) and p99 is not None and p99 <= max(censored),
             detail={"samples": len(pooled), "unanswered_at_window_end_ms": censored,
                     "p50_ms": percentile(allv, 50),
                     "max_ms": max(pooled) if pooled else None, "per_round": vdet,
                     "interval_ms": int(interval) if interval.isdigit() else None,
                     "note": "one GET at a time on its own connection, every interval; "
                             "samples of all rounds pooled"})


def prom_value(path, name):
    """A sample's value in a Prometheus text scrape, or None."""
    for line in (read(path, "") or "").splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == name:
            try:
                return float(p[1])
            except ValueError:
                return None
    return None


def fig_serve_eval(raw, figs):
    """Section 3: serve's re-evaluation of the verdict at 5,000 nodes while the
    reports of the ingest round keep coming (the evaluator runs at a lower
    priority than ingest): the last evaluation's wall and CPU time at each
    round's end, from /metrics (hvready_verdict_evaluation_*). A round counts
    only when that evaluation took every node and evaluations ran during it."""
    walls, cpus, per_round, problems = [], [], [], []
    r = 1
    while os.path.exists(os.path.join(raw, "ingest_agg_%d.json" % r)):
        j = read_json(os.path.join(raw, "ingest_agg_%d.json" % r)) or {}
        before = os.path.join(raw, "agg_metrics_before_%d" % r)
        after = os.path.join(raw, "agg_metrics_after_%d" % r)
        e0 = prom_value(before, "hvready_verdict_evaluations_total")
        e1 = prom_value(after, "hvready_verdict_evaluations_total")
        w = prom_value(after, "hvready_verdict_evaluation_seconds")
        c = prom_value(after, "hvready_verdict_evaluation_cpu_seconds")
        n = prom_value(after, "hvready_verdict_evaluation_nodes")
        row = {"evaluations_during_round": (e1 - e0) if e0 is not None and e1 is not None else None,
               "wall_s": w, "cpu_s": c, "nodes": n}
        per_round.append(row)
        if w is None or c is None or n is None:
            problems.append("round %d: no hvready_verdict_evaluation_* in /metrics" % r)
        elif n != j.get("nodes"):
            problems.append("round %d: the last evaluation took %d nodes, not %s" % (r, n, j.get("nodes")))
        elif not row["evaluations_during_round"]:
            problems.append("round %d: no evaluation during the load" % r)
        else:
            walls.append(w)
            cpus.append(c)
        r += 1
    reason = None if walls else ("; ".join(problems) or "no ingest round")
    det = {"per_round": per_round, "cpu_s": median(cpus), "skipped_rounds": problems or None,
           "note": "serve's last evaluation at each ingest round's end (hvready_verdict_evaluation_*): "
                   "from its snapshot of the reports to the verdict served, while the load runs"}
    figs.add("serve.eval.wall", "ingest", "serve: verdict re-evaluation at 5,000 nodes during ingest, wall time",
             "s", "< 10 s", "lt", 10, value=median(walls), reason=reason, detail=det)


def fig_daemon(raw, figs):
    rows = []
    for line in (read(os.path.join(raw, "daemon_samples.tsv"), "") or "").splitlines():
        p = line.split("\t")
        if len(p) == 3 and p[1] and p[2]:
            rows.append((float(p[0]), int(p[1]), int(p[2])))
    hwm = read(os.path.join(raw, "daemon_hwm"))
    tck = int(read(os.path.join(raw, "clk_tck"), "100") or 100)
    node = read_json(os.path.join(raw, "daemon_node.json"))
    cpu = None
    det = {"seconds": rows[-1][0] if rows else None, "interval_s": 30,
           "command": "hvready-agent run --interval 30 --skip host.nfs.probe,host.image.share-manager",
           "reports_seq": node.get("summary", {}).get("seq") if isinstance(node, dict) else None}
    if rows:
        cpu = 100.0 * rows[-1][2] / tck / rows[-1][0]
        det["rss_samples_mib"] = {"min": min(r[1] for r in rows) / MIB, "max": max(r[1] for r in rows) / MIB,
                                  "last": rows[-1][1] / MIB}
        det["cpu_s"] = rows[-1][2] / tck
    figs.add("agent.daemon.rss", "agent.daemon", "agent daemon, peak RSS (VmHWM)", "MiB", "<= 8 MiB",
             "le", 8, value=int(hwm) / MIB if hwm and hwm.isdigit() else None, detail=det)
    figs.add("agent.daemon.cpu", "agent.daemon", "agent daemon, average CPU", "% of a core", "<= 1 %",
             "le", 1.0, value=cpu)


def fmt(v, unit):
    if v is None:
        return "-"
    if unit == "reports/s":
        return "{:,.0f}/s".format(v)
    if unit == "ratio":
        return "%.2f" % v
    if unit == "% of a core":
        return "%.2f %%" % v
    if unit == "lines":
        return "{:,.0f} lines".format(v)
    if unit == "ms":
        return ("%.1f ms" % v) if v < 100 else ("%.0f ms" % v)
    if unit == "s":
        return "%.2f s" % v
    if unit == "exponent":
        return "%.2f" % v
    return "%.1f %s" % (v, unit)


def rows_of(res):
    for f in res["figures"]:
        val = fmt(f.get("value"), f["unit"])
        if f.get("lower_bound"):
            val = "> " + val
        peer = ""
        if f.get("peer") and f["peer"].get("value") is not None:
            peer = fmt(f["peer"]["value"], f["unit"])
        yield f["title"], val, peer, f["target"], f["result"].upper()


def table(res):
    m = res["machine"]
    out = ["machine: %d x %s, %s, Linux %s, %s; load average at start: %s" % (
        m["nproc"], m["cpu_model"], m["memory"], m["kernel"], m["os"],
        (res.get("load_average", {}).get("start") or "?").split()[0]), ""]
    rows = [("figure", "hvready", "peer", "target", "result")] + list(rows_of(res))
    w = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        out.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
    out.extend(scale_lines(res))
    out.extend(agent_lines(res))
    out.extend(serve_eval_lines(res))
    for f in res["figures"]:
        if f["result"] == "not measured":
            out.append("not measured: %s: %s" % (f["id"], f["reason"]))
    return "\n".join(out)


def agent_lines(res):
    """The agent check's CPU time against the peer's, and each check's cost."""
    f = next((x for x in res["figures"] if x["id"] == "agent.check.wall"), None)
    det = (f or {}).get("detail") or {}
    out = []
    if det.get("cpu_ms") is not None:
        out += ["", "agent check, CPU time (user + system, mean of %d runs): %.1f ms, virt-host-validate "
                "%.1f ms (%.2f x); wall time %.2f x" % (det["runs"], det["cpu_ms"], det["peer_cpu_ms"],
                                                     det["cpu_ratio"], det.get("wall_ratio") or 0)]
    if det.get("per_check"):
        out += ["agent check, per check (HVREADY_TIMINGS, medians of 5 runs; wall: its thread "
                "started until seen ended):"]
        for c in det["per_check"]:
            out.append("  {:<36} wall {:>7.2f} ms  CPU {:>6.2f} ms".format(c["check"], c["wall_ms"], c["cpu_ms"]))
    return out


def serve_eval_lines(res):
    """serve's re-evaluations during the ingest rounds: wall and CPU time."""
    f = next((x for x in res["figures"] if x["id"] == "serve.eval.wall"), None)
    rounds = ((f or {}).get("detail") or {}).get("per_round") or []
    if not rounds:
        return []
    out = ["", "serve, the last verdict evaluation of each ingest round (5,000 nodes, while the reports "
           "keep coming):"]
    for i, r in enumerate(rounds, 1):
        out.append("  round {}: wall {} CPU {}, {} nodes, {} evaluations during the round".format(
            i, fmt(r.get("wall_s"), "s"), fmt(r.get("cpu_s"), "s"),
            "-" if r.get("nodes") is None else "{:,}".format(int(r["nodes"])),
            "-" if r.get("evaluations_during_round") is None else int(r["evaluations_during_round"])))
    return out


def scale_lines(res):
    sc = res.get("scale") or {}
    if not sc.get("sizes"):
        return []
    out = ["", "offline report by size (generated inputs; targets: exponent <= 1.1, "
           "5,000 nodes < 10 s and < 2 GiB):"]
    for p in sc["sizes"]:
        slow = p.get("slowest_check") or {}
        out.append("  {:>5,} nodes {:>6,} VMs {:>7,} objects  {:>8} (CPU {:>7})  {:>10}  slowest check: {} {}".format(
            p["nodes"], p["vms"], p["objects"] or 0, fmt(p["wall_s"], "s"), fmt(p.get("cpu_s"), "s"),
            fmt(p["rss_mib"], "MiB"),
            slow.get("check", "-"), ("%.0f ms" % slow["ms"]) if slow else ""))
    out.append("  fitted exponent (log-log least squares): %s" % (
        "%.2f" % sc["exponent"] if sc.get("exponent") is not None else "-"))
    return out


def markdown(res):
    m = res["machine"]
    load = (res.get("load_average", {}).get("start") or "?").split()[0]
    try:
        # Above one runnable job per two cores, other work weighed on the figures.
        busy = float(load) > m["nproc"] / 2
    except ValueError:
        busy = True
    out = ["Measured %s on %d × %s, %s RAM, Linux %s (%s), commit `%s`; load average %s at the "
           "start (%s)." % (
               res["generated_at"][:10], m["nproc"], m["cpu_model"], m["memory"], m["kernel"], m["os"],
               res["commit"], load,
               "other jobs shared the machine" if busy else "an otherwise idle machine"), "",
        "| figure | hvready | peer | target | result |", "|---|---:|---:|---|---|"]
    for r in rows_of(res):
        out.append("| %s | %s | %s | %s | %s |" % tuple(c or "—" for c in r))
    sc = res.get("scale") or {}
    if sc.get("sizes"):
        out += ["", "| nodes | VMs | objects | wall time | CPU time | peak RSS | slowest check |",
                "|---:|---:|---:|---:|---:|---:|---|"]
        for p in sc["sizes"]:
            slow = p.get("slowest_check") or {}
            out.append("| {:,} | {:,} | {:,} | {} | {} | {} | {} |".format(
                p["nodes"], p["vms"], p["objects"] or 0, fmt(p["wall_s"], "s"), fmt(p.get("cpu_s"), "s"),
                fmt(p["rss_mib"], "MiB"),
                ("`%s` %.0f ms" % (slow["check"], slow["ms"])) if slow else "—"))
        if sc.get("exponent") is not None:
            out += ["", "Fitted exponent (least squares of log wall time on log nodes): %.2f." % sc["exponent"]]
    return "\n".join(out)


def count_objects(d):
    counts, size = {}, 0
    for f in sorted(os.listdir(d)):
        if f.endswith(".json"):
            p = os.path.join(d, f)
            size += os.path.getsize(p)
            with open(p) as fh:
                counts[f[:-5]] = len(json.load(fh).get("items", []))
    return {"objects": sum(counts.values()), "bytes": size, "by_resource": counts}


def main(argv):
    if len(argv) == 3 and argv[1] == "--count-objects":
        print(json.dumps(count_objects(argv[2])))
        return 0
    if len(argv) == 3 and argv[1] == "--markdown":
        print(markdown(read_json(argv[2])))
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    raw, out = argv[1], argv[2]
    nm = {}
    for line in (read(os.path.join(raw, "not_measured.tsv"), "") or "").splitlines():
        group, _, why = line.partition("\t")
        nm.setdefault(group, why)
    figs = Figures(nm)
    fig_agent_check(raw, figs)
    fig_report(raw, figs)
    scale, exponent = fig_scale(raw, figs)
    fig_report_variant(raw, figs, "report_shape.tsv", "shape_counts.json", "report.shape",
                       "offline report, the target's ~20,000 objects (nodes, VMs, VMIs, PVCs, "
                       "Longhorn volumes)", 0.5, 200,
                       "hvready-aggregator report --cluster-state DIR --node-reports DIR --format json")
    fig_report_variant(raw, figs, "report_live.tsv", "shape_counts.json", "report.live",
                       "live report through the fake apiserver (pages of 500), the same ~20,000 "
                       "objects",
                       3.0, 0,
                       "hvready-aggregator report --kubeconfig FILE --node-reports DIR --format json")
    fig_grouping(raw, figs)
    fig_ingest(raw, figs)
    fig_serve_eval(raw, figs)
    fig_daemon(raw, figs)
    res = {
        "schema": "hvready.bench/v1",
        "generated_at": read(os.path.join(raw, "started_at"), ""),
        "commit": read(os.path.join(raw, "commit"), "unknown"),
        "machine": machine(),
        "load_average": {"start": read(os.path.join(raw, "loadavg_start"), ""),
                         "end": read(os.path.join(raw, "loadavg_end"), "")},
        "scale": {"sizes": scale, "exponent": round(exponent, 3) if exponent is not None else None},
        "figures": figs.items,
        "summary": {k: sum(1 for f in figs.items if f["result"] == k)
                    for k in ("pass", "fail", "not measured")},
    }
    with open(out, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    print(table(res))
    return 1 if res["summary"]["not measured"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
