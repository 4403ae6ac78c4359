#!/usr/bin/env python3
"""Check hvready's HTML verdict page against the JSON verdict it was made from.

usage: check_html.py [--dom] PAGE.html VERDICT.json

By default PAGE is parsed as XML: the page is written well-formed on purpose,
so a strict parser finds any tag or attribute that escaping let through.
With --dom, PAGE is a browser's serialised DOM (chromium --dump-dom), parsed
as HTML: what the browser built must say the same thing.

Checked: no script, no event handler, no external asset; the overall status;
each gate's status and blockers; every finding exactly once under "All
findings" (check, status, node, object, message, evidence keys and values,
remediation, the link to its check's page, the JSON's doc_url) and every
blocker under "Blockers"; one matrix cell per node and
host check with the worst status of that check on that node; one row per VM.
Exit 0 when all holds, 1 with one line per problem otherwise.
"""
import html.parser
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
SEVERITY = {"SKIP": 0, "PASS": 1, "WARN": 2, "UNKNOWN": 3, "FAIL": 4}
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from checks_registry import host_checks  # noqa: E402

# The host checks in registry order (common/checks.def): the matrix's first columns.
HOST_CHECKS = host_checks()


class TreeBuilder(html.parser.HTMLParser):
    """A browser's DOM dump into an ElementTree (enough for chromium's output)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = ET.Element("document")
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        el = ET.SubElement(self.stack[-1], tag, {k: (v if v is not None else "") for k, v in attrs})
        if tag not in VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        ET.SubElement(self.stack[-1], tag, {k: (v if v is not None else "") for k, v in attrs})

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        parent = self.stack[-1]
        if len(parent):
            parent[-1].tail = (parent[-1].tail or "") + data
        else:
            parent.text = (parent.text or "") + data


def sanitize(s):
    """What the renderer shows for a string (render_text_sanitize)."""
    out = []
    for ch in s:
        c = ord(ch)
        if c in (9, 10):
            out.append(ch)
        elif c < 0x20 or c == 0x7f:
            out.append("\\x%02x" % c)
        elif 0x80 <= c <= 0x9f or 0x202a <= c <= 0x202e or 0x2066 <= c <= 0x2069 \
                or c in (0x200e, 0x200f) or (c & 0xfffe) == 0xfffe:
            out.append("\\u%04x" % c)
        else:
            out.append(ch)
    return "".join(out)


def value_text(v, top=True):
    """render_text_value_str: how evidence values are shown."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return '""' if top and v == "" else v
    if isinstance(v, list):
        if top and not v:
            return "(none)"
        inner = ", ".join(value_text(x, False) for x in v)
        return inner if top else "[" + inner + "]"
    if isinstance(v, dict):
        return "{" + ", ".join("%s=%s" % (k, value_text(x, False)) for k, x in v.items()) + "}"
    return str(v)


def strip_code_ticks(s):
    """The text of a remediation whose `...` pairs became <code> elements."""
    out = ""
    while s:
        i = s.find("`")
        j = s.find("`", i + 1) if i >= 0 else -1
        if i < 0 or j < 0 or j == i + 1:
            return out + s
        out += s[:i] + s[i + 1:j]
        s = s[j + 1:]
    return out


def remedy_steps(rem):
    """A remediation's steps (common/report.h remedy_steps): the parts between
    blank lines, trimmed, empty ones dropped."""
    return [p.strip(" \t\r\n") for p in re.split(r"\n[ \t\r]*(?:\n|$)", rem)
            if p.strip(" \t\r\n")]


def text(el):
    return "".join(el.itertext()) if el is not None else ""


def classes(el):
    return (el.get("class") or "").split()


def find_all(root, tag=None, cls=None, pred=None):
    for el in root.iter(tag):
        if cls and cls not in classes(el):
            continue
        if pred and not pred(el):
            continue
        yield el


