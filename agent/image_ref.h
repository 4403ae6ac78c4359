/*
 * Image references as containerd's CRI plugin reads them (distribution's
 * reference.ParseNormalizedNamed, then containerd's ParseDockerRef):
 *
 *   longhornio/longhorn-share-manager:v1.11.2
 *     -> registry docker.io, repository longhornio/longhorn-share-manager, tag v1.11.2
 *   busybox            -> docker.io, library/busybox, tag latest (defaulted)
 *   index.docker.io/x  -> docker.io, library/x
 *   localhost:5000/a/b@sha256:<64 hex>, [::1]:5000/a, registry.example.com/a/b:1
 *
 * The first path component is a registry only if it contains "." or ":", is
 * "localhost", or has upper-case letters (repository names never do). A
 * reference with both a tag and a digest is pulled by the digest.
 */
#pragma once
#include "util.h"

#define IMAGE_REF_NAME_MAX 255 /* registry + "/" + repository */

struct image_ref {
	char *registry;	    /* "docker.io", "registry.example.com:5000", "[::1]:5000" */
	char *repository;   /* "longhornio/longhorn-share-manager", "library/busybox" */
	char *tag;	    /* NULL when only a digest was given */
	char *digest;	    /* "sha256:…", or NULL */
	bool tag_defaulted; /* neither tag nor digest given: "latest" */
};

/* Returns 0, or -EINVAL with a one-line reason in err. */
int image_ref_parse(const char *s, struct image_ref *ret, char *err, size_t errlen);
void image_ref_clear(struct image_ref *r);
/* What the manifest is fetched by: the digest if there is one, else the tag. */
const char *image_ref_reference(const struct image_ref *r);
/* The fully qualified form, "docker.io/library/busybox:latest" (newly allocated). */
char *image_ref_string(const struct image_ref *r);
