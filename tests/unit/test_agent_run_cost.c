// wrap: pthread_create libdeflate_alloc_decompressor gzdopen hostroot_opendir hostroot_read_line
/*
 * What one run of the host checks costs, counted rather than timed (issue #22,
 * docs/benchmarks.md figure 1): one worker thread a run, not one a check;
 * proc/config.gz inflated once, not by host.nfs.kernel and host.iscsi each;
 * proc/ listed and each proc/PID/comm read once a run, not by host.clock,
 * host.iscsi and host.multipathd each; and the cheap paths answer as the ones
 * they replace.
 */
#include "hostroot_fixture.h"
#include "helper.h"
#include "modules.h"

#include <pthread.h>
#include <libdeflate.h>
#include <zlib.h>

static int threads_started, inflations, proc_listings, comm_reads;

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
struct libdeflate_decompressor *__real_libdeflate_alloc_decompressor(void);
struct libdeflate_decompressor *__wrap_libdeflate_alloc_decompressor(void);
gzFile __real_gzdopen(int fd, const char *mode);
gzFile __wrap_gzdopen(int fd, const char *mode);

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	__atomic_add_fetch(&threads_started, 1, __ATOMIC_SEQ_CST);
	return __real_pthread_create(t, a, fn, arg);
}

/* One per modules_gunzip(), the whole-buffer inflate. */
struct libdeflate_decompressor *__wrap_libdeflate_alloc_decompressor(void)
{
	__atomic_add_fetch(&inflations, 1, __ATOMIC_SEQ_CST);
	return __real_libdeflate_alloc_decompressor();
}

gzFile __wrap_gzdopen(int fd, const char *mode)
{
	__atomic_add_fetch(&inflations, 1, __ATOMIC_SEQ_CST);
	return __real_gzdopen(fd, mode);
}

DIR *__real_hostroot_opendir(const struct hostroot *hr, const char *path);
DIR *__wrap_hostroot_opendir(const struct hostroot *hr, const char *path);
int __real_hostroot_read_line(const struct hostroot *hr, const char *path, char **ret);
int __wrap_hostroot_read_line(const struct hostroot *hr, const char *path, char **ret);

DIR *__wrap_hostroot_opendir(const struct hostroot *hr, const char *path)
{
	if (streq(path, "proc"))
		__atomic_add_fetch(&proc_listings, 1, __ATOMIC_SEQ_CST);
	return __real_hostroot_opendir(hr, path);
}

int __wrap_hostroot_read_line(const struct hostroot *hr, const char *path, char **ret)
{
	if (startswith(path, "proc/") && endswith(path, "/comm"))
		__atomic_add_fetch(&comm_reads, 1, __ATOMIC_SEQ_CST);
	return __real_hostroot_read_line(hr, path, ret);
}

static void run_all(struct hostroot_fixture *b)
{
	strv_add(&b->opts.skip, "host.nfs.probe");
	strv_add(&b->opts.skip, "host.image.share-manager");
	agent_run_checks(&b->ctx);
}

static const struct finding *find(const struct hostroot_fixture *b, const char *id)
{
	for (size_t i = 0; i < b->report.results.n; i++)
		if (streq(b->report.results.items[i].check, id))
			return &b->report.results.items[i];
	fail_msg("no finding of %s", id);
	return NULL;
}

/* b-nomod-nonfs has proc/config.gz and no other config: both checks read it. */
static void test_run_inflates_kconfig_once(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "b-nomod-nonfs");
	inflations = 0;
	run_all(&b);
	const struct finding *nfs = find(&b, "host.nfs.kernel");
	const struct value *kc = kv_get(&nfs->evidence, "kernel_config");
	assert_non_null(kc);
	assert_int_equal(kc->type, VALUE_MAP);
	assert_string_equal(kv_get_str(&kc->map, "file"), "/proc/config.gz");
	assert_non_null(find(&b, "host.iscsi"));
	/* The old agent: host.nfs.kernel's inflate, then host.iscsi's gzdopen. */
	assert_int_equal(inflations, 1);
	hf_close(&b);
}

