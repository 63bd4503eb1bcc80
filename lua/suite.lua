-- suite.lua: checks a suite file and expands it into a list of runs.  A
-- suite is runs done one after another and reported in one table: either a
-- sweep of one setting over a scenario (seed 001: the same scenario at 1, 2,
-- 10, 50 and 100 VUs) or an explicit list of runs.
-- Arguments: the suite table, its file name, its directory, and C helpers
-- parse_duration(s) -> ns or nil, parse_count(s) -> n or nil.
local tbl, file, dir, parse_duration, parse_count = ...

local settings = { vus = "count", workers = "count", requests = "count", seed = "count",
                   duration = "duration", rampup = "duration", interval = "duration" }
local top_fields = { name = true, scenario = true, params = true, sweep = true, runs = true }
local run_fields = { name = true, scenario = true, params = true }
for k in pairs(settings) do top_fields[k] = true; run_fields[k] = true end

local function fail(field, msg) error(string.format("%s: %s: %s", file, field, msg), 0) end
local function show(v) return type(v) == "string" and string.format("%q", v) or (type(v) .. " " .. tostring(v)) end

local function check_known(t, known, where)
  for k in pairs(t) do
    if not known[k] then
      local names = {}
      for n in pairs(known) do names[#names + 1] = n end
      table.sort(names)
      fail(where, string.format("unknown field '%s'; known fields: %s", tostring(k), table.concat(names, ", ")))
    end
  end
end

-- "vus" = 10 -> overrides.vus = 10; "duration" = "30s" -> overrides.duration_ns
local function setting(out, key, v, where)
  local kind = settings[key]
  if kind == "count" then
    local n = type(v) == "number" and v or (type(v) == "string" and parse_count(v))
    if not n or n < 0 or n ~= math.floor(n) then fail(where, "expected an integer, got " .. show(v)) end
    out[key] = n
  else
    local ns = type(v) == "number" and v * 1e9 or (type(v) == "string" and parse_duration(v))
    if not ns then fail(where, "expected a duration such as \"30s\", got " .. show(v)) end
    out[key .. "_ns"] = ns
  end
end

local function params_of(v, where, into)
  if v == nil then return into end
  if type(v) ~= "table" then fail(where, "expected a table of NAME = value, got " .. show(v)) end
  for k, x in pairs(v) do
    if type(k) ~= "string" or (type(x) ~= "string" and type(x) ~= "number") then
      fail(where, "expected NAME = \"value\" pairs, found " .. show(k) .. " = " .. show(x))
    end
    into[k] = tostring(x)
  end
  return into
end

local function path_of(s, where)
  if type(s) ~= "string" or s == "" then fail(where, "expected the path of a scenario file, got " .. show(s)) end
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
  if next(tbl.sweep, key) ~= nil then fail("sweep", "sweep one setting at a time") end
  if type(values) ~= "table" or #values == 0 then fail("sweep." .. tostring(key), "expected a list of values") end
  local scenario = path_of(tbl.scenario, "scenario")
  for i, v in ipairs(values) do
    local over, params = copy(base_over), copy(base_params)
    if settings[key] then setting(over, key, v, string.format("sweep.%s[%d]", key, i))
    else params[key] = tostring(v) end
    runs[i] = { name = key .. "=" .. tostring(v), scenario = scenario, overrides = over, params = params }
  end
elseif tbl.runs ~= nil then
  if type(tbl.runs) ~= "table" or #tbl.runs == 0 then fail("runs", "expected a list of runs") end
  for i, r in ipairs(tbl.runs) do
    local where = string.format("runs[%d]", i)
    if type(r) ~= "table" then fail(where, "expected a table, got " .. show(r)) end
    check_known(r, run_fields, where)
    local over, params = copy(base_over), params_of(r.params, where .. ".params", copy(base_params))
    for k in pairs(settings) do if r[k] ~= nil then setting(over, k, r[k], where .. "." .. k) end end
    runs[i] = { name = r.name or ("run-" .. i), scenario = path_of(r.scenario or tbl.scenario, where .. ".scenario"),
                overrides = over, params = params }
  end
else
  fail("suite", "expected sweep = { NAME = { values } } or runs = { ... }")
end
return { name = tbl.name or (file:match("([^/]+)%.lua$") or file), runs = runs }
