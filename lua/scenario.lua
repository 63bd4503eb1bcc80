-- scenario.lua: checks a user's scenario table and returns a normalised copy.
-- Runs in the main thread's Lua state before any load starts. Every error
-- names the field and what was expected, so the user can fix it in one go.
-- Arguments: the scenario table, the scenario's file name (for messages),
-- its directory (scripts are relative to it), and helpers from C:
-- parse_duration(s) -> ns or nil, parse_count(s) -> n or nil,
-- check_threshold(s) -> true or false, why.
local tbl, file, dir, parse_duration, parse_count, check_threshold = ...

local fields = {
  name = true, run_time = true, rampup = true, interval = true,
  requests = true, workers = true, seed = true, graceful_stop = true,
  notes = true, groups = true, phases = true, thresholds = true, abort_on_threshold = true,
  max_timers = true,
}
local phase_fields = {
  name = true, run_time = true, rampup = true, interval = true, requests = true,
  workers = true, seed = true, graceful_stop = true, notes = true, groups = true,
  thresholds = true, abort_on_threshold = true, max_timers = true,
}
local group_fields = {
  name = true, vus = true, script = true, model = true, pacing = true, rate = true,
  max_vus = true, stages = true, start = true,
}

local function fail(field, msg)
  error(string.format("%s: %s: %s", file, field, msg), 0)
end

local function show(v)
  if type(v) == "string" then return string.format("%q", v) end
  return type(v) .. " " .. tostring(v)
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

