/*
 * Ask the node's container runtime whether it already has an image, the way
 * kubelet does before it pulls one with imagePullPolicy IfNotPresent: the CRI
 * call ImageService/ImageStatus on containerd's socket (gRPC: HTTP/2 without
 * TLS, over the Unix socket, through libcurl).
 *
 * containerd answers for its "k8s.io" namespace, the one kubelet's images are
 * in, and normalizes the name itself ("longhornio/x:v1" is
 * "docker.io/longhornio/x:v1"). runtime.v1 is asked first (containerd >= 1.5;
 * containerd 2 has only it), runtime.v1alpha2 when the runtime answers UNIMPLEMENTED for v1.
 */
#pragma once
#include "util.h"

#define CRI_MAX_RESPONSE (1u << 20)
#define CRI_MAX_NAMES	 256

struct cri_image {
	char *id; /* "sha256:…" */
	struct strv repo_tags;
	struct strv repo_digests;
	int64_t size; /* bytes; -1 when not given */
};

void cri_image_clear(struct cri_image *img);

/* Decode a unary gRPC response body (5-byte frame header + ImageStatusResponse).
 * Returns 1 with the image, 0 when the runtime does not have it, -EBADMSG with a
 * one-line reason in err. */
int cri_image_decode(const uint8_t *buf, size_t len, struct cri_image *ret, char *err,
		     size_t errlen);

/* ImageStatus for image on the runtime's socket at socket_path (a path libcurl
 * can connect to; "/proc/self/fd/N" of an O_PATH descriptor works). Bounded by
 * timeout_s. Returns 1 (present, *ret filled), 0 (absent), or -errno with the
 * reason in err. *ret_api is the CRI version that answered ("v1", "v1alpha2"). */
int cri_image_status(const char *socket_path, const char *image, long timeout_s,
		     struct cri_image *ret, const char **ret_api, char *err, size_t errlen);
