/*
 * LD_PRELOAD shim for tests/integration/accept_refused.sh: SSL_new() returns
 * NULL, as it does when the process is out of memory, while the file named by
 * HVREADY_TEST_FAIL_SSL_NEW exists; otherwise it is OpenSSL's own. Built by
 * the test with the system compiler; not part of the product.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

SSL *SSL_new(SSL_CTX *ctx);
SSL *SSL_new(SSL_CTX *ctx)
{
	static SSL *(*real)(SSL_CTX *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "SSL_new");
	const char *flag = getenv("HVREADY_TEST_FAIL_SSL_NEW");
	if (flag && access(flag, F_OK) == 0)
		return NULL;
	return real ? real(ctx) : NULL;
}