def main(argv):
    dom = "--dom" in argv
    args = [a for a in argv if a != "--dom"]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    page_path, json_path = args
    with open(json_path, encoding="utf-8") as f:
        verdict = json.load(f)
    with open(page_path, encoding="utf-8") as f:
        page = f.read()
    if dom:
        tb = TreeBuilder()
        tb.feed(page)
        tb.close()
        root = tb.root
    else:
        try:
            root = ET.fromstring(page)
        except ET.ParseError as e:
            print("%s: not well-formed: %s" % (page_path, e))
            return 1

    problems = []
    # Every finding's check page, as the JSON's doc_url says (the HTML links
    # the same URL): the only links out of the page allowed.
    doc_links = {f["doc_url"] for f in verdict.get("findings", []) if f.get("doc_url")}

    def bad(msg):
        problems.append(msg)

    # Nothing executable, nothing fetched.
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if el.tag in ("script", "iframe", "img", "object", "embed", "link", "base", "form"):
            bad("element <%s> in the page" % el.tag)
        for k, v in el.attrib.items():
            if k.lower().startswith("on"):
                bad("event handler %s=%r on <%s>" % (k, v, el.tag))
            if k in ("src", "srcset", "action"):
                bad("%s=%r on <%s>" % (k, v, el.tag))
            # Fragments, the dashboard's own view links (?gate=, ?refresh=0,
            # and the status filters ?status=fail,warn and ?status=fail),
            # and a finding's check page (exactly doc_link(check) of a check
            # the verdict has, on an <a class="doc">): nothing else.
            if k == "href" and not v.startswith("#") and \
                    not re.fullmatch(r"\?(gate=[a-z-]+&?)?(refresh=0&?)?(status=fail(,warn)?)?", v) and \
                    not (el.tag == "a" and "doc" in classes(el) and v in doc_links):
                bad("external link href=%r" % v)
        if el.tag == "style" and ("@import" in text(el) or "url(" in text(el)):
            bad("the stylesheet loads something")

    by_id = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}

    def status_of(gate_filter=None):
        worst = "PASS"
        for name, g in verdict["gates"].items():
            if gate_filter is None or name == gate_filter:
                if SEVERITY[g["status"]] > SEVERITY[worst]:
                    worst = g["status"]
        return worst

    overall = by_id.get("overall")
    if overall is None:
        bad("no #overall")
    elif overall.get("data-status") not in (status_of(),) + tuple(
            g["status"] for g in verdict["gates"].values()):
        bad("#overall says %s" % overall.get("data-status"))

    findings = verdict["findings"]

    def key(f):
        return (f["check"], f["status"], f.get("node", ""), f.get("object", ""),
                sanitize(f["message"]))

    # Gates.
    for name, g in verdict["gates"].items():
        el = by_id.get("gate-" + name)
        if el is None:
            bad("no gate %s" % name)
            continue
        if el.get("data-status") != g["status"]:
            bad("gate %s: %s, the JSON says %s" % (name, el.get("data-status"), g["status"]))
        if el.get("data-blockers") != str(len(g["blockers"])):
            bad("gate %s: %s blockers, the JSON says %d" % (name, el.get("data-blockers"),
                                                            len(g["blockers"])))
        shown = list(find_all(el, "li", "blocker"))
        if len(shown) != min(len(g["blockers"]), 6):
            bad("gate %s lists %d blockers" % (name, len(shown)))
        for li in shown:
            a = li.find("a")
            if a is None or a.get("href", "")[1:] not in by_id:
                bad("gate %s: blocker link to nowhere" % name)

    def details_key(d):
        summary = d.find("summary")
        msg = None
        for sp in find_all(summary, "span", "msg"):
            msg = text(sp)
        return (d.get("data-check"), d.get("data-status"), d.get("data-node", ""),
                d.get("data-object", ""), msg)

    def check_body(d, f, where):
        rows = [(text(tr.find("th")), text(tr.find("td")))
                for tbl in find_all(d, "table", "ev") for tr in tbl.iter("tr")]
        want = [(sanitize(k), sanitize(value_text(v))) for k, v in f["evidence"].items()]
        if rows != want:
            bad("%s %s: evidence %r, the JSON says %r" % (where, f["check"], rows, want))
        fix = [text(p) for p in find_all(d, "p", "fix")]
        fix_steps = [[text(li) for li in find_all(div, "li")] for div in find_all(d, "div", "fix")]
        rem = f.get("remediation", "")
        steps = remedy_steps(rem)
        if f.get("remedy_steps") != steps:
            bad("%s %s: remedy_steps %r, the remediation's steps are %r" %
                (where, f["check"], f.get("remedy_steps"), steps))
        if len(steps) == 1 and f["status"] not in ("PASS", "SKIP"):
            # One step: a paragraph, as before steps existed (no "1.").
            want_fix = "Remediation: " + strip_code_ticks(sanitize(steps[0]))
            if fix != [want_fix] or fix_steps:
                bad("%s %s: remediation %r, the JSON says %r" % (where, f["check"], fix,
                                                                want_fix))
        elif steps and f["status"] not in ("PASS", "SKIP"):
            # Several: one numbered list, a step an item, in order.
            want_steps = [strip_code_ticks(sanitize(x)) for x in steps]
            ols = [ol for div in find_all(d, "div", "fix") for ol in find_all(div, "ol", "steps")]
            if fix or fix_steps != [want_steps] or len(ols) != 1:
                bad("%s %s: remedy steps %r, the JSON says %r" % (where, f["check"], fix_steps,
                                                                 want_steps))
        elif fix or fix_steps:
            bad("%s %s: remediation shown for %s" % (where, f["check"], f["status"]))
        docs = [a.get("href") for a in find_all(d, "a", "doc")]
        if f.get("doc_url") and docs != [f["doc_url"]]:
            bad("%s %s: doc link %r, the JSON's doc_url is %r" % (where, f["check"], docs,
                                                                 f["doc_url"]))

    # Every finding once under "All findings", with its details.
    section = by_id.get("findings")
    shown = [d for d in find_all(section, "details", "finding")] if section is not None else []
    if sorted(map(details_key, shown), key=repr) != sorted(map(key, findings), key=repr):
        have = set(map(details_key, shown))
        want = set(map(key, findings))
        for k in sorted(want - have, key=repr):
            bad("finding missing from the page: %r" % (k,))
        for k in sorted(have - want, key=repr):
            bad("finding on the page but not in the JSON: %r" % (k,))
        if len(shown) != len(findings):
            bad("%d findings on the page, %d in the JSON" % (len(shown), len(findings)))
    for d in shown:
        idx = int(d.get("id", "f--1")[2:])
        if not 0 <= idx < len(findings) or key(findings[idx]) != details_key(d):
            bad("finding %s does not match the JSON's finding %d" % (d.get("id"), idx))
            continue
        check_body(d, findings[idx], "finding")

    # Every blocker under "Blockers".
    blocking = {}
    for name, g in verdict["gates"].items():
        for b in g["blockers"]:
            blocking.setdefault(key(b), set()).add(name)
    section = by_id.get("blockers")
    shown = list(find_all(section, "details", "finding")) if section is not None else []
    have = {}

    def merged(members):
        """What one card for identical findings on several nodes shows
        (aggregator/finding_groups.h): a value all share once, any other as a
        map node -> value, "(absent)" where a node has none."""
        first = findings[members[0]]
        ev, keys = {}, []
        for m in members:
            for k in findings[m]["evidence"]:
                if k not in keys:
                    keys.append(k)
        for k in keys:
            vals = [findings[m]["evidence"].get(k, None) for m in members]
            if k in first["evidence"] and all(v == vals[0] for v in vals):
                ev[k] = vals[0]
            else:
                ev[k] = {findings[m]["node"]: ("(absent)" if v is None else v)
                         for m, v in zip(members, vals)}
        return dict(first, evidence=ev)

    for d in shown:
        gates = {a.get("href", "")[len("#gate-"):] for a in find_all(d, "a", "tag")}
        members = [int(x) for x in d.get("data-members", "").split()]
        if not members:
            have[details_key(d)] = gates
            continue
        for m in members:
            f = findings[m]
            if (f["check"], f["status"], f.get("message")) != (d.get("data-check"),
                                                              d.get("data-status"),
                                                              details_key(d)[4]):
                bad("grouped card %s: member %d is another finding" % (d.get("id"), m))
            have[key(f)] = gates
        nodes = text(find_all(d, "p", "nodes").__next__()) if list(find_all(d, "p", "nodes")) else ""
        if nodes != "On %d nodes: %s" % (len(members), ", ".join(findings[m]["node"] for m in members)):
            bad("grouped card %s names %r" % (d.get("id"), nodes))
        check_body(d, merged(members), "grouped blocker")
    if have != blocking:
        bad("blockers on the page %r, in the JSON %r" % (have, blocking))
    for d in shown:
        idx = int(d.get("id", "b--1")[2:])
        if 0 <= idx < len(findings) and not d.get("data-members"):
            check_body(d, findings[idx], "blocker")

    # The matrix: one cell per node and column, the worst status of that check there.
    nodes = [n["name"] for n in verdict["nodes"]]
    columns = [c for c in HOST_CHECKS]
    for f in findings:
        if "node" in f and f["check"] not in columns:
            columns.append(f["check"])
    cells = {}
    matrix = by_id.get("matrix")
    for td in find_all(matrix, "td", "cell") if matrix is not None else []:
        k = (td.get("data-node"), td.get("data-check"))
        if k in cells:
            bad("two matrix cells for %r" % (k,))
        cells[k] = td
    if nodes and len(cells) != len(nodes) * len(columns):
        bad("%d matrix cells for %d nodes × %d checks" % (len(cells), len(nodes), len(columns)))
    for n in nodes:
        for c in columns:
            td = cells.get((n, c))
            if td is None:
                bad("no matrix cell for %s on %s" % (c, n))
                continue
            sts = [f["status"] for f in findings if f.get("node") == n and f["check"] == c]
            # A host check missing on a node is UNKNOWN; another check that
            # says nothing about the node, NONE.
            want = max(sts, key=lambda s: SEVERITY[s]) if sts \
                else "UNKNOWN" if c in HOST_CHECKS else "NONE"
            shown = "–" if want == "NONE" else want
            if td.get("data-status") != want or shown not in text(td):
                bad("matrix %s on %s: %s, want %s" % (c, n, td.get("data-status"), want))
            tip = list(find_all(td, "div", "tip"))
            if len(tip) != 1:
                bad("matrix %s on %s: no evidence to hover" % (c, n))
            elif sts:
                worst = [f for f in findings if f.get("node") == n and f["check"] == c
                         and f["status"] == want][0]
                # A problem's tip has its evidence; a PASS or SKIP one its
                # message only (the cell links to the finding).
                problem = want not in ("PASS", "SKIP")
                if sanitize(worst["message"]) not in text(tip[0]):
                    bad("matrix %s on %s: the message is not in the tip" % (c, n))
                if not problem and tip[0].find("dl") is not None:
                    bad("matrix %s on %s: a %s tip with evidence" % (c, n, want))
                for k, v in worst["evidence"].items() if problem else []:
                    if sanitize(value_text(v)) not in text(tip[0]):
                        bad("matrix %s on %s: evidence %s not in the tip" % (c, n, k))

    # VM rows.
    rows = list(find_all(root, "tr", "vm"))
    want_vms = {("%s/%s" % (v["namespace"], v["name"])): v for v in verdict.get("vms", [])}
    have_vms = {r.get("data-vm"): r for r in rows}
    if set(have_vms) != set(want_vms) or len(rows) != len(want_vms):
        bad("VM rows %r, the JSON has %r" % (sorted(have_vms), sorted(want_vms)))
    for name, r in have_vms.items():
        v = want_vms.get(name)
        if not v:
            continue
        want = {"PASS": "yes", "FAIL": "no", "UNKNOWN": "unknown", "WARN": "warn"}.get(
            v.get("status"), "yes" if v["can_live_migrate"] else "no")
        if r.get("data-can-migrate") != want:
            bad("VM %s: can-migrate %s" % (name, r.get("data-can-migrate")))
        if r.get("data-node") != v["node"]:
            bad("VM %s: node %s" % (name, r.get("data-node")))
        reasons = [text(li) for li in r.iter("li")]
        if reasons != [sanitize(x) for x in v["reasons"]]:
            bad("VM %s: reasons %r" % (name, reasons))

    for p in problems:
        print("%s: %s" % (page_path, p))
    if not problems:
        print("%s: %d findings, %d gates, %d matrix cells, %d VMs: OK"
              % (page_path, len(findings), len(verdict["gates"]), len(cells), len(rows)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
