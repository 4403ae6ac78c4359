/* The report model, the catalog, gates, time parsing, probe targets and the file reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catalog.h"
#include "hostroot.h"
#include "hostroot_fixture.h"
#include "gates.h"
#include "probe_targets.h"
#include "render_json.h"

static void test_kv_types(void **state)
{
	struct kv_list l = {0};
	kv_add_str(&l, "a", "x");
	kv_add_int(&l, "b", -5);
	kv_add_bool(&l, "c", true);
	struct value_list *vl = kv_add_list(&l, "d");
	vlist_add_str(vl, "one");
	vlist_add_int(vl, 2);
	struct kv_list *m = kv_add_map(&l, "e");
	kv_add_str(m, "k", "v");
	kv_add_str(&l, "a", "replaced");
	int64_t i;
	bool b;
	assert_int_equal(l.n, 5);
	assert_string_equal(kv_get_str(&l, "a"), "replaced");
	assert_true(kv_get_int(&l, "b", &i));
	assert_int_equal(i, -5);
	assert_true(kv_get_bool(&l, "c", &b));
	assert_true(b);
	assert_int_equal(kv_get_list(&l, "d")->n, 2);
	assert_null(kv_get_str(&l, "b"));
	struct kv_list copy = {0};
	kv_list_copy(&copy, &l);
	for (size_t k = 0; k < l.n; k++)
		assert_true(value_equal(&l.items[k].val, &copy.items[k].val));
	kv_list_clear(&copy);
	kv_list_clear(&l);
}

/* One of a thing is singular; none and many are plural. */
static void test_plural(void **state)
{
	assert_string_equal(plural(1, "node", "nodes"), "node");
	assert_string_equal(plural(0, "node", "nodes"), "nodes");
	assert_string_equal(plural(2, "node", "nodes"), "nodes");
	assert_string_equal(plural(-1, "node", "nodes"), "nodes");
	char *s = xasprintf("%d %s, %d %s", 1, plural(1, "node", "nodes"), 3,
			    plural(3, "finding", "findings"));
	assert_string_equal(s, "1 node, 3 findings");
	free(s);
}

static void test_status_worst(void **state)
{
	assert_int_equal(status_worst(STATUS_PASS, STATUS_WARN), STATUS_WARN);
	assert_int_equal(status_worst(STATUS_UNKNOWN, STATUS_WARN), STATUS_UNKNOWN);
	assert_int_equal(status_worst(STATUS_UNKNOWN, STATUS_FAIL), STATUS_FAIL);
	assert_int_equal(status_worst(STATUS_SKIP, STATUS_PASS), STATUS_PASS);
	assert_int_equal(status_from_name("FAIL"), STATUS_FAIL);
	assert_true(status_from_name("fail") < 0);
}

static void test_catalog(void **state)
{
	/* No count of rows here: it_list_checks holds the registry against
	 * docs/checks.md and the pages docs/checks/ID.md, so a row added or
	 * lost fails there, and adding a check edits no test of the catalog. */
	assert_true(catalog_len > 0);
	const struct check_info *ci = catalog_find("host.clock");
	assert_non_null(ci);
	assert_int_equal(ci->gates, G_ALL);
	assert_null(catalog_find("host.nope"));
	for (size_t i = 0; i < catalog_len; i++)
		for (size_t j = i + 1; j < catalog_len; j++)
			assert_string_not_equal(catalog[i].id, catalog[j].id);
	assert_int_equal(gate_from_name("live-migration"), GATE_LIVE_MIGRATION);
}

