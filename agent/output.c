#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "render_json.h"
#include "render_text.h"
#include "wire.h"

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int render(const struct node_report *r, const char *format, bool color, char **ret,
		  size_t *ret_len)
{
	if (streq(format, "msgpack"))
		return wire_encode_node_report(r, ret, ret_len);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -errno;
	if (streq(format, "json")) {
		json_object *o = render_node_report_json(r);
		render_json_write(f, o);
		json_object_put(o);
	} else {
		render_node_report_text(f, r, color);
	}
	if (fclose(f) != 0) {
		free(buf);
		return -errno;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

int output_node_report(const struct node_report *r, const char *format, const char *path, char *err,
		       size_t errlen)
{
	bool to_stdout = !path || streq(path, "-");
	char *buf;
	size_t len;
	int ret = render(r, format, to_stdout && render_text_use_color(stdout), &buf, &len);
	if (ret < 0) {
		snprintf(err, errlen, "encoding the report: %s", strerror(-ret));
		return ret;
	}
	if (to_stdout) {
		fflush(stdout);
		ret = write_all(STDOUT_FILENO, buf, len);
		if (ret < 0)
			snprintf(err, errlen, "writing to stdout: %s", strerror(-ret));
		free(buf);
		return ret;
	}
	/* /dev/null, a FIFO, /dev/stdout: write in place. Renaming over them
	 * would replace a device node with a regular file. A regular file is
	 * replaced whole: written next to it, synced, then renamed. */
	struct stat st;
	bool in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	_cleanup_free_ char *tmp = in_place ? NULL : xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd = in_place ? open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
			  : open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "--output %s: %s", path, strerror(errno));
		free(buf);
		return ret;
	}
	ret = write_all(fd, buf, len);
	if (ret == 0 && !in_place && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	free(buf);
	if (ret == 0 && !in_place && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0) {
		if (!in_place)
			unlink(tmp);
		snprintf(err, errlen, "--output %s: %s", path, strerror(-ret));
	}
	return ret;
}
