-- vu.lua: the body of every virtual user's coroutine; engine/vu.c resumes it.
-- First the group's script runs once for this VU (its "init": connect, build
-- values); it must return the transaction function. Then the transaction runs
-- in a loop until the engine says stop. Errors in a transaction are caught,
-- counted by message, and the VU goes on with its next iteration.
local begin, finish, init_failed = ...

return function(chunk)
  local tx
  while true do
    local ok, res = pcall(chunk)
    if ok then
      if type(res) == "function" then
        tx = res
        break
      end
      res = "the script must return the transaction function, got " .. type(res)
    end
    if not init_failed(tostring(res)) then return end
  end
  while begin() do
    finish(pcall(tx))
  end
end
