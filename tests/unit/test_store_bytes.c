/* A guard on what the live node store holds per node, not timed: the
 * generated reports of the benchmarks (bench/gen_node.c, the same bytes on
 * every machine) for N and 2N nodes, the bytes the store accounts for
 * (store_bytes) and, outside sanitizer builds, malloc's own count of the
 * bytes in use (mallinfo2). docs/benchmarks.md, "Serve at 5,000 nodes". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <malloc.h>
#include <stdio.h>

#include "../../bench/gen_node.c"
#include "store.h"

#define N 1000

/* Measured when this test was added: 1,570 bytes a node held by the
 * store's accounting at 2N (pieces shared by every node counted in), 1,547
 * bytes a node more from N to 2N, 1,689 bytes a node by mallinfo2 (with
 * malloc's own headers). The bounds are those plus 8 %: a record that holds
 * one pointer more per finding and facts entry (+160 bytes a node) fails. */
#define BOUND_PER_NODE	  1700
#define BOUND_MALLOC_NODE 1825

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

static void ingest(struct store *s, long from, long to)
{
	struct gen_opts o = {.cpus = GEN_CPUS_INTEL, .seed = 1};
	struct gen_tally t = {0};
	for (long i = from; i <= to; i++) {
		struct node_report *r = xcalloc(1, sizeof(*r));
		gen_node_report(r, &o, i, &t);
		assert_int_equal(store_put(s, r, 1000 + i, 0), 1);
	}
}

static void test_bytes_per_node(void **state)
{
	struct store s;
	store_init(&s);
	size_t heap0 = heap_in_use();
	ingest(&s, 1, N);
	assert_int_equal(s.n, N);
	size_t b1 = store_bytes(&s), heap1 = heap_in_use();
	ingest(&s, N + 1, 2 * N);
	assert_int_equal(s.n, 2 * N);
	size_t b2 = store_bytes(&s), heap2 = heap_in_use();
	double per1 = (double)b1 / N, per2 = (double)b2 / (2 * N), marginal = (double)(b2 - b1) / N;
	print_message("store: %.0f bytes a node at %d nodes, %.0f at %d, %.0f a node more\n", per1,
		      N, per2, 2 * N, marginal);
	assert_true(per2 <= BOUND_PER_NODE);
	assert_true(marginal <= BOUND_PER_NODE);
	/* linear: the second N nodes cost no more a node than the first (10 %) */
	assert_true(marginal <= per1 * 1.1);
#ifndef __SANITIZE_ADDRESS__
	double mper = (double)(heap2 - heap0) / (2 * N);
	print_message("malloc: %.0f bytes a node in use at %d nodes (%zu at %d)\n", mper, 2 * N,
		      (heap1 - heap0) / N, N);
	assert_true(mper <= BOUND_MALLOC_NODE);
#else
	(void)heap0;
	(void)heap1;
	(void)heap2;
#endif
	store_clear(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bytes_per_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
