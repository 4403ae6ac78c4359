#include "cli.h"

#include <getopt.h>
#include <string.h>

#include "catalog.h"
#include "log.h"
#include "suggest.h"

int cli_main(int argc, char **argv, const char *prog, const struct cli_command *cmds, size_t n_cmds,
	     void (*usage)(FILE *f, int code))
{
	log_set_prefix(prog);
	if (argc < 2) {
		usage(stderr, 2);
		return 2;
	}
	if (streq(argv[1], "--version")) {
		printf("%s %s\n", prog, HVREADY_VERSION);
		return 0;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h")) {
		usage(stdout, 0);
		return 0;
	}
	for (size_t i = 0; i < n_cmds; i++)
		if (streq(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	const char *names[n_cmds + 1];
	for (size_t i = 0; i < n_cmds; i++)
		names[i] = cmds[i].name;
	char hint[128];
	log_warnx("unknown command \"%s\"%s", argv[1],
		  suggest_hint(argv[1], names, n_cmds, hint, sizeof(hint)));
	usage(stderr, 2);
	return 2;
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
