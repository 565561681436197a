-- The script the Lua ROMs run (outside_lua.c): strings, tables, closures and coroutines, so
-- the interpreter allocates, grows and frees blocks of many sizes. Output must not depend on
-- addresses (pairs() order, tostring of a table): both heaps must print the same.
local text = [[
It was the best of times, it was the worst of times, it was the age of wisdom, it was the
age of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the
season of Light, it was the season of Darkness, it was the spring of hope, it was the winter
of despair, we had everything before us, we had nothing before us]]

local counts = {}
for word in text:lower():gmatch("%a+") do
  counts[word] = (counts[word] or 0) + 1
end
local words = {}
for w in pairs(counts) do words[#words + 1] = w end
table.sort(words, function(a, b)
  if counts[a] ~= counts[b] then return counts[a] > counts[b] end
  return a < b
end)
for i = 1, 6 do print(string.format("%-8s %d", words[i], counts[words[i]])) end

local entities = {}
for i = 1, 400 do
  entities[i] = { id = i, name = "slime-" .. i, hp = (i * 37) % 100, tags = { "mob", "lvl" .. (i % 7) } }
end
for i = #entities, 1, -3 do table.remove(entities, i) end
local alive, hp = 0, 0
for _, e in ipairs(entities) do
  if e.hp > 20 then alive = alive + 1; hp = hp + e.hp end
end
print("entities", #entities, "alive", alive, "hp", hp)

local function counter()
  local n = 0
  return function(step) n = n + (step or 1); return n end
end
local c = counter()
for i = 1, 100 do c(i) end
print("closure", c(0))

local fib = coroutine.wrap(function()
  local a, b = 0, 1
  while true do coroutine.yield(a); a, b = b, a + b end
end)
local seq = {}
for i = 1, 20 do seq[i] = fib() end
print("fib", table.concat(seq, ","))

local parts = {}
for i = 1, 200 do parts[#parts + 1] = string.rep(string.char(65 + i % 26), i % 13 + 1) end
local joined = table.concat(parts)
local vowels = select(2, joined:gsub("[AEIOU]", ""))
print("joined", #joined, "vowels", vowels, joined:sub(1, 24))

local grid = {}
for y = 1, 32 do
  grid[y] = {}
  for x = 1, 32 do grid[y][x] = (x * y) % 5 == 0 and "#" or "." end
end
local rows = {}
for y = 1, 4 do rows[y] = table.concat(grid[y]) end
print(table.concat(rows, "|"))
print("utf8", utf8.len("h\u{e9}llo w\u{f6}rld"), utf8.char(72, 228, 105))
print("math", math.floor(2 ^ 10), math.max(3, 9, 4), string.format("%.3f", math.pi))
