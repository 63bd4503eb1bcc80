# views.jq - summary.json's timers in schema 2's shape, for the tests' jq
# paths, so that one path reads schema 1 and schema 2 alike (issue 24,
# docs/results.md).  Used as
#   jq -L "$SRC/tests/scenarios" 'include "views"; tview("X (all)") | .summary.count'
# or, from a jq file beside this one: include "views" {search: "./"};
#
# s2: schema 1 -> 2, the rule of src/report/summary_read.c's
#   summary_normalise.  One timers[] entry per family: a twin ("X
#   (uncorrected)", "X (all)") is paired with its family by data, its
#   uncorrected_of / all_of naming the family's name and the same kind (never
#   by its name), and its latency_from, latency_over, summary and intervals
#   move under the family's .views.uncorrected / .views.all; the twin entry
#   and the *_of fields go.  A twin whose family is not in the file (an
#   orphan, or a file older than the *_of fields) stays a timer of its own.
#   A twin names the first family of that kind and name; when that family
#   has the view already, the twin stays a timer of its own too.  The *_of
#   fields are dropped.  Schema 2 (schema_version >= 2) passes unchanged.
# tview($n): the view object a flat label names: "X" -> the family X,
#   "X (uncorrected)" / "X (all)" -> X's view; a family named exactly $n
#   comes first (a group called "a (uncorrected)").  A missing "all" view is
#   the default (the family itself); a missing "uncorrected" view is empty.
#   Emits every match (use [...] | add, or first).
# tflat: every (family, view) as a schema-1 timer entry, the family first
#   then its views (uncorrected, all), named by the flat label "X (uncorrected)" / "X (all)";
#   the family's other fields (kind, group, tags...) copied, no *_of.

def views_names: ["uncorrected", "all"];
def _views_fields: . as $t
  | reduce ("latency_from", "latency_over", "summary", "intervals") as $k ({}; if $t | has($k) then .[$k] = $t[$k] else . end);
def _views_is_twin: (.uncorrected_of | type) == "string" or (.all_of | type) == "string";

def s2:
  if ((.schema_version | type) == "number" and .schema_version >= 2) or (.timers | type) != "array" then .
  else
    .timers as $T
    # families by [kind, name]: the first of a kind and name
    | (reduce range(0; $T | length) as $i ({};
         $T[$i] as $t
         | if ($t | _views_is_twin) or ($t.name | type) != "string" then .
           else ([$t.kind, $t.name] | tojson) as $k | if has($k) then . else .[$k] = $i end end)) as $fam
    # each twin to the first family it names (uncorrected_of, then all_of)
    # that has no such view yet; the paired ones marked gone
    | (reduce range(0; $T | length) as $j ({views: {}, gone: {}};
         $T[$j] as $u
         | if ($u | _views_is_twin) | not then .
           else . as $acc
           | [views_names[] as $v | select(($u[$v + "_of"] | type) == "string")
              | $fam[[$u.kind, $u[$v + "_of"]] | tojson] as $f
              | select($f != null and $acc.views[$f | tostring][$v] == null) | {f: ($f | tostring), v: $v}] as $c
           | if ($c | length) == 0 then .
             else .views[$c[0].f][$c[0].v] = $j | .gone[$j | tostring] = true end
           end)) as $m
    | .timers = [range(0; $T | length) as $i
        | select($m.gone[$i | tostring] | not)
        | ($m.views[$i | tostring] // {}) as $vs
        | $T[$i]
        | if ($vs | length) > 0 then .views = ($vs | map_values($T[.] | _views_fields)) else . end
        | del(.uncorrected_of, .all_of)]
  end;

def tview($n):
  s2 | .timers as $T
  | if any($T[]; .name == $n) then $T[] | select(.name == $n)
    else views_names[] as $v
    | ($n | endswith(" (\($v))")) as $is
    | select($is)
    | ($n | .[0:length - ($v | length) - 3]) as $base
    | $T[] | select(.name == $base)
    | if .views[$v] != null then .views[$v] elif $v == "all" then . else empty end
    end;

def tflat:
  s2 | .timers[]
  | del(.views) as $f
  | .views as $vs
  | $f, (views_names[] as $v | $vs[$v] // empty | $f + . + {name: "\($f.name) (\($v))"});