static void test_run_starts_one_thread(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	threads_started = 0;
	run_all(&b);
	assert_true(b.report.results.n >= host_checks_len);
	assert_non_null(kv_get(&b.report.facts, "kernel_release"));
	/* The old agent: 12 (the identity, 10 checks, the facts); now the run's
	 * worker and its prefetch (agent/run_prefetch.h). */
	assert_int_equal(threads_started, 2);
	node_report_clear(&b.report);
	b.report = (struct node_report){0};
	threads_started = 0;
	run_all(&b);
	assert_int_equal(threads_started, 2);
	/* --only: the checks read what they need themselves, no prefetch. */
	node_report_clear(&b.report);
	b.report = (struct node_report){0};
	threads_started = 0;
	strv_add(&b.opts.only, "host.iscsi");
	agent_run_checks(&b.ctx);
	assert_int_equal(threads_started, 1);
	hf_close(&b);
}

/* b-debian12 has six processes (two iscsid): host.clock, host.iscsi and
 * host.multipathd answer from one listing of proc/ and one read of each comm
 * (the fixture is a copied tree: comm through hostroot_read_line), and
 * host.clock reads proc/1/comm once more (unitfiles_pid1_systemd: is PID 1
 * systemd). A check that scanned for itself would list proc/ again and read
 * six more. */
static void test_run_scans_proc_once(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	proc_listings = comm_reads = 0;
	run_all(&b);
	assert_non_null(find(&b, "host.clock"));
	assert_non_null(find(&b, "host.iscsi"));
	assert_non_null(find(&b, "host.multipathd"));
	assert_int_equal(proc_listings, 1);
	assert_int_equal(comm_reads, 6 + 1);
	/* The next run scans again: nothing is kept from one run to the next. */
	node_report_clear(&b.report);
	b.report = (struct node_report){0};
	proc_listings = comm_reads = 0;
	run_all(&b);
	assert_int_equal(proc_listings, 1);
	assert_int_equal(comm_reads, 6 + 1);
	hf_close(&b);
}

/* The daemon's network checks are its probe helper's: the worker adds nothing for them. */
static void test_run_defers_network(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12");
	b.ctx.defer_network = true;
	agent_run_checks(&b.ctx);
	for (size_t i = 0; i < b.report.results.n; i++)
		assert_false(agent_network_check(b.report.results.items[i].check));
	assert_int_equal(b.report.results.n, host_checks_len - helper_network_checks_len);
	hf_close(&b);
}

/* ---- the inflated copy answers as reading the file did ---- */

static void gz_append(const char *text, size_t len, char **buf, size_t *n)
{
	z_stream z = {0};
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
			 Z_OK);
	size_t cap = deflateBound(&z, (uLong)len);
	*buf = xrealloc(*buf, *n + cap);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)*buf + *n;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*n += cap - z.avail_out;
	deflateEnd(&z);
}

static void flatten_value(const struct value *v, FILE *sb);

static void flatten_kv(const struct kv_list *l, FILE *sb)
{
	for (size_t i = 0; i < l->n; i++) {
		fprintf(sb, "%s=", l->items[i].key);
		flatten_value(&l->items[i].val, sb);
		fprintf(sb, ";");
	}
}

static void flatten_value(const struct value *v, FILE *sb)
{
	switch (v->type) {
	case VALUE_STR:
		fprintf(sb, "\"%s\"", v->s);
		break;
	case VALUE_INT:
		fprintf(sb, "%lld", (long long)v->i);
		break;
	case VALUE_BOOL:
		fprintf(sb, "%s", v->b ? "true" : "false");
		break;
	case VALUE_LIST:
		fprintf(sb, "[");
		for (size_t i = 0; i < v->list.n; i++)
			flatten_value(&v->list.items[i], sb);
		fprintf(sb, "]");
		break;
	case VALUE_MAP:
		fprintf(sb, "{");
		flatten_kv(&v->map, sb);
		fprintf(sb, "}");
		break;
	}
}

