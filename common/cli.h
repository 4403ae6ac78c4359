/* The command line pieces hvready-agent and hvready-aggregator share: their
 * main() (a table of subcommands) and the option values both parse the same
 * way. Every helper here that finds a bad value exits with status 2 (fatalx). */
#pragma once
#include <stdio.h>
#include "util.h"

/* A subcommand: argv[0] of run is the subcommand's name. */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
};

/* main() of prog: --version, --help/-h, or the subcommand named by argv[1];
 * no argument or an unknown one ends in usage(stderr, 2). usage() exits. */
int cli_main(int argc, char **argv, const char *prog, const struct cli_command *cmds, size_t n_cmds,
	     void (*usage)(FILE *f, int code));

/* --skip/--only ID,...: each ID added to v; an ID not in the catalog (with
 * host_only: not a host check) is fatal. */
void cli_check_ids(struct strv *v, const char *arg, const char *opt, bool host_only);

/* arg, when it is one of the NULL-terminated choices; fatal otherwise. */
const char *cli_choice(const char *opt, const char *arg, const char *const *choices);

/* A number of seconds from 1 to max; fatal otherwise. */
int cli_seconds(const char *opt, const char *arg, int max);

/* After getopt_long(): operands left over are fatal. */
void cli_no_operands(int argc, char **argv, const char *cmd);
