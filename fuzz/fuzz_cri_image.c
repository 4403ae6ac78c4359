/* The CRI ImageStatus answer (a gRPC frame around protobuf) comes from a
 * socket on the node: any bytes at all. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cri_image.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cri_image img;
	char err[256] = "";
	int r = cri_image_decode(data, size, &img, err, sizeof(err));
	CHECK(r == 1 || r == 0 || r == -EBADMSG);
	if (r < 0) {
		CHECK(err[0] != '\0' && !strchr(err, '\n'));
		CHECK(!img.id && img.repo_tags.n == 0 && img.repo_digests.n == 0);
		return 0;
	}
	CHECK(r == 0 || (img.id && *img.id));
	CHECK(img.repo_tags.n <= CRI_MAX_NAMES && img.repo_digests.n <= CRI_MAX_NAMES);
	for (size_t i = 0; i < img.repo_tags.n; i++)
		CHECK(strlen(img.repo_tags.items[i]) <= 4096);
	cri_image_clear(&img);
	return 0;
}
