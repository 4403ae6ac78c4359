#!/usr/bin/env bash
# --help, the parsers and the man pages (docs/man/*.8) against each other:
#  - `PROG --help` lists every command of the source's command table, and the
#    man page's SYNOPSIS has a line for each;
#  - `PROG COMMAND --help` prints "Usage: PROG COMMAND ..." and the options to
#    stdout, nothing to stderr, exit 0;
#  - every option of a command's --help is in that command's SYNOPSIS line of
#    the man page and the other way round, and every option of any --help has
#    an entry in OPTIONS, and every entry there is an option of some command;
#  - every option in the source's option table (the `{"name", ..._argument`
#    rows of PROG's main.c) is shown by some --help, and each option shown is
#    accepted by the parser with the value --help says it takes (no
#    "unrecognized option", "requires an argument", "doesn't allow an
#    argument"), while a made-up option is refused with one line and exit 2;
#  - the pages render without a warning (groff -ww; mandoc -T lint when
#    installed), have NAME ... SEE ALSO, EXIT STATUS with 0, 1, 2 and 3, and an
#    ENVIRONMENT entry for every variable the program's sources read (getenv()
#    literals and "HVREADY_*" names, the test-only HVREADY_TEST_* aside).
set -euo pipefail
: "${HVREADY_BIN:?}" "${HVREADY_SRC:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for page in "$HVREADY_SRC"/docs/man/*.8; do
	warn=$(groff -man -ww -z -Tutf8 "$page" 2>&1) || { echo "FAIL: groff failed on $page: $warn"; exit 1; }
	[ -z "$warn" ] || { echo "FAIL: groff warns on $page:"; echo "$warn"; exit 1; }
	if command -v mandoc >/dev/null; then
		lint=$(mandoc -T lint -W warning "$page" 2>&1) || { echo "FAIL: mandoc -T lint $page:"; echo "$lint"; exit 1; }
	fi
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$page" >"$tmp/rendered" 2>"$tmp/man.err" || true
		[ -s "$tmp/rendered" ] || { echo "FAIL: man -l $page printed nothing"; cat "$tmp/man.err"; exit 1; }
	fi
done

/usr/bin/python3 - "$HVREADY_BIN" "$HVREADY_SRC" <<'PY'
import glob, os, re, subprocess, sys
bindir, src = sys.argv[1], sys.argv[2]
problems = []

def run(args, timeout=20):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, NO_COLOR="1"))
    return p.returncode, p.stdout, p.stderr

GETOPT_ERRORS = ("unrecognized option", "requires an argument", "doesn't allow an argument",
                 "invalid option", "is ambiguous")
OPT_LINE = re.compile(r"^  (?:-h, )?--([a-z0-9-]+)(?: (\S+))?", re.M)

def sections(man):
    out, cur = {}, None
    for line in man.splitlines():
        m = re.match(r'^\.SH\s+"?([^"]+?)"?\s*$', line)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return {k: "\n".join(v) for k, v in out.items()}

def man_opts(text):
    return {m.replace("\\-", "-")
            for m in re.findall(r"\\-\\-([a-z0-9](?:[a-z0-9-]|\\-)*)", text)}

