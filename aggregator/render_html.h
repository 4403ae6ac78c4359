/* The verdict as one self-contained HTML page: no external assets, no script
 * needed to read it, printable to PDF from a browser. */
#pragma once
#include <stdio.h>
#include "verdict.h"

/* refresh_s > 0: the page reloads itself (served by the aggregator). */
void verdict_render_html(FILE *f, const struct verdict *v, int gate, int refresh_s);
/* statuses: the finding cards show only those (render_status_mask_parse; 0
 * all), the gates and counts stay whole; the header links to the other views. */
void verdict_render_html_view(FILE *f, const struct verdict *v, int gate, unsigned statuses,
			      int refresh_s);

/* The page's one <style> element's text, exactly: a server's
 * Content-Security-Policy allows it by its hash (no inline style otherwise). */
const char *verdict_html_css(void);
