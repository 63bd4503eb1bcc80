-- http_rest_vu.lua: GET /SET/X/1 (group "set") or GET /GET/X (group "get").
local http = assert(luamech.http.new(luamech.param("HTTP_BASE", "http://127.0.0.1:7379")))
local path = luamech.vu_group() == "set" and "/SET/X/1" or "/GET/X"
local name = luamech.vu_group() == "set" and "SET X" or "GET X"

return function()
  local res, err = http:get(path, { name = name })
  if not res then error(err) end
  luamech.check(res.status == 200, name .. " status 200")
end
