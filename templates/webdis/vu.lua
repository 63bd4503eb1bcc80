-- Runs once per VU: a client (no connection yet).
local http = assert(luamech.http.new(luamech.param("HTTP_BASE", "http://127.0.0.1:7379")))
local prefix = "{{NAME}}:item:" .. luamech.vu_id() .. ":"

local function must(res, err, what)
  if not res then error(err) end
  if res.status ~= 200 then error(what .. ": status " .. res.status) end
  return res
end

-- One transaction: create, read back, delete.
return function()
  local key = prefix .. luamech.iteration()
  local body = '{"id":' .. luamech.iteration() .. ',"vu":' .. luamech.vu_id() .. '}'
  must(http:put("/SET/" .. key, body, { name = "create" }), nil, "create")
  local got = must(http:get("/GET/" .. key .. ".txt", { name = "read" }), nil, "read")
  luamech.check(got.body == body, "read back what was created")
  must(http:post("/", "DEL/" .. key, { name = "delete" }), nil, "delete")
  luamech.sleep(0.01)
end
