/*
 * Loopback TCP sockets for unit tests: one bound to a free port, listening or
 * not, and a port on which nothing listens (connections are refused).
 */
#pragma once
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* A socket bound to a free 127.0.0.1 port (in *ret_port); with backlog >= 0 it
 * listens, and the kernel accepts up to the backlog while nobody answers. */
static inline int loopback_socket(int backlog, int *ret_port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	if (backlog >= 0)
		assert_int_equal(listen(fd, backlog), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	*ret_port = ntohs(a.sin_port);
	return fd;
}

/* A free loopback port that nothing listens on. */
static inline int loopback_closed_port(void)
{
	int port;
	close(loopback_socket(-1, &port));
	return port;
}
