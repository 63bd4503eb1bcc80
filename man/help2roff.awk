# man/help2roff.awk - turns one luamech help text into man(7) markup, for
# man/gen-man.sh.  Conventions of the help texts it relies on:
#   usage block   "usage: luamech ..." then lines indented by spaces, up to
#                 the first blank line or unindented line; "(...)" after two
#                 spaces, or on a deeper indented line, describes the line
#   heading       an unindented line ending in ':' ("exit codes:", "options
#                 (they override ...):")
#   option        "  -d, --duration DUR   text" or "  --timer NAME   text"
#   exit code     "  0  text"
#   continuation  a line indented deeper than its item's text column
#   text          anything else; a blank line ends a paragraph
# mode=main: the usage block is SYNOPSIS, the text before the first heading
# DESCRIPTION, an options heading OPTIONS, "exit codes:" EXIT STATUS, other
# headings subsections.  mode=sub (a command's section under COMMANDS): the
# usage block is a synopsis paragraph, headings are bold paragraphs.

# Escapes for roff: backslash, minus signs, and a leading '.' or '\''.
function esc(s) {
    gsub(/\\/, "\\e", s)
    gsub(/-/, "\\-", s)
    if (s ~ /^[.']/) s = "\\&" s
    return s
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# "-d, --duration DUR" -> bold option names, italic arguments
function tag(s,    n, i, w, r, parts) {
    n = split(s, parts, / /)
    r = ""
    for (i = 1; i <= n; i++) {
        w = parts[i]
        if (w == "") continue
        if (w ~ /^-/) {
            if (w ~ /,$/) w = "\\fB" esc(substr(w, 1, length(w) - 1)) "\\fR,"
            else w = "\\fB" esc(w) "\\fR"
        } else w = "\\fI" esc(w) "\\fR"
        r = r (r == "" ? "" : " ") w
    }
    return r
}
function indent(s) { match(s, /^ */); return RLENGTH }
function para() { if (need_pp) { print ".PP"; need_pp = 0 } }
function end_item() { if (in_rs) { print ".RE"; in_rs = 0 } in_item = 0; prev_colon = 0; prev_own = 0 }
function heading(h,    name, rest) {
    end_item()
    name = h; sub(/:$/, "", name)
    rest = ""
    if (match(name, / \(.*\)$/)) {
        rest = substr(name, RSTART + 2, RLENGTH - 3)
        name = substr(name, 1, RSTART - 1)
    }
    if (mode == "main" && name ~ /^exit codes?$/) print ".SH \"EXIT STATUS\""
    else if (mode == "main" && name == "options" && !had_options) { print ".SH OPTIONS"; had_options = 1 }
    else if (mode == "main") print ".SS \"" esc(toupper(substr(name, 1, 1)) substr(name, 2)) "\""
    else { print ".PP"; print "\\fB" esc(toupper(substr(name, 1, 1)) substr(name, 2)) "\\fR" }
    if (rest != "") { print ".PP"; print esc(toupper(substr(rest, 1, 1)) substr(rest, 2)) "." }
    need_pp = 0
}
# A usage line: "luamech cmd args   (what it does)"
function usage_line(s,    d, p) {
    end_item()
    s = trim(s)
    d = ""
    if ((p = index(s, "  (")) > 0) { d = trim(substr(s, p)); s = trim(substr(s, 1, p)) }
    print (mode == "main" ? ".PP" : ".br")
    if (match(s, /^luamech [a-z][a-z-]*/) && substr(s, RSTART + RLENGTH, 1) != "-")
        print "\\fB" esc(substr(s, 1, RLENGTH)) "\\fR" esc(substr(s, RLENGTH + 1))
    else print esc(s)
    if (d != "") { print ".RS"; in_rs = 1; print esc(d) }
    in_item = (d != "")
    item_col = 8
}

BEGIN { state = "usage"; need_pp = 0; in_item = 0; in_rs = 0; had_options = 0; prev_blank = 1 }

state == "usage" {
    if ($0 ~ /^usage:/) {
        if (mode == "main") print ".SH SYNOPSIS"
        else print ".PP"
        usage_line(substr($0, 7))
        next
    }
    if ($0 ~ /^ +luamech /) { usage_line($0); next }
    if ($0 ~ /^ +[^ ]/) {                    # what the usage line above does
        if (!in_rs) { print ".RS"; in_rs = 1 }
        print esc(trim($0)); in_item = 1; next
    }
    end_item()
    state = "body"
    if (mode == "main") { print ".SH DESCRIPTION"; need_pp = 0 }
    else need_pp = 1
    if ($0 ~ /^$/) next
}

/^$/ { end_item(); need_pp = 1; prev_blank = 1; next }
{ was_blank = prev_blank; prev_blank = 0 }

# headings: unindented, ending in ':', after a blank line
/^[a-z][^ ].*:$/ && was_blank && length($0) < 80 { heading($0); next }

# continuation of an option or exit code: kept as its own line when it
# starts an example or a list (a quote, two spaces not after a full stop),
# else filled
in_item && indent($0) >= item_col && indent($0) > 0 {
    s = trim($0)
    own = (s ~ /^'/ || s ~ /[^ .]   *[^ ]/)
    if (own || prev_colon || prev_own) print ".br"
    print esc(s)
    prev_colon = (s ~ /:$/); prev_own = own
    next
}

# options: "  -x, --long ARG   text", "      --long   text", "  --long ARG  text"
/^ +-/ && indent($0) <= 8 {
    end_item()
    line = $0
    c = indent(line)
    rest = substr(line, c + 1)
    if (match(rest, /  +/)) { t = substr(rest, 1, RSTART - 1); d = substr(rest, RSTART + RLENGTH); item_col = c + RSTART + RLENGTH - 1 }
    else { t = rest; d = ""; item_col = c + 4 }
    print ".TP"
    print tag(t)
    if (d != "") print esc(d)
    in_item = 1; need_pp = 0
    next
}

# exit codes: "  0  text"
/^ +[0-9]+ +[^ ]/ && indent($0) <= 8 {
    end_item()
    c = indent($0)
    rest = substr($0, c + 1)
    match(rest, /^[0-9]+ +/)
    print ".TP"
    print "\\fB" trim(substr(rest, 1, RLENGTH)) "\\fR"
    item_col = c + RLENGTH
    print esc(substr(rest, RLENGTH + 1))
    in_item = 1; need_pp = 0
    next
}

# indented text outside an item (e.g. "  --style redis" lists are options;
# this is other indented text): a line of its own
/^ +[^ ]/ { para(); print ".br"; print esc(trim($0)); next }

{ end_item(); para(); print esc($0); prev_colon = 0 }

END { end_item() }
