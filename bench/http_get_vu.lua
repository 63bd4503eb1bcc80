-- http_get_vu.lua: a VU of bench/http_get.lua.  Its own client, so its own
-- keep-alive connection (the default); one GET of URL_PATH per transaction
-- (not PATH: luamech.param falls back to the environment).  A non-2xx
-- status is already an error of the http.get timer; the body is not checked
-- (the script compares the server's request count with http.get's count).
-- With an https:// URL, CA names the CA file to verify against; KEEPALIVE=0
-- opens a connection per request.
local CA = luamech.param("CA", "")
local c = assert(luamech.http.new(luamech.param("URL", "http://127.0.0.1:8080"),
                 { keepalive = luamech.param("KEEPALIVE", "1") == "1",
                   tls = CA ~= "" and { ca_file = CA } or nil }))
local PATH = luamech.param("URL_PATH", "/")

return function()
  local res, err = c:get(PATH)
  if not res then error(err) end
end
