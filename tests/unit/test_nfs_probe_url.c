/* nfs_probe_url_parse(): endpoint URLs as Longhorn writes them, and every way they can be wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nfs_probe.h"

struct good {
	const char *url;
	const char *host;
	bool v6;
	unsigned port;
	bool port_given;
	const char *export_path;
	const char *volume; /* NULL: none derivable */
};

static const struct good goods[] = {
    /* status.shareEndpoint of a CSI-provisioned Longhorn RWX volume */
    {"nfs://10.43.12.7/pvc-0a9f3e1c-1a2b-4c3d-9e8f-0123456789ab", "10.43.12.7", false, 2049, false,
     "/pvc-0a9f3e1c-1a2b-4c3d-9e8f-0123456789ab", "pvc-0a9f3e1c-1a2b-4c3d-9e8f-0123456789ab"},
    {"nfs://10.43.12.7:20490/pvc-x", "10.43.12.7", false, 20490, true, "/pvc-x", "pvc-x"},
    {"nfs://[fd00::1]/x", "fd00::1", true, 2049, false, "/x", "x"},
    {"nfs://[fd00:10:43::c]:2050/pvc-y", "fd00:10:43::c", true, 2050, true, "/pvc-y", "pvc-y"},
    {"nfs://[::ffff:10.0.0.1]/v", "::ffff:10.0.0.1", true, 2049, false, "/v", "v"},
    {"NFS://Share.Example/a/b/", "Share.Example", false, 2049, false, "/a/b", NULL},
    {"nfs://h//a//b", "h", false, 2049, false, "/a/b", NULL},
    {"nfs://h/", "h", false, 2049, false, "/", NULL},
    {"nfs://h.example./vol.1", "h.example.", false, 2049, false, "/vol.1", "vol.1"},
    {"nfs://pvc-x.longhorn-system.svc.cluster.local/pvc-x",
     "pvc-x.longhorn-system.svc.cluster.local", false, 2049, false, "/pvc-x", "pvc-x"},
    {"nfs://h/Pvc_X", "h", false, 2049, false, "/Pvc_X", NULL},
    {"nfs://h/-x", "h", false, 2049, false, "/-x", NULL},
    {"nfs://h/x-", "h", false, 2049, false, "/x-", NULL},
    {"nfs://h:65535/a:b@c", "h", false, 65535, true, "/a:b@c", NULL},
    {"nfs://127.0.0.1:1/x", "127.0.0.1", false, 1, true, "/x", "x"},
};

static void test_good(void **state)
{
	for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		const struct good *g = &goods[i];
		struct nfs_probe_url u;
		char err[256] = "", vol[256];
		int r = nfs_probe_url_parse((const uint8_t *)g->url, strlen(g->url), &u, err,
					    sizeof(err));
		if (r != 0)
			fail_msg("%s: %s", g->url, err);
		assert_string_equal(u.host, g->host);
		assert_int_equal(u.host_is_v6, g->v6);
		assert_int_equal(u.port, g->port);
		assert_int_equal(u.port_given, g->port_given);
		assert_string_equal(u.export_path, g->export_path);
		bool has = nfs_probe_url_volume(&u, vol, sizeof(vol));
		if (g->volume) {
			assert_true(has);
			assert_string_equal(vol, g->volume);
		} else if (has) {
			fail_msg("%s: unexpected volume %s", g->url, vol);
		}
	}
}

struct bad {
	const char *url;
	const char *why; /* substring of the reason */
};

static const struct bad bads[] = {
    {"", "empty URL"},
    {"http://h/x", "not an nfs:// URL"},
    {"nfs:/h/x", "not an nfs:// URL"},
    {"nfs://", "no host"},
    {"nfs:///x", "no host"},
    {"nfs://h", "no export path"},
    {"nfs://h:2049", "no export path"},
    {"nfs://h:/x", "empty port"},
    {"nfs://h:0/x", "port 0"},
    {"nfs://h:65536/x", "above 65535"},
    {"nfs://h:99999999999999999999/x", "above 65535"},
    {"nfs://h:20x9/x", "not a number"},
    {"nfs://h:-1/x", "not a number"},
    {"nfs://fd00::1/x", "must be written in brackets"},
    {"nfs://[fd00::1/x", "without ']'"},
    {"nfs://[fd00::zz]/x", "not a valid IPv6"},
    {"nfs://[10.0.0.1]/x", "not a valid IPv6"},
    {"nfs://[fe80::1%25eth0]/x", "zone"},
    {"nfs://[]/x", "empty or oversized"},
    {"nfs://[fd00::1]x/x", "unexpected"},
    {"nfs://[fd00::1]:/x", "empty port"},
    {"nfs://300.1.2.3/x", "not a valid IPv4"},
    {"nfs://1.2.3/x", "not a valid IPv4"},
    {"nfs://user@h/x", "user information"},
    {"nfs://h/x?version=3", "query"},
    {"nfs://h/x?nfsport=20490", "query"},
    {"nfs://h/x#frag", "fragment"},
    {"nfs://h/a/../b", "\"..\""},
    {"nfs://h/./b", "\".\""},
    {"nfs://h/..", "\"..\""},
    {"nfs://h/a b", "space"},
    {" nfs://h/a", "space"},
    {"nfs://h/a\tb", "control"},
    {"nfs://h/a%20b", "'%' is not allowed"},
    {"nfs://h/a\\b", "'\\' is not allowed"},
    {"nfs://h/a\"b", "'\"' is not allowed"},
    {"nfs://-h/x", "starts or ends with '-'"},
    {"nfs://h-/x", "starts or ends with '-'"},
    {"nfs://h..x/x", "empty label"},
    {"nfs://.h/x", "empty label"},
    {"nfs://h_x/x", "character '_'"},
    {"nfs://h\xc3\xa9/x", "non-ASCII"},
};