/* A check's findings as one string: status, message, evidence, remedy. */
static char *run_flat(struct hostroot_fixture *b, host_check_fn fn, const char *id,
		      struct kconfig_cache *kc)
{
	node_report_clear(&b->report);
	b->report = (struct node_report){.node = xstrdup("test-node")};
	b->ctx.kconfig = kc;
	fn(&b->ctx, id);
	b->ctx.kconfig = NULL;
	char *out = NULL;
	size_t outlen = 0;
	FILE *sb = open_memstream(&out, &outlen);
	for (size_t i = 0; i < b->report.results.n; i++) {
		const struct finding *f = &b->report.results.items[i];
		fprintf(sb, "%s %s %s|", status_name(f->status), f->message,
			f->remediation ? f->remediation : "");
		flatten_kv(&f->evidence, sb);
	}
	fclose(sb);
	return out;
}

static char *value_of(struct hostroot_fixture *b, struct kconfig_cache *kc, const char *option)
{
	char *v = NULL;
	int r = kconfig_value_in(kc, &b->ctx.root, "6.1.0-test", option, &v);
	char *s = xasprintf("%d:%s", r, r == 1 ? v : "");
	free(v);
	return s;
}

static void same_answers(const char *name, const char *gz, size_t len, bool kept)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "proc/sys/kernel/osrelease", "6.1.0-test\n");
	hf_write_mode(&b, "proc/config.gz", gz, len, 0444);
	static const char *const options[] = {"CONFIG_MODULES", "CONFIG_NFS_V4_1",
					      "CONFIG_ISCSI_TCP", "CONFIG_LONG",
					      "CONFIG_NOT_THERE"};
	for (size_t i = 0; i < ELEMENTSOF(options); i++) {
		struct kconfig_cache kc = {0};
		_cleanup_free_ char *plain = value_of(&b, NULL, options[i]);
		_cleanup_free_ char *cached = value_of(&b, &kc, options[i]);
		if (!streq(plain, cached))
			fail_msg("%s, %s: read %s, cached %s", name, options[i], plain, cached);
		assert_int_equal(kc.text != NULL, kept);
		kconfig_cache_clear(&kc);
	}
	static const struct {
		host_check_fn fn;
		const char *id;
	} checks[] = {{check_nfs_kernel, "host.nfs.kernel"}, {check_iscsi, "host.iscsi"}};
	for (size_t i = 0; i < ELEMENTSOF(checks); i++) {
		struct kconfig_cache kc = {0};
		_cleanup_free_ char *plain = run_flat(&b, checks[i].fn, checks[i].id, NULL);
		_cleanup_free_ char *cached = run_flat(&b, checks[i].fn, checks[i].id, &kc);
		if (!streq(plain, cached))
			fail_msg("%s, %s:\nread   %s\ncached %s", name, checks[i].id, plain,
				 cached);
		kconfig_cache_clear(&kc);
	}
	hf_close(&b);
}

static void test_kconfig_cache_same_answers(void **state)
{
	(void)state;
	static const char base[] = "#\n# Linux/x86 6.1.0 Kernel Configuration\n#\n"
				   "CONFIG_MODULES=y\nCONFIG_NFS_FS=m\nCONFIG_NFS_V4=m\n"
				   "CONFIG_NFS_V4_1=y\n# CONFIG_NFS_V4_2 is not set\n"
				   "CONFIG_ISCSI_TCP=m\nCONFIG_DEFAULT_HOSTNAME=\"(none)\"\n";
	char *gz = NULL;
	size_t n = 0;
	gz_append(base, strlen(base), &gz, &n);
	same_answers("well-formed", gz, n, true);
	same_answers("truncated", gz, n * 2 / 3, false);
	same_answers("empty", gz, 0, false);

	char *more = xmalloc(n + 8);
	memcpy(more, gz, n);
	memcpy(more + n, "garbage", 7);
	same_answers("trailing bytes", more, n + 7, false);
	free(more);

	/* Two members: gzip(1) reads both, one inflate only the first. */
	size_t one = n;
	static const char second[] = "CONFIG_LONG=second\n";
	gz_append(second, strlen(second), &gz, &n);
	same_answers("two members", gz, n, false);
	n = one;

	static const char nul[] = "CONFIG_MODULES=y\nCONFIG_IS\0CSI_TCP=y\nCONFIG_ISCSI_TCP=m\n";
	char *g2 = NULL;
	size_t n2 = 0;
	gz_append(nul, sizeof(nul) - 1, &g2, &n2);
	same_answers("a NUL", g2, n2, false);
	free(g2);

	same_answers("not gzip", base, strlen(base), false);

	/* Lines longer than a read line (4096): cut where the reader cut them. */
	char *text = NULL;
	size_t textlen = 0;
	FILE *sb = open_memstream(&text, &textlen);
	fprintf(sb, "CONFIG_LONG=");
	for (int i = 0; i < 5000; i++)
		fprintf(sb, "%c", 'a' + i % 26);
	fprintf(sb, "\nCONFIG_X=");
	for (int i = 0; i < 4083; i++)
		fprintf(sb, "x");
	fprintf(sb, "\n%sCONFIG_NFS_V4_1=n", base);
	fclose(sb);
	g2 = NULL;
	n2 = 0;
	gz_append(text, strlen(text), &g2, &n2);
	same_answers("long lines, no final newline", g2, n2, true);
	free(g2);
	free(text);
	free(gz);
}

