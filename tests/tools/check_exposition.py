#!/usr/bin/env python3
"""A strict checker of the Prometheus text exposition format 0.0.4.

usage: check_exposition.py [--json] FILE|-
       check_exposition.py --self-test

Stricter than Prometheus itself on purpose: what it accepts, every scraper
accepts. Every line is a "# HELP" or "# TYPE" comment or a sample (no other
comment, no blank line, the last line ends with a newline); metric and label
names follow the grammar ([a-zA-Z_:][a-zA-Z0-9_:]*, [a-zA-Z_][a-zA-Z0-9_]*,
no "__" label prefix); label values use only the three escapes \\\\, \\" and
\\n; the text is UTF-8; each family has one HELP and one TYPE, both before its
first sample, and all of its lines together; TYPE is counter, gauge,
histogram, summary or untyped; counters end in _total and are never negative
or NaN; histogram buckets carry "le"; no series (name and label set) appears
twice; tokens are separated by exactly one space.

Exit 0 and a one-line summary when valid (with --json, the samples as JSON on
stdout instead); 1 with one line per problem, "LINE: what", otherwise.
"""
import json
import math
import re
import sys

METRIC = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
VALUE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]Inf|NaN")
TIMESTAMP = re.compile(r"-?[0-9]+")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


class Family:
    def __init__(self):
        self.help = None
        self.type = None
        self.samples = 0
        self.closed = False


def parse_labels(s, i, lineno, errors):
    """Parse '{...}' starting at s[i] == '{'. Returns (labels, index after '}')."""
    labels = {}
    i += 1
    if i < len(s) and s[i] == "}":
        return labels, i + 1
    while True:
        m = LABEL.match(s, i)
        if not m:
            errors.append("%d: bad label name at %r" % (lineno, s[i:i + 20]))
            return None, None
        name = m.group(0)
        if name.startswith("__"):
            errors.append("%d: reserved label name %s" % (lineno, name))
        i = m.end()
        if s[i:i + 2] != '="':
            errors.append("%d: expected =\" after label %s" % (lineno, name))
            return None, None
        i += 2
        value = []
        while True:
            if i >= len(s):
                errors.append("%d: unterminated value of label %s" % (lineno, name))
                return None, None
            c = s[i]
            if c == "\\":
                nxt = s[i + 1:i + 2]
                if nxt == "\\":
                    value.append("\\")
                elif nxt == '"':
                    value.append('"')
                elif nxt == "n":
                    value.append("\n")
                else:
                    errors.append("%d: invalid escape \\%s in label %s" % (lineno, nxt, name))
                    return None, None
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                value.append(c)
                i += 1
        if name in labels:
            errors.append("%d: label %s twice" % (lineno, name))
        labels[name] = "".join(value)
        if i < len(s) and s[i] == ",":
            i += 1
            if i < len(s) and s[i] == "}":
                errors.append("%d: trailing comma in labels" % lineno)
                return labels, i + 1
            continue
        if i < len(s) and s[i] == "}":
            return labels, i + 1
        errors.append("%d: expected , or } after label %s" % (lineno, name))
        return None, None


def family_of(name, families):
    """The family a sample belongs to (histograms and summaries have suffixes)."""
    if name in families:
        return name
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            f = families.get(base)
            if f and f.type in ("histogram", "summary") and \
                    not (suffix == "_bucket" and f.type == "summary"):
                return base
    return name


