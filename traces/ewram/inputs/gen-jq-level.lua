-- gen-jq-level.lua: generator of jq-level.input (run: lua5.4 gen-jq-level.lua > jq-level.input)
local out = {}
local kinds = {"slime","bat","knight","archer","chest","torch","coin","door"}
local s = 12345
local function r(n) s = (s * 1103515245 + 12345) % 2147483648; return (s // 65536) % n end
out[#out+1] = '{"level":"forest-2","width":64,"height":32,"entities":['
for i = 1, 80 do
  local k = kinds[r(#kinds)+1]
  local inv = {}
  for j = 1, r(5) do inv[#inv+1] = string.format('{"item":"%s","count":%d}', kinds[r(#kinds)+1], r(20)+1) end
  out[#out+1] = string.format('%s{"id":%d,"kind":"%s","x":%d,"y":%d,"hp":%d,"tags":["%s","zone%d"],"inventory":[%s]}',
    i > 1 and "," or "", i, k, r(64), r(32), r(30)+1, k:sub(1,2), r(6), table.concat(inv, ","))
end
out[#out+1] = ']}'
print(table.concat(out, "\n"))