for prog, srcdir in (("hvready-agent", "agent"), ("hvready-aggregator", "aggregator")):
    exe = os.path.join(bindir, prog)
    mainc = open(os.path.join(src, srcdir, "main.c")).read()
    man = open(os.path.join(src, "docs/man", prog + ".8")).read()
    sec = sections(man)
    for want in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT",
                 "FILES", "EXAMPLES", "SEE ALSO"):
        if not sec.get(want, "").strip():
            problems.append("%s.8: no (or an empty) %s section" % (prog, want))
    for code in "0123":
        if not re.search(r"^\.B %s$" % code, sec.get("EXIT STATUS", ""), re.M):
            problems.append("%s.8: EXIT STATUS does not describe %s" % (prog, code))

    # ENVIRONMENT: what the program's sources read.
    env = set()
    for f in glob.glob(os.path.join(src, srcdir, "*.c")) + glob.glob(os.path.join(src, "common", "*.c")):
        text = open(f).read()
        env |= set(re.findall(r'getenv\("([A-Z_][A-Z0-9_]*)"\)', text))
        env |= set(re.findall(r'"(HVREADY_[A-Z0-9_]+)"', text))
    env = {e for e in env if not e.startswith("HVREADY_TEST_")}
    documented_env = set(re.findall(r"^\.BR? (.*)$", sec.get("ENVIRONMENT", ""), re.M))
    documented_env = set(re.findall(r"[A-Z_][A-Z0-9_]+", " ".join(documented_env)))
    for e in sorted(env - documented_env):
        problems.append("%s.8: ENVIRONMENT does not describe %s (read by the %s sources)" % (prog, e, srcdir))

    rc, out, err = run([exe, "--help"])
    if rc != 0 or err:
        problems.append("%s --help: exit %d, stderr %r" % (prog, rc, err))
    cmds = re.findall(r"^  ([a-z][a-z-]*) {2,}\S", out.split("Commands:", 1)[-1], re.M)
    source_cmds = [c for c in re.findall(r'\{"([a-z_][a-z-]*)", cmd_[a-z_]+', mainc)]
    if not source_cmds:
        problems.append("%s/main.c: no command table found" % srcdir)
    for c in source_cmds:
        if c not in cmds:
            problems.append("%s --help does not list the command %s" % (prog, c))
    synopsis = sec.get("SYNOPSIS", "")
    all_help, help_args = set(), {}
    for cmd in cmds:
        rc, out, err = run([exe, cmd, "--help"])
        if rc != 0 or err or not out.startswith("Usage: %s %s" % (prog, cmd)):
            problems.append("%s %s --help: exit %d, stderr %r, stdout starts %r" % (prog, cmd, rc, err, out[:40]))
            continue
        opts = {}
        for name, arg in OPT_LINE.findall(out.split("Options:", 1)[-1]):
            opts[name] = arg
        if "help" not in opts:
            problems.append("%s %s --help does not show --help" % (prog, cmd))
        opts.pop("help", None)
        all_help |= set(opts)
        for o, a in opts.items():
            help_args.setdefault(o, set()).add(bool(a))
        # The man page's SYNOPSIS line(s) of this command.
        m = re.search(r"^\.B %s %s\n(.*?)(?=^\.br|^\.SH|\Z)" % (re.escape(prog), re.escape(cmd)),
                      synopsis, re.M | re.S)
        if not m:
            problems.append("%s.8: SYNOPSIS has no line for %s" % (prog, cmd))
        else:
            in_man = man_opts(m.group(1))
            for o in sorted(set(opts) - in_man):
                problems.append("%s %s: --%s is in --help, not in the man page's SYNOPSIS" % (prog, cmd, o))
            for o in sorted(in_man - set(opts)):
                problems.append("%s %s: --%s is in the man page's SYNOPSIS, not in --help" % (prog, cmd, o))
        # The parser takes every option shown, with the value shown.
        for o, a in sorted(opts.items()):
            arg = "--%s=hvready-test-value" % o if a else "--" + o
            rc, out2, err2 = run([exe, cmd, arg, "hvready-test-operand"])
            bad = [e for e in GETOPT_ERRORS if e in err2]
            if bad or rc == 0:
                problems.append("%s %s %s: exit %d, %r" % (prog, cmd, arg, rc, err2.strip()[:200]))
        rc, out2, err2 = run([exe, cmd, "--hvready-no-such-option"])
        first = err2.splitlines()[0] if err2 else ""
        if rc != 2 or "unrecognized option" not in first:
            problems.append("%s %s --hvready-no-such-option: exit %d, stderr %r" % (prog, cmd, rc, err2[:200]))
        if out2:
            problems.append("%s %s --hvready-no-such-option: printed to stdout" % (prog, cmd))

    # OPTIONS: one entry per option of any command, no entry for another.
    entries = set()
    lines = sec.get("OPTIONS", "").splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".TP") and i + 1 < len(lines):
            entries |= man_opts(lines[i + 1])
    entries -= {"help", "version"}
    for o in sorted(all_help - entries):
        problems.append("%s.8: OPTIONS has no entry for --%s" % (prog, o))
    for o in sorted(entries - all_help):
        problems.append("%s.8: OPTIONS describes --%s, which no command's --help shows" % (prog, o))
    if not re.search(r"^\.BR \\-h \", \" \\-\\-help$", sec.get("OPTIONS", ""), re.M):
        problems.append("%s.8: OPTIONS has no entry for -h, --help" % prog)

    # The source's option table against --help: a row of struct option or
    # struct cli_option anywhere in main.c, or a shared row of
    # common/cli_common_options.h that main.c names (CLI_OPTION_SKIP(...)).
    table = {}
    row = r'\{\s*"([a-z0-9-]+)",\s*(no|required|optional)_argument'
    for name, has in re.findall(row, mainc):
        table[name] = has != "no"
    shared = open(os.path.join(src, "common", "cli_common_options.h")).read().replace("\\\n", " ")
    shared_rows = dict((m, (n, h)) for m, n, h in re.findall(
        r"#define (CLI_OPTION_[A-Z_]+)\([^)]*\)\s*" + row, shared))
    for macro in re.findall(r"\b(CLI_OPTION_[A-Z_]+)\(", mainc):
        if macro not in shared_rows:
            problems.append("%s/main.c: %s is no row of common/cli_common_options.h" % (srcdir, macro))
            continue
        name, has = shared_rows[macro]
        table[name] = has != "no"
    table.pop("help", None)
    if not table:
        problems.append("%s/main.c: no option table found" % srcdir)
    for o in sorted(set(table) - all_help):
        problems.append("%s: --%s is in %s/main.c's option table, in no command's --help" % (prog, o, srcdir))
    for o in sorted(all_help - set(table)):
        problems.append("%s: --%s is shown by --help, not in %s/main.c's option table" % (prog, o, srcdir))
    for o, shown in sorted(help_args.items()):
        if o in table and shown != {table[o]}:
            problems.append("%s --%s: --help shows it %s a value, the table says %s" % (
                prog, o, "with" if True in shown else "without", table[o]))
    print("%s: %d commands, %d options, checked" % (prog, len(cmds), len(all_help)))

if problems:
    print("FAIL:\n  " + "\n  ".join(problems))
    sys.exit(1)
PY
echo PASS
