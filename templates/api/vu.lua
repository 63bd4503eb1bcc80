-- Runs once per VU: a client of its own (its own cookie jar; no connection
-- yet).  Over https the API's certificate is verified against API_CA
-- (checked by scenario.lua; "system": the system's CA store).
local ca = luamech.param("API_CA", "system")
local api = luamech.http.new(luamech.param("API_BASE", "https://127.0.0.1:8443"),
                             { tls = ca ~= "system" and { ca_file = ca } or nil })

-- One transaction: one user session.  A request that gets no reply returns
-- nil, err: error(err) fails the transaction with that message.
return function()
  local res, err = api:post("/api/login", nil, { json = { user = "ada", password = "secret" }, name = "login" })
  if not res then error(err) end
  local body = res:json()
  if not luamech.check(res.status == 200 and body and body.token, "login returns a token") then return end
  local auth = { Authorization = "Bearer " .. body.token }

  res, err = api:get("/api/me", { headers = auth, name = "me" })
  if not res then error(err) end
  local me = res:json()
  luamech.check(res.status == 200 and me and me.id == 42, "me is user 42")

  res, err = api:patch("/api/me", nil, { headers = auth, json = { name = "Ada L." }, name = "update me" })
  if not res then error(err) end
  luamech.check(res.status == 200 and res:json().updated == true, "profile updated")

  res, err = api:post("/api/logout", nil, { name = "logout" })
  if not res then error(err) end
  luamech.check(res.status == 200 and res.redirects == 1, "logged out via a redirect")

  -- after logout the session cookie is gone: a 401, as expected (not an error)
  res, err = api:get("/api/me", { headers = auth, expect = 401, name = "me after logout" })
  if not res then error(err) end
  luamech.check(res.status == 401, "no session after logout")
  luamech.sleep(0.1)   -- think time: not in the transaction's time
end
