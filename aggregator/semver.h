/*
 * Version numbers as Kubernetes components print them: "v1.7.4",
 * "1.7.4-150700.3.24.2" (SUSE build of KubeVirt), "v1.11.2", "1.8.0-rc.1".
 * Only major.minor.patch take part in comparisons: the feature-gate and
 * upgrade rules hvready applies are per minor release, and a vendor build
 * suffix says nothing about the upstream release it was built from.
 */
#pragma once
#include <stdbool.h>

struct semver {
	int major, minor, patch;
};

/* Parse s (optional leading 'v', missing patch = 0, anything after the
 * numbers ignored). Returns 0 or -EINVAL. */
int semver_parse(const char *s, struct semver *ret);
/* <0, 0, >0 like strcmp. */
int semver_cmp(const struct semver *a, const struct semver *b);
/* The tag of an image reference ("longhornio/longhorn-manager:v1.9.1" →
 * "v1.9.1", digest ignored), or NULL. Returns a pointer into image or into
 * buf (size len) when the tag is followed by a digest. */
const char *semver_image_tag(const char *image, char *buf, unsigned len);
