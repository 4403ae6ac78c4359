/* Per-node bearer tokens (--node-token-file): parsing, binding, reloading. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node_tokens.h"

#define T1 "0123456789abcdef-node-1"
#define T2 "0123456789abcdef-node-2"

static struct node_tokens *parse_ok(const char *text, size_t want)
{
	struct node_tokens *nt = NULL;
	char err[256] = "";
	assert_int_equal(node_tokens_parse(text, strlen(text), &nt, err, sizeof(err)), 0);
	assert_int_equal(node_tokens_count(nt), want);
	return nt;
}

static void parse_bad(const char *text, const char *why)
{
	struct node_tokens *nt = NULL;
	char err[256] = "";
	assert_int_equal(node_tokens_parse(text, strlen(text), &nt, err, sizeof(err)), -EINVAL);
	assert_null(nt);
	assert_non_null(strstr(err, why));
	/* The reason names the line, never a token. */
	assert_null(strstr(err, "0123456789abcdef"));
}

static void test_parse(void **state)
{
	struct node_tokens *nt =
	    parse_ok("# nodes\n\n  n1 " T1 "\r\nn2\t" T2 "  \n   # indented comment\n", 2);
	node_tokens_free(nt);
	parse_bad("", "no NODE TOKEN");
	parse_bad("# only\n", "no NODE TOKEN");
	parse_bad("n1\n", "line 1: expected NODE TOKEN");
	parse_bad("n1 " T1 " extra\n", "found more");
	parse_bad("n1 short\n", "shorter than 16");
	parse_bad("n1 " T1 "\nn1 " T2 "\n", "line 2: node given twice");
	parse_bad("n1 " T1 "\nn2 " T1 "\n", "line 2: token given for two nodes");
}

static void test_check(void **state)
{
	struct node_tokens *nt = parse_ok("n1 " T1 "\nn2 " T2 "\n", 2);
	const char *why = NULL;
	assert_int_equal(node_tokens_check(nt, T1, "n1", &why), 0);
	assert_int_equal(node_tokens_check(nt, T2, "n2", &why), 0);
	/* A node's token cannot report for another node, nor invent one. */
	assert_int_equal(node_tokens_check(nt, T1, "n2", &why), 403);
	assert_non_null(strstr(why, "another node"));
	assert_int_equal(node_tokens_check(nt, T1, "n3", &why), 403);
	assert_non_null(strstr(why, "no token for this node"));
	assert_int_equal(node_tokens_check(nt, "0123456789abcdef-node-", "n1", &why), 401);
	assert_int_equal(node_tokens_check(nt, T1 "x", "n1", &why), 401);
	assert_int_equal(node_tokens_check(nt, "", "n1", &why), 401);
	node_tokens_free(nt);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static void test_load_reload(void **state)
{
	char dir[] = "/tmp/node-tokens-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/tokens", dir);
	struct node_tokens *nt = NULL;
	char err[256];
	write_file(path, "n1 " T1 "\n", 0644);
	assert_int_equal(node_tokens_load(path, &nt, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "readable by others"));
	write_file(path, "n1 " T1 "\n", 0600);
	assert_int_equal(node_tokens_load(path, &nt, err, sizeof(err)), 0);
	const char *why;
	int64_t now = 1000000000000;
	/* Unchanged: kept. Changed within the recheck gap: not looked at yet. */
	assert_false(node_tokens_reload(&nt, path, now));
	write_file(path, "n2 " T1 "\nn1 " T2 "\n", 0600);
	assert_false(node_tokens_reload(&nt, path, now + 1));
	assert_int_equal(node_tokens_check(nt, T1, "n1", &why), 0);
	/* After the gap: the new set is in force, the old binding gone. */
	assert_true(node_tokens_reload(&nt, path, now + NODE_TOKENS_RECHECK_NS + 1));
	assert_int_equal(node_tokens_check(nt, T1, "n1", &why), 403);
	assert_int_equal(node_tokens_check(nt, T1, "n2", &why), 0);
	/* A file that no longer parses keeps the previous set. */
	write_file(path, "garbage\n", 0600);
	assert_false(node_tokens_reload(&nt, path, now + 3 * NODE_TOKENS_RECHECK_NS));
	assert_int_equal(node_tokens_check(nt, T2, "n1", &why), 0);
	node_tokens_free(nt);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_load_reload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
