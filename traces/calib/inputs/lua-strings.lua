-- lua-strings.lua: calibration workload for the cycle model (not a shipped trace): a dialog
-- and quest-log system building and discarding strings, a word index that grows and shrinks.
math.randomseed(7)
collectgarbage("incremental", 130, 200)
local rnd = math.random
local words = { "sword", "shield", "potion", "dragon", "castle", "forest", "river", "king",
  "thief", "gold", "key", "door", "map", "torch", "rope", "bridge" }
local index, quests, lines = {}, {}, {}
for frame = 1, 2400 do
  local n = rnd(3, 12)
  local parts = {}
  for i = 1, n do parts[i] = words[rnd(#words)] end
  local line = table.concat(parts, " ")
  lines[#lines + 1] = line
  for _, w in ipairs(parts) do
    local e = index[w]
    if not e then e = {}; index[w] = e end
    e[#e + 1] = #lines
  end
  if #lines > 220 then
    local old = table.remove(lines, 1)
    for w in old:gmatch("%a+") do
      local e = index[w]
      if e then table.remove(e, 1) end
    end
  end
  if frame % 37 == 0 then
    quests[#quests + 1] = { title = line:upper(), steps = {} }
    for i = 1, rnd(2, 9) do quests[#quests].steps[i] = words[rnd(#words)] .. " x" .. rnd(99) end
  end
  if #quests > 24 then table.remove(quests, rnd(#quests)) end
end
print(#lines, #quests)