def check(data):
    """Returns (errors, samples)."""
    errors, samples = [], []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ["not UTF-8: %s" % e], samples
    if not text:
        return ["empty exposition"], samples
    if not text.endswith("\n"):
        errors.append("the last line does not end with a newline")
    families = {}
    current = None
    series = set()

    def switch_to(name):
        nonlocal current
        if current is not None and current != name:
            families[current].closed = True
        current = name

    for lineno, line in enumerate(text.split("\n")[:-1] if text.endswith("\n")
                                  else text.split("\n"), 1):
        if line == "":
            errors.append("%d: blank line" % lineno)
            continue
        if line.startswith("#"):
            m = re.fullmatch(r"# (HELP|TYPE) ([^ ]+) (.+)", line)
            if not m:
                errors.append("%d: a comment that is not \"# HELP name text\" or "
                              "\"# TYPE name type\": %r" % (lineno, line))
                continue
            kind, name, rest = m.groups()
            if not METRIC.fullmatch(name):
                errors.append("%d: bad metric name %r" % (lineno, name))
                continue
            fam = families.setdefault(name, Family())
            if fam.closed:
                errors.append("%d: %s %s after other families: a family's lines must be "
                              "together" % (lineno, kind, name))
            switch_to(name)
            if fam.samples:
                errors.append("%d: %s %s after its samples" % (lineno, kind, name))
            if kind == "HELP":
                if fam.help is not None:
                    errors.append("%d: second HELP for %s" % (lineno, name))
                if re.search(r"\\(?![\\n])", rest):
                    errors.append("%d: invalid escape in HELP of %s" % (lineno, name))
                fam.help = rest
            else:
                if fam.type is not None:
                    errors.append("%d: second TYPE for %s" % (lineno, name))
                if rest not in TYPES:
                    errors.append("%d: TYPE %s is %r, not one of %s"
                                  % (lineno, name, rest, ", ".join(sorted(TYPES))))
                fam.type = rest
            continue

        m = METRIC.match(line)
        if not m:
            errors.append("%d: not a sample: %r" % (lineno, line))
            continue
        name = m.group(0)
        i = m.end()
        labels = {}
        if i < len(line) and line[i] == "{":
            labels, i = parse_labels(line, i, lineno, errors)
            if labels is None:
                continue
        rest = line[i:]
        if not rest.startswith(" ") or rest.startswith("  "):
            errors.append("%d: expected one space before the value: %r" % (lineno, line))
            continue
        parts = rest[1:].split(" ")
        if len(parts) not in (1, 2) or "" in parts:
            errors.append("%d: expected VALUE [TIMESTAMP]: %r" % (lineno, rest))
            continue
        if not VALUE.fullmatch(parts[0]):
            errors.append("%d: bad value %r" % (lineno, parts[0]))
            continue
        if len(parts) == 2 and not TIMESTAMP.fullmatch(parts[1]):
            errors.append("%d: bad timestamp %r" % (lineno, parts[1]))
        value = float(parts[0].replace("Inf", "inf").replace("NaN", "nan"))

        fname = family_of(name, families)
        fam = families.get(fname)
        if fam is None or fam.help is None or fam.type is None:
            errors.append("%d: %s without HELP and TYPE before it" % (lineno, name))
            fam = families.setdefault(fname, Family())
        if fam.closed:
            errors.append("%d: %s after other families: a family's lines must be together"
                          % (lineno, name))
        switch_to(fname)
        fam.samples += 1
        if fam.type == "counter":
            if not name.endswith("_total"):
                errors.append("%d: counter %s does not end in _total" % (lineno, name))
            if math.isnan(value) or value < 0:
                errors.append("%d: counter %s is %s" % (lineno, name, parts[0]))
        if fam.type == "histogram" and name.endswith("_bucket") and "le" not in labels:
            errors.append("%d: histogram bucket %s without le" % (lineno, name))
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            errors.append("%d: duplicate series %s%s" % (lineno, name, labels))
        series.add(key)
        samples.append({"name": name, "labels": labels, "value": value})
    return errors, samples


