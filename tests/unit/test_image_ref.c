/* Image references parsed as containerd's CRI plugin parses them
 * (distribution's ParseNormalizedNamed + containerd's ParseDockerRef). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "image_ref.h"

static void ok(const char *in, const char *registry, const char *repo, const char *tag,
	       const char *digest, const char *full)
{
	struct image_ref r;
	char err[256];
	if (image_ref_parse(in, &r, err, sizeof(err)) < 0)
		fail_msg("\"%s\" refused: %s", in, err);
	assert_string_equal(r.registry, registry);
	assert_string_equal(r.repository, repo);
	if (tag)
		assert_string_equal(r.tag, tag);
	else
		assert_null(r.tag);
	if (digest)
		assert_string_equal(r.digest, digest);
	else
		assert_null(r.digest);
	char *s = image_ref_string(&r);
	assert_string_equal(s, full);
	free(s);
	image_ref_clear(&r);
}

static void bad(const char *in, const char *needle)
{
	struct image_ref r;
	char err[256] = "";
	if (image_ref_parse(in, &r, err, sizeof(err)) == 0) {
		image_ref_clear(&r);
		fail_msg("\"%s\" accepted", in);
	}
	if (!strstr(err, needle))
		fail_msg("\"%s\": expected \"%s\" in \"%s\"", in, needle, err);
}

#define D64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_docker_hub(void **state)
{
	ok("longhornio/longhorn-share-manager:v1.11.2", "docker.io",
	   "longhornio/longhorn-share-manager", "v1.11.2", NULL,
	   "docker.io/longhornio/longhorn-share-manager:v1.11.2");
	ok("busybox", "docker.io", "library/busybox", "latest", NULL,
	   "docker.io/library/busybox:latest");
	ok("docker.io/busybox:1.36", "docker.io", "library/busybox", "1.36", NULL,
	   "docker.io/library/busybox:1.36");
	ok("index.docker.io/rancher/mirrored-pause:3.6", "docker.io", "rancher/mirrored-pause",
	   "3.6", NULL, "docker.io/rancher/mirrored-pause:3.6");
	ok("index.docker.io/busybox", "docker.io", "library/busybox", "latest", NULL,
	   "docker.io/library/busybox:latest");
	ok("rancher/hardened-kubernetes:v1.33.7-rke2r3-build20260127", "docker.io",
	   "rancher/hardened-kubernetes", "v1.33.7-rke2r3-build20260127", NULL,
	   "docker.io/rancher/hardened-kubernetes:v1.33.7-rke2r3-build20260127");
	struct image_ref r;
	char err[64];
	assert_int_equal(image_ref_parse("busybox", &r, err, sizeof(err)), 0);
	assert_true(r.tag_defaulted);
	assert_string_equal(image_ref_reference(&r), "latest");
	image_ref_clear(&r);
}

static void test_registries(void **state)
{
	ok("registry.suse.com/suse/sles/15.7/virt-api:1.7.4", "registry.suse.com",
	   "suse/sles/15.7/virt-api", "1.7.4", NULL,
	   "registry.suse.com/suse/sles/15.7/virt-api:1.7.4");
	ok("localhost/share-manager", "localhost", "share-manager", "latest", NULL,
	   "localhost/share-manager:latest");
	ok("localhost:5000/a/b:c", "localhost:5000", "a/b", "c", NULL, "localhost:5000/a/b:c");
	ok("127.0.0.1:5000/longhornio/longhorn-share-manager:v1.11.2", "127.0.0.1:5000",
	   "longhornio/longhorn-share-manager", "v1.11.2", NULL,
	   "127.0.0.1:5000/longhornio/longhorn-share-manager:v1.11.2");
	ok("[::1]:5000/img:1", "[::1]:5000", "img", "1", NULL, "[::1]:5000/img:1");
	ok("harbor.example.com:8443/proxy-cache/longhornio/longhorn-share-manager:v1.11.2",
	   "harbor.example.com:8443", "proxy-cache/longhornio/longhorn-share-manager", "v1.11.2",
	   NULL, "harbor.example.com:8443/proxy-cache/longhornio/longhorn-share-manager:v1.11.2");
	/* Upper case in the first component makes it a registry (names are lower case). */
	ok("MyRegistry/foo", "MyRegistry", "foo", "latest", NULL, "MyRegistry/foo:latest");
	/* A single component on a custom registry gets no "library/". */
	ok("quay.io/busybox", "quay.io", "busybox", "latest", NULL, "quay.io/busybox:latest");
	/* Separators inside path components. */
	ok("a/b.c_d__e---f:t_1.x-y", "docker.io", "a/b.c_d__e---f", "t_1.x-y", NULL,
	   "docker.io/a/b.c_d__e---f:t_1.x-y");
	/* A domain without a slash is a name with a tag. */
	ok("localhost:5000", "docker.io", "library/localhost", "5000", NULL,
	   "docker.io/library/localhost:5000");
}

static void test_digests(void **state)
{
	ok("longhornio/longhorn-share-manager@sha256:" D64, "docker.io",
	   "longhornio/longhorn-share-manager", NULL, "sha256:" D64,
	   "docker.io/longhornio/longhorn-share-manager@sha256:" D64);
	/* Tag and digest: containerd pulls by the digest. */
	ok("registry.example.com/a:v1@sha256:" D64, "registry.example.com", "a", NULL,
	   "sha256:" D64, "registry.example.com/a@sha256:" D64);
	ok("a@sha512:" D64 D64, "docker.io", "library/a", NULL, "sha512:" D64 D64,
	   "docker.io/library/a@sha512:" D64 D64);
	bad("a@sha256:0123", "needs 64 lower-case hex digits");
	bad("a@sha256:"
	    "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef",
	    "lower-case");
	bad("a@md5:0123456789abcdef0123456789abcdef", "unsupported digest algorithm");
	bad("a@", "invalid digest");
	bad("a@:" D64, "invalid digest");
}

static void test_invalid(void **state)
{
	bad("", "empty image reference");
	bad(D64, "image ID");
	bad("Longhornio/Share", "must be lowercase");
	bad("longhornio/Longhorn-share-manager:v1", "must be lowercase");
	bad("-leading/dash", "bad repository name");
	bad("a//b", "bad repository name");
	bad("a/b/", "bad repository name");
	bad("a/b:", "bad tag");
	bad("a/b:-x", "bad tag");
	bad("a/b:with space", "bad tag");
	bad("registry.example.com:port/a", "bad registry");
	bad("-bad.example.com/a", "bad registry");
	bad("bad_host.example.com/a", "bad registry");
	bad("[zz::1]:5000/a", "bad registry");
	bad("a/b..c", "bad repository name");
	bad("a/b_-c", "bad repository name");
	char longname[400];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	longname[200] = '/';
	bad(longname, "longer than 255");
	char longtag[200];
	snprintf(longtag, sizeof(longtag), "a:%0129d", 0);
	bad(longtag, "bad tag");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_docker_hub),
	    cmocka_unit_test(test_registries),
	    cmocka_unit_test(test_digests),
	    cmocka_unit_test(test_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