static void test_gates(void **state)
{
	struct finding_list l = {0};
	struct gate_result g[_GATE_MAX];
	finding_set(finding_list_add(&l, "host.kvm"), STATUS_PASS, "ok");	    /* pre, lm */
	finding_set(finding_list_add(&l, "host.nfs.probe"), STATUS_WARN, "slow");   /* rwx */
	finding_set(finding_list_add(&l, "api.vsc.longhorn"), STATUS_FAIL, "gone"); /* platform */
	finding_set(finding_list_add(&l, "host.iscsi"), STATUS_UNKNOWN, "eacces");  /* pre */
	gates_compute(&l, g);
	assert_int_equal(g[GATE_PREINSTALL].status, STATUS_UNKNOWN);
	assert_int_equal(g[GATE_PREINSTALL].n_blockers, 1);
	assert_int_equal(g[GATE_PREINSTALL].blockers[0], 3);
	assert_int_equal(g[GATE_PLATFORM].status, STATUS_FAIL);
	assert_int_equal(g[GATE_RWX].status, STATUS_WARN);
	assert_int_equal(g[GATE_LIVE_MIGRATION].status, STATUS_PASS);
	assert_int_equal(g[GATE_LIVE_MIGRATION].n_blockers, 0);
	gates_clear(g);
	finding_list_clear(&l);

	/* Only SKIPs: no evidence, never PASS. */
	finding_set(finding_list_add(&l, "host.nfs.probe"), STATUS_SKIP, "no targets");
	gates_compute(&l, g);
	assert_int_equal(g[GATE_RWX].status, STATUS_UNKNOWN);
	assert_int_equal(gates_exit_code(STATUS_UNKNOWN), 3);
	assert_int_equal(gates_exit_code(STATUS_WARN), 0);
	assert_int_equal(gates_exit_code(STATUS_FAIL), 1);
	gates_clear(g);
	finding_list_clear(&l);
}

static void test_rfc3339(void **state)
{
	int64_t ns;
	assert_int_equal(util_parse_rfc3339("1970-01-01T00:00:00Z", &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(util_parse_rfc3339("2026-09-05T13:20:44Z", &ns), 0);
	assert_int_equal(ns / NSEC_PER_SEC, 1788614444);
	assert_int_equal(util_parse_rfc3339("2026-09-05T15:20:44.5+02:00", &ns), 0);
	assert_int_equal(ns, INT64_C(1788614444500000000));
	assert_true(util_parse_rfc3339("2026-09-05 13:20:44", &ns) < 0);
	assert_true(util_parse_rfc3339("", &ns) < 0);
	assert_true(util_parse_rfc3339("2026-13-05T13:20:44Z", &ns) < 0);
	/* int64_t nanoseconds span 1677..2262: beyond, out of range, never wrapped */
	assert_int_equal(util_parse_rfc3339("2262-04-11T23:47:15Z", &ns), 0);
	assert_int_equal(ns / NSEC_PER_SEC, INT64_C(9223372035));
	assert_int_equal(util_parse_rfc3339("2828-09-05T13:20:00Z", &ns), -ERANGE);
	assert_int_equal(util_parse_rfc3339("0001-01-01T00:00:00Z", &ns), -ERANGE);
	char buf[64];
	util_format_rfc3339(INT64_C(1788614444) * NSEC_PER_SEC, buf, sizeof(buf));
	assert_string_equal(buf, "2026-09-05T13:20:44Z");
}

static void test_probe_targets(void **state)
{
	const char *good =
	    "{\"share_manager_image\": \"longhornio/longhorn-share-manager:v1.11.2\","
	    " \"share_manager_pull_policy\": \"if-not-present\","
	    " \"nfs_endpoints\": [\"nfs://10.43.12.7/pvc-1\"], \"future\": 1}";
	struct probe_targets t;
	char err[256];
	assert_int_equal(
	    probe_targets_parse((const uint8_t *)good, strlen(good), &t, err, sizeof(err)), 0);
	assert_string_equal(t.share_manager_image, "longhornio/longhorn-share-manager:v1.11.2");
	assert_string_equal(t.share_manager_pull_policy, "if-not-present");
	assert_int_equal(t.nfs_endpoints.n, 1);
	assert_null(t.canary_export);
	probe_targets_clear(&t);

	static const struct {
		const char *in, *err;
	} bad[] = {
	    {"", "unexpected end"},
	    {"[1]", "must be a JSON object"},
	    {"{\"nfs_endpoints\": \"x\"}", "must be an array"},
	    {"{\"nfs_endpoints\": [1]}", "[0] must be a string"},
	    {"{\"share_manager_image\": 5}", "must be a string"},
	    {"{\"share_manager_pull_policy\": [\"always\"]}", "must be a string"},
	    {"{} x", "trailing data"},
	    {"{\"a\": ", "unexpected end"},
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		err[0] = '\0';
		assert_int_equal(probe_targets_parse((const uint8_t *)bad[i].in, strlen(bad[i].in),
						     &t, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, bad[i].err));
	}
}

static void test_finding_json(void **state)
{
	struct finding_list l = {0};
	struct finding *f = finding_list_add(&l, "host.kvm");
	finding_set(f, STATUS_FAIL, "no /dev/kvm");
	finding_remedy(f, "load kvm_intel");
	finding_set_node(f, "n1");
	kv_add_int(&f->evidence, "api_version", 12);
	json_object *o = render_finding_json(f);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "check")), "host.kvm");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "status")), "FAIL");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "message")),
			    "no /dev/kvm");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "remediation")),
			    "load kvm_intel");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "node")), "n1");
	assert_null(json_object_object_get(o, "object"));
	assert_int_equal(json_object_get_int64(json_object_object_get(
			     json_object_object_get(o, "evidence"), "api_version")),
			 12);
	json_object_put(o);
	finding_list_clear(&l);
}

