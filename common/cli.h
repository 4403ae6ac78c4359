/* The command line pieces hvready-agent and hvready-aggregator share: their
 * main() (a table of subcommands) and the option values both parse the same
 * way. Every helper here that finds a bad value exits with status 2 (fatalx). */
#pragma once
#include <stdio.h>
#include "util.h"

/* One option of a program: what getopt_long() accepts (name, has_arg, val)
 * and what `PROG COMMAND --help`, the usage text and the synopsis say of it.
 * The program's table is the one place an option is declared: the parsers
 * get their getopt_long() tables from it (cli_getopt), so what is accepted
 * and what is documented cannot differ. */
struct cli_option {
	const char *name; /* without the leading "--" */
	int has_arg;	  /* no_argument or required_argument */
	int val;	  /* what cli_getopt() returns for it */
	unsigned cmds;	  /* the commands that accept it: bit i is cmds[i] of the program */
	const char *arg;  /* the value's name (FILE, SEC, text|json); NULL without a value */
	const char *help; /* one line: what it does */
	const char *def;  /* the default, NULL when there is none to tell */
	bool required;	  /* shown without [ ] in the synopsis */
};

/* A subcommand: argv[0] of run is the subcommand's name. */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary; /* one line for `PROG --help`; NULL: internal, not listed */
};

struct cli_program {
	const char *name;
	const struct cli_command *cmds;
	size_t n_cmds;
	const struct cli_option *opts;
	size_t n_opts;
	const char *exit_status; /* the EXIT STATUS paragraph of the help */
};

/* main() of prog: --version, --help/-h (the commands, one line each), or the
 * subcommand named by argv[1]; no argument or an unknown one prints the usage
 * to stderr and returns 2. */
int cli_main(int argc, char **argv, const struct cli_program *prog);

/* getopt_long() over the options of the running command (the one cli_main()
 * dispatched to). --help/-h prints the command's help to stdout and exits 0;
 * an unknown option or a missing value: getopt's one-line error, the
 * command's synopsis, exit 2. Returns the option's val, or -1 at the end. */
int cli_getopt(int argc, char **argv);

/* Usage of the whole program (every command's synopsis) to f. */
void cli_usage(FILE *f, const struct cli_program *prog);

/* The help of command cmd (its index in prog->cmds) to f: synopsis, summary,
 * every option with its value, description and default, the exit status. */
void cli_command_help(FILE *f, const struct cli_program *prog, size_t cmd);

/* --skip/--only ID,...: each ID added to v; an ID not in the catalog (with
 * host_only: not a host check) is fatal. */
void cli_check_ids(struct strv *v, const char *arg, const char *opt, bool host_only);

/* arg, when it is one of the NULL-terminated choices; fatal otherwise. */
const char *cli_choice(const char *opt, const char *arg, const char *const *choices);

/* A number of seconds from 1 to max; fatal otherwise. */
int cli_seconds(const char *opt, const char *arg, int max);

/* After getopt_long(): operands left over are fatal. */
void cli_no_operands(int argc, char **argv, const char *cmd);
