#!/usr/bin/env bash
# check-figures.sh - checks that src/stats/figures.c is the only place in
# src/ that writes a figure's key ("p95_ms", "min_ms", ...; the keys are read
# from that table): every writer of figures (summary.json, intervals.csv,
# the streams, Prometheus, the dashboard, report.html, compare, merge)
# loops over the table, or names one figure by its id (FIG_KEY(P95),
# figure_get(FIG_MAX)), never by its text.  C and JavaScript comments are
# not looked at.  The latency keys are checked: the count keys ("count",
# "errors", "rate") are words that other fields of the files share.
#   scripts/check-figures.sh [SRC_DIR]     (default: src/ of this checkout)
#   scripts/check-figures.sh --self-test   (a doctored copy must fail)
# Exit 0 when no file but the table names a key, 1 otherwise (file:line).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)

check() {
    local src=$1 table=$1/stats/figures.c
    [ -f "$table" ] || { echo "check-figures: no $table"; return 1; }
    python3 - "$src" <<'EOF'
import os, re, sys
src = sys.argv[1]
table = open(os.path.join(src, "stats", "figures.c")).read()
keys = sorted(set(k for k in re.findall(r'\{FIG_[A-Z0-9]+, "([a-z0-9_]+)"', table) if k.endswith("_ms")))
if len(keys) < 5:
    print("check-figures: cannot read the latency keys of %s/stats/figures.c" % src)
    sys.exit(1)
pat = re.compile(r'(?<![A-Za-z0-9_])(' + "|".join(re.escape(k) for k in keys) + r')(?![A-Za-z0-9_])')

def strip_comments(text):
    # /* ... */ (kept line count) and // to the end of a line, outside strings
    out, i, n, q = [], 0, len(text), None
    while i < n:
        c = text[i]
        if q:
            out.append(c)
            if c == '\\' and i + 1 < n:
                out.append(text[i + 1]); i += 2; continue
            if c == q or c == '\n': q = None
            i += 1
        elif c in '"\'`':
            q = c; out.append(c); i += 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j)); i = j
        elif text.startswith('//', i) and (i == 0 or text[i - 1] in ' \t\n;'):
            j = text.find('\n', i); i = n if j < 0 else j
        else:
            out.append(c); i += 1
    return ''.join(out)

bad = 0
for root, _, files in os.walk(src):
    for f in sorted(files):
        if not f.endswith(('.c', '.h', '.html', '.js', '.lua')): continue
        path = os.path.join(root, f)
        if os.path.relpath(path, src) == os.path.join("stats", "figures.c"): continue
        text = strip_comments(open(path, encoding="utf-8", errors="replace").read())
        for ln, line in enumerate(text.split('\n'), 1):
            m = pat.search(line)
            if m:
                print("%s:%d: names the figure key %s by hand (use the table: stats/figures.h)" % (path, ln, m.group(1)))
                bad = 1
sys.exit(bad)
EOF
}

if [ "${1:-}" = --self-test ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp -r "$here/src" "$tmp/src"
    check "$tmp/src" >/dev/null || { echo "self-test: the clean tree fails"; exit 1; }
    printf '/* "p95_ms" in a comment is fine */\nstatic const char *k = "p95_ms";\n' >"$tmp/src/report/doctored.c"
    if out=$(check "$tmp/src"); then echo "self-test: a hand-written key was not found"; exit 1; fi
    case $out in *doctored.c:2:*p95_ms*) ;; *) echo "self-test: wrong finding: $out"; exit 1 ;; esac
    echo "self-test: ok"
    exit 0
fi
check "${1:-$here/src}"
