-- scenario.lua: checks a user's scenario table and returns a normalised copy.
-- Runs in the main thread's Lua state before any load starts. Every error
-- names the field and what was expected, so the user can fix it in one go.
-- Arguments: the scenario table, the scenario's file name (for messages),
-- its directory (scripts are relative to it), and helpers from C:
-- parse_duration(s) -> ns or nil, parse_count(s) -> n or nil,
-- check_threshold(s) -> true or false, why, and the plan's rules from
-- src/scenario/plan.c: { limits = { vus = { min, max, range }, ... },
-- defaults = { interval_ns, ... } } (one table of limits and defaults).
-- Values are range-checked here, before C converts them; rules across
-- fields and overrides (interval in whole ticks, names, bounds) are checked
-- once on the final plan by plan_check() in C.
local tbl, file, dir, parse_duration, parse_count, check_threshold, rules = ...
local limits, defaults = rules.limits, rules.defaults
local checks = require("luamech.checks")(file, rules, parse_duration, parse_count)
local fail, show, check_known, duration = checks.fail, checks.show, checks.check_known, checks.duration
local count, list, str, no_nul = checks.count, checks.list, checks.str, checks.no_nul

local fields = {
  name = true, run_time = true, rampup = true, interval = true,
  requests = true, workers = true, seed = true, graceful_stop = true,
  notes = true, groups = true, phases = true, thresholds = true, abort_on_threshold = true,
  max_timers = true, setup = true, teardown = true, console = true,
}
local phase_fields = {
  name = true, run_time = true, rampup = true, interval = true, requests = true,
  workers = true, seed = true, graceful_stop = true, notes = true, groups = true,
  thresholds = true, abort_on_threshold = true, max_timers = true, console = true,
}
local group_fields = {
  name = true, vus = true, script = true, model = true, pacing = true, rate = true,
  max_vus = true, stages = true, start = true, on_error = true,
}

local function number(v, field, lim)
  local l = limits[lim]
  if type(v) ~= "number" or not (v >= l.min and v <= l.max) then
    fail(field, "expected " .. l.range .. ", got " .. show(v))
  end
  return v
end

-- stages = { { duration = "30s", target = 100 }, ... } -> { {dur_ns, target} }
local function stages_of(v, field)
  if type(v) ~= "table" or list(v, field) == 0 then
    fail(field, "expected a list of stages such as { { duration = \"30s\", target = 100 } }, got " .. show(v))
  end
  local n = #v
  if n > 64 then fail(field, "at most 64 stages, got " .. n) end
  local out = {}
  for i, st in ipairs(v) do
    local sw = string.format("%s[%d]", field, i)
    if type(st) ~= "table" then fail(sw, "expected { duration = ..., target = ... }, got " .. show(st)) end
    check_known(st, { duration = true, target = true }, sw)
    out[i] = { dur_ns = duration(st.duration, sw .. ".duration", nil, "duration"), target = number(st.target, sw .. ".target", "target") }
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
  local out = { model = model, stages = {}, start = g.start and number(g.start, gw .. ".start", "start") or 0 }
  if g.stages ~= nil then
    out.stages = stages_of(g.stages, gw .. ".stages")
    if rampup_ns > 0 then fail(gw .. ".stages", "use either stages or rampup, not both") end
  end
  if model == "paced" then
    out.pacing_ns = duration(g.pacing, gw .. ".pacing", nil, "pacing")
    if not out.pacing_ns then fail(gw .. ".pacing", "a paced group needs pacing, e.g. pacing = \"1s\"") end
  elseif g.pacing ~= nil then
    fail(gw .. ".pacing", "pacing is for model = \"paced\"")
  end
  if model == "rate" then
    if g.rate == nil and #out.stages == 0 then fail(gw .. ".rate", "a rate group needs rate (transactions/s) or stages") end
    out.rate = g.rate and number(g.rate, gw .. ".rate", "rate") or out.start
    if g.rate ~= nil and #out.stages > 0 then
      fail(gw .. ".rate", "give either rate or stages, not both: a constant rate is rate = N; a changing one is " ..
           "model = \"rate\", start = N (transactions/s at t = 0), stages = { { duration = \"30s\", target = M }, ... }")
    end
    out.prealloc = count(g.vus, gw .. ".vus", "vus") or defaults.rate_prealloc
    if out.prealloc < 1 then fail(gw .. ".vus", "a rate group starts at least 1 VU, got 0") end
    out.vus = count(g.max_vus, gw .. ".max_vus", "max_vus") or out.prealloc
    if out.vus < out.prealloc then fail(gw .. ".max_vus", "must be >= vus (" .. out.prealloc .. "), got " .. out.vus) end
    return out
  end
  if g.rate ~= nil then fail(gw .. ".rate", "rate is for model = \"rate\"") end
  if g.max_vus ~= nil then fail(gw .. ".max_vus", "max_vus is for model = \"rate\"") end
  local most = out.start
  for _, st in ipairs(out.stages) do most = math.max(most, st.target) end
  out.vus = count(g.vus, gw .. ".vus", "vus")
  if out.vus == nil and #out.stages == 0 then fail(gw .. ".vus", "expected the number of virtual users, got nil") end
  out.vus = out.vus or math.ceil(most)
  return out                                   -- without stages, C builds the ramp-up
