#!/usr/bin/env python3
"""Check hvready's Markdown verdict with GitHub's renderer (cmark-gfm).

usage: check_markdown.py VERDICT.md VERDICT.json

The Markdown is rendered with cmark-gfm (tables on, raw HTML passed through,
as GitHub would before its sanitiser) and the result must say what the JSON
says: the "All findings" table holds exactly the JSON's findings (check,
status, node, object, message); each blocker, and each other FAIL, UNKNOWN
or WARN, has its section with its message; the VM table has every VM. Nothing from the cluster may turn into
markup: no element but the ones hvready writes, and inside the findings table
no emphasis, link or raw HTML at all. Exit 0 when all holds, 1 otherwise.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html import TreeBuilder, remedy_steps, sanitize, strip_code_ticks  # noqa: E402

ALLOWED = {"document", "h1", "h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td",
           "code", "pre", "strong", "ul", "ol", "li", "br"}


def text(el):
    """Text content, <br> as a newline."""
    out = [el.text or ""]
    for child in el:
        out.append("\n" if child.tag == "br" else text(child))
        out.append(child.tail or "")
    return "".join(out)


def norm(s):
    return sanitize(s).replace("\t", " ").strip(" ")


def main(argv):
    if len(argv) != 2:
        print("usage: check_markdown.py VERDICT.md VERDICT.json", file=sys.stderr)
        return 2
    md_path, json_path = argv
    with open(json_path, encoding="utf-8") as f:
        verdict = json.load(f)
    html = subprocess.run(["cmark-gfm", "--extension", "table", "--unsafe", md_path],
                          check=True, capture_output=True, text=True).stdout
    tb = TreeBuilder()
    tb.feed(html)
    tb.close()
    root = tb.root
    problems = []

    # A link only as "Docs: [check](doc_url)", to a finding's check page as
    # the JSON's doc_url has it; nothing else links anywhere.
    doc_links = {f["doc_url"] for f in verdict.get("findings", []) if f.get("doc_url")}
    for el in root.iter():
        if el.tag == "a":
            if el.get("href") not in doc_links or \
                    el.get("href") != next((f["doc_url"] for f in verdict.get("findings", [])
                                            if f["check"] == text(el)), None):
                problems.append("link %r -> %r in the rendered Markdown" % (text(el),
                                                                           el.get("href")))
        elif el.tag not in ALLOWED:
            problems.append("element <%s> in the rendered Markdown: %r" % (el.tag, text(el)[:80]))
    links = sum(1 for el in root.iter("a"))
    want_links = len([f for f in verdict.get("findings", []) if f.get("doc_url")])
    if want_links and not links:
        problems.append("no finding links its check's page (doc_url)")

    # Sections by their h2.
    sections, current = {}, None
    for el in root:
        if el.tag == "h2":
            current = text(el)
            sections[current] = []
        elif current:
            sections[current].append(el)

    def key(f):
        # A waived finding keeps its status, marked "(waived)" (docs/change-board.md).
        return (f["status"] + (" (waived)" if f.get("waiver") else ""), f["check"],
                f.get("node", ""), f.get("object", ""), norm(f["message"]))

    tables = [el for el in sections.get("All findings", []) if el.tag == "table"]
    if len(tables) != 1:
        problems.append("no \"All findings\" table")
    else:
        rows = []
        for tr in tables[0].iter("tr"):
            cells = [td for td in tr if td.tag == "td"]
            if not cells:
                continue
            if len(cells) != 5:
                problems.append("a findings row with %d cells" % len(cells))
                continue
            for td in cells[2:]:
                for child in td.iter():
                    if child is not td and child.tag not in ("br",):
                        problems.append("markup <%s> in a findings cell: %r"
                                        % (child.tag, text(td)))
            rows.append(tuple(text(td).strip(" ") for td in cells))
        want = sorted(map(key, verdict["findings"]))
        if sorted(rows) != want:
            for r in sorted(set(want) - set(rows)):
                problems.append("finding missing from the table: %r" % (r,))
            for r in sorted(set(rows) - set(want)):
                problems.append("row not in the JSON: %r" % (r,))
            if len(rows) != len(want):
                problems.append("%d rows, %d findings" % (len(rows), len(want)))

    blockers = {}
    for g in verdict["gates"].values():
        for b in g["blockers"]:
            blockers[key(b)] = b
    heads = [el for el in sections.get("Blockers", []) if el.tag == "h3"]
    if len(heads) != len(blockers):
        problems.append("%d blocker sections, %d blockers" % (len(heads), len(blockers)))
    paragraphs = {text(el) for el in sections.get("Blockers", []) if el.tag == "p"}
    for b in blockers.values():
        if norm(b["message"]) not in paragraphs:
            problems.append("blocker message not rendered as itself: %r" % b["message"])

    others = [f for f in verdict["findings"] if f["status"] in ("FAIL", "UNKNOWN", "WARN")
              and key(f) not in blockers]
    heads = [el for el in sections.get("Other problems", []) if el.tag == "h3"]
    if len(heads) != len(others):
        problems.append("%d other problems, %d non-blocking problems" % (len(heads), len(others)))
    paragraphs = {text(el) for el in sections.get("Other problems", []) if el.tag == "p"}
    for f in others:
        if norm(f["message"]) not in paragraphs:
            problems.append("message not rendered as itself: %r" % f["message"])

    # A remedy of several steps is a numbered list, a step an item, in order
    # (docs/outputs.md); one step stays a sentence.
    lists = [[text(li).strip() for li in ol if li.tag == "li"]
             for name in ("Blockers", "Other problems") for el in sections.get(name, [])
             for ol in ([el] if el.tag == "ol" else []) + list(el.iter("ol"))]
    for f in list(blockers.values()) + others:
        steps = remedy_steps(f.get("remediation", ""))
        if f.get("remedy_steps") != steps:
            problems.append("%s: remedy_steps %r, the remediation's steps are %r"
                            % (f["check"], f.get("remedy_steps"), steps))
        if len(steps) > 1 and [norm(strip_code_ticks(x)) for x in steps] not in lists:
            problems.append("%s: the remedy's %d steps are not a numbered list" %
                            (f["check"], len(steps)))

    vms = verdict.get("vms", [])
    if vms:
        t = [el for el in sections.get("Live migration", []) if el.tag == "table"]
        n = len([tr for tr in t[0].iter("tr") if tr.find("td") is not None]) if t else 0
        if n != len(vms):
            problems.append("%d VM rows, %d VMs" % (n, len(vms)))
        names = {text(tr.find("td")) for tr in t[0].iter("tr") if tr.find("td") is not None}
        for v in vms:
            if sanitize("%s/%s" % (v["namespace"], v["name"])) not in names:
                problems.append("VM %s/%s missing" % (v["namespace"], v["name"]))

    for p in problems:
        print("%s: %s" % (md_path, p))
    if not problems:
        print("%s: %d findings, %d blockers, %d VMs: OK"
              % (md_path, len(verdict["findings"]), len(blockers), len(vms)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