# Each case: (exposition, the fragment of the one error expected, or None when valid).
SELF_TEST = [
    ("# HELP a_total A.\n# TYPE a_total counter\na_total 1\n", None),
    ("# HELP g G.\n# TYPE g gauge\ng{a=\"x\\\\y\\\"z\\n\"} -1.5e3\ng{a=\"w\"} NaN 1700000000\n",
     None),
    ("# TYPE g gauge\n# HELP g G.\ng +Inf\n", None),
    ("# HELP g G.\n# TYPE g gauge\n", None),
    ("# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\n"
     "h_sum 3\nh_count 2\n", None),
    ("# HELP g G.\n# TYPE g gauge\ng 1", "does not end with a newline"),
    ("# HELP g G.\n# TYPE g gauge\n\ng 1\n", "blank line"),
    ("# a comment\n# HELP g G.\n# TYPE g gauge\ng 1\n", "not \"# HELP"),
    ("g 1\n", "without HELP and TYPE"),
    ("# TYPE g gauge\ng 1\n", "without HELP and TYPE"),
    ("# HELP g G.\ng 1\n", "without HELP and TYPE"),
    ("# HELP g G.\n# TYPE g gauge\ng 1\n# HELP h H.\n# TYPE h gauge\nh 1\ng 2\n",
     "must be together"),
    ("# HELP g G.\n# TYPE g gauge\ng 1\n# TYPE g gauge\n", "after its samples"),
    ("# HELP g G.\n# HELP g G.\n# TYPE g gauge\ng 1\n", "second HELP"),
    ("# HELP g G.\n# TYPE g gauge\n# TYPE g gauge\ng 1\n", "second TYPE"),
    ("# HELP g G.\n# TYPE g gage\ng 1\n", "TYPE g is 'gage'"),
    ("# HELP c C.\n# TYPE c counter\nc 1\n", "does not end in _total"),
    ("# HELP c_total C.\n# TYPE c_total counter\nc_total -1\n", "counter c_total is -1"),
    ("# HELP 1g G.\n# TYPE 1g gauge\n", "bad metric name"),
    ("# HELP g G.\n# TYPE g gauge\ng{1a=\"x\"} 1\n", "bad label name"),
    ("# HELP g G.\n# TYPE g gauge\ng{__a=\"x\"} 1\n", "reserved label name"),
    ("# HELP g G.\n# TYPE g gauge\ng{a=\"x\",a=\"y\"} 1\n", "label a twice"),
    ("# HELP g G.\n# TYPE g gauge\ng{a=\"x\\t\"} 1\n", "invalid escape"),
    ("# HELP g G.\n# TYPE g gauge\ng{a=\"x\"\"} 1\n", "expected , or }"),
    ("# HELP g G.\n# TYPE g gauge\ng{a=\"x\",} 1\n", "trailing comma"),
    ("# HELP g G.\n# TYPE g gauge\ng{a=\"x} 1\n", "unterminated"),
    ("# HELP g G.\n# TYPE g gauge\ng{a=\"x\"} 1\ng{a=\"x\"} 2\n", "duplicate series"),
    ("# HELP g G.\n# TYPE g gauge\ng  1\n", "one space"),
    ("# HELP g G.\n# TYPE g gauge\ng 1.2.3\n", "bad value"),
    ("# HELP g G.\n# TYPE g gauge\ng 1 12a\n", "bad timestamp"),
    ("# HELP h H.\n# TYPE h histogram\nh_bucket 1\n", "without le"),
    ("# HELP g a \\t b\n# TYPE g gauge\ng 1\n", "invalid escape in HELP"),
]


def self_test():
    failed = 0
    for text, want in SELF_TEST:
        errors, _ = check(text.encode())
        ok = (not errors) if want is None else any(want in e for e in errors)
        if not ok:
            failed += 1
            print("self-test: %r: expected %s, got %r" % (text, want or "valid", errors))
    bad_utf8, _ = check(b"# HELP g G.\n# TYPE g gauge\ng{a=\"\xff\"} 1\n")
    if not any("not UTF-8" in e for e in bad_utf8):
        failed += 1
        print("self-test: invalid UTF-8 accepted")
    print("check_exposition self-test: %d passed, %d failed" % (len(SELF_TEST) + 1 - failed,
                                                                 failed))
    return 1 if failed else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if len(args) != 1:
        print("usage: check_exposition.py [--json] FILE|-  |  --self-test", file=sys.stderr)
        return 2
    data = sys.stdin.buffer.read() if args[0] == "-" else open(args[0], "rb").read()
    errors, samples = check(data)
    for e in errors:
        print("%s:%s" % (args[0], e))
    if errors:
        return 1
    if as_json:
        json.dump(samples, sys.stdout)
        print()
    else:
        print("%s: %d samples in %d families: valid exposition 0.0.4"
              % (args[0], len(samples), len({s["name"] for s in samples})))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
