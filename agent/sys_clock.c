#include "sys_clock.h"

#include <errno.h>
#include <string.h>

int sys_clock_adjtimex(struct timex *tx)
{
	memset(tx, 0, sizeof(*tx));
	int r = adjtimex(tx);
	return r < 0 ? -errno : r;
}
