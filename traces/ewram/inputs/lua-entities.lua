-- lua-entities.lua: a small game-like entity workload for lua5.4 (agbsim trace input).
-- Entities are tables with components; waves spawn and despawn them, inventories
-- grow (table resizes -> realloc), names/log lines are built as strings.
math.randomseed(42)
collectgarbage("incremental", 140, 200) -- pause 140%: keeps the heap near a GBA-sized budget
local rnd = math.random

local entities, free_slots = {}, {}
local log = {}
local kinds = { "slime", "bat", "knight", "archer", "chest", "torch", "coin", "door" }

local function spawn(frame)
  local kind = kinds[rnd(#kinds)]
  local e = {
    kind = kind,
    name = kind .. "#" .. frame .. "." .. rnd(1000),
    x = rnd(0, 239), y = rnd(0, 159), vx = rnd(-2, 2), vy = rnd(-2, 2),
    hp = rnd(1, 30),
    inventory = {},
    tags = {},
  }
  if kind == "knight" or kind == "archer" then
    e.ai = { state = "idle", path = {}, target = nil }
    for i = 1, rnd(4, 24) do e.ai.path[i] = { rnd(0, 29), rnd(0, 19) } end
  end
  if kind == "chest" then
    for i = 1, rnd(8, 40) do e.inventory[i] = { item = kinds[rnd(#kinds)], count = rnd(1, 99) } end
  end
  local slot = table.remove(free_slots)
  if slot then entities[slot] = e else entities[#entities + 1] = e end
  return e
end

local function despawn(i)
  if entities[i] then
    entities[i] = false
    free_slots[#free_slots + 1] = i
  end
end

for frame = 1, 400 do
  -- spawn a wave every 8 frames, bigger waves later
  if frame % 8 == 1 then
    for _ = 1, 8 + (frame // 50) do spawn(frame) end
  end
  -- update
  for i = 1, #entities do
    local e = entities[i]
    if e then
      e.x = (e.x + e.vx) % 240
      e.y = (e.y + e.vy) % 160
      if e.ai then
        local p = e.ai.path
        if #p > 0 and rnd(4) == 1 then table.remove(p, 1) end
        if rnd(3) == 1 then p[#p + 1] = { rnd(0, 29), rnd(0, 19) } end
      end
      if rnd(10) == 1 then e.tags[#e.tags + 1] = "hit@" .. frame end
      if rnd(6) == 1 then e.inventory[#e.inventory + 1] = { item = "coin", count = 1 } end
      e.hp = e.hp - rnd(0, 1)
      if e.hp <= 0 then
        log[#log + 1] = string.format("%4d %-12s died at %3d,%3d", frame, e.name, e.x, e.y)
        despawn(i)
      end
    end
  end
  -- the log is a ring of recent lines
  if #log > 64 then
    local keep = {}
    for i = #log - 31, #log do keep[#keep + 1] = log[i] end
    log = keep
  end
  if frame % 50 == 0 then
    local alive = 0
    for i = 1, #entities do if entities[i] then alive = alive + 1 end end
    print(string.format("frame %d: %d alive, %d slots, log %d", frame, alive, #entities, #log))
  end
end
print(table.concat(log, "\n", math.max(1, #log - 4)))
