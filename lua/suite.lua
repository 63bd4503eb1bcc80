-- suite.lua: checks a suite file and expands it into a list of runs.  A
-- suite is runs done one after another and reported in one table: either a
-- sweep of one setting over a scenario (seed 001: the same scenario at 1, 2,
-- 10, 50 and 100 VUs) or an explicit list of runs.
-- Arguments: the suite table, its file name, its directory, C helpers
-- parse_duration(s) -> ns or nil, parse_count(s) -> n or nil, and the plan's
-- rules (src/scenario/plan.c: one table of limits).  Values are
-- range-checked here before C converts them; the rules over the final plan
-- (interval in whole ticks, names, bounds) are checked once by plan_check()
-- after the command line's flags, which beat a suite's values.
local tbl, file, dir, parse_duration, parse_count, rules = ...
local checks = require("luamech.checks")(file, rules, parse_duration, parse_count)
local fail, show, check_known, duration = checks.fail, checks.show, checks.check_known, checks.duration
local count, list, str, no_nul = checks.count, checks.list, checks.str, checks.no_nul

-- setting -> its kind and the limit (a field of plan.c's table) it obeys
local settings = { vus = "count", workers = "count", requests = "count", seed = "count",
                   duration = "duration", rampup = "duration", interval = "duration" }
local limit_of = { duration = "run_time" }
local top_fields = { name = true, scenario = true, params = true, sweep = true, runs = true }
local run_fields = { name = true, scenario = true, params = true }
for k in pairs(settings) do top_fields[k] = true; run_fields[k] = true end

-- "vus" = 10 -> overrides.vus = 10; "duration" = "30s" -> overrides.duration_ns
local function setting(out, key, v, where)
  local lim = limit_of[key] or key
  if settings[key] == "count" then out[key] = count(v, where, lim)
  else out[key .. "_ns"] = duration(v, where, nil, lim) end
end

local function params_of(v, where, into)
  if v == nil then return into end
  if type(v) ~= "table" then fail(where, "expected a table of NAME = value, got " .. show(v)) end
  for k, x in pairs(v) do
    if type(k) ~= "string" or (type(x) ~= "string" and type(x) ~= "number") then
      fail(where, "expected NAME = \"value\" pairs, found " .. show(k) .. " = " .. show(x))
    end
    no_nul(k, where)
    into[k] = no_nul(tostring(x), where .. "." .. k)
  end
  return into
end

local function path_of(s, where)
  if type(s) ~= "string" or s == "" then fail(where, "expected the path of a scenario file, got " .. show(s)) end
  no_nul(s, where)
  return s:sub(1, 1) == "/" and s or (dir .. "/" .. s)
end

local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end

if type(tbl) ~= "table" then fail("suite", "the file must return a table, got " .. show(tbl)) end
check_known(tbl, top_fields, "suite")
local base_over, base_params = {}, params_of(tbl.params, "params", {})
for k in pairs(settings) do if tbl[k] ~= nil then setting(base_over, k, tbl[k], k) end end

local runs = {}
if tbl.sweep ~= nil then
  if tbl.runs ~= nil then fail("sweep", "give either sweep or runs, not both") end
  if type(tbl.sweep) ~= "table" then fail("sweep", "expected { NAME = { values } }, got " .. show(tbl.sweep)) end
  local key, values = next(tbl.sweep)
  if type(key) ~= "string" then fail("sweep", "expected { NAME = { values } } (NAME a setting or a parameter), got the key " .. show(key)) end
  if next(tbl.sweep, key) ~= nil then fail("sweep", "sweep one setting at a time") end
  if type(values) ~= "table" or list(values, "sweep." .. tostring(key)) == 0 then fail("sweep." .. tostring(key), "expected a list of values") end
  local scenario = path_of(tbl.scenario, "scenario")
  for i, v in ipairs(values) do
    local over, params = copy(base_over), copy(base_params)
    if settings[key] then setting(over, key, v, string.format("sweep.%s[%d]", key, i))
    else params[key] = tostring(v) end
    local name = no_nul(key .. "=" .. tostring(v), string.format("sweep.%s[%d]", key, i))
    runs[i] = { name = name, scenario = scenario, overrides = over, params = params,
                origin = string.format("%s: sweep run %d (%s)", file, i, name) }
  end
elseif tbl.runs ~= nil then
  if type(tbl.runs) ~= "table" or list(tbl.runs, "runs") == 0 then fail("runs", "expected a list of runs") end
  for i, r in ipairs(tbl.runs) do
    local where = string.format("runs[%d]", i)
    if type(r) ~= "table" then fail(where, "expected a table, got " .. show(r)) end
    check_known(r, run_fields, where)
    local over, params = copy(base_over), params_of(r.params, where .. ".params", copy(base_params))
    for k in pairs(settings) do if r[k] ~= nil then setting(over, k, r[k], where .. "." .. k) end end
    runs[i] = { name = str(r.name, where .. ".name", "run-" .. i),
                scenario = path_of(r.scenario or tbl.scenario, where .. ".scenario"),
                overrides = over, params = params, origin = file .. ": " .. where }
  end
else
  fail("suite", "expected sweep = { NAME = { values } } or runs = { ... }")
end
local swept = tbl.sweep and next(tbl.sweep)
return { name = str(tbl.name, "name", file:match("([^/]+)%.lua$") or file), runs = runs,
         swept = swept and settings[swept] and swept or nil }
