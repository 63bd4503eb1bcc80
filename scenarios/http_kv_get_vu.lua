-- http_kv_get_vu.lua: each VU keeps one connection (ab -k) and GETs one key.
local http = assert(luamech.http.new(luamech.param("HTTP_BASE", "http://127.0.0.1:7379")))
local path = luamech.param("KEY_PATH", "/GET/key-1")
local set_path = luamech.param("SET_PATH", "/SET/key-1/value-1")
if luamech.vu_index() == 1 and set_path ~= "" then assert(http:get(set_path)) end   -- the key exists

return function()
  local res, err = http:get(path, { name = "GET key" })
  if not res then error(err) end
  luamech.check(res.status == 200, "status 200")
end