local function check_known(t, known, where)
  for k in pairs(t) do
    if type(k) ~= "string" or not known[k] then
      if type(k) == "number" and where == "scenario" then
        fail("scenario", "unexpected array item; the scenario is a table of named fields")
      end
      local best, bestd = nil, 3
      for name in pairs(known) do
        local d = distance(tostring(k), name)
        if d < bestd then best, bestd = name, d end
      end
      local hint = best and string.format(" (did you mean '%s'?)", best) or ""
      local names = {}
      for name in pairs(known) do names[#names + 1] = name end
      table.sort(names)
      fail(where, string.format("unknown field '%s'%s; known fields: %s",
        tostring(k), hint, table.concat(names, ", ")))
    end
  end
end

local function duration(v, field, default, allow_zero)
  if v == nil then return default end
  local ns
  if type(v) == "number" then
    ns = v >= 0 and v * 1e9 or nil
  elseif type(v) == "string" then
    ns = parse_duration(v)
  end
  if not ns or (ns == 0 and not allow_zero) then
    fail(field, "expected a duration such as \"30s\", \"5m\", \"250ms\" or a number of seconds" ..
      (allow_zero and "" or " greater than zero") .. ", got " .. show(v))
  end
  return ns
end

local function count(v, field, min)
  if v == nil then return nil end
  local n
  if type(v) == "number" then n = v
  elseif type(v) == "string" then n = parse_count(v) end
  if not n or n ~= math.floor(n) or n < min then
    fail(field, string.format("expected an integer >= %d (\"10k\" and \"1M\" are accepted), got %s", min, show(v)))
  end
  return n
end

local function str(v, field, default)
  if v == nil then return default end
  if type(v) ~= "string" or v == "" then fail(field, "expected a non-empty string, got " .. show(v)) end
  return v
end

local function number(v, field, min)
  if type(v) ~= "number" or v < min then
    fail(field, string.format("expected a number >= %s, got %s", tostring(min), show(v)))
  end
  return v
end

-- stages = { { duration = "30s", target = 100 }, ... } -> { {dur_ns, target} }
local function stages_of(v, field)
  if type(v) ~= "table" or #v == 0 then
    fail(field, "expected a list of stages such as { { duration = \"30s\", target = 100 } }, got " .. show(v))
  end
  if #v > 64 then fail(field, "at most 64 stages, got " .. #v) end
  local out = {}
  for i, st in ipairs(v) do
    local sw = string.format("%s[%d]", field, i)
    if type(st) ~= "table" then fail(sw, "expected { duration = ..., target = ... }, got " .. show(st)) end
    check_known(st, { duration = true, target = true }, sw)
    out[i] = { dur_ns = duration(st.duration, sw .. ".duration", nil, true), target = number(st.target, sw .. ".target", 0) }
    if out[i].dur_ns == nil then fail(sw .. ".duration", "expected a duration, got nil") end
  end
  return out
end

-- A group's load model: closed (default), paced (pacing = P) or rate
-- (rate = R transactions/s from a pool of vus .. max_vus VUs), each with
-- optional stages.  Returns the normalised fields.
local function load_model(g, gw, rampup_ns)
  local model = g.model or (g.rate and "rate") or (g.pacing and "paced") or
                ((g.stages and g.vus == nil and g.max_vus) and "rate") or "closed"
  if model ~= "closed" and model ~= "paced" and model ~= "rate" then
    fail(gw .. ".model", "expected \"closed\", \"paced\" or \"rate\", got " .. show(model))
  end
  local out = { model = model, stages = {}, start = g.start and number(g.start, gw .. ".start", 0) or 0 }
  if g.stages ~= nil then
    out.stages = stages_of(g.stages, gw .. ".stages")
    if rampup_ns > 0 then fail(gw .. ".stages", "use either stages or rampup, not both") end
  end
  if model == "paced" then
    out.pacing_ns = duration(g.pacing, gw .. ".pacing", nil, false)
    if not out.pacing_ns then fail(gw .. ".pacing", "a paced group needs pacing, e.g. pacing = \"1s\"") end
  elseif g.pacing ~= nil then
    fail(gw .. ".pacing", "pacing is for model = \"paced\"")
  end
  if model == "rate" then
    if g.rate == nil and #out.stages == 0 then fail(gw .. ".rate", "a rate group needs rate (transactions/s) or stages") end
    out.rate = g.rate and number(g.rate, gw .. ".rate", 0) or out.start
    if g.rate ~= nil and #out.stages > 0 then fail(gw .. ".rate", "give either rate or stages (with start), not both") end
    out.prealloc = count(g.vus, gw .. ".vus", 1) or 10
    out.vus = count(g.max_vus, gw .. ".max_vus", 1) or out.prealloc
    if out.vus < out.prealloc then fail(gw .. ".max_vus", "must be >= vus (" .. out.prealloc .. "), got " .. out.vus) end
    return out
  end
  if g.rate ~= nil then fail(gw .. ".rate", "rate is for model = \"rate\"") end
  if g.max_vus ~= nil then fail(gw .. ".max_vus", "max_vus is for model = \"rate\"") end
  local most = out.start
  for _, st in ipairs(out.stages) do most = math.max(most, st.target) end
  out.vus = count(g.vus, gw .. ".vus", 0)
  if out.vus == nil and #out.stages == 0 then fail(gw .. ".vus", "expected the number of virtual users, got nil") end
  out.vus = out.vus or math.ceil(most)
  return out                                   -- without stages, C builds the ramp-up
end

-- Checks one run's fields (a scenario, or one of its phases); `where` is
-- the prefix of field names in messages ("" or "phases[2].").
local function normalise(t, where, default_name, need_groups)
  local out = {
    name = str(t.name, where .. "name", default_name),
    rampup_ns = duration(t.rampup, where .. "rampup", 0, true),
    interval_ns = duration(t.interval, where .. "interval", 10e9, false),
    graceful_stop_ns = duration(t.graceful_stop, where .. "graceful_stop", 5e9, true),
    requests = count(t.requests, where .. "requests", 1),
    workers = count(t.workers, where .. "workers", 1),
    seed = count(t.seed, where .. "seed", 0),
    max_timers = count(t.max_timers, where .. "max_timers", 1) or 1000,
    notes = str(t.notes, where .. "notes", nil),
    groups = {},
    thresholds = {},
    abort_on_threshold = t.abort_on_threshold and true or false,
  }
  if t.abort_on_threshold ~= nil and type(t.abort_on_threshold) ~= "boolean" then
    fail(where .. "abort_on_threshold", "expected true or false, got " .. show(t.abort_on_threshold))
  end
  if t.thresholds ~= nil then
    if type(t.thresholds) ~= "table" then
      fail(where .. "thresholds", "expected a list of criteria such as { \"GET p95 < 5ms\" }, got " .. show(t.thresholds))
    end
    for k, v in pairs(t.thresholds) do
      local tw = string.format("%sthresholds[%s]", where, tostring(k))
      if type(k) ~= "number" then fail(where .. "thresholds", "expected a list, found key " .. show(k)) end
      local ok, why = check_threshold(tostring(v))
      if type(v) ~= "string" or not ok then fail(tw, why or ("expected a string, got " .. show(v))) end
      out.thresholds[k] = v
    end
  end
  if out.max_timers > 1000000 then
    fail(where .. "max_timers", "expected at most 1000000 distinct timer names, got " .. show(t.max_timers))
  end
  if out.interval_ns % 1e8 ~= 0 then
    fail(where .. "interval", "expected a whole number of 100 ms (e.g. \"500ms\", \"10s\"), got " .. show(t.interval))
  end
  -- Without a transaction budget a run is bounded by time: 10 s unless said.
  out.run_time_ns = duration(t.run_time, where .. "run_time", out.requests and 0 or 10e9, out.requests ~= nil)

  if not need_groups and t.groups == nil then return out end
  if type(t.groups) ~= "table" or #t.groups == 0 then
    fail(where .. "groups", "expected a list of groups such as { { name = \"readers\", vus = 10, script = \"get.lua\" } }, got " .. show(t.groups))
  end
  local seen = {}
  for k in pairs(t.groups) do
    if type(k) ~= "number" or k < 1 or k > #t.groups or k ~= math.floor(k) then
      fail(where .. "groups", "expected a list (array) of groups, found key " .. show(k))
    end
  end
  for i, g in ipairs(t.groups) do
    local gw = string.format("%sgroups[%d]", where, i)
    if type(g) ~= "table" then fail(gw, "expected a table { name = ..., vus = ..., script = ... }, got " .. show(g)) end
    check_known(g, group_fields, gw)
    local name = str(g.name, gw .. ".name", "group-" .. i)
    if seen[name] then fail(gw .. ".name", "duplicate group name " .. show(name)) end
    seen[name] = true
    local load = load_model(g, gw, out.rampup_ns)
    local vus = load.vus
    local script = str(g.script, gw .. ".script", nil)
    if not script then fail(gw .. ".script", "expected the path of a Lua script, got nil") end
    local path = script:sub(1, 1) == "/" and script or (dir .. "/" .. script)
    local f, err = io.open(path, "r")
    if not f then fail(gw .. ".script", "cannot open " .. show(path) .. ": " .. tostring(err)) end
    f:close()
    local _, serr = loadfile(path)
    if serr then error(serr, 0) end       -- "file.lua:3: '=' expected near 'x'"
    load.name, load.script, load.script_name = name, path, script
    out.groups[i] = load
  end
  return out
end

if type(tbl) ~= "table" then
  fail("scenario", "the file must return a table such as { run_time = \"30s\", groups = { ... } }, got " .. show(tbl))
end
check_known(tbl, fields, "scenario")
local default_name = file:match("([^/]+)%.lua$") or file

if tbl.phases == nil then return normalise(tbl, "", default_name, true) end

-- Phases run one after another; each takes the scenario's fields as
-- defaults and may set its own, except the thresholds: the scenario's own
-- are judged on the whole run (all phases), a phase's on that phase.
if type(tbl.phases) ~= "table" or #tbl.phases == 0 then
  fail("phases", "expected a list of phases such as { { name = \"write\", requests = 1000, groups = { ... } } }, got " .. show(tbl.phases))
end
local out = normalise(tbl, "", default_name, false)
out.phases = {}
for i, ph in ipairs(tbl.phases) do
  local where = string.format("phases[%d].", i)
  if type(ph) ~= "table" then fail(where:sub(1, -2), "expected a table, got " .. show(ph)) end
  check_known(ph, phase_fields, where:sub(1, -2))
  local merged = {}
  for k, v in pairs(tbl) do if k ~= "phases" and k ~= "name" and k ~= "thresholds" then merged[k] = v end end
  for k, v in pairs(ph) do merged[k] = v end
  out.phases[i] = normalise(merged, where, "phase-" .. i, true)
end
return out
