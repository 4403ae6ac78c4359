#include "sys_uts.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/utsname.h>

struct uts_job {
	int fd;
	int err;
	struct utsname u;
};

/* setns(CLONE_NEWUTS) moves only the calling thread, and this one ends here. */
static void *uts_thread(void *arg)
{
	struct uts_job *j = arg;
	if (setns(j->fd, CLONE_NEWUTS) < 0 || uname(&j->u) < 0)
		j->err = -errno;
	return NULL;
}

int sys_uts_nodename(int ns_fd, char *buf, size_t len)
{
	struct uts_job j = {.fd = ns_fd};
	pthread_t t;
	int r = pthread_create(&t, NULL, uts_thread, &j);
	if (r != 0)
		return -r;
	pthread_join(t, NULL);
	if (j.err)
		return j.err;
	snprintf(buf, len, "%s", j.u.nodename);
	return 0;
}
