-- checks.lua: the value checks that scenario.lua and suite.lua share, so a
-- rule and its message are written once: fail (messages "FILE: FIELD:
-- what was expected, got what"), show, check_known (unknown fields, with a
-- "did you mean" hint), duration and count (within a limit of the plan's
-- one table, src/scenario/plan.c), list (no holes) and str.  Both load it
-- with require("luamech.checks") (preloaded from the embedded copy by
-- src/scenario/script.c) and call it with their file name, the plan's rules
-- and the C parsers; it returns a table of the checks.
return function(file, rules, parse_duration, parse_count)
  local limits, defaults = rules.limits, rules.defaults
  local function fail(field, msg)
    error(string.format("%s: %s: %s", file, field, msg), 0)
  end


  local function show(v)
    if type(v) == "string" then return string.format("%q", v) end
    local t = type(v)
    -- a table, function, userdata or thread prints as its type: its address says nothing to the user
    if t == "table" or t == "function" or t == "userdata" or t == "thread" then return "a " .. t end
    return t .. " " .. tostring(v)
  end


  -- Levenshtein distance, for "did you mean" hints on misspelt field names.
  local function distance(a, b)
    local prev = {}
    for j = 0, #b do prev[j] = j end
    for i = 1, #a do
      local cur = { [0] = i }
      for j = 1, #b do
        local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
        cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      end
      prev = cur
    end
    return prev[#b]
  end


  -- The first unknown key in sorted order (so the message does not depend
  -- on the table's iteration order), with the nearest known name as a hint.
  local function check_known(t, known, where)
    local unknown
    for k in pairs(t) do
      if type(k) ~= "string" or not known[k] then
        if type(k) == "number" and where == "scenario" then
          fail("scenario", "unexpected array item; the scenario is a table of named fields")
        end
        if unknown == nil or tostring(k) < tostring(unknown) then unknown = k end
      end
    end
    if unknown == nil then return end
    local names = {}
    for name in pairs(known) do names[#names + 1] = name end
    table.sort(names)
    local best, bestd = nil, 3
    for _, name in ipairs(names) do
      local d = distance(tostring(unknown), name)
      if d < bestd then best, bestd = name, d end
    end
    local hint = best and string.format(" (did you mean '%s'?)", best) or ""
    fail(where, string.format("unknown field '%s'%s; known fields: %s",
      tostring(unknown), hint, table.concat(names, ", ")))
  end


  -- A duration within limits[lim] -> whole ns.  NaN, infinities and values
  -- below the resolution are refused (a number of seconds is not rounded to 0).
  local function duration(v, field, default, lim)
    if v == nil then return default end
    local l, ns = limits[lim], nil
    if type(v) == "number" then
      if v > 0 and v * 1e9 < defaults.resolution_ns then
        fail(field, "expected " .. l.range .. "; " .. show(v) .. " s is below the 1us resolution")
      end
      if v >= 0 and v <= 1e12 then ns = math.floor(v * 1e9 + 0.5) end
    elseif type(v) == "string" then
      ns = parse_duration(v)
    end
    if not ns or not (ns >= l.min and ns <= l.max) then
      fail(field, "expected " .. l.range .. " (such as \"30s\", \"5m\", \"250ms\" or a number of seconds), got " .. show(v))
    end
    return ns
  end


  local function count(v, field, lim)
    if v == nil then return nil end
    local l, n = limits[lim], nil
    if type(v) == "number" then n = v
    elseif type(v) == "string" then n = parse_count(v) end
    if not n or n ~= math.floor(n) or not (n >= l.min and n <= l.max) then
      fail(field, "expected " .. l.range .. " (\"10k\" and \"1M\" are accepted), got " .. show(v))
    end
    return n
  end


  -- The number of items of a list 1..n; fails on other keys and on holes
  -- ({ a, nil, c } would silently stop at a).
  local function list(t, field)
    local n, last = 0, 0
    for k in pairs(t) do
      if type(k) ~= "number" or k < 1 or k ~= math.floor(k) then
        fail(field, "expected a list (array), found key " .. show(k))
      end
      n, last = n + 1, math.max(last, k)
    end
    for i = 1, last do
      if t[i] == nil then
        fail(string.format("%s[%d]", field, i), string.format("is nil: a hole in a list of %d items (remove it, or fill it)", last))
      end
    end
    return n
  end


  -- A NUL byte would cut the text short in C: "a\0b" and "a\0c" would
  -- both become "a" (two groups merged into one timer), so it is refused
  -- in every string (names, notes, script paths, thresholds).
  local function no_nul(v, field)
    local at = v:find("\0", 1, true)
    if at then
      fail(field, string.format("a NUL byte (\\0) at byte %d of %s; text cannot hold one (names are printable text)",
        at, show(v)))
    end
    return v
  end


  local function str(v, field, default)
    if v == nil then return default end
    if type(v) ~= "string" or v == "" then fail(field, "expected a non-empty string, got " .. show(v)) end
    return no_nul(v, field)
  end


  return { fail = fail, show = show, check_known = check_known, duration = duration, count = count,
           list = list, str = str, no_nul = no_nul }
end
