#!/usr/bin/env python3
"""finding_holds.py FILE CHECK EXPR: exit 0 when the first finding of CHECK
anywhere in the JSON document FILE (a node report, /v1/nodes/NAME, a verdict)
makes the Python expression EXPR true, with the finding as `f` (its evidence as `ev`); exit 1, with
what was found on stderr, when there is none or it does not."""
import json
import re
import sys


def walk(o, check):
    if isinstance(o, dict):
        if o.get("check") == check and "status" in o:
            yield o
        for v in o.values():
            yield from walk(v, check)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v, check)


def main():
    path, check, expr = sys.argv[1:4]
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        print("%s: %s" % (path, e), file=sys.stderr)
        return 1
    found = list(walk(doc, check))
    if found and eval(expr, {"f": found[0], "ev": found[0].get("evidence", {}), "json": json,
                           "re": re}):
        return 0
    print("%s: %s" % (check, [(f["status"], f.get("message")) for f in found] or "no finding"),
          file=sys.stderr)
    return 1


sys.exit(main())
