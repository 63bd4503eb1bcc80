-- vu.lua: the body of every virtual user's coroutine; engine/vu.c resumes it.
-- First the group's script runs once for this VU (its "init": connect, build
-- values); it must return the transaction function. Then the transaction runs
-- in a loop until the engine says stop. Errors in a transaction are caught,
-- counted by message, and the VU goes on with its next iteration.
-- In the engine's lifecycle mode (lifecycle = "setup" or "teardown", a run
-- of its own with one VU: scenario_lifecycle) the script is the scenario
-- file: the init calls its setup() (whose result goes to the hidden
-- __luamech_setup_done, lua/lm_lifecycle.c) or teardown(luamech.setup_data),
-- then one empty transaction runs.
local begin, finish, init_failed, lifecycle = ...

-- An error value as text: a string as is; a table through its __tostring or
-- as its first fields; never `table: 0x...`, and never an error itself (an
-- error object whose __tostring raises is described, not re-raised).
local function describe_unsafe(e)
  local ok, s = pcall(tostring, e)
  if not ok then
    return "an error object (" .. type(e) .. ") whose __tostring failed: " ..
           (type(s) == "string" and s or type(s))
  end
  if type(e) ~= "table" or not s:find("^table: ") then return s end
  local parts = {}
  for k, v in pairs(e) do
    parts[#parts + 1] = tostring(k) .. " = " .. (type(v) == "string" and string.format("%q", v) or tostring(v))
  end
  table.sort(parts)            -- the same text in every worker (hash order differs)
  if #parts > 8 then parts[9] = "..."; for i = #parts, 10, -1 do parts[i] = nil end end
  return "an error object (table): { " .. table.concat(parts, ", ") .. " }"
end

local function describe(e)
  if type(e) == "string" then return e end
  local ok, s = pcall(describe_unsafe, e)
  return ok and s or ("an error object (" .. type(e) .. ")")
end

local function noop() end

-- The lifecycle mode's init: the scenario file's function, called once.
local function lifecycle_init(chunk)
  local sc = chunk()
  if lifecycle == "setup" then
    __luamech_setup_done(sc.setup())
  else
    sc.teardown(luamech.setup_data)
  end
  return noop
end

return function(chunk)
  local tx
  local init = lifecycle and function() return lifecycle_init(chunk) end or chunk
  while true do
    local ok, res = pcall(init)
    if ok then
      if type(res) == "function" then
        tx = res
        break
      end
      res = "the script must return the transaction function, got " .. type(res)
    end
    if not init_failed(describe(res)) then return end
  end
  while begin() do
    local ok, err = pcall(tx)
    if not ok and type(err) ~= "string" then err = describe(err) end
    finish(ok, err)
  end
end
