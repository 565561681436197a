-- gen-gawk-events.lua: generator of gawk-events.log (run: lua5.4 gen-gawk-events.lua > gawk-events.log)
local s = 777
local function r(n) s = (s * 1103515245 + 12345) % 2147483648; return (s // 65536) % n end
local ev = {"spawn","move","hit","pickup","despawn","talk","open"}
local names = {"slime","bat","knight","archer","chest","torch","coin","door","sage","smith"}
for f = 1, 450 do
  local e = ev[r(#ev)+1]
  print(string.format("%d %s %s_%d %d %d %s", f, e, names[r(#names)+1], r(60), r(240), r(160),
    e == "talk" and ("\"" .. string.rep("la", r(12)+1, " ") .. "\"") or ("v" .. r(1000))))
end
