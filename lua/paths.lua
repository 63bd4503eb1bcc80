-- paths.lua: relative paths in scenarios and scripts resolve against the
-- scenario's folder, whatever the current directory: io.open, io.lines,
-- dofile, loadfile and `require` (a loader searching the folder first:
-- NAME.lua and NAME/init.lua, then package.path as usual).  Files read this
-- way are handed to `record` (the results' scenario/ copy).  It does not
-- change the process's current directory.
local root, record = ...
local open, lines, dofile0, loadfile0 = io.open, io.lines, dofile, loadfile

local function resolve(p)
  if type(p) == "string" and p ~= "" and p:sub(1, 1) ~= "/" then return root .. "/" .. p end
  return p
end

local function note(p)
  if record then pcall(record, p) end
end

io.open = function(path, mode, ...)
  local p = resolve(path)
  local f, err, code = open(p, mode, ...)
  if f and (mode == nil or not tostring(mode):find("[wa+]")) then note(p) end
  return f, err, code
end

io.lines = function(path, ...)
  if path == nil then return lines() end
  local p = resolve(path)
  local it = lines(p, ...)
  note(p)
  return it
end

dofile = function(path)
  if path == nil then return dofile0() end
  local p = resolve(path)
  note(p)
  return dofile0(p)
end

loadfile = function(path)
  if path == nil then return loadfile0() end
  local p = resolve(path)
  local chunk, err = loadfile0(p)
  if chunk then note(p) end
  return chunk, err
end

table.insert(package.loaders, 2, function(name)
  local rel = (name:gsub("%.", "/"))
  local msg = {}
  for _, pattern in ipairs({ "/?.lua", "/?/init.lua" }) do
    local path = root .. (pattern:gsub("%?", rel))
    local f = open(path, "r")
    if f then
      f:close()
      local chunk, err = loadfile0(path)
      if not chunk then
        error(string.format("error loading module '%s' from file '%s':\n\t%s", name, path, err), 0)
      end
      note(path)
      return chunk
    end
    msg[#msg + 1] = "\n\tno file '" .. path .. "'"
  end
  return table.concat(msg)
end)

-- Undo: the scenario loader checks script paths (already joined to the
-- folder as given) with the plain functions.
return function()
  io.open, io.lines, dofile, loadfile = open, lines, dofile0, loadfile0
  table.remove(package.loaders, 2)
end