/* One reader for every file: exactly max bytes is accepted, one more is not (also
 * below its first 4 KiB buffer), or is cut when the caller accepts a prefix. */
static char read_dir[] = "/tmp/hvready-read-XXXXXX";

static int read_dir_remove(void **state)
{
	_cleanup_free_ char *path = xasprintf("%s/f", read_dir);
	unlink(path);
	rmdir(read_dir);
	return 0;
}

static void test_strv_split_join(void **state)
{
	struct strv v = {0};
	char *s = strv_join(&v, "; ");
	assert_string_equal(s, "");
	free(s);
	strv_split(&v, ",a,,b c,", ",");
	assert_int_equal(v.n, 2);
	s = strv_join(&v, "; ");
	assert_string_equal(s, "a; b c");
	free(s);
	strv_add(&v, "");
	s = strv_join(&v, "|");
	assert_string_equal(s, "a|b c|");
	free(s);
	strv_clear(&v);
}

static void test_read_file(void **state)
{
	const char *dir = mkdtemp(read_dir);
	assert_non_null(dir);
	_cleanup_free_ char *path = xasprintf("%s/f", dir);
	char *buf;
	size_t len;
	static const size_t sizes[] = {0, 1, 255, 256, 257, 4096, 4097, 100000};
	for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
		FILE *f = fopen(path, "we");
		assert_non_null(f);
		for (size_t j = 0; j < sizes[i]; j++)
			fputc('a' + (int)(j % 26), f);
		assert_int_equal(fclose(f), 0);

		assert_int_equal(util_read_file(path, sizes[i] + 1, &buf, &len), 0);
		assert_int_equal(len, sizes[i]);
		assert_int_equal(buf[len], '\0');
		free(buf);
		assert_int_equal(util_read_file(path, sizes[i], &buf, &len), 0);
		assert_int_equal(len, sizes[i]);
		free(buf);
		if (sizes[i] == 0)
			continue;
		assert_int_equal(util_read_file(path, sizes[i] - 1, &buf, &len), -EFBIG);

		int fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		bool truncated = false;
		assert_int_equal(util_read_fd(fd, sizes[i] - 1, &buf, &len, &truncated), 0);
		close(fd);
		assert_true(truncated);
		assert_int_equal(len, sizes[i] - 1);
		assert_int_equal(strlen(buf), sizes[i] - 1);
		if (len > 0)
			assert_int_equal(buf[len - 1], 'a' + (int)((len - 1) % 26));
		free(buf);
	}
	assert_int_equal(util_read_file(dir, 100, &buf, &len), -EISDIR);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(util_read_file(path, 100, &buf, &len), -ENOENT);
	assert_string_equal(util_read_strerror(-EFBIG), "file too large");
	assert_string_equal(util_read_strerror(-ENOENT), strerror(ENOENT));
}

/* A FIFO where a host file is expected: read at once as "not a regular file"
 * (before hostroot_open_file(), the open waited for a writer forever). */
static void test_hostroot_fifo(void **state)
{
	char *dir = scratch_dir();
	*state = dir;
	_cleanup_free_ char *fifo = xasprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	scratch_put(dir, "f", "x\n", 2);
	struct hostroot hr;
	hf_hostroot(&hr, dir);
	char *buf;
	size_t len;
	alarm(10); /* the old open blocked: fail, do not hang the suite */
	assert_int_equal(hostroot_read(&hr, "/fifo", 0, &buf, &len), -ESPIPE);
	assert_int_equal(hostroot_read(&hr, "/", 0, &buf, &len), -EISDIR);
	assert_int_equal(hostroot_open_file(&hr, "fifo"), -ESPIPE);
	alarm(0);
	assert_string_equal(util_read_strerror(-ESPIPE), "not a regular file");
	assert_int_equal(hostroot_read(&hr, "/f", 0, &buf, &len), 0);
	assert_string_equal(buf, "x\n");
	free(buf);
	hostroot_close(&hr);
}

