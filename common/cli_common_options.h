/*
 * Rows that both programs' options[] tables (agent/main.c, aggregator/main.c)
 * carry with the same meaning: one definition, so that --skip and --only read
 * the same in both --help texts and man pages. WHAT names the checks they act
 * on ("host checks", "checks"); both lists are parsed by common/check_select.c.
 */
#pragma once
#include "cli.h"

#define CLI_OPTION_SKIP(val, cmds, what)                                                           \
	{                                                                                          \
		"skip", required_argument, (val), (cmds), "ID,...",                                \
		    "leave out these " what " (reported as SKIP)", NULL, false                     \
	}
#define CLI_OPTION_ONLY(val, cmds, what)                                                           \
	{                                                                                          \
		"only", required_argument, (val), (cmds), "ID,...",                                \
		    "run only these " what ", the others are SKIP", NULL, false                    \
	}
