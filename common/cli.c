#include "cli.h"

#include <getopt.h>
#include <string.h>

#include "catalog.h"
#include "log.h"
#include "suggest.h"

/* The program and command cli_main() dispatched to, for cli_getopt(). */
static const struct cli_program *cur_prog;
static size_t cur_cmd;

#define HELP_COLUMN 32

/* "[--name ARG]" of opt, or "--name ARG" when required. */
static char *synopsis_item(const struct cli_option *o)
{
	return xasprintf("%s--%s%s%s%s", o->required ? "" : "[", o->name, o->arg ? " " : "",
			 o->arg ? o->arg : "", o->required ? "" : "]");
}

/* "  PROG CMD [--a A] [--b]..." wrapped before 80 columns under the first option. */
static void print_synopsis(FILE *f, const struct cli_program *p, size_t cmd, const char *lead)
{
	int indent = fprintf(f, "%s%s %s", lead, p->name, p->cmds[cmd].name), col = indent;
	for (size_t i = 0; i < p->n_opts; i++) {
		if (!(p->opts[i].cmds & (1u << cmd)))
			continue;
		_cleanup_free_ char *item = synopsis_item(&p->opts[i]);
		int len = (int)strlen(item) + 1;
		if (col + len > 79 && col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
		col += fprintf(f, " %s", item);
	}
	fputc('\n', f);
}

void cli_usage(FILE *f, const struct cli_program *p)
{
	fputs("Usage:\n", f);
	for (size_t i = 0; i < p->n_cmds; i++)
		if (p->cmds[i].summary)
			print_synopsis(f, p, i, "  ");
	fprintf(f,
		"  %s --help | --version\n"
		"  %s COMMAND --help\n\n%s",
		p->name, p->name, p->exit_status);
}

/* "  --name ARG" and the description from HELP_COLUMN, wrapped at words
 * before column 80 under the description. */
static void print_option(FILE *f, const char *left, const char *help, const char *def)
{
	int col = fprintf(f, "  %s", left);
	if (col >= HELP_COLUMN - 1) {
		fputc('\n', f);
		col = 0;
	}
	fprintf(f, "%*s", HELP_COLUMN - col, "");
	col = HELP_COLUMN;
	_cleanup_free_ char *text = def ? xasprintf("%s (default: %s)", help, def) : xstrdup(help);
	bool first = true;
	for (char *save = NULL, *w = strtok_r(text, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		int len = (int)strlen(w);
		if (!first && col + 1 + len > 79) {
			fprintf(f, "\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
			first = true;
		}
		col += fprintf(f, "%s%s", first ? "" : " ", w);
		first = false;
	}
	fputc('\n', f);
}

void cli_command_help(FILE *f, const struct cli_program *p, size_t cmd)
{
	print_synopsis(f, p, cmd, "Usage: ");
	fprintf(f, "\n%s\n\nOptions:\n", p->cmds[cmd].summary ? p->cmds[cmd].summary : "");
	for (size_t i = 0; i < p->n_opts; i++) {
		const struct cli_option *o = &p->opts[i];
		if (!(o->cmds & (1u << cmd)))
			continue;
		_cleanup_free_ char *left =
		    xasprintf("--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		print_option(f, left, o->help, o->def);
	}
	print_option(f, "-h, --help", "print this help and exit", NULL);
	fprintf(f, "\n%s", p->exit_status);
}

/* PROG --help: the commands, one line each. */
static void program_help(FILE *f, const struct cli_program *p)
{
	fprintf(f, "Usage: %s COMMAND [OPTION...]\n\nCommands:\n", p->name);
	for (size_t i = 0; i < p->n_cmds; i++)
		if (p->cmds[i].summary)
			fprintf(f, "  %-14s %s\n", p->cmds[i].name, p->cmds[i].summary);
	fprintf(f,
		"\n  %s COMMAND --help   the command's options\n"
		"  %s --version        the version\n\n%s",
		p->name, p->name, p->exit_status);
}

int cli_main(int argc, char **argv, const struct cli_program *prog)
{
	log_set_prefix(prog->name);
	if (argc < 2) {
		cli_usage(stderr, prog);
		return 2;
	}
	if (streq(argv[1], "--version")) {
		printf("%s %s\n", prog->name, HVREADY_VERSION);
		return 0;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h")) {
		program_help(stdout, prog);
		return 0;
	}
	for (size_t i = 0; i < prog->n_cmds; i++)
		if (streq(argv[1], prog->cmds[i].name)) {
			cur_prog = prog;
			cur_cmd = i;
			return prog->cmds[i].run(argc - 1, argv + 1);
		}
	const char *names[prog->n_cmds + 1];
	size_t n = 0;
	for (size_t i = 0; i < prog->n_cmds; i++)
		if (prog->cmds[i].summary)
			names[n++] = prog->cmds[i].name;
	char hint[128];
	log_warnx("unknown command \"%s\"%s", argv[1],
		  suggest_hint(argv[1], names, n, hint, sizeof(hint)));
	cli_usage(stderr, prog);
	return 2;
}

int cli_getopt(int argc, char **argv)
{
	static struct option *longopts;
	static size_t built_for = SIZE_MAX;
	const struct cli_program *p = cur_prog;
	if (!p)
		abort(); /* only under cli_main() */
	if (built_for != cur_cmd) {
		free(longopts);
		longopts = xmalloc((p->n_opts + 2) * sizeof(*longopts));
		size_t n = 0;
		for (size_t i = 0; i < p->n_opts; i++) {
			if (!(p->opts[i].cmds & (1u << cur_cmd)))
				continue;
			/* Two rows of one name or one value for a command: a table bug. */
			for (size_t k = 0; k < n; k++)
				if (streq(longopts[k].name, p->opts[i].name) ||
				    longopts[k].val == p->opts[i].val)
					abort();
			longopts[n++] = (struct option){p->opts[i].name, p->opts[i].has_arg, NULL,
							p->opts[i].val};
		}
		longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
		longopts[n] = (struct option){0};
		built_for = cur_cmd;
	}
	int c = getopt_long(argc, argv, "h", longopts, NULL);
	if (c == 'h') {
		cli_command_help(stdout, p, cur_cmd);
		exit(fflush(stdout) == 0 ? 0 : 2);
	}
	if (c == '?' || c == ':') {
		print_synopsis(stderr, p, cur_cmd, "Usage: ");
		fprintf(stderr, "See '%s %s --help'.\n", p->name, p->cmds[cur_cmd].name);
		exit(2);
	}
	return c;
}

void cli_check_ids(struct strv *v, const char *arg, const char *opt, bool host_only)
{
	struct strv ids = {0};
	strv_split(&ids, arg, ",");
	for (size_t i = 0; i < ids.n; i++) {
		const struct check_info *ci = catalog_find(ids.items[i]);
		if (!ci || (host_only && ci->source != CHECK_HOST)) {
			const char *known[catalog_len];
			size_t n = 0;
			for (size_t k = 0; k < catalog_len; k++)
				if (!host_only || catalog[k].source == CHECK_HOST)
					known[n++] = catalog[k].id;
			char hint[128], shown[65];
			fatalx("%s: unknown %scheck \"%s\"%s", opt, host_only ? "host " : "",
			       suggest_quote(ids.items[i], shown, sizeof(shown)),
			       suggest_hint(ids.items[i], known, n, hint, sizeof(hint)));
		}
		strv_add(v, ids.items[i]);
	}
	strv_clear(&ids);
}

const char *cli_choice(const char *opt, const char *arg, const char *const *choices)
{
	_cleanup_free_ char *list = NULL;
	for (const char *const *c = choices; *c; c++) {
		if (streq(arg, *c))
			return arg;
		char *l = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", *c);
		free(list);
		list = l;
	}
	char hint[128];
	size_t n = 0;
	while (choices[n])
		n++;
	fatalx("%s: \"%s\" is not one of %s%s", opt, arg, list ? list : "",
	       suggest_hint(arg, choices, n, hint, sizeof(hint)));
}

int cli_seconds(const char *opt, const char *arg, int max)
{
	int64_t t;
	if (util_parse_i64(arg, &t) < 0 || t < 1 || t > max)
		fatalx("%s: \"%s\" is not a number of seconds from 1 to %d", opt, arg, max);
	return (int)t;
}

void cli_no_operands(int argc, char **argv, const char *cmd)
{
	if (optind < argc)
		fatalx("%s: unexpected argument \"%s\"", cmd, argv[optind]);
}
