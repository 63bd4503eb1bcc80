-- Runs once per VU: the client is the worker's shared one (pool = true), so
-- the VUs' requests multiplex on its HTTP/2 connection.
local http = assert(luamech.http.new(luamech.param("H2_BASE", "http://127.0.0.1:8080"),
                                     { http = "2", pool = true, max_streams = 100 }))

-- One transaction: a GET; res.proto says which protocol carried it.
return function()
  local res, err = http:get("/", { name = "GET /" })
  if not res then error(err) end
  luamech.check(res.status == 200, "status 200")
  luamech.check(res.proto == "HTTP/2", "over HTTP/2")
end