end

-- on_error = { pause = "1s" }: after a failed transaction the VU waits
-- that long before its next one (closed groups only: paced and rate groups
-- start on their schedule, failed or not).  Returns the pause in ns, or 0.
local function on_error_of(v, field, model)
  if v == nil then return 0 end
  if type(v) ~= "table" then fail(field, "expected a table such as { pause = \"1s\" }, got " .. show(v)) end
  check_known(v, { pause = true }, field)
  if v.pause == nil then fail(field .. ".pause", "expected a duration such as \"1s\", got nil") end
  local ns = duration(v.pause, field .. ".pause", nil, "pause")
  if model ~= "closed" then
    fail(field, "on_error.pause is for closed groups: a " .. model .. " group starts its transactions " ..
         "on its schedule, failed or not, so failures cannot swamp it")
  end
  return ns
end

-- Checks one run's fields (a scenario, or one of its phases); `where` is
-- the prefix of field names in messages ("" or "phases[2].").
local function normalise(t, where, default_name, need_groups)
  local out = {
    name = str(t.name, where .. "name", default_name),
    rampup_ns = duration(t.rampup, where .. "rampup", 0, "rampup"),
    interval_ns = duration(t.interval, where .. "interval", defaults.interval_ns, "interval"),
    graceful_stop_ns = duration(t.graceful_stop, where .. "graceful_stop", defaults.graceful_stop_ns, "graceful_stop"),
    requests = count(t.requests, where .. "requests", "requests"),
    workers = count(t.workers, where .. "workers", "workers"),
    seed = count(t.seed, where .. "seed", "seed"),
    max_timers = count(t.max_timers, where .. "max_timers", "max_timers") or 1000,
    notes = str(t.notes, where .. "notes", nil),
    groups = {},
    thresholds = {},
    abort_on_threshold = t.abort_on_threshold and true or false,
    console_full = t.console == "full",
  }
  if t.console ~= nil and t.console ~= "full" and t.console ~= "compact" then
    fail(where .. "console", "expected \"compact\" (the default end report) or \"full\" (every table, with " ..
         "the interval details, as with --verbose), got " .. show(t.console))
  end
  if t.abort_on_threshold ~= nil and type(t.abort_on_threshold) ~= "boolean" then
    fail(where .. "abort_on_threshold", "expected true or false, got " .. show(t.abort_on_threshold))
  end
  if t.thresholds ~= nil then
    if type(t.thresholds) ~= "table" then
      fail(where .. "thresholds", "expected a list of criteria such as { \"GET p95 < 5ms\" }, got " .. show(t.thresholds))
    end
    list(t.thresholds, where .. "thresholds")
    for k, v in pairs(t.thresholds) do
      local tw = string.format("%sthresholds[%s]", where, tostring(k))
      if type(v) ~= "string" then
        fail(tw, "expected a string such as \"GET p95 < 5ms\", got " .. show(v))
      end
      no_nul(v, tw)
      local ok, why = check_threshold(v)
      if not ok then fail(tw, why) end
      out.thresholds[k] = v
    end
  end
  -- Without a transaction budget a run is bounded by time (the default)
  -- unless said; 0 without a budget is refused by plan_check.
  out.run_time_ns = duration(t.run_time, where .. "run_time", out.requests and 0 or defaults.run_time_ns, "run_time")

  if not need_groups and t.groups == nil then return out end
  if type(t.groups) ~= "table" or list(t.groups, where .. "groups") == 0 then
    fail(where .. "groups", "expected a list of groups such as { { name = \"readers\", vus = 10, script = \"get.lua\" } }, got " .. show(t.groups))
  end
  local seen = {}
  for i, g in ipairs(t.groups) do
    local gw = string.format("%sgroups[%d]", where, i)
    if type(g) ~= "table" then fail(gw, "expected a table { name = ..., vus = ..., script = ... }, got " .. show(g)) end
    check_known(g, group_fields, gw)
    local name = str(g.name, gw .. ".name", "group-" .. i)
    if seen[name] then fail(gw .. ".name", "duplicate group name " .. show(name)) end
    seen[name] = true
    local load = load_model(g, gw, out.rampup_ns)
    load.error_pause_ns = on_error_of(g.on_error, gw .. ".on_error", load.model)
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

-- setup(): once before the load; teardown(data): once after (functions of
-- the scenario file, run by a worker with every primitive: src/cli.c).
for _, f in ipairs({ "setup", "teardown" }) do
  if tbl[f] ~= nil and type(tbl[f]) ~= "function" then
    fail(f, "expected a function, got " .. show(tbl[f]))
  end
end
if (tbl.setup or tbl.teardown) and tbl.phases ~= nil then
  fail(tbl.setup and "setup" or "teardown", "setup and teardown are not supported with phases")
end
if tbl.phases == nil then
  local out = normalise(tbl, "", default_name, true)
  out.has_setup, out.has_teardown = tbl.setup ~= nil, tbl.teardown ~= nil
  return out
end

-- Phases run one after another; each takes the scenario's fields as
-- defaults and may set its own, except the thresholds: the scenario's own
-- are judged on the whole run (all phases), a phase's on that phase.
if type(tbl.phases) ~= "table" or list(tbl.phases, "phases") == 0 then
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