/* The programs' own input files (tokens, kubeconfig, waivers) through
 * util_read_file(): a FIFO with no writer is refused at once (a blocking open
 * waited forever), a pipe's data is read, a silent writer is given up on after
 * UTIL_PIPE_WAIT_MS, a device is no file. */
static void test_read_file_pipes(void **state)
{
	char *dir = scratch_dir();
	*state = dir;
	_cleanup_free_ char *fifo = xasprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	char *buf = NULL;
	size_t len;
	alarm(20); /* the old open blocked: fail, do not hang the suite */
	assert_int_equal(util_read_file(fifo, 100, &buf, &len), -ENODATA);
	assert_null(buf);
	assert_int_equal(util_read_file("/dev/null", 100, &buf, &len), -ESPIPE);
	assert_string_equal(util_read_strerror(-ENODATA),
			    "a pipe or FIFO with nothing written to it");

	/* A writer with data: every byte read, across several writes. */
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		(void)!write(p[1], "tok", 3);
		usleep(100 * 1000);
		(void)!write(p[1], "en\n", 3);
		_exit(0);
	}
	close(p[1]);
	_cleanup_free_ char *dev = xasprintf("/proc/self/fd/%d", p[0]);
	assert_int_equal(util_read_file(dev, 100, &buf, &len), 0);
	assert_string_equal(buf, "token\n");
	assert_int_equal(len, 6);
	free(buf);
	close(p[0]);
	waitpid(pid, NULL, 0);

	/* A writer that holds the pipe open and never writes. */
	assert_int_equal(pipe(p), 0);
	_cleanup_free_ char *dev2 = xasprintf("/proc/self/fd/%d", p[0]);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(util_read_file(dev2, 100, &buf, &len), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= UTIL_PIPE_WAIT_MS - 50 && ms < UTIL_PIPE_WAIT_MS + 3000);
	close(p[0]);
	close(p[1]);
	alarm(0);
	assert_non_null(strstr(util_read_strerror(-ETIMEDOUT), "did not finish within 5 s"));
}

static int fifo_dir_remove(void **state)
{
	if (*state)
		scratch_remove(*state);
	return 0;
}

/* Every finding's JSON links its check's page; HVREADY_DOCS_URL moves the base. */
static void test_doc_url(void **state)
{
	(void)state;
	struct finding f = {.check = (char *)"host.iscsi", .status = STATUS_FAIL};
	unsetenv("HVREADY_DOCS_URL");
	json_object *o = render_finding_json(&f);
	json_object *u = NULL;
	assert_true(json_object_object_get_ex(o, "doc_url", &u));
	assert_string_equal(
	    json_object_get_string(u),
	    "https://github.com/hvready/hvready/blob/main/docs/checks/host.iscsi.md");
	json_object_put(o);
	setenv("HVREADY_DOCS_URL", "https://docs.example.internal/hvready", 1);
	o = render_finding_json(&f);
	assert_true(json_object_object_get_ex(o, "doc_url", &u));
	assert_string_equal(json_object_get_string(u),
			    "https://docs.example.internal/hvready/host.iscsi.md");
	json_object_put(o);
	unsetenv("HVREADY_DOCS_URL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kv_types),
	    cmocka_unit_test(test_plural),
	    cmocka_unit_test(test_doc_url),
	    cmocka_unit_test(test_status_worst),
	    cmocka_unit_test(test_catalog),
	    cmocka_unit_test(test_gates),
	    cmocka_unit_test(test_rfc3339),
	    cmocka_unit_test(test_probe_targets),
	    cmocka_unit_test(test_finding_json),
	    cmocka_unit_test(test_strv_split_join),
	    cmocka_unit_test_teardown(test_read_file, read_dir_remove),
	    cmocka_unit_test_teardown(test_hostroot_fifo, fifo_dir_remove),
	    cmocka_unit_test_teardown(test_read_file_pipes, fifo_dir_remove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