/* ---- host.nfs.kernel's config parse: only the lines that can name its symbols ---- */

static void config_case(const char *text, const char *want)
{
	struct hostroot_fixture b;
	hf_scratch(&b);
	hf_write(&b, "proc/sys/kernel/osrelease", "6.1.0-test\n");
	hf_write(&b, "boot/config-6.1.0-test", text);
	node_report_clear(&b.report);
	b.report = (struct node_report){.node = xstrdup("test-node")};
	check_nfs_kernel(&b.ctx, "host.nfs.kernel");
	const struct value *kc = kv_get(&find(&b, "host.nfs.kernel")->evidence, "kernel_config");
	assert_non_null(kc);
	char *got = NULL;
	size_t n = 0;
	FILE *sb = open_memstream(&got, &n);
	if (kc->type == VALUE_MAP)
		flatten_kv(&kc->map, sb);
	else
		flatten_value(kc, sb);
	fclose(sb);
	if (!streq(got, want))
		fail_msg("config:\n%s\nwant %s\ngot  %s", text, want, got);
	free(got);
	hf_close(&b);
}

/* What reading the config line by line gives: the last line of a symbol wins,
 * "# CONFIG_X is not set" only as a whole line, a name only up to the first '='. */
static void test_kconfig_parse_lines(void **state)
{
	(void)state;
	config_case("CONFIG_MODULES=y\n# CONFIG_NFS_FS is not set\nCONFIG_NFS_FS=m\n"
		    "CONFIG_NFS_V4=y\nCONFIG_NFS_V4=m\nCONFIG_NFS_V4_1=n\n"
		    "# CONFIG_NFS_V4_2 is not set\n",
		    "file=\"/boot/config-6.1.0-test\";CONFIG_MODULES=\"y\";CONFIG_NFS_FS=\"m\";"
		    "CONFIG_NFS_V4=\"m\";CONFIG_NFS_V4_1=\"absent\";CONFIG_NFS_V4_2=\"not set\";");
	/* Not at the start of a line, not the whole "is not set", a longer name,
	 * two '#', a value after '=' that is neither y nor m, no final newline. */
	config_case("x CONFIG_MODULES=y\n## CONFIG_NFS_FS is not set\n"
		    "# CONFIG_NFS_V4 is not set!\nCONFIG_NFS_V4_10=y\nCONFIG_MODULES_X=y\n"
		    "CONFIG_NFS_FS=\"y\"\nCONFIG_NFS_V4_1=m=y\n #CONFIG_NFS_V4_2 is not set\n"
		    "CONFIG_NFS_V4_2=y",
		    "file=\"/boot/config-6.1.0-test\";CONFIG_MODULES=\"absent\";"
		    "CONFIG_NFS_FS=\"absent\";CONFIG_NFS_V4=\"absent\";CONFIG_NFS_V4_1=\"m\";"
		    "CONFIG_NFS_V4_2=\"y\";");
	/* The first line is a symbol line, and one of the five. */
	config_case("# CONFIG_MODULES is not set\nCONFIG_NFS_FS=y",
		    "file=\"/boot/config-6.1.0-test\";CONFIG_MODULES=\"not set\";"
		    "CONFIG_NFS_FS=\"y\";CONFIG_NFS_V4=\"absent\";CONFIG_NFS_V4_1=\"absent\";"
		    "CONFIG_NFS_V4_2=\"absent\";");
}

