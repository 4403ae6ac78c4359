#include <errno.h>
#include <stdio.h>
#include "wire.h"

int wire_encode_node_report(const struct node_report *r, char **ret_buf, size_t *ret_len)
{
	return -EOPNOTSUPP;
}

int wire_decode_node_report(const uint8_t *buf, size_t len, struct node_report *ret, char *err,
			    size_t errlen)
{
	snprintf(err, errlen, "msgpack decoding is not in this build yet");
	return -EOPNOTSUPP;
}
