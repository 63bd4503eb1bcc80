/* html.h - report.html, rendered from the files of a results directory
 * (summary.json), never from a run's memory: one self-contained page (the
 * CSS of src/html/report.css and the JavaScript of src/html/report.js,
 * embedded at build time and written inline; an embedded copy of
 * summary.json the script draws SVG charts from; no network).  For a phased
 * run's top directory (summary.json with "phases") it is an index linking
 * to each phase's report.html, which it renders too.  Called by the runner,
 * `luamech merge` and `luamech report`. */
#ifndef LUAMECH_HTML_H
#define LUAMECH_HTML_H
#include <stddef.h>
/* Return 0; -1 when dir or dir/summary.json is missing or invalid; -2 when
 * report.html cannot be written.  The _err variant puts a message naming
 * the file into err. */
int report_write_html(const char *dir);
int report_write_html_err(const char *dir, char *err, size_t err_len);
#endif