/* ---- proc/PID/comm the cheap way reads what hostroot_read_line reads ---- */

static void test_procfs_line_same(void **state)
{
	(void)state;
	struct hostroot hr;
	assert_int_equal(hostroot_open(&hr, "/"), 0);
	DIR *d = hostroot_opendir(&hr, "proc");
	assert_non_null(d);
	assert_true(hostroot_is_procfs(dirfd(d)));
	int pids[] = {1, 2, (int)getpid()};
	for (size_t i = 0; i < ELEMENTSOF(pids); i++) {
		char path[64];
		snprintf(path, sizeof(path), "proc/%d/comm", pids[i]);
		_cleanup_free_ char *a = NULL, *c = NULL;
		if (hostroot_read_line(&hr, path, &a) < 0)
			continue; /* no PID 2 in a PID namespace */
		assert_int_equal(hostroot_read_procfs_line(&hr, dirfd(d), path, 5, &c), 1);
		assert_string_equal(a, c);
	}
	closedir(d);
	/* A copied tree is not procfs: read the usual way. */
	_cleanup_free_ char *fx = hf_fixture_path("b-debian12");
	struct hostroot fr;
	assert_int_equal(hostroot_open(&fr, fx), 0);
	DIR *fd = hostroot_opendir(&fr, "proc");
	assert_non_null(fd);
	assert_false(hostroot_is_procfs(dirfd(fd)));
	closedir(fd);
	hostroot_close(&fr);
	hostroot_close(&hr);
}

/* ---- a merged /usr: lib/systemd/system is not listed nor probed again ---- */

static void unit_scan_case(struct hostroot_fixture *b, bool merged, const char *want_where)
{
	struct unit_scan scan = {0};
	_cleanup_free_ char *w1 = NULL, *w2 = NULL;
	int shared = unitfiles_state_in(&scan, &b->ctx.root, "iscsid.service", &w1);
	int own = unitfiles_state_in(NULL, &b->ctx.root, "iscsid.service", &w2);
	assert_int_equal(shared, own);
	assert_true((w1 == NULL) == (w2 == NULL));
	if (w1)
		assert_string_equal(w1, w2);
	if (want_where)
		assert_string_equal(w1, want_where);
	/* usr/lib/systemd/system, then lib/systemd/system */
	assert_int_equal(scan.dirs[4].err, 0);
	assert_int_equal(scan.dirs[4].dup, merged);
	if (merged)
		assert_int_equal(scan.dirs[4].wants.n, 0);
	unit_scan_clear(&scan);
}

static void test_unit_scan_merged_usr(void **state)
{
	(void)state;
	struct hostroot_fixture b;
	hf_open(&b, "b-debian12"); /* lib -> usr/lib */
	unit_scan_case(&b, true, NULL);
	hf_close(&b);
	/* Two directories: the link in the second one still counts. */
	hf_scratch(&b);
	hf_mkdir(&b, "usr/lib/systemd/system/sockets.target.wants");
	hf_write(&b, "lib/systemd/system/multi-user.target.wants/iscsid.service", "");
	unit_scan_case(&b, false, "/lib/systemd/system/multi-user.target.wants/iscsid.service");
	hf_close(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_run_inflates_kconfig_once),
	    cmocka_unit_test(test_run_starts_one_thread),
	    cmocka_unit_test(test_run_scans_proc_once),
	    cmocka_unit_test(test_run_defers_network),
	    cmocka_unit_test(test_kconfig_cache_same_answers),
	    cmocka_unit_test(test_kconfig_parse_lines),
	    cmocka_unit_test(test_procfs_line_same),
	    cmocka_unit_test(test_unit_scan_merged_usr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
