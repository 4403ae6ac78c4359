/* What the agent's probes refuse: metadata and link-local addresses
 * (common/netguard.h), redirects that downgrade or leave the registry
 * (agent/oci_client.h), and the config switch that allows the former. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "config.h"
#include "netguard.h"
#include "oci_client.h"

static bool addr_metadata(const char *s)
{
	struct sockaddr_storage ss = {0};
	if (strchr(s, ':')) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, s, &a->sin6_addr), 1);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, s, &a->sin_addr), 1);
	}
	return netguard_is_metadata_addr((struct sockaddr *)&ss);
}

static void test_metadata_addresses(void **state)
{
	(void)state;
	const char *bad[] = {"169.254.169.254",
			     "169.254.0.1",
			     "169.254.255.255",
			     "fe80::1",
			     "febf::1",
			     "fd00:ec2::254",
			     "100.100.100.200",
			     "::ffff:169.254.169.254",
			     "::ffff:100.100.100.200"};
	const char *good[] = {"10.43.0.10",	 "127.0.0.1",	  "169.253.1.1", "169.255.0.1",
			      "100.100.100.201", "fd00:ec2::253", "fec0::1",	 "::1",
			      "2001:db8::1"};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_true(addr_metadata(bad[i]));
		assert_true(netguard_is_metadata_host(bad[i]));
	}
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		assert_false(addr_metadata(good[i]));
		assert_false(netguard_is_metadata_host(good[i]));
	}
	assert_true(netguard_is_metadata_host("fe80::1%eth0"));
	assert_false(netguard_is_metadata_host("metadata.google.internal")); /* a name */

	netguard_set_probe_link_local(false);
	assert_false(netguard_probe_host_allowed("169.254.169.254"));
	assert_true(netguard_probe_host_allowed("10.0.0.1"));
	netguard_set_probe_link_local(true);
	assert_true(netguard_probe_host_allowed("169.254.169.254"));
	netguard_set_probe_link_local(false);
}

static void test_redirects(void **state)
{
	(void)state;
	const char *mirrors[] = {"mirror.example:5000", "[2001:db8::5]", NULL};
	struct oci_target t = {.base_url = "https://registry.example/v2",
			       .redirect_hosts = mirrors};
	const char *why = NULL;
#define OK(from, to) assert_true(oci_redirect_allowed(&t, from, to, &why))
#define NO(from, to)                                                                               \
	do {                                                                                       \
		why = NULL;                                                                        \
		assert_false(oci_redirect_allowed(&t, from, to, &why));                            \
		assert_non_null(why);                                                              \
	} while (0)
	OK("https://registry.example/v2/", "https://registry.example/v2/x/manifests/1");
	OK("https://registry.example/v2/", "https://REGISTRY.example:443/other");
	OK("https://registry.example/v2/", "https://mirror.example:5000/v2/");
	OK("https://registry.example/v2/", "https://[2001:db8::5]/v2/");
	OK("http://10.0.0.1:5000/v2/", "http://10.0.0.1:5000/v2/y");
	OK("https://auth.example/token", "https://auth.example/token2");
	NO("https://registry.example/v2/", "http://registry.example/v2/");
	NO("https://registry.example/v2/", "https://169.254.169.254/latest/meta-data/");
	NO("https://registry.example/v2/", "https://registry.example:8443/v2/");
	NO("https://registry.example/v2/", "https://evil.example/v2/");
	NO("https://registry.example/v2/", "https://registry.example@evil.example/v2/");
	NO("https://registry.example/v2/", "ftp://registry.example/v2/");
	NO("https://registry.example/v2/", "https://mirror.example/v2/"); /* another port */
	NO("http://10.0.0.1:5000/v2/", "http://10.0.0.1:22/");
#undef OK
#undef NO
}

static void test_config(void **state)
{
	(void)state;
	struct agent_opts o;
	char err[256];
	agent_opts_init(&o);
	assert_false(o.allow_link_local_probes);
	const char *y = "allow_link_local_probes: true\n";
	assert_int_equal(
	    config_parse((const uint8_t *)y, strlen(y), "a.yaml", &o, err, sizeof(err)), 0);
	assert_true(o.allow_link_local_probes);
	y = "allow_link_local_probes: maybe\n";
	assert_int_equal(
	    config_parse((const uint8_t *)y, strlen(y), "a.yaml", &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "allow_link_local_probes"));
	agent_opts_clear(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_metadata_addresses),
	    cmocka_unit_test(test_redirects),
	    cmocka_unit_test(test_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
