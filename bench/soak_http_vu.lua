-- soak_http_vu.lua: a VU of bench/soak.lua.  Keep-alive GETs of a small
-- page; one request in ten asks for "Connection: close", so the client
-- reconnects all run long.  Failures while nginx restarts are counted.
local THINK = tonumber(luamech.param("THINK", "0.1"))
local http = assert(luamech.http.new(luamech.param("HTTP_BASE", "http://127.0.0.1:8080"), { timeout = 1 }))

return function()
  if luamech.random(1, 10) == 1 then
    http:get("/", { headers = { Connection = "close" } })
  else
    http:get("/")
  end
  luamech.sleep(THINK)
end