static void test_bad(void **state)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct nfs_probe_url u;
		char err[256] = "";
		int r = nfs_probe_url_parse((const uint8_t *)bads[i].url, strlen(bads[i].url), &u,
					    err, sizeof(err));
		if (r != -EINVAL)
			fail_msg("%s: accepted", bads[i].url);
		if (!strstr(err, bads[i].why))
			fail_msg("%s: reason \"%s\" lacks \"%s\"", bads[i].url, err, bads[i].why);
		assert_null(strchr(err, '\n'));
	}
}

static void test_limits(void **state)
{
	struct nfs_probe_url u;
	char err[256], buf[2048];
	/* A NUL inside the buffer is data, not the end. */
	static const char nul[] = "nfs://h/a\0b";
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)nul, sizeof(nul) - 1, &u, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "control"));

	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "nfs://h/", 8);
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)buf, sizeof(buf), &u, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "longer than"));
	/* The longest URL accepted. */
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)buf, NFS_PROBE_URL_MAX - 1, &u, err, sizeof(err)),
	    0);
	assert_int_equal(strlen(u.export_path), NFS_PROBE_URL_MAX - 1 - 7);

	/* A 64-character label, and a host name over 253 characters. */
	int n = snprintf(buf, sizeof(buf), "nfs://%064d/x", 1);
	buf[6] = 'a';
	assert_int_equal(nfs_probe_url_parse((const uint8_t *)buf, (size_t)n, &u, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "over 63"));
	char *p = buf + snprintf(buf, sizeof(buf), "nfs://");
	for (int i = 0; i < 26; i++)
		p += snprintf(p, 16, "abcdefghi.");
	p += snprintf(p, 8, "/x");
	assert_int_equal(
	    nfs_probe_url_parse((const uint8_t *)buf, (size_t)(p - buf), &u, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "longer than 253"));

	/* A truncated error buffer stays a terminated string. */
	char small[8];
	assert_int_equal(nfs_probe_url_parse((const uint8_t *)"x", 1, &u, small, sizeof(small)),
			 -EINVAL);
	assert_true(strlen(small) < sizeof(small));
}

static void test_volume(void **state)
{
	struct nfs_probe_url u = {0};
	char vol[8];
	snprintf(u.export_path, sizeof(u.export_path), "/pvc-0123456789");
	/* Too small a buffer: no volume rather than a truncated one. */
	assert_false(nfs_probe_url_volume(&u, vol, sizeof(vol)));
	char big[300];
	memset(u.export_path, 'a', 255);
	u.export_path[0] = '/';
	u.export_path[255] = '\0';
	assert_false(nfs_probe_url_volume(&u, big, sizeof(big))); /* 254 > 253 */
	u.export_path[254] = '\0';
	assert_true(nfs_probe_url_volume(&u, big, sizeof(big)));
	snprintf(u.export_path, sizeof(u.export_path), "/a.-b");
	assert_true(nfs_probe_url_volume(&u, big, sizeof(big)));
	snprintf(u.export_path, sizeof(u.export_path), "/a.");
	assert_false(nfs_probe_url_volume(&u, big, sizeof(big)));
}

static void test_names(void **state)
{
	assert_string_equal(nfs_probe_step_name(NFS_STEP_MOUNT), "mount");
	assert_string_equal(nfs_probe_step_name(NFS_STEP_COMPARE), "compare");
	assert_string_equal(nfs_probe_step_name((enum nfs_probe_step)99), "unknown");
	assert_string_equal(nfs_probe_outcome_name(NFS_PROBE_NO_VERSION), "no-common-version");
	assert_string_equal(nfs_probe_outcome_name(NFS_PROBE_BAD_REPLY), "bad-reply");
	assert_string_equal(nfs_probe_client_name(NFS_CLIENT_HVREADY41), "hvready nfs4.1");
	assert_string_equal(nfs_probe_client_name(NFS_CLIENT_LIBNFS40), "libnfs nfs4.0");
	assert_null(nfs_probe_client_name(NFS_CLIENT_NONE));
	assert_string_equal(nfs_probe_outcome_name((enum nfs_probe_outcome)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),   cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_limits), cmocka_unit_test(test_volume),
	    cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
